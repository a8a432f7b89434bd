import type { Scope } from '../context.js';
import type { Db } from '../db/client.js';
import { Prisma, type Term } from '../generated/sqlite/client.js';
import { ApiError, invalidParams, missingParams } from '../domain/errors.js';
import { type Paging, skipTake, totalPages } from '../domain/paging.js';
import { type Viewer, can, forbidden } from '../domain/permissions.js';
import { toSlug, uniqueSlug } from '../domain/slugs.js';
import { SEARCH_TOO_LONG, exceeds, searchTooLong, tooManyValues } from '../domain/limits.js';
import { eventLinksAccess } from '../domain/visibility.js';
import type { Taxonomy } from '../domain/urls.js';
import type { Tx, WriteScope } from './transactions.js';

// Categories (`tribe_events_cat`, hierarchical) and tags (`post_tag`, flat): list filters and writes,
// with the reference's rules (docs/reference.md §2.4, §3.2 "Terms", §6.7) and deviations D1, D2, D7, D8.
// A term's `count` is `Term.eventCount`, the published events carrying it, which every event write
// keeps exact (`refreshTermCounts`); deleting a term changes no other term's count.

export const CATEGORY: Taxonomy = 'tribe_events_cat';
export const TAG: Taxonomy = 'post_tag';

const INVALID = 'Invalid parameter.';
const MAX_NAME_LENGTH = 200;

export const TERM_ORDER_FIELDS = ['id', 'name', 'slug', 'count', 'term_group', 'description'] as const;
export type TermOrderField = (typeof TERM_ORDER_FIELDS)[number];
export type SortOrder = 'asc' | 'desc';

type Reader = Pick<Scope, 'db' | 'viewer'>;

export function termNotFound(): ApiError {
  return new ApiError(404, 'term-not-found', 'The requested term does not exist');
}

export function isHierarchical(taxonomy: Taxonomy): boolean {
  return taxonomy === CATEGORY;
}

// ---------------------------------------------------------------------------------------------------
// Lists

/** The list filters both APIs share (REST names in snake_case). */
export interface TermListFilter {
  search?: string | null;
  include?: number[] | null;
  exclude?: number[] | null;
  order?: string | null;
  orderby?: string | null;
  hideEmpty?: boolean | null;
  /** Categories only; `0` lists top-level categories. */
  parent?: number | null;
  post?: number | null;
  /** Alias of `post`; wins when both are given. */
  event?: number | null;
  slug?: string | null;
}

/** The filters as applied, echoed in `rest_url` and the paging links (D2). */
export interface EffectiveTermFilter {
  search: string | null;
  include: number[];
  exclude: number[];
  order: SortOrder;
  orderby: TermOrderField;
  hideEmpty: boolean;
  parent: number | null;
  event: number | null;
  /** The event is protected and this viewer cannot unlock it: none of its terms are listed. */
  eventWithheld: boolean;
  /** The name the event was given under, echoed back as sent (`post` is WordPress's, `event` TEC's). */
  eventParam: 'event' | 'post';
  slug: string | null;
}

export interface TermArchive {
  /** The page's term ids, in list order. */
  ids: number[];
  paging: Paging;
  total: number;
  totalPages: number;
  effective: EffectiveTermFilter;
}

const nonBlank = (value: string | null | undefined): value is string =>
  typeof value === 'string' && value.trim() !== '';

/** Checks every filter value (all failures at once, as WordPress); unknown ids are invalid values. */
async function resolveListFilter(
  reader: Reader,
  taxonomy: Taxonomy,
  filter: TermListFilter,
): Promise<EffectiveTermFilter> {
  const bad: Record<string, string> = {};
  const given = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;

  if (given(filter.search) && !nonBlank(filter.search)) bad.search = INVALID;
  if (searchTooLong(filter.search)) bad.search = SEARCH_TOO_LONG;
  if (exceeds(filter.include)) bad.include = tooManyValues();
  if (exceeds(filter.exclude)) bad.exclude = tooManyValues();
  if (bad.search || bad.include || bad.exclude) throw invalidParams(bad);
  if (given(filter.slug) && !nonBlank(filter.slug)) bad.slug = INVALID;
  const order = given(filter.order) ? filter.order.trim().toLowerCase() : 'asc';
  if (order !== 'asc' && order !== 'desc') bad.order = INVALID;
  const orderby = given(filter.orderby) ? filter.orderby.trim().toLowerCase() : 'name';
  if (!(TERM_ORDER_FIELDS as readonly string[]).includes(orderby)) bad.orderby = INVALID;

  const include = [...new Set(filter.include ?? [])];
  const exclude = [...new Set(filter.exclude ?? [])];
  const parent = isHierarchical(taxonomy) && given(filter.parent) ? filter.parent : null;
  const listed = [...include, ...exclude, ...(parent ? [parent] : [])];
  if (listed.length) {
    const found = new Set(
      (
        await reader.db.term.findMany({
          where: { id: { in: listed.filter((id) => id > 0) }, taxonomy },
          select: { id: true },
        })
      ).map((term) => term.id),
    );
    if (include.some((id) => !found.has(id))) bad.include = INVALID;
    if (exclude.some((id) => !found.has(id))) bad.exclude = INVALID;
    if (parent !== null && parent !== 0 && !found.has(parent)) bad.parent = INVALID;
  }
  if (parent !== null && parent < 0) bad.parent = INVALID;

  const eventIds = { post: filter.post, event: filter.event };
  let eventWithheld = false;
  const askedEvents = Object.entries(eventIds).filter((entry): entry is [string, number] => given(entry[1]));
  if (askedEvents.length) {
    const events = await reader.db.event.findMany({
      where: { id: { in: askedEvents.map(([, id]) => id) } },
      select: { id: true, status: true, authorId: true, password: true },
    });
    for (const [param, id] of askedEvents) {
      const access = eventLinksAccess(reader.viewer, events.find((candidate) => candidate.id === id) ?? null);
      if (access === 'unknown') bad[param] = INVALID;
      if (access === 'withheld') eventWithheld = true;
    }
  }
  if (Object.keys(bad).length) throw invalidParams(bad);

  return {
    search: filter.search ?? null,
    include,
    exclude,
    order: order as SortOrder,
    orderby: orderby as TermOrderField,
    hideEmpty: filter.hideEmpty ?? true,
    parent,
    event: filter.event ?? filter.post ?? null,
    eventWithheld,
    eventParam: given(filter.event) ? 'event' : 'post',
    // Slugs are lower-case: `Music` finds `music`, as WordPress sanitises the value.
    slug: filter.slug?.trim().toLowerCase() ?? null,
  };
}

const ORDER_COLUMN: Record<TermOrderField, Prisma.Sql | null> = {
  id: Prisma.sql`t."id"`,
  name: Prisma.sql`LOWER(t."name")`,
  slug: Prisma.sql`t."slug"`,
  count: Prisma.sql`t."eventCount"`,
  // WordPress' term groups are unused: every term is in group 0, so the order is the tie-break's.
  term_group: null,
  description: Prisma.sql`LOWER(t."description")`,
};

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/**
 * `[WITH …] SELECT … FROM "Term" t WHERE …` of a term list. With `hide_empty`, a category stays
 * listed while one of its descendants has events (as WordPress shows hierarchical taxonomies); a tag
 * needs events of its own.
 */
function listSql(
  taxonomy: Taxonomy,
  filter: EffectiveTermFilter,
  select: Prisma.Sql,
  tail: Prisma.Sql = Prisma.empty,
): Prisma.Sql {
  const conditions: Prisma.Sql[] = [Prisma.sql`t."taxonomy" = ${taxonomy}`];
  if (filter.search) {
    // As WordPress: a substring of the name or of the slug, in any case.
    const pattern = `%${escapeLike(filter.search)}%`;
    conditions.push(
      Prisma.sql`(LOWER(t."name") LIKE LOWER(${pattern}) ESCAPE '\\' OR t."slug" LIKE LOWER(${pattern}) ESCAPE '\\')`,
    );
  }
  if (filter.include.length) conditions.push(Prisma.sql`t."id" IN (${Prisma.join(filter.include)})`);
  if (filter.exclude.length) conditions.push(Prisma.sql`t."id" NOT IN (${Prisma.join(filter.exclude)})`);
  if (filter.parent === 0) conditions.push(Prisma.sql`t."parentId" IS NULL`);
  else if (filter.parent !== null) conditions.push(Prisma.sql`t."parentId" = ${filter.parent}`);
  if (filter.eventWithheld) conditions.push(Prisma.sql`1 = 0`);
  if (filter.event !== null) {
    conditions.push(
      Prisma.sql`EXISTS (SELECT 1 FROM "EventTerm" x WHERE x."termId" = t."id" AND x."eventId" = ${filter.event})`,
    );
  }
  if (filter.slug) conditions.push(Prisma.sql`t."slug" = ${filter.slug}`);
  const hierarchicalHide = filter.hideEmpty && isHierarchical(taxonomy);
  if (hierarchicalHide) conditions.push(Prisma.sql`t."id" IN (SELECT id FROM visible)`);
  else if (filter.hideEmpty) conditions.push(Prisma.sql`t."eventCount" > 0`);

  // Terms with events, and every ancestor of one (UNION ends the walk even on bad data).
  const visible = Prisma.sql`WITH RECURSIVE visible(id) AS (
    SELECT "id" FROM "Term" WHERE "taxonomy" = ${taxonomy} AND "eventCount" > 0
    UNION
    SELECT up."parentId" FROM "Term" up JOIN visible v ON up."id" = v.id WHERE up."parentId" IS NOT NULL
  )`;
  return Prisma.sql`${hierarchicalHide ? visible : Prisma.empty}
    SELECT ${select} FROM "Term" t
    WHERE ${Prisma.join(conditions, ' AND ')}
    ${tail}`;
}

/** One page of categories or tags: validates the filters, counts the matches, picks the page's ids. */
export async function listTerms(
  reader: Reader,
  taxonomy: Taxonomy,
  filter: TermListFilter,
  paging: Paging,
): Promise<TermArchive> {
  const effective = await resolveListFilter(reader, taxonomy, filter);
  const [{ total }] = await reader.db.$queryRaw<[{ total: number | bigint }]>(
    listSql(taxonomy, effective, Prisma.sql`COUNT(*) AS total`),
  );
  const { skip, take } = skipTake(paging);
  const direction = Prisma.raw(effective.order === 'desc' ? 'DESC' : 'ASC');
  const orderColumn = ORDER_COLUMN[effective.orderby];
  const rows = await reader.db.$queryRaw<Array<{ id: number | bigint }>>(
    listSql(
      taxonomy,
      effective,
      Prisma.sql`t."id" AS id`,
      Prisma.sql`ORDER BY ${orderColumn ? Prisma.sql`${orderColumn} ${direction}, ` : Prisma.empty}t."id" ASC LIMIT ${take} OFFSET ${skip}`,
    ),
  );
  const ids = rows.map((row) => Number(row.id));
  return {
    ids,
    paging,
    total: Number(total),
    totalPages: totalPages(Number(total), paging.perPage),
    effective,
  };
}

/** Query-string pairs that reproduce the list (D2: every effective filter), `page` excluded. */
export function termListParams(archive: TermArchive, taxonomy: Taxonomy): Array<[string, string]> {
  const { effective: f, paging } = archive;
  const params: Array<[string, string]> = [['per_page', String(paging.perPage)]];
  if (f.search) params.push(['search', f.search]);
  if (f.exclude.length) params.push(['exclude', f.exclude.join(',')]);
  if (f.include.length) params.push(['include', f.include.join(',')]);
  params.push(['order', f.order], ['orderby', f.orderby], ['hide_empty', String(f.hideEmpty)]);
  if (isHierarchical(taxonomy) && f.parent !== null) params.push(['parent', String(f.parent)]);
  if (f.event !== null) params.push([f.eventParam, String(f.event)]);
  if (f.slug) params.push(['slug', f.slug]);
  return params;
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

/** The fields a write may set, validated (absent = leave unchanged on update). */
interface TermChanges {
  name?: string;
  description?: string;
  slug?: string;
  /** `null` = top level (categories only). */
  parentId?: number | null;
}

function readString(
  body: Record<string, unknown>,
  key: string,
  bad: Record<string, string>,
): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    bad[key] = INVALID;
    return undefined;
  }
  return value;
}

function readParent(value: unknown, bad: Record<string, string>): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    bad.parent = INVALID;
    return undefined;
  }
  return Number(text) === 0 ? null : Number(text);
}

/**
 * Parameter validation, as WordPress runs it before the permission check: required and well-formed
 * values, and a parent that is an existing category.
 */
async function validateBody(
  db: Db | Tx,
  taxonomy: Taxonomy,
  input: unknown,
  mode: 'create' | 'update',
): Promise<TermChanges> {
  const body =
    input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  if (mode === 'create' && (body.name === undefined || body.name === null)) throw missingParams(['name']);
  const bad: Record<string, string> = {};
  const changes: TermChanges = {};

  const name = readString(body, 'name', bad);
  if (name !== undefined) {
    if (name.trim().length > MAX_NAME_LENGTH) bad.name = INVALID;
    else changes.name = name.trim();
  }
  const description = readString(body, 'description', bad);
  if (description !== undefined) changes.description = description;
  const slug = readString(body, 'slug', bad);
  if (slug !== undefined) {
    const sanitized = toSlug(slug, '');
    if (sanitized) changes.slug = sanitized;
    else bad.slug = INVALID;
  }
  if (isHierarchical(taxonomy)) {
    const parentId = readParent(body.parent, bad);
    if (parentId) {
      const parent = await db.term.findFirst({ where: { id: parentId, taxonomy }, select: { id: true } });
      if (!parent) bad.parent = INVALID;
    }
    if (parentId !== undefined && !bad.parent) changes.parentId = parentId;
  }
  if (Object.keys(bad).length) throw invalidParams(bad);
  return changes;
}

function assertManageTerms(viewer: Viewer): void {
  // D8: categories and tags alike need an editor or above.
  if (!can(viewer, 'manage_terms')) throw forbidden(viewer);
}

function termExists(termId: number, hierarchical: boolean): ApiError {
  return new ApiError(
    400,
    'term_exists',
    hierarchical
      ? 'A term with the name provided already exists with this parent.'
      : 'A term with the name provided already exists in this taxonomy.',
    // WordPress adds `{status, term_id}` to an error whose data was the term id: the REST answer shows
    // the latter as `data` and the former in `additional_data`.
    { term_id: termId, additional_data: [termId] },
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
      throw invalidParams({ parent: 'A category cannot be its own parent or a child of its descendants.' });
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
async function freeSlug(w: WriteScope, taxonomy: Taxonomy, base: string, fallback: string): Promise<string> {
  const root = toSlug(base, fallback);
  await w.lock([`term-slug:${taxonomy}:${root}`]);
  const taken = new Set(
    (
      await w.tx.term.findMany({ where: { taxonomy, slug: { startsWith: root } }, select: { slug: true } })
    ).map((term) => term.slug),
  );
  return uniqueSlug(root, async (slug) => taken.has(slug), fallback);
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

const CONFLICT = { conflictCode: 'term-write-conflict' };

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
  input: unknown,
  read: (tx: Tx, id: number) => Promise<T>,
): Promise<T> {
  return scope.writes.run(
    scope,
    async (w) => {
      assertManageTerms(w.viewer);
      const changes = await validateBody(w.tx, taxonomy, input, 'create');
      const term = await insertTerm(w, taxonomy, { ...changes, name: changes.name as string });
      return read(w.tx, term.id);
    },
    CONFLICT,
  );
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
  input: unknown,
  read: (tx: Tx, id: number) => Promise<T>,
): Promise<T> {
  return scope.writes.run(
    scope,
    async (w) => {
      const { tx } = w;
      assertManageTerms(w.viewer);
      const existing = await lockedTerm(w, taxonomy, id);
      w.expectVersion(existing);
      const changes = await validateBody(tx, taxonomy, input, 'update');
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
    },
    CONFLICT,
  );
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
  return scope.writes.run(
    scope,
    async (w) => {
      const { tx } = w;
      assertManageTerms(w.viewer);
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
      w.changed('term', id, 'deleted', taxonomy);
      for (const { eventId } of events) w.changed('event', eventId, 'updated');
      return before;
    },
    CONFLICT,
  );
}
