import { z } from 'zod';
import type { Scope } from '../context.js';
import type { Db } from '../db/client.js';
import type { Prisma } from '../generated/sqlite/client.js';
import { parseDateInput } from '../domain/dates.js';
import { ApiError, invalidParams, missingParams } from '../domain/errors.js';
import { normalizePaging } from '../domain/paging.js';
import {
  type Viewer,
  can,
  canCreate,
  canDelete,
  canDeletePermanently,
  canEdit,
  canRead,
  effectiveStatus,
  forbidden,
  listableStatuses,
} from '../domain/permissions.js';
import { SEARCH_TOO_LONG, exceeds, searchTooLong, tooManyValues } from '../domain/limits.js';
import { toSlug, uniqueSlug } from '../domain/slugs.js';
import { NOT_FOUND, contentOpenWhere, eventLinksAccess } from '../domain/visibility.js';
import { nextModified } from '../domain/versions.js';
import { archivePage } from './archive.js';
import { type ImageChoice, checkImage, recordImage } from './media.js';
import type { Tx, WriteScope } from './transactions.js';

// What venues and organizers (the reference's "linked posts") share: input validation, the list
// filters, duplicate detection on create, and the trash / permanent-delete rules. `venues.ts` and
// `organizers.ts` supply their own fields and Prisma calls through a `LinkedStore`.

export type LinkedKind = 'venue' | 'organizer';

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

/** Strings, and numbers as their string forms (D19). */
export const textField = z.union([z.string(), z.number().finite()]).transform(String);
const nameField = textField.transform((text) => text.trim()).refine((text) => text !== '');
export const urlField = textField
  .transform((text) => text.trim())
  .refine((text) => text === '' || isUrl(text));
/** The reference's `tribe_is_truthy`: anything else is false, never an error. */
export const flagField = z.union([z.boolean(), z.number(), z.string()]).transform(isTruthy);
const userIdField = z.union([
  z.number().int().positive(),
  z.string().trim().regex(/^\d+$/).transform(Number),
]);
const statusField = z.string().trim().pipe(z.enum(WRITABLE_STATUSES));

/** A coordinate within ±limit; `""` clears it. */
export function coordinateField(limit: number) {
  return z
    .union([z.number(), z.string().trim()])
    .transform((value) => (value === '' ? null : Number(value)))
    .refine((value) => value === null || (Number.isFinite(value) && Math.abs(value) <= limit));
}

function isTruthy(value: boolean | number | string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  return ['1', 'true', 'yes', 'on'].includes(value.trim().toLowerCase());
}

/** PHP's FILTER_VALIDATE_URL in spirit: a scheme and a host. */
function isUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return /^[a-z][a-z0-9+.-]*:$/i.test(url.protocol) && (url.hostname !== '' || url.protocol === 'mailto:');
  } catch {
    return false;
  }
}

function dateField(zone: string) {
  return z
    .union([z.string(), z.number()])
    .transform((value) => parseDateInput(value, zone))
    .refine((date) => date !== null && date.isValid)
    .transform((date) => date!.toJSDate());
}

function commonSchema(siteTimezone: string) {
  return z.object({
    author: userIdField.optional(),
    date: dateField(siteTimezone).optional(),
    date_utc: dateField('UTC').optional(),
    description: textField.optional(),
    status: statusField.optional(),
    password: textField.optional(),
  });
}

type CommonFields = z.output<ReturnType<typeof commonSchema>>;

/** A validated body: the post fields every linked post has, and the kind's own. */
export interface LinkedInput<Own> {
  name?: string;
  common: CommonFields;
  own: Own;
  image?: ImageChoice;
}

/** Null means "not sent" (the reference drops null parameters); a non-object body is empty. */
function sentFields(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
  return Object.fromEntries(
    Object.entries(body).filter(([, value]) => value !== null && value !== undefined),
  );
}

function badParams(issues: z.core.$ZodIssue[]): Record<string, string> {
  return Object.fromEntries(issues.map((issue) => [String(issue.path[0] ?? ''), INVALID]));
}

/**
 * The one validation of a venue or organizer body, REST-named (`venue`, `stateprovince`, `geo_lat`…):
 * missing name → `rest_missing_callback_param`; bad values → `rest_invalid_param` naming each;
 * `author` and `image` are checked against the database (and `image` URLs against the upload right).
 */
export async function parseLinkedInput<Own>(
  w: WriteScope,
  kind: LinkedKind,
  ownSchema: z.ZodType<Own>,
  body: unknown,
  options: { create: boolean; passwordAllowed?: boolean },
): Promise<LinkedInput<Own>> {
  const sent = sentFields(body);
  // `password` is an extension of the by-id update routes; elsewhere it is an unknown parameter.
  if (!options.passwordAllowed) delete sent.password;
  if (options.create && sent[kind] === undefined) throw missingParams([kind]);
  const name = nameField.optional().safeParse(sent[kind]);
  const common = commonSchema(w.config.siteTimezone).safeParse(sent);
  const own = ownSchema.safeParse(sent);
  const bad = {
    ...(name.success ? {} : { [kind]: INVALID }),
    ...(common.success ? {} : badParams(common.error.issues)),
    ...(own.success ? {} : badParams(own.error.issues)),
  };
  const authorId = userIdField.optional().safeParse(sent.author);
  if (authorId.success && authorId.data !== undefined) {
    const author = await w.tx.user.findUnique({ where: { id: authorId.data }, select: { id: true } });
    if (!author) bad.author = INVALID;
  }
  let image: ImageChoice | undefined;
  if (sent.image !== undefined) {
    try {
      image = await checkImage(w.tx, w.viewer, sent.image);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      bad.image = INVALID;
    }
  }
  if (Object.keys(bad).length || !name.success || !common.success || !own.success) throw invalidParams(bad);
  return { name: name.data, common: common.data, own: own.data, image };
}

// ---- Writes ----------------------------------------------------------------------------------------

/** The shared columns of a write; the kind adds its own from `LinkedInput.own`. */
export interface CommonData {
  name?: string;
  description?: string;
  status?: string;
  authorId?: number | null;
  publishedAt?: Date;
  imageId?: number | null;
  password?: string | null;
  modifiedAt?: Date;
}

/** The Prisma calls of one kind, typed by its model. */
export interface LinkedStore<Row extends LinkedRow, Own> {
  kind: LinkedKind;
  /** The kind's own fields (REST names), validated with the post fields. */
  schema: z.ZodType<Own>;
  find(db: Tx | Db, key: LinkedKey): Promise<Row | null>;
  /** Non-trashed records whose name matches `name` (case-insensitively; exactness is checked here). */
  named(tx: Tx, name: Prisma.StringFilter): Promise<Row[]>;
  slugTaken(tx: Tx, slug: string): Promise<boolean>;
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

/** Only editors may attribute a post to someone else. */
function assertMayAttribute(viewer: Viewer, authorId: number | undefined): void {
  if (authorId !== undefined && authorId !== viewer.userId && !can(viewer, 'edit_others_posts'))
    throw forbidden(viewer);
}

function sameText(a: string, b: string): boolean {
  return a.localeCompare(b, 'en', { sensitivity: 'accent' }) === 0;
}

/**
 * The reference's duplicate check (D18): a record of that kind with the same name — and the same
 * description when one is sent — compared case-insensitively, that the viewer may read.
 */
async function findDuplicate<Row extends LinkedRow>(
  w: WriteScope,
  store: Pick<LinkedStore<Row, never>, 'named'>,
  name: string,
  description: string | undefined,
): Promise<Row | null> {
  const candidates = await store.named(w.tx, textMatch(w.config.databaseProvider, name, 'equals'));
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
 * Creates a venue or organizer from a REST-named body, or returns the existing duplicate unchanged.
 * Usable inside an event write (same transaction, same validation).
 */
export async function createOrMatch<Row extends LinkedRow, Own>(
  w: WriteScope,
  store: LinkedStore<Row, Own>,
  body: unknown,
): Promise<{ record: Row; created: boolean }> {
  const { tx, viewer } = w;
  if (!canCreate(viewer)) throw forbidden(viewer);
  const input = await parseLinkedInput(w, store.kind, store.schema, body, { create: true });
  assertMayAttribute(viewer, input.common.author);
  const name = input.name!;
  // Two requests creating the same venue at once: the second waits, then finds the first.
  await w.lock([
    `${store.kind}:name:${name.toLowerCase()}`,
    `${store.kind}:slug:${toSlug(name, store.kind)}`,
  ]);
  const duplicate = await findDuplicate(w, store, name, input.common.description);
  if (duplicate) return { record: duplicate, created: false };
  const slug = await uniqueSlug(name, (candidate) => store.slugTaken(tx, candidate), store.kind);
  const data = {
    ...(await commonData(tx, viewer, input)),
    name,
    slug,
    status: effectiveStatus(viewer, input.common.status),
    authorId: input.common.author ?? viewer.userId,
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

async function commonData<Own>(tx: Tx, viewer: Viewer, input: LinkedInput<Own>): Promise<CommonData> {
  const { common } = input;
  const publishedAt = common.date_utc ?? common.date;
  return {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(common.description !== undefined ? { description: common.description } : {}),
    ...(common.author !== undefined ? { authorId: common.author } : {}),
    ...(publishedAt ? { publishedAt } : {}),
    ...(input.image ? { imageId: await recordImage(tx, viewer, input.image) } : {}),
    ...(common.password !== undefined ? { password: common.password === '' ? null : common.password } : {}),
  };
}

/** The record, its row locked for the rest of the write. */
async function existing<Row extends LinkedRow>(
  w: WriteScope,
  store: Pick<LinkedStore<Row, never>, 'find' | 'kind'>,
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
export async function updateLinked<Row extends LinkedRow, Own>(
  w: WriteScope,
  store: LinkedStore<Row, Own>,
  key: LinkedKey,
  body: unknown,
  options: { passwordAllowed: boolean },
): Promise<Row> {
  const { tx, viewer } = w;
  const record = await existing(w, store, key);
  if (!canEdit(viewer, record)) throw forbidden(viewer);
  w.expectVersion(record);
  const input = await parseLinkedInput(w, store.kind, store.schema, body, {
    create: false,
    ...options,
  });
  assertMayAttribute(viewer, input.common.author);
  const data: CommonData = {
    ...(await commonData(tx, viewer, input)),
    ...(input.common.status !== undefined ? { status: effectiveStatus(viewer, input.common.status) } : {}),
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
export async function deleteLinked<Row extends LinkedRow, Own, T>(
  w: WriteScope,
  store: LinkedStore<Row, Own>,
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

// ---- Lists -----------------------------------------------------------------------------------------

/** The list filters (docs/reference.md §8); REST names them in snake_case, GraphQL in camelCase. */
export interface LinkedListFilter {
  search?: string | null;
  event?: number | null;
  hasEvents?: boolean | null;
  onlyWithUpcoming?: boolean | null;
  status?: string[] | null;
}

/** The filters as applied: echoed in `rest_url` and the paging links. */
export interface EffectiveLinkedFilter {
  search: string | null;
  event: number | null;
  hasEvents: boolean | null;
  onlyWithUpcoming: boolean;
  status: string[];
  /** Every status the viewer may list was asked for: echoed as `any`. */
  statusAny: boolean;
}

interface LinkedEventLink {
  eventId?: number;
  event?: Prisma.EventWhereInput;
}

/** A condition valid for both `Prisma.VenueWhereInput` and `Prisma.OrganizerWhereInput`. */
export interface LinkedWhere {
  AND?: LinkedWhere[];
  id?: { in: number[] };
  OR?: LinkedWhere[];
  status?: string | { in: string[] };
  authorId?: number | null;
  password?: null;
  events?: { some: LinkedEventLink } | { none: LinkedEventLink };
}

/** Events that make a venue or organizer "have events": any but drafts and pending ones (trashed count). */
const COUNTED_EVENT: Prisma.EventWhereInput = { status: { notIn: ['draft', 'pending'] } };

/**
 * A case-insensitive string condition. SQLite's LIKE (Prisma's `contains`) ignores ASCII case;
 * PostgreSQL needs `mode: "insensitive"`, which the SQLite-typed client does not declare.
 * For `equals` on SQLite the caller compares the candidates exactly.
 */
export function textMatch(
  provider: Scope['config']['databaseProvider'],
  text: string,
  how: 'contains' | 'equals',
): Prisma.StringFilter {
  if (provider === 'postgresql') return { [how]: text, mode: 'insensitive' } as Prisma.StringFilter;
  return { contains: text };
}

/**
 * Who may find password-protected records through `search` (their fields are scrubbed for others,
 * so matching on them would leak them): those who may edit them.
 */
function protectedSearchable(viewer: Viewer): LinkedWhere | null {
  if (can(viewer, 'edit_others_posts')) return null;
  if (can(viewer, 'edit_posts') && viewer.userId !== null)
    return { OR: [{ password: null }, { authorId: viewer.userId }] };
  return { password: null };
}

/**
 * The list conditions shared by both kinds; `withSearch` adds `search` over each kind's own fields.
 * `event` must name an existing event (else 400).
 */
export async function linkedListQuery(
  db: Db,
  scope: Pick<Scope, 'viewer' | 'config'>,
  filter: LinkedListFilter,
  now: Date = new Date(),
): Promise<{ where: LinkedWhere; match: Prisma.StringFilter | null; effective: EffectiveLinkedFilter }> {
  const { viewer } = scope;
  let eventLinks: ReturnType<typeof eventLinksAccess> = 'open';
  if (filter.event != null) {
    const event =
      filter.event > 0
        ? await db.event.findUnique({
            where: { id: filter.event },
            select: { status: true, authorId: true, password: true },
          })
        : null;
    eventLinks = eventLinksAccess(viewer, event);
    if (eventLinks === 'unknown') throw invalidParams({ event: INVALID });
  }
  if (searchTooLong(filter.search)) throw invalidParams({ search: SEARCH_TOO_LONG });
  if (exceeds(filter.status)) throw invalidParams({ status: tooManyValues() });
  const { statuses, ownOnlyBeyondPublish, any } = listableStatuses(viewer, filter.status);
  const and: LinkedWhere[] = [{ status: { in: statuses } }];
  if (ownOnlyBeyondPublish) and.push({ OR: [{ status: 'publish' }, { authorId: viewer.userId }] });
  if (filter.event != null) {
    and.push(
      eventLinks === 'withheld' ? { id: { in: [] } } : { events: { some: { eventId: filter.event } } },
    );
  }
  // Links of protected events the viewer cannot unlock do not count: they are blanked in the listing.
  const open = contentOpenWhere(viewer) as Prisma.EventWhereInput;
  if (filter.hasEvents === true) and.push({ events: { some: { event: { AND: [COUNTED_EVENT, open] } } } });
  if (filter.hasEvents === false) and.push({ events: { none: { event: { AND: [COUNTED_EVENT, open] } } } });
  if (filter.onlyWithUpcoming) {
    and.push({
      events: { some: { event: { AND: [{ status: { in: statuses }, startsAt: { gte: now } }, open] } } },
    });
  }
  const search = filter.search?.trim() || null;
  if (search) {
    const visible = protectedSearchable(viewer);
    if (visible) and.push(visible);
  }
  return {
    where: { AND: and },
    match: search ? textMatch(scope.config.databaseProvider, search, 'contains') : null,
    effective: {
      search,
      event: filter.event ?? null,
      hasEvents: filter.hasEvents ?? null,
      onlyWithUpcoming: filter.onlyWithUpcoming ?? false,
      status: statuses,
      statusAny: any,
    },
  };
}

/** One page of a venue or organizer list; `count` runs the kind's own query. */
export async function linkedArchive<Where>(
  kind: LinkedKind,
  where: Where,
  paging: { page: number | null | undefined; perPage: number | null | undefined },
  count: (where: Where) => Promise<number>,
) {
  const orderBy = [{ publishedAt: 'desc' as const }, { id: 'desc' as const }];
  return archivePage(
    { where, orderBy },
    normalizePaging(paging.page, paging.perPage),
    count,
    () =>
      new ApiError(
        404,
        `${kind}-archive-page-not-found`,
        `The requested ${kind} archive page does not exist`,
      ),
  );
}

/** The effective filters as the reference echoes them after `page` (D2: every filter, so paging keeps them). */
export function linkedArchiveParams(
  perPage: number,
  effective: EffectiveLinkedFilter,
): Array<[string, string]> {
  const params: Array<[string, string]> = [['per_page', String(perPage)]];
  if (effective.search) params.push(['search', effective.search]);
  if (effective.event !== null) params.push(['event', String(effective.event)]);
  if (effective.hasEvents !== null) params.push(['has_events', String(effective.hasEvents)]);
  if (effective.onlyWithUpcoming) params.push(['only_with_upcoming', 'true']);
  params.push(['status', effective.statusAny ? 'any' : effective.status.join(',')]);
  return params;
}

/** The list conditions, plus `search` matched against any of `fields` (each kind names its own). */
export function withSearch<Field extends string>(
  query: { where: LinkedWhere; match: Prisma.StringFilter | null },
  fields: readonly Field[],
): LinkedWhere | { AND: [LinkedWhere, { OR: Array<Record<Field, Prisma.StringFilter>> }] } {
  const { match } = query;
  if (!match) return query.where;
  return {
    AND: [
      query.where,
      { OR: fields.map((field) => ({ [field]: match }) as Record<Field, Prisma.StringFilter>) },
    ],
  };
}
