import type { Scope } from '../core/context/scope.js';
import type { Db } from '../core/db/client.js';
import { Prisma, type Term } from '../generated/sqlite/client.js';
import { ApiError, invalidParams, missingParams } from '../core/errors/errors.js';
import { isRecordId } from '../core/rules/ids.js';
import { can, forbidden } from '../core/rules/permissions.js';
import { toSlug } from '../core/rules/slugs.js';
import type { Taxonomy } from '../core/rules/urls.js';
import { claimSlug } from '../core/db/slugs.js';
import type { Tx, WriteScope } from '../core/db/transactions.js';

// Categories (`tribe_events_cat`, hierarchical) and tags (`post_tag`, flat): single reads and writes
// (the lists are in `term-lists.ts`),
// with the reference's rules (docs/reference.md §2.4, §3.2 "Terms", §6.7) and deviations D1, D2, D7, D8.
// A term's `count` is `Term.eventCount`, the published events carrying it, which every event write
// keeps exact (`refreshTermCounts`); deleting a term changes no other term's count.

export const CATEGORY: Taxonomy = 'tribe_events_cat';
export const TAG: Taxonomy = 'post_tag';

const INVALID = 'Invalid parameter.';
const MAX_NAME_LENGTH = 200;

function termNotFound(): ApiError {
  return new ApiError(404, 'term-not-found', 'The requested term does not exist');
}

export function isHierarchical(taxonomy: Taxonomy): boolean {
  return taxonomy === CATEGORY;
}

// ---------------------------------------------------------------------------------------------------
// Single reads

export async function findTerm<T extends object>(
  db: Db | Tx,
  taxonomy: Taxonomy,
  id: number,
  query: T = {} as T,
) {
  const term = await db.term.findFirst({ ...query, where: { id, taxonomy } });
  if (!term) throw termNotFound();
  return term;
}

// ---------------------------------------------------------------------------------------------------
// Writes

/** A category or tag as both APIs give it (absent: unchanged on update). */
export interface TermInput {
  name?: string;
  description?: string;
  slug?: string;
  /** Categories only: an existing category; `null` or `0` for the top level. */
  parentId?: number | null;
}

/** The fields a write sets: the input's, validated (`parentId`: `null` for the top level, never `0`). */
type TermChanges = TermInput;

const nonBlank = (text: string | undefined) => text === undefined || text.trim() !== '';

/**
 * Input validation, as WordPress runs it before the permission check: required and well-formed
 * values, and a parent that is an existing category. `unreadable`: fields the API could not read,
 * named with the invalid ones in one 400.
 */
async function checkInput(
  db: Db | Tx,
  taxonomy: Taxonomy,
  input: TermInput,
  unreadable: readonly string[],
  mode: 'create' | 'update',
): Promise<TermChanges> {
  if (mode === 'create' && input.name === undefined && !unreadable.includes('name'))
    throw missingParams(['name']);
  const bad = new Set(unreadable);
  const changes: TermChanges = {};
  const name = input.name?.trim();
  if (name === '' || (name !== undefined && name.length > MAX_NAME_LENGTH)) bad.add('name');
  else if (name !== undefined) changes.name = name;
  if (!nonBlank(input.description)) bad.add('description');
  else if (input.description !== undefined) changes.description = input.description;
  if (input.slug !== undefined) {
    const sanitized = nonBlank(input.slug) ? toSlug(input.slug, '') : '';
    if (sanitized) changes.slug = sanitized;
    else bad.add('slug');
  }
  if (isHierarchical(taxonomy) && input.parentId !== undefined && !bad.has('parentId')) {
    const parentId = input.parentId || null;
    if (parentId !== null && !isRecordId(parentId)) bad.add('parentId');
    else if (parentId !== null) {
      const parent = await db.term.findFirst({ where: { id: parentId, taxonomy }, select: { id: true } });
      if (parent) changes.parentId = parentId;
      else bad.add('parentId');
    } else changes.parentId = null;
  }
  if (bad.size) {
    const order = ['name', 'description', 'slug', 'parentId'];
    const named = [...bad].sort((a, b) => order.indexOf(a) - order.indexOf(b));
    throw invalidParams(Object.fromEntries(named.map((field) => [field, INVALID])));
  }
  return changes;
}

function termExists(termId: number, hierarchical: boolean): ApiError {
  return new ApiError(
    400,
    'term_exists',
    hierarchical
      ? 'A term with the name provided already exists with this parent.'
      : 'A term with the name provided already exists in this taxonomy.',
    // `wp_insert_term` makes the term id the error's data; the REST controller adds it again, then
    // `{status, term_id}`: each `add_data` pushes the previous data into `additional_data`.
    { term_id: termId, additional_data: [termId, termId] },
  );
}

function duplicateSlug(slug: string): ApiError {
  return new ApiError(400, 'duplicate_term_slug', `The slug “${slug}” is already in use by another term.`);
}

/** Names are unique among siblings (categories) or in the taxonomy (tags), compared without case. */
async function assertNameFree(
  tx: Tx,
  taxonomy: Taxonomy,
  name: string,
  parentId: number | null,
  exceptId?: number,
) {
  const scope = !isHierarchical(taxonomy)
    ? Prisma.empty
    : parentId === null
      ? Prisma.sql`AND "parentId" IS NULL`
      : Prisma.sql`AND "parentId" = ${parentId}`;
  const except = exceptId ? Prisma.sql`AND "id" <> ${exceptId}` : Prisma.empty;
  const [clash] = await tx.$queryRaw<Array<{ id: number | bigint }>>(
    Prisma.sql`SELECT "id" AS id FROM "Term"
      WHERE "taxonomy" = ${taxonomy} AND LOWER("name") = LOWER(${name}) ${scope} ${except}
      ORDER BY "id" LIMIT 1`,
  );
  if (clash) throw termExists(Number(clash.id), isHierarchical(taxonomy));
}

/** A setting of `parentId` that would make the category its own ancestor. */
async function assertNoCycle(tx: Tx, termId: number, parentId: number | null) {
  const seen = new Set<number>();
  for (let current = parentId; current !== null;) {
    if (current === termId)
      throw invalidParams({ parentId: 'A category cannot be its own parent or a child of its descendants.' });
    if (seen.has(current)) break;
    seen.add(current);
    const parent: { parentId: number | null } | null = await tx.term.findUnique({
      where: { id: current },
      select: { parentId: true },
    });
    current = parent?.parentId ?? null;
  }
}

/** The lock key of a term name: writes creating or renaming to one name wait for each other. */
export function termNameKey(taxonomy: Taxonomy, name: string): string {
  return `term:${taxonomy}:${name.trim().toLowerCase()}`;
}

/** `base` made free in the taxonomy: `music`, else `music-2`, `music-3`, … */
function freeSlug(w: WriteScope, taxonomy: Taxonomy, base: string, fallback: string): Promise<string> {
  const root = toSlug(base, fallback);
  return claimSlug(w, `term-slug:${taxonomy}:${root}`, root, async (prefix) =>
    (
      await w.tx.term.findMany({ where: { taxonomy, slug: { startsWith: prefix } }, select: { slug: true } })
    ).map((term) => term.slug),
  );
}

const FALLBACK_SLUG: Record<Taxonomy, string> = { tribe_events_cat: 'category', post_tag: 'tag' };

/**
 * Inserts a term inside a write: the name must be free among its siblings, the slug (given or derived
 * from the name) is made unique in the taxonomy as WordPress does on insert. Also meant for event
 * writes that create categories or tags by name.
 */
export async function insertTerm(
  w: WriteScope,
  taxonomy: Taxonomy,
  fields: { name: string; description?: string; slug?: string; parentId?: number | null },
): Promise<Term> {
  const parentId = isHierarchical(taxonomy) ? (fields.parentId ?? null) : null;
  await w.lock([termNameKey(taxonomy, fields.name)]);
  await assertNameFree(w.tx, taxonomy, fields.name, parentId);
  const slug = await freeSlug(w, taxonomy, fields.slug ?? fields.name, FALLBACK_SLUG[taxonomy]);
  const term = await w.tx.term.create({
    data: { taxonomy, name: fields.name, slug, description: fields.description ?? '', parentId },
  });
  w.changed('term', term.id, 'created');
  return term;
}

/** A term write: one transaction, for editors and above only (D8: categories and tags alike). */
function termWrite<T>(scope: Scope, work: (w: WriteScope) => Promise<T>): Promise<T> {
  return scope.writes.run(
    scope,
    async (w) => {
      if (!can(w.viewer, 'manage_terms')) throw forbidden(w.viewer);
      return work(w);
    },
    { conflictCode: 'term-write-conflict' },
  );
}

/** A term deleted by another request meanwhile is a 404, never a 500. */
function deletedMeanwhile(error: unknown): never {
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025') throw termNotFound();
  throw error;
}

/**
 * Creates a category or tag: validation (400) → permission (401/403) → conflicts (400), one
 * write. `read` loads the result inside it (GraphQL selects what it needs).
 */
export function createTerm<T>(
  scope: Scope,
  taxonomy: Taxonomy,
  input: TermInput,
  read: (tx: Tx, id: number) => Promise<T>,
  unreadable: readonly string[] = [],
): Promise<T> {
  return termWrite(scope, async (w) => {
    const changes = await checkInput(w.tx, taxonomy, input, unreadable, 'create');
    const term = await insertTerm(w, taxonomy, { ...changes, name: changes.name as string });
    return read(w.tx, term.id);
  });
}

/** The term, its row locked for the rest of the write (a concurrent delete is then seen as a 404). */
async function lockedTerm(w: WriteScope, taxonomy: Taxonomy, id: number): Promise<Term> {
  await w.lockRows('Term', [id]);
  return findTerm(w.tx, taxonomy, id);
}

/** Updates a category or tag; a given slug that another term has is a 400 (D7), never renamed. */
export function updateTerm<T>(
  scope: Scope,
  taxonomy: Taxonomy,
  id: number,
  input: TermInput,
  read: (tx: Tx, id: number) => Promise<T>,
  unreadable: readonly string[] = [],
): Promise<T> {
  return termWrite(scope, async (w) => {
    const { tx } = w;
    const existing = await lockedTerm(w, taxonomy, id);
    w.expectVersion(existing);
    const changes = await checkInput(tx, taxonomy, input, unreadable, 'update');
    const parentId = changes.parentId !== undefined ? changes.parentId : existing.parentId;
    if (changes.parentId !== undefined) await assertNoCycle(tx, id, changes.parentId);
    if (changes.name !== undefined || changes.parentId !== undefined) {
      const name = changes.name ?? existing.name;
      await w.lock([termNameKey(taxonomy, name)]);
      await assertNameFree(tx, taxonomy, name, parentId, id);
    }
    if (changes.slug !== undefined && changes.slug !== existing.slug) {
      await w.lock([`term-slug:${taxonomy}:${changes.slug}`]);
      const owner = await tx.term.findUnique({
        where: { taxonomy_slug: { taxonomy, slug: changes.slug } },
        select: { id: true },
      });
      if (owner) throw duplicateSlug(changes.slug);
    }
    if (Object.keys(changes).length) {
      await tx.term.update({ where: { id }, data: changes }).catch(deletedMeanwhile);
      w.changed('term', id, 'updated');
    }
    return read(tx, id);
  });
}

/**
 * Deletes a category or tag for good (the reference forces it) and returns it as it was, count
 * included: `read` runs before the deletion. Children move up to the deleted category's parent; the
 * events lose the term (no other term's count changes).
 */
export function deleteTerm<T>(
  scope: Scope,
  taxonomy: Taxonomy,
  id: number,
  read: (tx: Tx, id: number) => Promise<T>,
): Promise<T> {
  return termWrite(scope, async (w) => {
    const { tx } = w;
    const existing = await lockedTerm(w, taxonomy, id);
    w.expectVersion(existing);
    const before = await read(tx, id);
    if (isHierarchical(taxonomy)) {
      const children = await tx.term.findMany({ where: { parentId: id }, select: { id: true } });
      await tx.term.updateMany({ where: { parentId: id }, data: { parentId: existing.parentId } });
      for (const child of children) w.changed('term', child.id, 'updated');
    }
    const events = await tx.eventTerm.findMany({ where: { termId: id }, select: { eventId: true } });
    await tx.eventTerm.deleteMany({ where: { termId: id } });
    await tx.term.delete({ where: { id } }).catch(deletedMeanwhile);
    w.changed('term', id, 'deleted', { taxonomy });
    for (const { eventId } of events) w.changed('event', eventId, 'updated');
    return before;
  });
}
