import { z } from 'zod';
import type { Scope } from '../../core/context/scope.js';
import type { Db } from '../../core/db/client.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import type { DateTime } from 'luxon';
import { parseDateInput, publicationDates } from '../../core/rules/dates.js';
import { ApiError, invalidParams, missingParams } from '../../core/errors/errors.js';
import { isRecordId } from '../../core/rules/ids.js';
import {
  assertMayAttribute,
  type Viewer,
  canCreate,
  canDelete,
  canDeletePermanently,
  canEdit,
  canRead,
  effectiveStatus,
  forbidden,
} from '../../core/rules/permissions.js';
import { toSlug } from '../../core/rules/slugs.js';
import { isUrl } from '../../core/rules/urls.js';
import { NOT_FOUND } from '../../core/rules/visibility.js';
import { nextModified } from '../../core/rules/versions.js';
import { type LinkedKind, textMatch } from './linked-lists.js';
import { type ImageChoice, checkImage, recordImage } from '../../core/db/media.js';
import { claimSlug } from '../../core/db/slugs.js';
import type { Tx, WriteScope } from '../../core/db/transactions.js';

// What venue and organizer writes (the reference's "linked posts") share: input validation, duplicate
// detection on create, and the trash / permanent-delete rules. `venues.ts` and `organizers.ts` supply
// their own fields and Prisma calls through a `LinkedStore`; the lists are in `linked-lists.ts`.

/** The columns both models share. */
export interface LinkedRow {
  id: number;
  slug: string;
  name: string;
  description: string;
  status: string;
  authorId: number | null;
  password: string | null;
  modifiedAt: Date;
}

export type LinkedKey = { id: number } | { slug: string };

// ---- Input -----------------------------------------------------------------------------------------

const INVALID = 'Invalid parameter.';
export const WRITABLE_STATUSES = ['publish', 'draft', 'pending', 'private', 'future'] as const;

/** The post fields every venue and organizer input has (absent: unchanged). */
export interface LinkedPostInput {
  name?: string;
  description?: string;
  status?: string;
  authorId?: number;
  /** Publication date in the site time zone, in any accepted form; with `dateUtc`, each is kept as sent. */
  date?: string | number;
  dateUtc?: string | number;
  /** A media id or an image URL; `""` or `0` removes the image. */
  image?: string | number;
  /** `""` removes it. */
  password?: string;
}

/** A website: a URL, or `""` to clear it (events' `website`). */
export const urlField = z
  .string()
  .transform((text) => text.trim())
  .refine((text) => text === '' || isUrl(text));

const POST_FIELDS = ['name', 'authorId', 'date', 'dateUtc', 'description', 'status', 'password'] as const;

function publicationDate(value: string | number | undefined, zone: string): DateTime | null | undefined {
  if (value === undefined) return undefined;
  const date = parseDateInput(value, zone);
  return date && date.isValid ? date : null;
}

/** A checked input: the post columns, and the kind's own. */
interface CheckedInput<Own> {
  name?: string;
  description?: string;
  status?: string;
  authorId?: number;
  publishedAt?: Date;
  postDate?: string | null;
  image?: ImageChoice;
  password?: string;
  own: Own;
}

/**
 * The one validation of a venue or organizer input: missing name on create →
 * `rest_missing_callback_param`; bad values (and those the API could not read) → one
 * `rest_invalid_param` naming each domain field; `authorId` and `image` are checked against the
 * database (and image URLs against the upload right).
 */
async function checkInput<Input extends LinkedPostInput, Own>(
  w: WriteScope,
  store: Pick<LinkedStore<LinkedRow, Input, Own>, 'fields' | 'own'>,
  input: Input,
  unreadable: readonly string[],
  create: boolean,
): Promise<CheckedInput<Own>> {
  if (create && input.name === undefined && !unreadable.includes('name')) throw missingParams(['name']);
  const bad = new Set<string>(unreadable);
  const name = input.name?.trim();
  if (name === '') bad.add('name');
  if (input.authorId !== undefined && !isRecordId(input.authorId)) bad.add('authorId');
  const date = publicationDate(input.date, w.config.siteTimezone);
  if (date === null) bad.add('date');
  const dateUtc = publicationDate(input.dateUtc, 'UTC');
  if (dateUtc === null) bad.add('dateUtc');
  const status = input.status?.trim();
  if (status !== undefined && !(WRITABLE_STATUSES as readonly string[]).includes(status)) bad.add('status');
  const own = store.own(input);
  for (const field of own.invalid) bad.add(field);
  if (input.authorId !== undefined && !bad.has('authorId')) {
    const author = await w.tx.user.findUnique({ where: { id: input.authorId }, select: { id: true } });
    if (!author) bad.add('authorId');
  }
  let image: ImageChoice | undefined;
  if (input.image !== undefined && !bad.has('image')) {
    try {
      image = await checkImage(w.tx, w.viewer, input.image);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      bad.add('image');
    }
  }
  if (bad.size) {
    const order: readonly string[] = [...POST_FIELDS, ...store.fields, 'image'];
    const rank = (field: string) => (order.includes(field) ? order.indexOf(field) : order.length);
    const named = [...bad].sort((a, b) => rank(a) - rank(b));
    throw invalidParams(Object.fromEntries(named.map((field) => [field, INVALID])));
  }
  return {
    name,
    description: input.description,
    status,
    authorId: input.authorId,
    ...publicationDates(date ?? undefined, dateUtc ?? undefined, w.config.siteTimezone),
    image,
    password: input.password,
    own: own.data,
  };
}

// ---- Writes ----------------------------------------------------------------------------------------

/** The shared columns of a write; the kind adds its own from `LinkedStore.own`. */
interface CommonData {
  name?: string;
  description?: string;
  status?: string;
  authorId?: number | null;
  publishedAt?: Date;
  postDate?: string | null;
  imageId?: number | null;
  password?: string | null;
  modifiedAt?: Date;
}

/** The kind's own fields and Prisma calls, typed by its model and its input. */
export interface LinkedStore<Row extends LinkedRow, Input extends LinkedPostInput, Own> {
  kind: LinkedKind;
  /** The kind's own input fields, in the order a 400 names them. */
  fields: ReadonlyArray<keyof Input & string>;
  /** The kind's own columns from an input, and the fields whose values are invalid. */
  own(input: Input): { data: Own; invalid: string[] };
  find(db: Tx | Db, key: LinkedKey): Promise<Row | null>;
  /** Non-trashed records whose name matches `name` (case-insensitively; exactness is checked here). */
  named(tx: Tx, name: Prisma.StringFilter): Promise<Row[]>;
  /** The slugs of the kind that start with `prefix`. */
  slugsLike(tx: Tx, prefix: string): Promise<string[]>;
  create(tx: Tx, data: CommonData & { name: string; slug: string }, own: Own): Promise<Row>;
  /** `own` is absent when only post columns change (e.g. trashing). */
  update(tx: Tx, id: number, data: CommonData, own?: Own): Promise<Row>;
  /** The ids of the events that list the record. */
  linkedEvents(tx: Tx, id: number): Promise<number[]>;
  /** Removes the record from every event that lists it. */
  unlinkEvents(tx: Tx, id: number): Promise<void>;
  remove(tx: Tx, id: number): Promise<void>;
}

function couldNot(kind: LinkedKind, action: 'create' | 'update'): ApiError {
  return new ApiError(
    400,
    `could-not-${action}-${kind}`,
    `The ${kind} could not be ${action}d from the provided data`,
  );
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'P2002';
}

const accentSensitive = new Intl.Collator('en', { sensitivity: 'accent' });

function sameText(a: string, b: string): boolean {
  return accentSensitive.compare(a, b) === 0;
}

/**
 * The reference's duplicate check (D18): a record of that kind with the same name — and the same
 * description when one is sent — compared case-insensitively, that the viewer may read.
 */
async function findDuplicate<Row extends LinkedRow>(
  w: WriteScope,
  store: Pick<LinkedStore<Row, never, unknown>, 'named'>,
  name: string,
  description: string | undefined,
): Promise<Row | null> {
  const candidates = await store.named(w.tx, textMatch(w.config.databaseProvider, name));
  const match = candidates
    .sort((a, b) => a.id - b.id)
    .find(
      (candidate) =>
        sameText(candidate.name, name) &&
        (!description || sameText(candidate.description, description)) &&
        canRead(w.viewer, candidate),
    );
  return match ?? null;
}

/**
 * Creates a venue or organizer, or returns the existing duplicate unchanged. Usable inside an event
 * write (same transaction, same validation). `unreadable`: fields the API could not read.
 */
async function createOrMatch<Row extends LinkedRow, Input extends LinkedPostInput, Own>(
  w: WriteScope,
  store: LinkedStore<Row, Input, Own>,
  given: Input,
  unreadable: readonly string[] = [],
): Promise<{ record: Row; created: boolean }> {
  const { tx, viewer } = w;
  if (!canCreate(viewer)) throw forbidden(viewer);
  const input = await checkInput(w, store, given, unreadable, true);
  assertMayAttribute(viewer, input.authorId);
  const name = input.name!;
  // Two requests creating the same venue at once: the second waits, then finds the first.
  const root = toSlug(name, store.kind);
  const slugLock = `${store.kind}:slug:${root}`;
  await w.lock([`${store.kind}:name:${name.toLowerCase()}`, slugLock]);
  const duplicate = await findDuplicate(w, store, name, input.description);
  if (duplicate) return { record: duplicate, created: false };
  const slug = await claimSlug(w, slugLock, root, (prefix) => store.slugsLike(tx, prefix));
  const data = {
    ...(await commonData(tx, viewer, input)),
    name,
    slug,
    status: effectiveStatus(viewer, input.status),
    authorId: input.authorId ?? viewer.userId,
  };
  try {
    const record = await store.create(tx, data, input.own);
    w.changed(store.kind, record.id, 'created');
    return { record, created: true };
  } catch (error) {
    if (isUniqueViolation(error)) throw couldNot(store.kind, 'create');
    throw error;
  }
}

async function commonData<Own>(tx: Tx, viewer: Viewer, input: CheckedInput<Own>): Promise<CommonData> {
  return {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.authorId !== undefined ? { authorId: input.authorId } : {}),
    ...(input.publishedAt ? { publishedAt: input.publishedAt, postDate: input.postDate } : {}),
    ...(input.image ? { imageId: await recordImage(tx, viewer, input.image) } : {}),
    ...(input.password !== undefined ? { password: input.password === '' ? null : input.password } : {}),
  };
}

/** The record, its row locked for the rest of the write. */
async function existing<Row extends LinkedRow>(
  w: WriteScope,
  store: Pick<LinkedStore<Row, never, unknown>, 'find' | 'kind'>,
  key: LinkedKey,
): Promise<Row> {
  const found = await store.find(w.tx, key);
  if (!found) throw NOT_FOUND[store.kind]('id' in key ? key.id : key.slug);
  await w.lockRows(store.kind === 'venue' ? 'Venue' : 'Organizer', [found.id]);
  const record = await store.find(w.tx, { id: found.id });
  if (!record) throw NOT_FOUND[store.kind]('id' in key ? key.id : key.slug);
  return record;
}

/** Applies the fields sent; empty strings clear them; omitted ones (status included) stay. */
async function updateLinked<Row extends LinkedRow, Input extends LinkedPostInput, Own>(
  w: WriteScope,
  store: LinkedStore<Row, Input, Own>,
  key: LinkedKey,
  given: Input,
  unreadable: readonly string[] = [],
): Promise<Row> {
  const { tx, viewer } = w;
  const record = await existing(w, store, key);
  if (!canEdit(viewer, record)) throw forbidden(viewer);
  w.expectVersion(record);
  const input = await checkInput(w, store, given, unreadable, false);
  assertMayAttribute(viewer, input.authorId);
  const data: CommonData = {
    ...(await commonData(tx, viewer, input)),
    ...(input.status !== undefined ? { status: effectiveStatus(viewer, input.status) } : {}),
    modifiedAt: nextModified(record.modifiedAt),
  };
  try {
    const updated = await store.update(tx, record.id, data, input.own);
    w.changed(store.kind, record.id, 'updated');
    return updated;
  } catch (error) {
    if (isUniqueViolation(error)) throw couldNot(store.kind, 'update');
    throw error;
  }
}

/**
 * Trashes the record (unlinking it from its events) and returns it as `load` reads it; a second
 * trash is a 410. `force` deletes it permanently (D4, editors and above) and returns what it was.
 */
async function deleteLinked<Row extends LinkedRow, T>(
  w: WriteScope,
  store: LinkedStore<Row, never, unknown>,
  key: LinkedKey,
  force: boolean,
  load: (tx: Tx, id: number) => Promise<T>,
): Promise<T> {
  const { tx, viewer } = w;
  const record = await existing(w, store, key);
  if (!canDelete(viewer, record) || (force && !canDeletePermanently(viewer))) throw forbidden(viewer);
  w.expectVersion(record);
  // Its events lose it either way (a permanent delete cascades to the links).
  const linkedEvents = await store.linkedEvents(tx, record.id);
  for (const eventId of linkedEvents) w.changed('event', eventId, 'updated');
  if (force) {
    const before = await load(tx, record.id);
    await store.remove(tx, record.id);
    w.changed(store.kind, record.id, 'deleted');
    return before;
  }
  if (record.status === 'trash') {
    throw new ApiError(410, `${store.kind}-is-in-trash`, `The ${store.kind} is already trashed`);
  }
  await store.unlinkEvents(tx, record.id);
  await store.update(tx, record.id, { status: 'trash', modifiedAt: nextModified(record.modifiedAt) });
  w.changed(store.kind, record.id, 'trashed');
  return load(tx, record.id);
}

/** Runs a venue or organizer write through the write pipeline (a lost race answers 409). */
export function writeLinked<T>(
  scope: Scope,
  kind: LinkedKind,
  work: (w: WriteScope) => Promise<T>,
): Promise<T> {
  return scope.writes.run(scope, work, { conflictCode: `${kind}-write-conflict` });
}

/**
 * A kind's writes over its store, declared once for venues and organizers: `createOrMatch` creates a
 * record or returns its duplicate (`created: false`); `unreadable` names input fields the API could
 * not read, reported in the same 400 as the invalid ones.
 */
export function linkedWrites<Row extends LinkedRow, Input extends LinkedPostInput, Own>(
  store: LinkedStore<Row, Input, Own>,
) {
  return {
    createOrMatch: (w: WriteScope, input: Input, unreadable: readonly string[] = []) =>
      createOrMatch(w, store, input, unreadable),
    update: (w: WriteScope, key: LinkedKey, input: Input, unreadable: readonly string[] = []) =>
      updateLinked(w, store, key, input, unreadable),
    remove: <T>(w: WriteScope, key: LinkedKey, force: boolean, load: (tx: Tx, id: number) => Promise<T>) =>
      deleteLinked(w, store as LinkedStore<Row, never, unknown>, key, force, load),
  };
}
