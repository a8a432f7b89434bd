import type { DateTime } from 'luxon';
import { DateTime as LuxonDateTime } from 'luxon';
import { z } from 'zod';
import type { Scope } from '../context.js';
import { CostInputError, type StoredCost, parseCostInput } from '../domain/cost.js';
import { WALL_CLOCK, eventSchedule, isValidTimezone, parseDateInput } from '../domain/dates.js';
import { ApiError, invalidParams, isApiError, missingParams } from '../domain/errors.js';
import {
  DEFAULT_EVENT_STATUS,
  EVENT_STATUSES,
  type EventStatusValue,
  INVALID_EVENT_STATUS,
  keepsReason,
} from '../domain/event-status.js';
import { autoParagraphs } from '../domain/html.js';
import { MAX_RECORD_ID } from '../domain/ids.js';
import { MAX_LINKED_PER_WRITE, exceeds, tooManyValues } from '../domain/limits.js';
import {
  type Viewer,
  can,
  canCreate,
  canDelete,
  canDeletePermanently,
  canEdit,
  effectiveStatus,
  forbidden,
  readableWhere,
} from '../domain/permissions.js';
import { toSlug } from '../domain/slugs.js';
import type { Taxonomy } from '../domain/urls.js';
import { type Judged, NOT_FOUND, judged } from '../domain/visibility.js';
import { nextModified } from '../domain/versions.js';
import { Prisma } from '../generated/sqlite/client.js';
import { readBoolean } from '../rest/booleans.js';
import { type ImageChoice, checkImage, recordImage } from './media.js';
import { WRITABLE_STATUSES, urlField } from './linked-posts.js';
import { createOrMatchOrganizer } from './organizers.js';
import { refreshTermCounts } from './term-counts.js';
import { CATEGORY, TAG, insertTerm, termNameKey } from './terms.js';
import type { Tx, WriteScope } from './transactions.js';
import { createOrMatchVenue } from './venues.js';

// Event writes (docs/reference.md §S2.1, §S4.2, §3.2, §6, D4, D9–D14, D17): the flat TEC body
// (REST names; GraphQL inputs are mapped onto it) is read into a domain input, checked against the
// database (400s), then the capability rules apply (401/403), then one transaction writes the event,
// its venues, organizers and terms. An update writes only the fields it was given, with the event row
// locked, so concurrent updates of one event never undo each other.

export type EventKey = { id: number } | { slug: string };
/** Reads the written event inside the transaction (GraphQL selects what it needs). */
export type EventLoader<T extends LoadedEvent> = (tx: Tx, id: number) => Promise<T>;
/** What the content verdict needs of a loaded event. */
type LoadedEvent = { status: string; password: string | null; authorId: number | null };

/** Error parameters are named as the API the request came through spells them. */
export type ParamStyle = 'rest' | 'graphql';

export interface WriteOptions {
  style?: ParamStyle;
  /** `password` is accepted on create and on the by-id update route (docs/reference.md §S2.1), not by slug */
  passwordAllowed?: boolean;
  /** The clock relative dates ("tomorrow 9am") and scheduling count from. */
  now?: Date;
}

const INVALID = 'Invalid parameter.';

// ---------------------------------------------------------------------------------------------------
// Reading the body

type WritableStatus = (typeof WRITABLE_STATUSES)[number];

/** A venue or organizer named by id, or given as fields to create (or match, docs/reference.md §6.4). */
export type LinkRef =
  { kind: 'id'; id: number; inObject: boolean } | { kind: 'fields'; body: Record<string, unknown> };
/** A category or tag named by id or by name (D3). */
export type TermRef = { kind: 'id'; id: number } | { kind: 'name'; name: string };

/** A validated body: each field is absent when not sent; `[]` for a link list means "remove all". */
export interface EventInput {
  title?: string;
  description?: string;
  excerpt?: string;
  slug?: string;
  status?: WritableStatus;
  author?: number;
  /** Publication date (`date_utc` wins over `date`). */
  publishedAt?: Date;
  timezone?: string;
  allDay?: boolean;
  start?: DateTime;
  end?: DateTime;
  image?: unknown;
  cost?: StoredCost;
  website?: string;
  showMap?: boolean;
  showMapLink?: boolean;
  hideFromListings?: boolean;
  sticky?: boolean;
  featured?: boolean;
  /** TEC's event status; `""` resets it to scheduled. */
  eventStatus?: EventStatusValue;
  /** Kept only while the event is canceled or postponed. */
  eventStatusReason?: string;
  /** `null` removes the parent. */
  postParent?: number | null;
  /** `null` removes the password. */
  password?: string | null;
  venues?: LinkRef[];
  organizers?: LinkRef[];
  categories?: TermRef[];
  tags?: TermRef[];
}

/** A WordPress boolean; anything else stays as is (and fails). */
const toBoolean = (value: unknown): unknown => readBoolean(value) ?? value;

/** Strings, and numbers as their string forms (D19). */
const text = z.union([z.string(), z.number().finite()]).transform(String);
const nonEmptyText = text.transform((value) => value.trim()).refine((value) => value !== '');
const flag = z.preprocess(toBoolean, z.boolean());
/** Ids are 32-bit database integers: anything larger names nothing. */
const positiveId = z
  .union([z.number().int().positive(), z.string().trim().regex(/^\d+$/).transform(Number)])
  .pipe(z.number().int().positive().max(MAX_RECORD_ID));
const status = z.string().trim().pipe(z.enum(WRITABLE_STATUSES));
const eventStatus = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.union([z.literal(''), z.enum(EVENT_STATUSES)]))
  .transform((value): EventStatusValue => value || DEFAULT_EVENT_STATUS);
/** `0`, `""` remove the parent. */
const parentId = z
  .union([z.literal(0), z.literal('0'), z.literal(''), positiveId])
  .transform((value) => (value === 0 || value === '0' || value === '' ? null : (value as number)));
const dateValue = z.union([z.string(), z.number().finite()]);

function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0) return true;
  if (typeof value === 'string') return value.trim() === '' || value.trim() === '0';
  if (Array.isArray(value)) return value.every(isEmptyValue);
  if (typeof value === 'object') return Object.values(value).every(isEmptyValue);
  return false;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function idOf(value: unknown): number | null {
  const parsed = positiveId.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** One venue or organizer entry: an id, `{id}`, or an object of fields; null when it is none of them. */
function linkRef(value: unknown): LinkRef | null {
  if (isRecord(value)) {
    if (value.id !== undefined && value.id !== null && value.id !== '') {
      const id = idOf(value.id);
      return id === null ? null : { kind: 'id', id, inObject: true };
    }
    return { kind: 'fields', body: value };
  }
  const id = idOf(value);
  return id === null ? null : { kind: 'id', id, inObject: false };
}

/**
 * `venue` / `organizer`: an id, a comma list of ids (organizers), `{id}`, an object of fields, or a list
 * of those, in order; an empty value (`""`, `0`, `[]`, `null`, an all-empty object) removes the links (D9).
 */
function linkRefs(value: unknown, commaList: boolean): LinkRef[] | null {
  if (isEmptyValue(value)) return [];
  const items: unknown[] = Array.isArray(value)
    ? value
    : commaList && typeof value === 'string'
      ? value.split(',').map((item) => item.trim())
      : [value];
  const refs: LinkRef[] = [];
  for (const item of items) {
    if (isEmptyValue(item)) continue;
    const ref = linkRef(item);
    if (!ref) return null;
    refs.push(ref);
  }
  return refs;
}

function termRef(value: unknown): TermRef | null {
  if (isRecord(value)) {
    if (value.id !== undefined && value.id !== null) {
      const id = idOf(value.id);
      return id === null ? null : { kind: 'id', id };
    }
    return typeof value.name === 'string' && value.name.trim() !== ''
      ? { kind: 'name', name: value.name.trim() }
      : null;
  }
  if (typeof value === 'number') {
    const id = idOf(value);
    return id === null ? null : { kind: 'id', id };
  }
  if (typeof value !== 'string' || value.trim() === '') return null;
  const token = value.trim();
  if (/^\d+$/.test(token)) {
    const id = idOf(token);
    return id === null ? null : { kind: 'id', id };
  }
  return { kind: 'name', name: token };
}

/** `categories` / `tags`: ids or names, a comma list or an array, `{id}` / `{name}` objects; `""`/`[]` clear. */
function termRefs(value: unknown): TermRef[] | null {
  if (value === '' || (Array.isArray(value) && value.length === 0)) return [];
  const items =
    typeof value === 'string'
      ? value.split(',').filter((item) => item.trim() !== '')
      : Array.isArray(value)
        ? value
        : [value];
  const refs: TermRef[] = [];
  for (const item of items) {
    const ref = termRef(item);
    if (!ref) return null;
    refs.push(ref);
  }
  return refs;
}

/** Null means "not sent", as WordPress drops null parameters — except for `venue`/`organizer` (D9). */
function sentFields(body: unknown): Record<string, unknown> {
  if (!isRecord(body)) return {};
  return Object.fromEntries(
    Object.entries(body).filter(
      ([key, value]) => value !== undefined && (value !== null || key === 'venue' || key === 'organizer'),
    ),
  );
}

export interface ReadOptions {
  mode: 'create' | 'update';
  /** The zone dates are read in when the body names none: the event's own (update) or the site's. */
  zone: string;
  siteTimezone: string;
  passwordAllowed: boolean;
  now: Date;
}

/**
 * The body → a domain input, without touching the database: required fields (create) →
 * `rest_missing_callback_param`; every malformed value → one `rest_invalid_param` naming them all.
 * Unknown and read-only fields are ignored.
 */
export function readEventBody(body: unknown, options: ReadOptions): EventInput {
  const { input, bad } = readBody(body, options);
  if (Object.keys(bad).length) throw invalidParams(bad);
  return input;
}

/** `readEventBody` without the throw: what could be read, and the reason for each bad parameter. */
function readBody(body: unknown, options: ReadOptions): { input: EventInput; bad: Record<string, string> } {
  const sent = sentFields(body);
  if (options.mode === 'create') {
    const missing = ['title', 'start_date', 'end_date'].filter((name) => sent[name] === undefined);
    if (missing.length) throw missingParams(missing);
  }
  const bad: Record<string, string> = {};
  const input: EventInput = {};
  const read = <T>(name: string, schema: z.ZodType<T>, assign: (value: T) => void, reason = INVALID) => {
    if (sent[name] === undefined) return;
    const parsed = schema.safeParse(sent[name]);
    if (parsed.success) assign(parsed.data);
    else bad[name] = reason;
  };

  read('title', nonEmptyText, (value) => (input.title = value));
  read('description', text, (value) => (input.description = autoParagraphs(value)));
  read('excerpt', text, (value) => (input.excerpt = autoParagraphs(value)));
  read('slug', nonEmptyText, (value) => {
    const slug = toSlug(value, '');
    if (slug) input.slug = slug;
    else bad.slug = INVALID;
  });
  read('status', status, (value) => (input.status = value));
  read('author', positiveId, (value) => (input.author = value));

  let zone = options.zone;
  read('timezone', z.string().trim(), (value) => {
    if (value === '') input.timezone = options.siteTimezone;
    else if (isValidTimezone(value)) input.timezone = value;
    else bad.timezone = 'Invalid parameter: a time zone is an IANA name (America/New_York) or UTC±H[:MM].';
    zone = input.timezone ?? zone;
  });
  const date = (name: string, inZone: string, assign: (value: DateTime) => void) =>
    read(name, dateValue, (value) => {
      const parsed = parseDateInput(value, inZone, options.now);
      if (parsed?.isValid) assign(parsed);
      else bad[name] = INVALID;
    });
  if (!bad.timezone) {
    date('start_date', zone, (value) => (input.start = value.setZone(zone)));
    date('end_date', zone, (value) => (input.end = value.setZone(zone)));
  }
  date('date', zone, (value) => (input.publishedAt ??= value.toJSDate()));
  date('date_utc', 'UTC', (value) => (input.publishedAt = value.toJSDate()));

  read('all_day', flag, (value) => (input.allDay = value));
  read('show_map', flag, (value) => (input.showMap = value));
  read('show_map_link', flag, (value) => (input.showMapLink = value));
  read('hide_from_listings', flag, (value) => (input.hideFromListings = value));
  read('sticky', flag, (value) => (input.sticky = value));
  read('featured', flag, (value) => (input.featured = value));
  read('website', urlField, (value) => (input.website = value));
  read('post_parent', parentId, (value) => (input.postParent = value));
  read('event_status', eventStatus, (value) => (input.eventStatus = value), INVALID_EVENT_STATUS);
  read('event_status_reason', text, (value) => (input.eventStatusReason = value.trim()));
  if (sent.image !== undefined) input.image = sent.image;

  if (sent.cost !== undefined) {
    try {
      input.cost = parseCostInput(sent.cost);
    } catch (error) {
      if (!(error instanceof CostInputError)) throw error;
      bad.cost = error.message;
    }
  }

  if (sent.password !== undefined) {
    if (!options.passwordAllowed)
      bad.password = 'The password of an event is set through its by-ID route only.';
    else read('password', text, (value) => (input.password = value === '' ? null : value));
  }

  const links: Array<[string, 'venues' | 'organizers', boolean]> = [
    ['venue', 'venues', false],
    ['organizer', 'organizers', true],
  ];
  for (const [name, key, commaList] of links) {
    if (!(name in sent)) continue;
    const refs = linkRefs(sent[name], commaList);
    if (exceeds(refs, MAX_LINKED_PER_WRITE)) bad[name] = tooManyValues(MAX_LINKED_PER_WRITE);
    else if (refs) input[key] = refs;
    else bad[name] = INVALID;
  }
  for (const name of ['categories', 'tags'] as const) {
    if (sent[name] === undefined) continue;
    const refs = termRefs(sent[name]);
    if (exceeds(refs)) bad[name] = tooManyValues();
    else if (refs) input[name] = refs;
    else bad[name] = INVALID;
  }

  return { input, bad };
}

// ---------------------------------------------------------------------------------------------------
// The schedule

export interface StoredSchedule {
  timezone: string;
  localStart: string;
  localEnd: string;
  allDay: boolean;
}

/**
 * The stored start, end, zone and all-day flag after a write, or null when the write leaves them alone.
 * A zone change re-reads the stored wall-clock in the new zone (D10); an update keeps the event's zone
 * unless it names one (D11); one date alone is applied (D12); all-day stretches to 00:00:00–23:59:59;
 * an end before the start becomes the start, in local and UTC alike (D14).
 */
export function scheduleOf(input: EventInput, existing: StoredSchedule | null, siteTimezone: string) {
  const touched = input.start || input.end || input.timezone !== undefined || input.allDay !== undefined;
  if (existing && !touched) return null;
  const zone = input.timezone ?? existing?.timezone ?? siteTimezone;
  const stored = (wall: string | undefined) =>
    wall ? LuxonDateTime.fromFormat(wall, WALL_CLOCK, { zone }) : null;
  let start = (input.start ?? stored(existing?.localStart))?.setZone(zone).startOf('second');
  let end = (input.end ?? stored(existing?.localEnd))?.setZone(zone).startOf('second');
  if (!start || !end) throw missingParams([!start ? 'start_date' : 'end_date']);
  const allDay = input.allDay ?? existing?.allDay ?? false;
  if (allDay) {
    start = start.startOf('day');
    end = end.endOf('day').startOf('second');
  }
  if (end < start) end = start;
  return { ...eventSchedule(start.toJSDate(), end.toJSDate(), zone), allDay };
}

/** WordPress' scheduling: a published post dated in the future is `future`; a `future` one due now is published. */
export function publicationStatus(status: string, publishedAt: Date, now: Date): string {
  if (status === 'publish' && publishedAt > now) return 'future';
  if (status === 'future' && publishedAt <= now) return 'publish';
  return status;
}

// ---------------------------------------------------------------------------------------------------
// Checks against the database (400s, before the permission checks)

interface EventRow {
  id: number;
  title: string;
  slug: string | null;
  desiredSlug: string | null;
  status: string;
  authorId: number | null;
  publishedAt: Date;
  timezone: string;
  localStart: string;
  localEnd: string;
  allDay: boolean;
  eventStatus: string;
  eventStatusReason: string;
  modifiedAt: Date;
}

const EVENT_ROW = {
  id: true,
  title: true,
  slug: true,
  desiredSlug: true,
  status: true,
  authorId: true,
  publishedAt: true,
  timezone: true,
  localStart: true,
  localEnd: true,
  allDay: true,
  eventStatus: true,
  eventStatusReason: true,
  modifiedAt: true,
} as const;

const bareIds = (refs: LinkRef[] | undefined) =>
  (refs ?? []).flatMap((ref) => (ref.kind === 'id' && !ref.inObject ? [ref.id] : []));

const termIds = (refs: TermRef[] | undefined) =>
  (refs ?? []).flatMap((ref) => (ref.kind === 'id' ? [ref.id] : []));

async function missingIds(
  ids: number[],
  find: (ids: number[]) => Promise<Array<{ id: number }>>,
): Promise<boolean> {
  if (!ids.length) return false;
  const found = new Set((await find([...new Set(ids)])).map((row) => row.id));
  return ids.some((id) => !found.has(id));
}

/** Whether `parentId` is the event itself or one of its descendants. */
async function wouldLoop(tx: Tx, eventId: number, parentId: number): Promise<boolean> {
  const seen = new Set<number>();
  for (let current: number | null = parentId; current !== null;) {
    if (current === eventId) return true;
    if (seen.has(current)) return false;
    seen.add(current);
    const row: { postParentId: number | null } | null = await tx.event.findUnique({
      where: { id: current },
      select: { postParentId: true },
    });
    current = row?.postParentId ?? null;
  }
  return false;
}

/**
 * The body read and checked against the database — what it names must exist: author, image, parent
 * event, venues and organizers by id, terms by id. Every bad parameter is named in one 400.
 */
async function validate(tx: Tx, viewer: Viewer, body: unknown, options: ReadOptions, eventId: number | null) {
  const { input, bad } = readBody(body, options);
  const image = await checkReferences(tx, viewer, input, eventId, bad);
  if (Object.keys(bad).length) throw invalidParams(bad);
  return { input, image };
}

async function checkReferences(
  tx: Tx,
  viewer: Viewer,
  input: EventInput,
  eventId: number | null,
  bad: Record<string, string>,
): Promise<ImageChoice | undefined> {
  if (
    input.author !== undefined &&
    !(await tx.user.findUnique({ where: { id: input.author }, select: { id: true } }))
  ) {
    bad.author = INVALID;
  }
  if (input.postParent) {
    const parent = await tx.event.findUnique({ where: { id: input.postParent }, select: { id: true } });
    if (!parent || (eventId !== null && (await wouldLoop(tx, eventId, parent.id)))) bad.post_parent = INVALID;
  }
  // Linking needs the right to read what is linked (else a contributor could publish a draft venue).
  if (
    await missingIds(bareIds(input.venues), (ids) =>
      tx.venue.findMany({ where: { id: { in: ids }, ...readableWhere(viewer) }, select: { id: true } }),
    )
  ) {
    bad.venue = INVALID;
  }
  if (
    await missingIds(bareIds(input.organizers), (ids) =>
      tx.organizer.findMany({ where: { id: { in: ids }, ...readableWhere(viewer) }, select: { id: true } }),
    )
  ) {
    bad.organizer = INVALID;
  }
  for (const [name, taxonomy] of [
    ['categories', CATEGORY],
    ['tags', TAG],
  ] as const) {
    const ids = termIds(input[name]);
    if (
      await missingIds(ids, (list) =>
        tx.term.findMany({ where: { id: { in: list }, taxonomy }, select: { id: true } }),
      )
    ) {
      bad[name] = INVALID;
    }
  }
  let image: ImageChoice | undefined;
  const imageId =
    typeof input.image === 'number' || typeof input.image === 'string' ? String(input.image).trim() : '';
  if (/^\d+$/.test(imageId) && Number(imageId) > MAX_RECORD_ID) bad.image = INVALID;
  else if (input.image !== undefined) {
    try {
      image = await checkImage(tx, viewer, input.image);
    } catch (error) {
      if (!isApiError(error)) throw error;
      bad.image = INVALID;
    }
  }
  return image;
}

// ---------------------------------------------------------------------------------------------------
// Linked records

const LINKED = {
  venue: {
    param: 'venue',
    exists: async (tx: Tx, viewer: Viewer, id: number) =>
      Boolean(await tx.venue.findFirst({ where: { id, ...readableWhere(viewer) }, select: { id: true } })),
    createOrMatch: createOrMatchVenue,
  },
  organizer: {
    param: 'organizer',
    exists: async (tx: Tx, viewer: Viewer, id: number) =>
      Boolean(
        await tx.organizer.findFirst({ where: { id, ...readableWhere(viewer) }, select: { id: true } }),
      ),
    createOrMatch: createOrMatchOrganizer,
  },
} as const;

/** An unknown (or unreadable) linked id, as WordPress answers a failed `validate_callback`. */
function invalidLinkedPostId(param: string): ApiError {
  return invalidParams({ [param]: INVALID });
}

/**
 * The ids to link, in the order given (each once); objects of fields are created or matched
 * (docs/reference.md §6.3, §6.4).
 */
async function resolveLinked(w: WriteScope, kind: keyof typeof LINKED, refs: LinkRef[]): Promise<number[]> {
  const { param, exists, createOrMatch } = LINKED[kind];
  const ids: number[] = [];
  for (const ref of refs) {
    if (ref.kind === 'id') {
      if (ref.inObject && !(await exists(w.tx, w.viewer, ref.id))) throw invalidLinkedPostId(param);
      ids.push(ref.id);
      continue;
    }
    try {
      ids.push((await createOrMatch(w, ref.body)).record.id);
    } catch (error) {
      if (!isApiError(error) || error.status !== 400) throw error;
      throw invalidParams(
        { [param]: INVALID },
        {
          [param]: {
            code: `could-not-create-${kind}`,
            message: `The ${kind} could not be created from the provided data`,
            data: { status: 400, cause: { code: error.code, message: error.message, ...error.data } },
          },
        },
      );
    }
  }
  return [...new Set(ids)];
}

const TERM_LABEL: Record<Taxonomy, { one: string; many: string }> = {
  tribe_events_cat: { one: 'category', many: 'categories' },
  post_tag: { one: 'tag', many: 'tags' },
};

/**
 * Term ids in the order given: names match a term of the taxonomy by name (any case) or slug, else a
 * new term is created — which, as every term write (D8), needs an editor.
 */
async function resolveTerms(w: WriteScope, taxonomy: Taxonomy, refs: TermRef[]): Promise<number[]> {
  const { tx, viewer } = w;
  const names = refs.flatMap((ref) => (ref.kind === 'name' ? [ref.name] : []));
  // The name locks serialise creating terms; a writer who may not create any needs none.
  if (can(viewer, 'manage_terms')) await w.lock(names.map((name) => termNameKey(taxonomy, name)));
  const known = names.length
    ? await tx.$queryRaw<Array<{ id: number | bigint; name: string; slug: string }>>(
        Prisma.sql`SELECT "id" AS id, "name" AS name, "slug" AS slug FROM "Term"
          WHERE "taxonomy" = ${taxonomy}
            AND (LOWER("name") IN (${Prisma.join(names.map((name) => name.toLowerCase()))})
              OR "slug" IN (${Prisma.join(names.map((name) => toSlug(name, '-')))}))
          ORDER BY "id"`,
      )
    : [];
  const ids: number[] = [];
  for (const ref of refs) {
    if (ref.kind === 'id') {
      ids.push(ref.id);
      continue;
    }
    const lower = ref.name.toLowerCase();
    const match =
      known.find((term) => term.name.toLowerCase() === lower) ??
      known.find((term) => term.slug === toSlug(ref.name, '-'));
    if (match) {
      ids.push(Number(match.id));
      continue;
    }
    if (!can(viewer, 'manage_terms')) {
      const { one, many } = TERM_LABEL[taxonomy];
      throw new ApiError(
        403,
        'rest_cannot_create_term',
        `Sorry, you are not allowed to create event ${many}.`,
        {
          params: { [many]: `There is no ${one} named "${ref.name}", and only editors may create one.` },
        },
      );
    }
    const created = await insertTerm(w, taxonomy, { name: ref.name });
    known.push({ id: created.id, name: created.name, slug: created.slug });
    ids.push(created.id);
  }
  return [...new Set(ids)];
}

interface ResolvedLinks {
  venues?: number[];
  organizers?: number[];
  categories?: number[];
  tags?: number[];
}

async function resolveLinks(w: WriteScope, input: EventInput): Promise<ResolvedLinks> {
  const links: ResolvedLinks = {};
  if (input.venues) links.venues = await resolveLinked(w, 'venue', input.venues);
  if (input.organizers) links.organizers = await resolveLinked(w, 'organizer', input.organizers);
  if (input.categories) links.categories = await resolveTerms(w, CATEGORY, input.categories);
  if (input.tags) links.tags = await resolveTerms(w, TAG, input.tags);
  return links;
}

/** Replaces the links of each kind given (and only those); positions keep the order. */
async function writeLinks(tx: Tx, eventId: number, links: ResolvedLinks, replacing: boolean): Promise<void> {
  if (links.venues) {
    if (replacing) await tx.eventVenue.deleteMany({ where: { eventId } });
    if (links.venues.length) {
      await tx.eventVenue.createMany({
        data: links.venues.map((venueId, position) => ({ eventId, venueId, position })),
      });
    }
  }
  if (links.organizers) {
    if (replacing) await tx.eventOrganizer.deleteMany({ where: { eventId } });
    if (links.organizers.length) {
      await tx.eventOrganizer.createMany({
        data: links.organizers.map((organizerId, position) => ({ eventId, organizerId, position })),
      });
    }
  }
  for (const [key, taxonomy] of [
    ['categories', CATEGORY],
    ['tags', TAG],
  ] as const) {
    const ids = links[key];
    if (!ids) continue;
    if (replacing) await tx.eventTerm.deleteMany({ where: { eventId, term: { taxonomy } } });
    if (ids.length)
      await tx.eventTerm.createMany({ data: ids.map((termId, position) => ({ eventId, termId, position })) });
  }
}

async function linkedTermIds(tx: Tx, eventId: number): Promise<number[]> {
  return (await tx.eventTerm.findMany({ where: { eventId }, select: { termId: true } })).map(
    (link) => link.termId,
  );
}

/**
 * Recounts the published events of these terms. The term rows are locked first (in id order), so that
 * concurrent writes touching one term count each other's committed links.
 */
async function recount(w: WriteScope, termIds: number[]): Promise<void> {
  if (!termIds.length) return;
  await w.lockRows('Term', termIds);
  await refreshTermCounts(w.tx, termIds);
  for (const id of new Set(termIds)) w.changed('term', id, 'updated');
}

// ---------------------------------------------------------------------------------------------------
// Writes

/** Only editors may attribute an event to someone else. */
function assertMayAttribute(viewer: Viewer, authorId: number | undefined): void {
  if (authorId !== undefined && authorId !== viewer.userId && !can(viewer, 'edit_others_posts'))
    throw forbidden(viewer);
}

/** `base` made free among events (but `exceptId`): `party`, else `party-2`, `party-3`, … */
async function freeSlug(
  w: WriteScope,
  base: string,
  exceptId: number | null,
  root = toSlug(base, 'event'),
): Promise<string> {
  await w.lock([`event-slug:${root}`]);
  const taken = new Set(
    (
      await w.tx.event.findMany({
        where: { slug: { startsWith: root }, ...(exceptId !== null ? { id: { not: exceptId } } : {}) },
        select: { slug: true },
      })
    ).map((event) => event.slug),
  );
  if (!taken.has(root)) return root;
  for (let n = 2; ; n++) if (!taken.has(`${root}-${n}`)) return `${root}-${n}`;
}

/** Statuses WordPress leaves without a slug when none is given (`wp_insert_post`). */
const SLUGLESS = new Set(['draft', 'pending']);
const TRASHED_SUFFIX = '__trashed';

/**
 * The slug an event gets for its next status, as WordPress sets `post_name`: a draft or pending event
 * keeps none until it is published (then one from its title); trashing renames it `<slug>__trashed`
 * and remembers the old one (`_wp_desired_post_slug`), freeing it for another event; leaving the
 * trash gives it back (made unique again). Trashed slugs stay unique here (`__trashed-2`), where
 * WordPress would let two trashed posts share one.
 */
async function slugChange(
  w: WriteScope,
  existing: Pick<EventRow, 'id' | 'slug' | 'desiredSlug' | 'status' | 'title'>,
  nextStatus: string,
  title: string,
): Promise<{ slug?: string | null; desiredSlug?: string | null }> {
  if (nextStatus === 'trash' && existing.status !== 'trash') {
    const base = `${existing.slug ?? ''}${TRASHED_SUFFIX}`;
    return { slug: await freeSlug(w, base, existing.id, base), desiredSlug: existing.slug ?? '' };
  }
  if (existing.status === 'trash' && nextStatus !== 'trash') {
    const desired = existing.desiredSlug || null;
    if (desired) return { slug: await freeSlug(w, desired, existing.id), desiredSlug: null };
    return {
      slug: SLUGLESS.has(nextStatus) ? null : await freeSlug(w, title, existing.id),
      desiredSlug: null,
    };
  }
  if (existing.slug === null && !SLUGLESS.has(nextStatus))
    return { slug: await freeSlug(w, title, existing.id) };
  return {};
}

/** The columns every write may set from the input (absent fields are left out). */
function plainColumns(input: EventInput) {
  return {
    ...(input.title !== undefined ? { title: input.title } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.excerpt !== undefined ? { excerpt: input.excerpt } : {}),
    ...(input.author !== undefined ? { authorId: input.author } : {}),
    ...(input.cost !== undefined ? input.cost : {}),
    ...(input.website !== undefined ? { website: input.website } : {}),
    ...(input.showMap !== undefined ? { showMap: input.showMap } : {}),
    ...(input.showMapLink !== undefined ? { showMapLink: input.showMapLink } : {}),
    ...(input.hideFromListings !== undefined ? { hideFromListings: input.hideFromListings } : {}),
    ...(input.sticky !== undefined ? { sticky: input.sticky } : {}),
    ...(input.featured !== undefined ? { featured: input.featured } : {}),
    ...(input.postParent !== undefined ? { postParentId: input.postParent } : {}),
    ...(input.password !== undefined ? { password: input.password } : {}),
  };
}

/**
 * The event status columns after a write, or nothing when neither was sent. The reason survives only
 * while the event is canceled or postponed; a status change without a reason keeps the one stored.
 */
function eventStatusColumns(
  input: EventInput,
  existing: Pick<EventRow, 'eventStatus' | 'eventStatusReason'> | null,
): { eventStatus?: string; eventStatusReason?: string } {
  if (existing && input.eventStatus === undefined && input.eventStatusReason === undefined) return {};
  const eventStatus = input.eventStatus ?? existing?.eventStatus ?? DEFAULT_EVENT_STATUS;
  const reason = input.eventStatusReason ?? existing?.eventStatusReason ?? '';
  return { eventStatus, eventStatusReason: keepsReason(eventStatus) ? reason : '' };
}

/** The event, its row locked for the rest of the transaction (concurrent updates never undo each other). */
async function findEvent(w: WriteScope, key: EventKey): Promise<EventRow> {
  const found = await w.tx.event.findUnique({ where: key, select: { id: true } });
  if (!found) throw NOT_FOUND.event('id' in key ? key.id : key.slug);
  await w.lockRows('Event', [found.id]);
  return w.tx.event.findUniqueOrThrow({ where: { id: found.id }, select: EVENT_ROW });
}

const GRAPHQL_NAMES: Record<string, string> = {
  start_date: 'startDate',
  end_date: 'endDate',
  all_day: 'allDay',
  date_utc: 'dateUtc',
  author: 'authorId',
  show_map: 'showMap',
  show_map_link: 'showMapLink',
  hide_from_listings: 'hideFromListings',
  venue: 'venues',
  organizer: 'organizers',
  post_parent: 'postParentId',
  event_status: 'eventStatus',
  event_status_reason: 'eventStatusReason',
};

/** A parameter error renamed for GraphQL (`start_date` → `startDate`); other errors pass unchanged. */
function styled(error: unknown, style: ParamStyle): unknown {
  if (style === 'rest' || !isApiError(error)) return error;
  const rename = (name: string) => GRAPHQL_NAMES[name] ?? name;
  const renameKeys = (record: unknown) =>
    isRecord(record)
      ? Object.fromEntries(Object.entries(record).map(([key, value]) => [rename(key), value]))
      : record;
  const { params, details, ...rest } = error.data;
  if (error.code === 'rest_missing_callback_param' && Array.isArray(params))
    return missingParams(params.map(String).map(rename));
  if (params === undefined) return error;
  const renamed = renameKeys(params) as Record<string, unknown>;
  const message =
    error.code === 'rest_invalid_param'
      ? `Invalid parameter(s): ${Object.keys(renamed).join(', ')}`
      : error.message;
  return new ApiError(error.status, error.code, message, {
    ...rest,
    params: renamed,
    ...(details !== undefined ? { details: renameKeys(details) } : {}),
  });
}

async function withStyle<T>(style: ParamStyle | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw styled(error, style ?? 'rest');
  }
}

const CONFLICT = { conflictCode: 'event-write-conflict' };

/**
 * Creates an event (201 on REST): validation → permission → writes, in one transaction, and returns it
 * as `load` reads it there.
 */
export function createEvent<T extends LoadedEvent>(
  scope: Scope,
  body: unknown,
  load: EventLoader<T>,
  options: WriteOptions = {},
): Promise<Judged<T>> {
  const { viewer, config } = scope;
  const now = options.now ?? new Date();
  return withStyle(options.style, () =>
    scope.writes.run(
      scope,
      async (w) => {
        const { tx } = w;
        const read: ReadOptions = {
          mode: 'create',
          zone: config.siteTimezone,
          siteTimezone: config.siteTimezone,
          passwordAllowed: options.passwordAllowed ?? true,
          now,
        };
        // Permission first: a caller who may not write learns nothing from the validation of ids.
        if (!canCreate(viewer)) throw forbidden(viewer);
        const { input, image } = await validate(tx, viewer, body, read, null);
        assertMayAttribute(viewer, input.author);

        const schedule = scheduleOf(input, null, config.siteTimezone)!;
        const links = await resolveLinks(w, input);
        const publishedAt = input.publishedAt ?? now;
        const status = publicationStatus(effectiveStatus(viewer, input.status), publishedAt, now);
        const event = await tx.event.create({
          data: {
            title: input.title!,
            ...plainColumns(input),
            ...eventStatusColumns(input, null),
            ...schedule,
            slug:
              input.slug !== undefined
                ? await freeSlug(w, input.slug, null)
                : SLUGLESS.has(status)
                  ? null
                  : await freeSlug(w, input.title!, null),
            authorId: input.author ?? viewer.userId,
            status,
            publishedAt,
            ...(image ? { imageId: await recordImage(tx, viewer, image) } : {}),
          },
          select: { id: true },
        });
        w.changed('event', event.id, 'created');
        await writeLinks(tx, event.id, links, false);
        await recount(w, [...(links.categories ?? []), ...(links.tags ?? [])]);
        return judged(await load(tx, event.id), viewer);
      },
      CONFLICT,
    ),
  );
}

/**
 * Updates an event by id or slug: only the fields sent are written (an omitted `status` stays, D17),
 * with the row locked for the transaction.
 */
export function updateEvent<T extends LoadedEvent>(
  scope: Scope,
  key: EventKey,
  body: unknown,
  load: EventLoader<T>,
  options: WriteOptions = {},
): Promise<Judged<T>> {
  const { viewer, config } = scope;
  const now = options.now ?? new Date();
  return withStyle(options.style, () =>
    scope.writes.run(
      scope,
      async (w) => {
        const { tx } = w;
        const existing = await findEvent(w, key);
        const read: ReadOptions = {
          mode: 'update',
          zone: existing.timezone || config.siteTimezone,
          siteTimezone: config.siteTimezone,
          passwordAllowed: options.passwordAllowed ?? 'id' in key,
          now,
        };
        if (!canEdit(viewer, existing)) throw forbidden(viewer);
        w.expectVersion(existing);
        const { input, image } = await validate(tx, viewer, body, read, existing.id);
        assertMayAttribute(viewer, input.author);

        const schedule = scheduleOf(input, existing, config.siteTimezone);
        const links = await resolveLinks(w, input);
        const data: Prisma.EventUncheckedUpdateInput = {
          ...plainColumns(input),
          ...eventStatusColumns(input, existing),
          ...(schedule ?? {}),
        };
        if (input.slug !== undefined && input.slug !== existing.slug)
          data.slug = await freeSlug(w, input.slug, existing.id);
        if (input.status !== undefined || input.publishedAt !== undefined) {
          const publishedAt = input.publishedAt ?? existing.publishedAt;
          const requested =
            input.status !== undefined ? effectiveStatus(viewer, input.status) : existing.status;
          data.status = publicationStatus(requested, publishedAt, now);
          if (input.publishedAt !== undefined) data.publishedAt = publishedAt;
        }
        if (image) data.imageId = await recordImage(tx, viewer, image);
        if (input.slug === undefined) {
          const next = (data.status as string | undefined) ?? existing.status;
          Object.assign(data, await slugChange(w, existing, next, input.title ?? existing.title));
        }
        const countsChange =
          data.status !== undefined || links.categories !== undefined || links.tags !== undefined;
        const termsBefore = countsChange ? await linkedTermIds(tx, existing.id) : [];
        // Always written, so that `modifiedAt` (the version) and the revision (the feeds' SEQUENCE) move
        // even when only links change.
        await tx.event.update({
          where: { id: existing.id },
          data: { ...data, modifiedAt: nextModified(existing.modifiedAt, now), revision: { increment: 1 } },
        });
        w.changed('event', existing.id, data.status === 'trash' ? 'trashed' : 'updated');
        await writeLinks(tx, existing.id, links, true);
        if (countsChange) await recount(w, [...termsBefore, ...(await linkedTermIds(tx, existing.id))]);
        return judged(await load(tx, existing.id), viewer);
      },
      CONFLICT,
    ),
  );
}

/**
 * Moves an event to the trash and returns it (`status: "trash"`); a trashed one is a 410. `force`
 * deletes it for good (editors and above, D4) and returns it as it was.
 */
export function deleteEvent<T extends LoadedEvent>(
  scope: Scope,
  key: EventKey,
  force: boolean,
  load: EventLoader<T>,
  options: WriteOptions = {},
): Promise<Judged<T>> {
  const { viewer } = scope;
  return withStyle(options.style, () =>
    scope.writes.run(
      scope,
      async (w) => {
        const { tx } = w;
        const existing = await findEvent(w, key);
        if (!canDelete(viewer, existing) || (force && !canDeletePermanently(viewer))) throw forbidden(viewer);
        w.expectVersion(existing);
        const terms = await linkedTermIds(tx, existing.id);
        if (force) {
          const before = judged(await load(tx, existing.id), viewer);
          await tx.event.delete({ where: { id: existing.id } });
          w.changed('event', existing.id, 'deleted');
          await recount(w, terms);
          return before;
        }
        if (existing.status === 'trash')
          throw new ApiError(410, 'event-is-in-trash', 'The event is already trashed');
        await tx.event.update({
          where: { id: existing.id },
          data: {
            status: 'trash',
            modifiedAt: nextModified(existing.modifiedAt, options.now),
            revision: { increment: 1 },
            ...(await slugChange(w, existing, 'trash', existing.title)),
          },
        });
        w.changed('event', existing.id, 'trashed');
        await recount(w, terms);
        return judged(await load(tx, existing.id), viewer);
      },
      CONFLICT,
    ),
  );
}
