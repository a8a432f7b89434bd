import { DateTime } from 'luxon';
import type { Config } from '../../core/config/config.js';
import type { EventSpan } from '../../core/cache/dependencies.js';
import { DECLARED_NAMES, type DeclaredName, namesOnSeries } from '../model/event-fields.js';
import { eventSchedule, wallClock } from '../../core/rules/dates.js';
import {
  type Occurrence,
  type Recurrence,
  type RecurrencePattern,
  type RecurrenceResult,
  type SeriesKind,
  continueFrom,
  endBefore,
  excludeOccurrence,
  excludesFirstStart,
  expandRecurrence,
  formatRecurrence,
  parseRecurrence,
  recurrenceFromPattern,
  recurrenceInvalid,
} from './recurrence.js';
import type { RecurrenceField } from '../service/event-input.js';
import { invalidParams } from '../../core/errors/errors.js';
import { Prisma } from '../../generated/sqlite/client.js';
import { recount } from '../service/event-links.js';
import type { ChangeOperation, Tx, WriteScope } from '../../core/db/transactions.js';
import { seriesGroup } from '../../core/db/write-groups.js';
import type { Context } from '../../core/context/scope.js';
import { visibleEvents } from '../service/event-access.js';
import type { EventSelection } from '../service/event-reads.js';

// Recurring events (docs/reference/recurrence.md, docs/guide/series.md): a series is its first event
// plus recurrence lines (`Event.recurrence`); every later occurrence is an event of its own whose
// `postParentId` is the first event and whose `originalStart` is the slot the rule gave it, so lists,
// filters, feeds, the change stream and the caches treat it as any event. The writes in
// `event-writes.ts` call this module inside their transaction: it turns the first event's values and
// lines into occurrence rows (created, updated or removed in batches), splits and ends series, and
// announces every row it touches. A refused set throws a 400 naming `recurrence`, so nothing is written.

export const RECURRENCE_SCOPES = ['this', 'following', 'all'] as const;
/** Which events of a series a write to one occurrence changes (Google Calendar's three choices). */
export type RecurrenceScope = (typeof RECURRENCE_SCOPES)[number];

export type SeriesSettings = Config['series'];

/** The columns that tell an event's place in a series. */
export const SERIES_COLUMNS = {
  postParentId: true,
  originalStart: true,
  recurrence: true,
  isException: true,
} as const;

export interface SeriesPlace {
  id: number;
  postParentId: number | null;
  originalStart: Date | null;
  recurrence: string | null;
  isException: boolean;
}

/**
 * An occurrence has its first event and its slot; a first event has lines (every occurrence carries a
 * copy of them, which every event of a series shows); any other event is on its own.
 */
export function seriesRole(event: SeriesPlace): 'first' | 'occurrence' | 'single' {
  if (event.postParentId !== null && event.originalStart !== null) return 'occurrence';
  if (event.recurrence !== null) return 'first';
  return 'single';
}

/**
 * Whether each column is the series' (copied from the first event to every occurrence an edit of the
 * whole series reaches) or the occurrence's own. Every column is listed (the compiler checks it): a new
 * column is a decision; a declared field's is its declaration's (`series`), both kinds being copied.
 */
const HAND_COPIED: Record<Exclude<Prisma.EventScalarFieldEnum, DeclaredName>, boolean> = {
  id: false,
  slug: false,
  desiredSlug: false,
  title: true,
  description: true,
  excerpt: true,
  status: true,
  password: true,
  authorId: true,
  publishedAt: true,
  postDate: true,
  modifiedAt: false,
  startsAt: false,
  endsAt: false,
  localStart: false,
  localEnd: false,
  timezone: true,
  allDay: true,
  cost: true,
  currencySymbol: true,
  currencyCode: true,
  currencyPosition: true,
  website: true,
  postParentId: false,
  imageId: true,
  eventStatus: true,
  eventStatusReason: true,
  revision: false,
  recurrence: true,
  originalStart: false,
  isException: false,
  startExcluded: false,
};
const COPIED_NAMES: Prisma.EventScalarFieldEnum[] = [
  ...(Object.keys(HAND_COPIED) as Array<keyof typeof HAND_COPIED>).filter((name) => HAND_COPIED[name]),
  ...DECLARED_NAMES,
];
/** What the first event decides for every occurrence, exceptions included. */
const SERIES_WIDE = ['status', 'password', 'recurrence', ...namesOnSeries('series-wide')] as const;

const FIRST_SELECT = {
  ...Object.fromEntries(COPIED_NAMES.map((name) => [name, true])),
  id: true,
  slug: true,
  startsAt: true,
  endsAt: true,
  localStart: true,
  localEnd: true,
  startExcluded: true,
} as const;

type SeriesValues = Pick<Prisma.EventUncheckedCreateInput, (typeof COPIED_NAMES)[number]>;
interface FirstEvent extends SeriesValues {
  id: number;
  slug: string | null;
  status: string;
  timezone: string;
  allDay: boolean;
  startsAt: Date;
  endsAt: Date;
  localStart: string;
  localEnd: string;
  recurrence: string | null;
  startExcluded: boolean;
}

interface ChildRow {
  id: number;
  originalStart: Date;
  isException: boolean;
  status: string;
  slug: string | null;
  desiredSlug: string | null;
  localStart: string;
  localEnd: string;
  startsAt: Date;
  endsAt: Date;
}

const CHILD_SELECT = {
  id: true,
  originalStart: true,
  isException: true,
  status: true,
  slug: true,
  desiredSlug: true,
  localStart: true,
  localEnd: true,
  startsAt: true,
  endsAt: true,
} as const;

/** Rows per statement: under SQLite's 32,766 bound variables and PostgreSQL's 65,535 parameters. */
const BATCH = 500;

function chunks<T>(items: readonly T[], size = BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const spanOf = ({ localStart, localEnd }: EventSpan): EventSpan => ({ localStart, localEnd });

/** Tells the write's listeners (change log, caches, subscriptions) of one row the series wrote. */
function announce(
  w: WriteScope,
  id: number,
  operation: ChangeOperation,
  before: EventSpan | null,
  after: EventSpan | null,
): void {
  w.changed('event', id, operation, {
    move: { before: before && spanOf(before), after: after && spanOf(after), facts: 'all' },
  });
}

// ---- Lines -------------------------------------------------------------------------------------------

const linesOf = (stored: string | null): string[] => (stored ? stored.split('\n') : []);
const storedLines = (lines: readonly string[]): string | null => (lines.length ? lines.join('\n') : null);

function orRefuse<T>(result: RecurrenceResult<T>, field: RecurrenceField = 'recurrence'): T {
  if (!result.ok) throw recurrenceInvalid(result.problem, field);
  return result.value;
}

const isLines = (sent: readonly string[] | RecurrencePattern): sent is readonly string[] =>
  Array.isArray(sent);

/** The lines a client sent, checked against the series' zone and all-day flag, in canonical form. */
export function checkedLines(lines: readonly string[], kind: SeriesKind): string[] {
  return formatRecurrence(orRefuse(parseRecurrence(lines, kind)));
}

function recurrenceOf(first: FirstEvent): Recurrence {
  return orRefuse(parseRecurrence(linesOf(first.recurrence), first));
}

/** The slot of an occurrence as the recurrence functions take it. */
function slotOf(originalStart: Date, timezone: string): Occurrence {
  return { localStart: wallClock(originalStart, timezone), startsAt: originalStart };
}

function horizonOf(settings: SeriesSettings, now: Date): Date {
  return DateTime.fromJSDate(now).plus({ months: settings.horizonMonths }).toJSDate();
}

/** The slots of the series after its first start, before the horizon (a refusal past the cap). */
function laterSlots(
  first: FirstEvent,
  settings: SeriesSettings,
  now: Date,
  field?: RecurrenceField,
): Occurrence[] {
  const occurrences = orRefuse(
    expandRecurrence(
      recurrenceOf(first),
      {
        timezone: first.timezone,
        allDay: first.allDay,
        localStart: first.localStart,
        startsAt: first.startsAt,
      },
      { horizon: horizonOf(settings, now), cap: settings.maxOccurrences },
    ),
    field,
  );
  return occurrences.filter((slot) => slot.startsAt.getTime() !== first.startsAt.getTime());
}

/**
 * An occurrence's times: its slot and the first event's length (whole days for an all-day series, each
 * ending at the end of its last day), computed once per series: a series has thousands of slots.
 */
function scheduler(first: FirstEvent): (slot: { startsAt: Date }) => ReturnType<typeof eventSchedule> {
  const zone = first.timezone;
  if (first.allDay) {
    const firstDay = (wall: string) => DateTime.fromFormat(wall.slice(0, 10), 'yyyy-MM-dd', { zone: 'UTC' });
    const days = Math.round(firstDay(first.localEnd).diff(firstDay(first.localStart), 'days').days);
    return (slot) => {
      const end = DateTime.fromJSDate(slot.startsAt, { zone }).plus({ days }).endOf('day').startOf('second');
      return eventSchedule(slot.startsAt, end.toJSDate(), zone);
    };
  }
  const length = first.endsAt.getTime() - first.startsAt.getTime();
  return (slot) => eventSchedule(slot.startsAt, new Date(slot.startsAt.getTime() + length), zone);
}

// ---- Batched statements -------------------------------------------------------------------------------
// A series writes hundreds of rows: one statement per batch, in SQL, where Prisma would plan a query per
// row (updates of different values) or spend longer planning one large insert than running it.

type Value = string | number | boolean | Date | null;

const column = (name: string) => Prisma.raw(`"${name}"`);

/** Inserts events (each with the same keys), returning their ids and spans in order. */
async function insertEvents(tx: Tx, rows: ReadonlyArray<Record<string, Value | undefined>>) {
  if (!rows.length) return [];
  const names = Object.keys(rows[0]!);
  const created: Array<{ id: number; localStart: string; localEnd: string }> = [];
  for (const part of chunks(rows, Math.floor(30_000 / names.length))) {
    const values = part.map((row) => Prisma.sql`(${Prisma.join(names.map((name) => row[name] ?? null))})`);
    created.push(
      ...(await tx.$queryRaw<Array<{ id: number; localStart: string; localEnd: string }>>(
        Prisma.sql`INSERT INTO "Event" (${Prisma.join(names.map(column))}) VALUES ${Prisma.join(values)} RETURNING "id", "localStart", "localEnd"`,
      )),
    );
  }
  return created.map((row) => ({ ...row, id: Number(row.id) }));
}

/**
 * Gives each row its own values of the same columns, in one UPDATE per batch (`CASE "id" WHEN …`).
 * PostgreSQL is told each value's type; SQLite stores what it is given, as Prisma does.
 */
async function updateEach(w: WriteScope, rows: ReadonlyArray<{ id: number; data: Record<string, Value> }>) {
  if (!rows.length) return;
  const postgres = w.config.databaseProvider === 'postgresql';
  const typed = (value: Value) =>
    postgres && value instanceof Date ? Prisma.sql`CAST(${value} AS TIMESTAMP(3))` : Prisma.sql`${value}`;
  const names = Object.keys(rows[0]!.data);
  for (const part of chunks(rows, Math.floor(30_000 / (2 * names.length + 1)))) {
    const sets = names.map(
      (name) =>
        Prisma.sql`${column(name)} = CASE "id" ${Prisma.join(
          part.map((row) => Prisma.sql`WHEN ${row.id} THEN ${typed(row.data[name]!)}`),
          ' ',
        )} END`,
    );
    await w.tx.$executeRaw(
      Prisma.sql`UPDATE "Event" SET ${Prisma.join(sets)} WHERE "id" IN (${Prisma.join(part.map((row) => row.id))})`,
    );
  }
}

// ---- Slugs -------------------------------------------------------------------------------------------

/**
 * Free slugs for many rows at once: each wanted slug as it is when no other event has it, else with
 * `-2`, `-3`… (one query per round, not one per row). Null stays null (a draft's missing slug).
 */
async function freeSlugs(tx: Tx, wanted: ReadonlyArray<string | null>, exceptIds: number[] = []) {
  const result = [...wanted];
  const pending = new Map<number, string>();
  wanted.forEach((slug, index) => slug !== null && pending.set(index, slug));
  const claimed = new Set<string>();
  for (let n = 1; pending.size; n++) {
    const candidates = new Map([...pending].map(([index, base]) => [index, n === 1 ? base : `${base}-${n}`]));
    const taken = new Set<string>();
    for (const part of chunks([...new Set(candidates.values())])) {
      const rows = await tx.event.findMany({
        where: { slug: { in: part }, ...(exceptIds.length ? { id: { notIn: exceptIds } } : {}) },
        select: { slug: true },
      });
      for (const row of rows) if (row.slug) taken.add(row.slug);
    }
    for (const [index, candidate] of candidates) {
      if (taken.has(candidate) || claimed.has(candidate)) continue;
      result[index] = candidate;
      claimed.add(candidate);
      pending.delete(index);
    }
  }
  return result;
}

/** `first-slug-2027-01-05`, with the time where the series has several occurrences on one day. */
function occurrenceSlugs(
  first: FirstEvent,
  slots: readonly Occurrence[],
  sameDay: Set<string>,
): Array<string | null> {
  if (first.slug === null) return slots.map(() => null);
  const base = first.slug.replace(/__trashed(-\d+)?$/, '');
  return slots.map((slot) => {
    const day = slot.localStart.slice(0, 10);
    const suffix = sameDay.has(day) ? `${day}-${slot.localStart.slice(11, 16).replace(':', '')}` : day;
    return `${base}-${suffix}${first.status === 'trash' ? '__trashed' : ''}`;
  });
}

function daysWithSeveral(slots: readonly Occurrence[]): Set<string> {
  const seen = new Set<string>();
  const several = new Set<string>();
  for (const slot of slots) {
    const day = slot.localStart.slice(0, 10);
    if (seen.has(day)) several.add(day);
    seen.add(day);
  }
  return several;
}

// ---- Reading the series ------------------------------------------------------------------------------

async function loadFirst(tx: Tx, id: number): Promise<FirstEvent> {
  return (await tx.event.findUniqueOrThrow({ where: { id }, select: FIRST_SELECT })) as FirstEvent;
}

async function loadChildren(tx: Tx, firstId: number): Promise<ChildRow[]> {
  return (await tx.event.findMany({
    where: { postParentId: firstId, originalStart: { not: null } },
    select: CHILD_SELECT,
    orderBy: { originalStart: 'asc' },
  })) as ChildRow[];
}

async function seriesLinks(tx: Tx, firstId: number) {
  const [venues, organizers, terms] = await Promise.all([
    tx.eventVenue.findMany({ where: { eventId: firstId }, select: { venueId: true, position: true } }),
    tx.eventOrganizer.findMany({
      where: { eventId: firstId },
      select: { organizerId: true, position: true },
    }),
    tx.eventTerm.findMany({ where: { eventId: firstId }, select: { termId: true, position: true } }),
  ]);
  return { venues, organizers, terms };
}

/** Gives every row of `ids` the first event's venues, organizers and terms (replacing theirs). */
async function copyLinks(tx: Tx, firstId: number, ids: readonly number[], replacing: boolean) {
  if (!ids.length) return [];
  const links = await seriesLinks(tx, firstId);
  const before: number[] = [];
  for (const part of chunks(ids)) {
    if (replacing) {
      const where = { eventId: { in: part } };
      before.push(
        ...(await tx.eventTerm.findMany({ where, select: { termId: true } })).map((row) => row.termId),
      );
      await tx.eventVenue.deleteMany({ where });
      await tx.eventOrganizer.deleteMany({ where });
      await tx.eventTerm.deleteMany({ where });
    }
    if (links.venues.length)
      await tx.eventVenue.createMany({
        data: part.flatMap((eventId) => links.venues.map((link) => ({ eventId, ...link }))),
      });
    if (links.organizers.length)
      await tx.eventOrganizer.createMany({
        data: part.flatMap((eventId) => links.organizers.map((link) => ({ eventId, ...link }))),
      });
    if (links.terms.length)
      await tx.eventTerm.createMany({
        data: part.flatMap((eventId) => links.terms.map((link) => ({ eventId, ...link }))),
      });
  }
  return [...before, ...links.terms.map((link) => link.termId)];
}

// ---- Writing the series ------------------------------------------------------------------------------

export interface SyncOptions {
  now: Date;
  settings: SeriesSettings;
  /**
   * `all`: the whole series takes the first event's values (exceptions keep theirs, but the series-wide
   * status, password and listing flag) and links when `relink`; `extend`: only the slots the horizon
   * newly reaches are created (the periodic extension), nothing else is touched.
   */
  mode: 'all' | 'extend';
  relink?: boolean;
  /** The field the set was just sent in, named by a refusal (past the cap). */
  field?: RecurrenceField;
}

/**
 * Brings the occurrence rows of a series in line with its first event: missing slots created, rows of
 * slots the set no longer has removed (a trashed one stays: a cancelled instance), the others updated
 * (`all`). Each row keeps its id while its slot exists. Returns the ids it created, changed or removed.
 */
export async function syncSeries(w: WriteScope, firstId: number, options: SyncOptions): Promise<number[]> {
  const { tx } = w;
  w.group(seriesGroup(firstId));
  const first = await loadFirst(tx, firstId);
  const slots = laterSlots(first, options.settings, options.now, options.field);
  // A write to the whole series may change its set or its first start (the extension changes neither).
  if (options.mode === 'all') await markStart(w, first, recurrenceOf(first));
  const children = await loadChildren(tx, firstId);
  const byTime = new Map(children.map((child) => [child.originalStart.getTime(), child]));
  const wanted = new Set(slots.map((slot) => slot.startsAt.getTime()));
  const missing = slots.filter((slot) => !byTime.has(slot.startsAt.getTime()));
  const touched: number[] = [];
  const termIds: number[] = [];

  if (options.mode === 'all') {
    const gone = children.filter(
      (child) => !wanted.has(child.originalStart.getTime()) && child.status !== 'trash',
    );
    if (gone.length) {
      termIds.push(
        ...(await linkedTerms(
          tx,
          gone.map((child) => child.id),
        )),
      );
      for (const part of chunks(gone.map((child) => child.id)))
        await tx.event.deleteMany({ where: { id: { in: part } } });
      for (const child of gone) announce(w, child.id, 'deleted', child, null);
      touched.push(...gone.map((child) => child.id));
    }
    const kept = children.filter((child) => wanted.has(child.originalStart.getTime()));
    touched.push(...(await updateKept(w, first, kept, options)));
    if (options.relink) {
      const regular = kept.filter((child) => !child.isException).map((child) => child.id);
      termIds.push(...(await copyLinks(tx, first.id, regular, true)));
    }
  }

  if (missing.length) {
    const scheduleOf = scheduler(first);
    // Taken before the rows are written: the events the new occurrences copy per-event records from.
    const templates = templatesFor(first, children, wanted, scheduleOf);
    const slugs = await freeSlugs(tx, occurrenceSlugs(first, missing, daysWithSeveral(slots)));
    const values = seriesValues(first);
    const modifiedAt = options.now;
    const created = await insertEvents(
      tx,
      missing.map((slot, index) => {
        const slug = slugs[index]!;
        return {
          ...values,
          ...scheduleOf(slot),
          slug,
          desiredSlug: first.status === 'trash' ? (slug?.replace(/__trashed$/, '') ?? '') : null,
          postParentId: first.id,
          originalStart: slot.startsAt,
          modifiedAt,
        };
      }),
    );
    for (const row of created) announce(w, row.id, 'created', null, row);
    termIds.push(
      ...(await copyLinks(
        tx,
        first.id,
        created.map((row) => row.id),
        false,
      )),
    );
    touched.push(...created.map((row) => row.id));
    await copyToNew(
      w,
      created.map((row, index) => ({
        id: row.id,
        localStart: row.localStart,
        localEnd: row.localEnd,
        status: first.status,
        timezone: first.timezone,
        from: templates(missing[index]!),
      })),
    );
  }
  if (termIds.length) await recount(w, termIds);
  return touched;
}

// ---- Records other rooms keep per occurrence ------------------------------------------------------------
// An occurrence has its own records of other rooms (the tickets room: its ticket types, copied from the
// series, and its own attendees). That room registers how it copies them to new occurrences; this module
// says which event each new occurrence copies from and, for a write of such records with a scope, which
// events of the series it reaches. Events never import those rooms (docs/internals/architecture.md).

/** A new occurrence of a series and the event of the series it copies per-event records from. */
export interface NewOccurrence {
  id: number;
  localStart: string;
  localEnd: string;
  status: string;
  timezone: string;
  from: { id: number; localStart: string };
}

export type OccurrenceCopier = (w: WriteScope, created: readonly NewOccurrence[]) => Promise<void>;

const copiers: OccurrenceCopier[] = [];

/** Registers what a room copies to every occurrence a series write or the horizon creates. */
export function copyToNewOccurrences(copier: OccurrenceCopier): void {
  if (!copiers.includes(copier)) copiers.push(copier);
}

async function copyToNew(w: WriteScope, created: readonly NewOccurrence[]): Promise<void> {
  if (created.length) for (const copier of copiers) await copier(w, created);
}

/**
 * Which event a new slot copies from: the nearest earlier event of the series that still follows it
 * (the first event, or a regular occurrence whose slot the set keeps), so that an edit of "this and
 * following" reaches the slots the horizon adds later. Exceptions are detached: never copied from.
 */
function templatesFor(
  first: FirstEvent,
  children: readonly ChildRow[],
  wanted: ReadonlySet<number>,
  scheduleOf: ReturnType<typeof scheduler>,
): (slot: Occurrence) => { id: number; localStart: string } {
  const candidates = [
    { at: first.startsAt.getTime(), id: first.id, localStart: first.localStart },
    ...children
      .filter((child) => !child.isException && wanted.has(child.originalStart.getTime()))
      .map((child) => ({
        at: child.originalStart.getTime(),
        id: child.id,
        // A regular occurrence stands in its slot (the whole-series edit just rescheduled it there).
        localStart: scheduleOf({ startsAt: child.originalStart }).localStart,
      })),
  ].sort((a, b) => a.at - b.at);
  return (slot) => {
    const at = slot.startsAt.getTime();
    // The last candidate before the slot (binary search: a series has thousands of them).
    let low = 0;
    let high = candidates.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (candidates[middle]!.at < at) low = middle;
      else high = middle - 1;
    }
    const { id, localStart } = candidates[low]!;
    return { id, localStart };
  };
}

/** An event of a series as a scoped write of its per-event records reaches it. */
export interface ScopedEvent {
  id: number;
  localStart: string;
  localEnd: string;
  status: string;
  timezone: string;
}

const SCOPED_SELECT = {
  ...SERIES_COLUMNS,
  id: true,
  localStart: true,
  localEnd: true,
  status: true,
  timezone: true,
} as const;

/**
 * The events a write of per-event records (ticket types) on `eventId` reaches, that event first, as the
 * event edits' scopes do: on an occurrence, `this` (default) is that occurrence, `following` it and the
 * later regular occurrences (no split: the series stays one), `all` the first event and every regular
 * occurrence; a first event's records are the whole series' (`all`, as an edit of its fields); a single
 * event is alone. Exceptions (detached by an edit of "this occurrence") keep their own, and so do the
 * cancelled (trashed) occurrences of a running series. Beyond one event, the first event's row is locked,
 * as the horizon locks it to create occurrences: none is created meanwhile without the records.
 */
export async function eventsInScope(
  w: WriteScope,
  eventId: number,
  scope: RecurrenceScope = 'this',
): Promise<ScopedEvent[]> {
  const { tx } = w;
  const event = await tx.event.findUniqueOrThrow({ where: { id: eventId }, select: SCOPED_SELECT });
  const role = seriesRole(event);
  const reach = role === 'first' ? 'all' : role === 'occurrence' ? scope : 'this';
  if (reach === 'this') return [event];
  const firstId = role === 'first' ? event.id : event.postParentId!;
  await w.lockRows('Event', [firstId]);
  const first = await tx.event.findUniqueOrThrow({ where: { id: firstId }, select: SCOPED_SELECT });
  const later = reach === 'following' ? { gt: event.originalStart! } : { not: null };
  const occurrences = await tx.event.findMany({
    where: {
      postParentId: firstId,
      originalStart: later,
      isException: false,
      ...(first.status === 'trash' ? {} : { status: { not: 'trash' } }),
    },
    select: SCOPED_SELECT,
    orderBy: { originalStart: 'asc' },
  });
  const others = [...(reach === 'all' ? [first] : []), ...occurrences].filter((row) => row.id !== event.id);
  return [event, ...others];
}

function seriesValues(first: FirstEvent): SeriesValues {
  return Object.fromEntries(
    COPIED_NAMES.map((name) => [name, first[name as keyof FirstEvent]]),
  ) as SeriesValues;
}

async function linkedTerms(tx: Tx, ids: readonly number[]): Promise<number[]> {
  const termIds: number[] = [];
  for (const part of chunks(ids))
    termIds.push(
      ...(await tx.eventTerm.findMany({ where: { eventId: { in: part } }, select: { termId: true } })).map(
        (row) => row.termId,
      ),
    );
  return termIds;
}

/**
 * The kept occurrences after an edit of the whole series: the regular ones take the series' values in one
 * statement (and their times where the length changed), the exceptions only the series-wide columns;
 * each row's slug follows its status into and out of the trash.
 */
async function updateKept(
  w: WriteScope,
  first: FirstEvent,
  kept: readonly ChildRow[],
  options: SyncOptions,
): Promise<number[]> {
  if (!kept.length) return [];
  const { tx } = w;
  const regular = kept.filter((child) => !child.isException);
  const exceptions = kept.filter((child) => child.isException);
  const stamp = { modifiedAt: options.now, revision: { increment: 1 } };
  const values = seriesValues(first);
  for (const part of chunks(regular.map((child) => child.id)))
    await tx.event.updateMany({ where: { id: { in: part } }, data: { ...values, ...stamp } });
  const wide = Object.fromEntries(SERIES_WIDE.map((name) => [name, first[name]]));
  for (const part of chunks(exceptions.map((child) => child.id)))
    await tx.event.updateMany({ where: { id: { in: part } }, data: { ...wide, ...stamp } });

  const scheduleOf = scheduler(first);
  const after = new Map<number, EventSpan>();
  const moved: Array<{ id: number; data: Record<string, Value> }> = [];
  for (const child of regular) {
    const schedule = scheduleOf({ startsAt: child.originalStart });
    after.set(child.id, schedule);
    if (schedule.localStart !== child.localStart || schedule.localEnd !== child.localEnd)
      moved.push({ id: child.id, data: schedule });
  }
  await updateEach(w, moved);
  await followStatus(w, first, kept);
  for (const child of kept)
    announce(
      w,
      child.id,
      first.status === 'trash' ? 'trashed' : 'updated',
      child,
      after.get(child.id) ?? child,
    );
  return kept.map((child) => child.id);
}

/** Occurrence slugs into the trash (`…__trashed`, the old one kept) and out of it, as one event's do. */
async function followStatus(w: WriteScope, first: FirstEvent, rows: readonly ChildRow[]): Promise<void> {
  const { tx } = w;
  const trashing = first.status === 'trash';
  const moving = rows.filter((row) => (row.status === 'trash') !== trashing && (row.slug ?? row.desiredSlug));
  if (!moving.length) return;
  const wanted = moving.map((row) => (trashing ? `${row.slug}__trashed` : row.desiredSlug || null));
  const slugs = await freeSlugs(
    tx,
    wanted,
    moving.map((row) => row.id),
  );
  await updateEach(
    w,
    moving.map((row, index) => ({
      id: row.id,
      data: { slug: slugs[index]!, desiredSlug: trashing ? row.slug : null },
    })),
  );
}

/**
 * Stores a first event's set, sent as lines or as a pattern (canonical, checked against its zone and
 * all-day flag; a refusal names the field it was sent in).
 */
export async function setLines(
  w: WriteScope,
  eventId: number,
  sent: readonly string[] | RecurrencePattern,
): Promise<void> {
  const event = await w.tx.event.findUniqueOrThrow({
    where: { id: eventId },
    select: { timezone: true, allDay: true },
  });
  const canonical = isLines(sent)
    ? checkedLines(sent, event)
    : formatRecurrence(orRefuse(recurrenceFromPattern(sent, event), 'recurrencePattern'));
  await w.tx.event.update({ where: { id: eventId }, data: { recurrence: storedLines(canonical) } });
}

/**
 * Ends a series (`recurrence: []` or null on its first event): its occurrences are removed, the first
 * event stays as a single event.
 */
export async function endSeries(w: WriteScope, firstId: number): Promise<void> {
  const { tx } = w;
  w.group(seriesGroup(firstId));
  const children = await loadChildren(tx, firstId);
  const termIds = await linkedTerms(
    tx,
    children.map((child) => child.id),
  );
  for (const part of chunks(children.map((child) => child.id)))
    await tx.event.deleteMany({ where: { id: { in: part } } });
  for (const child of children) announce(w, child.id, 'deleted', child, null);
  const single = await tx.event.update({
    where: { id: firstId },
    data: { recurrence: null, startExcluded: false },
    select: { id: true, status: true, localStart: true, localEnd: true },
  });
  // A first event whose start its set excluded is listed again.
  announceListing(w, single);
  await recount(w, termIds);
}

/**
 * Keeps a first event's `startExcluded` true to its set and its start, which a write to the whole series
 * may both change: a series whose set leaves out its first start is still held by the first event (its
 * id, values and lines, read by id), but no list holds it (`LISTED`). Written as derived state, in the
 * transaction of the write that moved the event's version.
 */
async function markStart(w: WriteScope, first: FirstEvent, recurrence: Recurrence): Promise<void> {
  const excluded = excludesFirstStart(recurrence, first);
  if (excluded === first.startExcluded) return;
  await w.tx.$executeRaw`UPDATE "Event" SET "startExcluded" = ${excluded} WHERE "id" = ${first.id}`;
  announceListing(w, first);
}

/** Tells the caches that a first event may have entered or left every list it falls in. */
function announceListing(w: WriteScope, first: { id: number; status: string } & EventSpan): void {
  w.changed('event', first.id, first.status === 'trash' ? 'trashed' : 'updated', {
    move: { before: spanOf(first), after: spanOf(first), facts: ['hidden'] },
  });
}

/**
 * Every occurrence shows the series' lines and is versioned by its own row: when the lines change
 * without the rows (an EXDATE, a split), each row's version and revision move and it is announced.
 */
async function touchSeries(w: WriteScope, firstId: number, now: Date) {
  w.group(seriesGroup(firstId));
  const children = await loadChildren(w.tx, firstId);
  const { recurrence } = await w.tx.event.findUniqueOrThrow({
    where: { id: firstId },
    select: { recurrence: true },
  });
  for (const part of chunks(children.map((child) => child.id)))
    await w.tx.event.updateMany({
      where: { id: { in: part } },
      data: { recurrence, modifiedAt: now, revision: { increment: 1 } },
    });
  for (const child of children) announce(w, child.id, 'updated', child, child);
}

/** A series' first event row, its lines changed: it is written like any update (version, revision). */
async function rewriteLines(w: WriteScope, first: FirstEvent, recurrence: Recurrence, now: Date) {
  await w.tx.event.update({
    where: { id: first.id },
    data: {
      recurrence: storedLines(formatRecurrence(recurrence)),
      startExcluded: excludesFirstStart(recurrence, first),
      modifiedAt: now,
      revision: { increment: 1 },
    },
  });
  announce(w, first.id, 'updated', first, first);
}

/**
 * Deleting one occurrence: its slot becomes an EXDATE of the series, so no regeneration brings it back.
 * The caller trashes or deletes the row itself.
 */
export async function excludeFromSeries(w: WriteScope, occurrence: SeriesPlace, now: Date): Promise<void> {
  const first = await loadFirst(w.tx, occurrence.postParentId!);
  const slot = slotOf(occurrence.originalStart!, first.timezone);
  const recurrence = orRefuse(excludeOccurrence(recurrenceOf(first), slot, first));
  await rewriteLines(w, first, recurrence, now);
  await touchSeries(w, first.id, now);
}

/**
 * "This and following" on a delete: the series ends before the occurrence (UNTIL), and the occurrences
 * from it on are removed (trashed, or deleted with `force`) but the occurrence itself, left to the caller.
 */
export async function endSeriesBefore(
  w: WriteScope,
  occurrence: SeriesPlace,
  force: boolean,
  now: Date,
): Promise<void> {
  const { tx } = w;
  const first = await loadFirst(tx, occurrence.postParentId!);
  const slot = slotOf(occurrence.originalStart!, first.timezone);
  await rewriteLines(w, first, endBefore(recurrenceOf(first), slot, first), now);
  const children = await loadChildren(tx, first.id);
  const later = children.filter(
    (child) => child.originalStart >= slot.startsAt && child.id !== occurrence.id,
  );
  await removeRows(w, later, force, now);
  await touchSeries(w, first.id, now);
}

/** Trashes (or deletes, `force`) the occurrences of a series whose first event is trashed or deleted. */
export async function removeOccurrences(w: WriteScope, firstId: number, force: boolean, now: Date) {
  w.group(seriesGroup(firstId));
  await removeRows(w, await loadChildren(w.tx, firstId), force, now);
}

async function removeRows(w: WriteScope, rows: readonly ChildRow[], force: boolean, now: Date) {
  const { tx } = w;
  const targets = force ? rows : rows.filter((row) => row.status !== 'trash');
  if (!targets.length) return;
  const termIds = await linkedTerms(
    tx,
    targets.map((row) => row.id),
  );
  if (force) {
    for (const part of chunks(targets.map((row) => row.id)))
      await tx.event.deleteMany({ where: { id: { in: part } } });
    for (const row of targets) announce(w, row.id, 'deleted', row, null);
  } else {
    const wanted = targets.map((row) => (row.slug === null ? null : `${row.slug}__trashed`));
    const slugs = await freeSlugs(
      tx,
      wanted,
      targets.map((row) => row.id),
    );
    for (const part of chunks(targets.map((row) => row.id)))
      await tx.event.updateMany({
        where: { id: { in: part } },
        data: { status: 'trash', modifiedAt: now, revision: { increment: 1 } },
      });
    await updateEach(
      w,
      targets.flatMap((row, index) =>
        row.slug === null ? [] : [{ id: row.id, data: { slug: slugs[index]!, desiredSlug: row.slug } }],
      ),
    );
    for (const row of targets) announce(w, row.id, 'trashed', row, row);
  }
  await recount(w, termIds);
}

/**
 * "This and following" on an update: the series ends before the occurrence, which becomes the first
 * event of a new series (the same rule from there, or `lines`); the later occurrences move to it with
 * their ids. The caller then writes the input to it and syncs the new series as a whole.
 */
export async function splitAt(w: WriteScope, occurrence: SeriesPlace, now: Date): Promise<void> {
  const { tx } = w;
  const first = await loadFirst(tx, occurrence.postParentId!);
  const slot = slotOf(occurrence.originalStart!, first.timezone);
  const recurrence = recurrenceOf(first);
  const rest = orRefuse(continueFrom(recurrence, slot, first));
  await rewriteLines(w, first, endBefore(recurrence, slot, first), now);
  const later = (await loadChildren(tx, first.id)).filter(
    (child) => child.originalStart > slot.startsAt && child.id !== occurrence.id,
  );
  for (const part of chunks(later.map((child) => child.id)))
    await tx.event.updateMany({ where: { id: { in: part } }, data: { postParentId: occurrence.id } });
  await tx.event.update({
    where: { id: occurrence.id },
    data: {
      postParentId: null,
      originalStart: null,
      isException: false,
      recurrence: storedLines(formatRecurrence(rest)),
    },
  });
  await touchSeries(w, first.id, now);
}

/**
 * The dates of a whole-series edit sent to an occurrence (`scope: all`): the first event moves by as much
 * as the occurrence would, so "19:00 → 20:00" on any occurrence moves every one.
 */
export function shiftedToFirst(
  dates: { start?: DateTime; end?: DateTime },
  occurrence: { startsAt: Date; endsAt: Date },
  first: { startsAt: Date; endsAt: Date; timezone: string },
): { start?: DateTime; end?: DateTime } {
  const shift = (to: DateTime, from: Date, base: Date) =>
    DateTime.fromJSDate(new Date(base.getTime() + to.toMillis() - from.getTime()), { zone: first.timezone });
  return {
    ...(dates.start ? { start: shift(dates.start, occurrence.startsAt, first.startsAt) } : {}),
    ...(dates.end ? { end: shift(dates.end, occurrence.endsAt, first.endsAt) } : {}),
  };
}

// ---- The horizon -------------------------------------------------------------------------------------

/** The first events of every series still running (trashed ones are not extended). */
export async function seriesToExtend(tx: Tx | Prisma.TransactionClient): Promise<number[]> {
  return (
    await tx.event.findMany({
      where: { recurrence: { not: null }, originalStart: null, status: { not: 'trash' } },
      select: { id: true },
    })
  ).map((row) => row.id);
}

/** A `scope` as a client spells it (`this`, `following`, `all`; absent: `this`), or a 400 naming it. */
export function readScope(text: string | null | undefined): RecurrenceScope {
  if (text === null || text === undefined || text === '') return 'this';
  const scope = text.trim().toLowerCase();
  if ((RECURRENCE_SCOPES as readonly string[]).includes(scope)) return scope as RecurrenceScope;
  throw invalidParams({ scope: `Invalid parameter: one of ${RECURRENCE_SCOPES.join(', ')}.` });
}

/** The lines every event of a series shows: the first event's own, an occurrence's first event's. */
export function seriesLines(event: { recurrence: string | null }): string[] {
  return linesOf(event.recurrence);
}

/** The exceptions of a series the viewer may read, in slot order. */
export async function seriesExceptions(ctx: Context, firstId: number, selection: EventSelection) {
  const rows = await ctx.db.event.findMany({
    where: { postParentId: firstId, isException: true, originalStart: { not: null } },
    orderBy: { originalStart: 'asc' },
    select: { id: true },
  });
  return visibleEvents(
    ctx,
    rows.map((row) => row.id),
    selection,
  );
}

/** A series as its events name it: the first event's id, lines and zone (null: not in a series). */
export function seriesOf(event: SeriesPlace & { timezone: string }) {
  const role = seriesRole(event);
  if (role === 'single') return null;
  return {
    id: role === 'first' ? event.id : event.postParentId!,
    lines: linesOf(event.recurrence),
    timezone: event.timezone,
  };
}
export type SeriesRef = NonNullable<ReturnType<typeof seriesOf>>;
