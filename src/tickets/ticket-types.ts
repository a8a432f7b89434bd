import { DateTime } from 'luxon';
import { WALL_CLOCK, wallClock } from '../domain/dates.js';
import { invalidParams } from '../domain/errors.js';
import type { Event, SharedCapacity, TicketType } from '../generated/sqlite/client.js';
import type { Context } from '../services/scope.js';
import type { WriteScope } from '../services/transactions.js';
import { eventsVisibleTo } from '../services/events/event-access.js';
import {
  type NewOccurrence,
  type RecurrenceScope,
  type ScopedEvent,
  copyToNewOccurrences,
  eventsInScope,
} from '../services/events/event-series.js';
import { passwordWithheld } from '../domain/visibility.js';
import {
  DEFAULT_MAX_PER_REQUEST,
  LIMITS,
  TICKET_KINDS,
  type TicketKind,
  capacityTaken,
  checkedText,
  managesTickets,
  ticketTypeNotFound,
  ticketsForbidden,
  typeHasAttendees,
} from './model.js';
import { type Availability, Places, type TypeRow, lockType } from './places.js';
import { eventForTickets, ticketTypeChanged } from './reservations.js';
import type { EventOfSale } from './sales.js';

// Ticket types: read by anyone who may see their event (a protected one needs its password), written
// by editors and administrators. Sales windows are given and shown in the event's zone, stored as UTC.

export interface TicketTypeView extends TypeRow {
  /** The event's zone: the window is shown in it. */
  timezone: string;
  /** What of its event its sales read (`sales.ts`). */
  event: EventOfSale;
}

type EventOfType = Pick<Event, 'id' | 'timezone'> & EventOfSale;

export interface TicketTypeInput {
  kind?: TicketKind | null;
  name?: string | null;
  description?: string | null;
  price?: string | null;
  currency?: string | null;
  /** null: unlimited. */
  capacity?: number | null;
  /** Draw from this shared capacity (of the same event) as well. */
  sharedCapacityId?: number | null;
  /** A new shared capacity of this size, which this type then draws from. */
  newSharedCapacity?: number | null;
  /** Wall-clock in the event's zone, `YYYY-MM-DD HH:mm:ss`; null: open on that side. */
  salesStart?: string | null;
  salesEnd?: string | null;
  maxPerRequest?: number | null;
  waitlist?: boolean | null;
}

const viewOf = (type: TypeRow, event: EventOfType): TicketTypeView => ({
  ...type,
  timezone: event.timezone,
  event: { endsAt: event.endsAt, status: event.status, eventStatus: event.eventStatus },
});

/** The sales window bounds as the event's wall-clock ("" when open). */
export const localBound = (instant: Date | null, zone: string) => (instant ? wallClock(instant, zone) : null);

/** The types of events the caller has already read as visible to the viewer; none on a withheld event. */
export async function ticketTypesOf(
  ctx: Context,
  events: ReadonlyArray<EventOfType & { contentWithheld?: boolean }>,
): Promise<Map<number, TicketTypeView[]>> {
  const open = events.filter((event) => event.contentWithheld !== true);
  const byEvent = new Map<number, TicketTypeView[]>(events.map((event) => [event.id, []]));
  if (!open.length) return byEvent;
  const zones = new Map(open.map((event) => [event.id, event]));
  const rows = await ctx.db.ticketType.findMany({
    where: { eventId: { in: [...zones.keys()] } },
    include: { sharedCapacity: true },
    orderBy: [{ eventId: 'asc' }, { id: 'asc' }],
  });
  for (const row of rows) byEvent.get(row.eventId)!.push(viewOf(row, zones.get(row.eventId)!));
  return byEvent;
}

/** Availability of these types (anyone who may see them may see it: counts, never names). */
export async function availabilityOf(
  ctx: Pick<Context, 'db'>,
  types: readonly TypeRow[],
): Promise<Map<number, Availability>> {
  const places = await Places.count(ctx.db, types);
  return new Map(types.map((type) => [type.id, places.availability(type.id)]));
}

/** One type, as its event's readers see it (null: no such type, or one the viewer may not see). */
export async function ticketType(
  ctx: Context,
  id: number,
  password?: string | null,
): Promise<TicketTypeView> {
  const row = await ctx.db.ticketType.findUnique({ where: { id }, include: { sharedCapacity: true } });
  if (!row) throw ticketTypeNotFound();
  const event = await eventForTickets(ctx, row.eventId, password);
  return viewOf(row, event);
}

/** The types of every event the viewer may see (protected ones it may not open left out), by id. */
export async function visibleTicketTypes(
  ctx: Context,
  page: { offset: number; limit: number; eventId?: number | null },
): Promise<{ total: number; types: TicketTypeView[] }> {
  const where = {
    ...(page.eventId ? { eventId: page.eventId } : {}),
    event: { AND: [eventsVisibleTo(ctx.viewer)] },
  };
  const [total, rows] = await Promise.all([
    ctx.db.ticketType.count({ where }),
    ctx.db.ticketType.findMany({
      where,
      include: { sharedCapacity: true, event: true },
      orderBy: { id: 'asc' },
      skip: page.offset,
      take: page.limit,
    }),
  ]);
  // Protected events' types are counted out too: a listing never shows what a password hides.
  const shown = rows.filter((row) => !passwordWithheld(row.event, ctx.viewer));
  return {
    total: total - (rows.length - shown.length),
    types: shown.map(({ event, ...type }) => viewOf(type, event)),
  };
}

function checkedInput(input: TicketTypeInput, zone: string, creating: boolean) {
  const reasons: Record<string, string> = {};
  const data: Record<string, unknown> = {};
  if (input.kind !== undefined && input.kind !== null) {
    if (!TICKET_KINDS.includes(input.kind)) reasons.kind = 'RSVP or TICKET.';
    data.kind = input.kind;
  }
  if (input.name !== undefined && input.name !== null) {
    const name = checkedText(input.name, LIMITS.typeNameLength, 'name', reasons);
    if (!name) reasons.name = 'A name is required.';
    data.name = name;
  } else if (creating) reasons.name = 'A name is required.';
  if (input.description !== undefined && input.description !== null)
    data.description = checkedText(input.description, LIMITS.descriptionLength, 'description', reasons);
  if (input.price !== undefined && input.price !== null) {
    // A decimal for display: never parsed into a float, so "12.10" stays "12.10".
    if (input.price !== '' && !/^\d{1,9}(?:\.\d{1,2})?$/.test(input.price))
      reasons.price = 'A decimal amount such as 12 or 12.50 ("" for none).';
    data.price = input.price;
  }
  if (input.currency !== undefined && input.currency !== null) {
    if (input.currency !== '' && !/^[A-Z]{3}$/.test(input.currency))
      reasons.currency = 'An ISO 4217 code such as EUR.';
    data.currency = input.currency;
  }
  const count = (field: 'capacity' | 'maxPerRequest' | 'newSharedCapacity', min: number, max: number) => {
    const value = input[field];
    if (value === undefined || value === null) return;
    if (!Number.isInteger(value) || value < min || value > max)
      reasons[field] = `A whole number from ${min} to ${max}.`;
  };
  count('capacity', 0, LIMITS.maxCapacity);
  count('newSharedCapacity', 0, LIMITS.maxCapacity);
  count('maxPerRequest', 1, LIMITS.maxGuests);
  if (input.capacity !== undefined) data.capacity = input.capacity;
  if (input.maxPerRequest !== undefined && input.maxPerRequest !== null)
    data.maxPerRequest = input.maxPerRequest;
  else if (creating) data.maxPerRequest = DEFAULT_MAX_PER_REQUEST;
  if (input.waitlist !== undefined && input.waitlist !== null) data.waitlist = input.waitlist;
  for (const field of ['salesStart', 'salesEnd'] as const) {
    const value = input[field];
    if (value === undefined) continue;
    if (value === null || value === '') {
      data[field] = null;
      continue;
    }
    const local = DateTime.fromFormat(value, WALL_CLOCK, { zone });
    // A wall-clock the zone skips (a DST gap) names no instant: refused rather than moved.
    if (!local.isValid || local.toFormat(WALL_CLOCK) !== value)
      reasons[field] = `A wall-clock time "YYYY-MM-DD HH:mm:ss" that exists in ${zone}.`;
    else data[field] = local.toJSDate();
  }
  if (
    input.sharedCapacityId !== undefined &&
    input.newSharedCapacity !== undefined &&
    input.sharedCapacityId !== null &&
    input.newSharedCapacity !== null
  )
    reasons.sharedCapacityId = 'Give either sharedCapacityId or newSharedCapacity.';
  if (Object.keys(reasons).length) throw invalidParams(reasons);
  return data;
}

async function managedEvent(ctx: Context, eventId: number): Promise<Event> {
  if (!managesTickets(ctx.viewer)) throw ticketsForbidden(ctx.viewer);
  return eventForTickets(ctx, eventId);
}

const writeRequest = (ctx: Context) => ({ db: ctx.db, viewer: ctx.viewer, config: ctx.config });

function checkWindow(start: Date | null, end: Date | null) {
  if (start && end && end <= start)
    throw invalidParams({ salesEnd: 'The sales end must come after its start.' });
}

// ---- Series -------------------------------------------------------------------------------------------
// Every occurrence of a series has its own types (and so its own places and attendees): copies of the
// types of the event it was created from (`copyToNewOccurrences`), which share a `seriesKey`. A write
// of a type on an event of a series takes the event edits' scope (`eventsInScope`) and reaches the
// copies of that type on the events in scope, all in one transaction.

/** What the copies of one type across a series share: the id of the type they were first written as. */
const keyOf = (type: Pick<TicketType, 'id' | 'seriesKey'>) => type.seriesKey ?? type.id;

/**
 * A sales bound moved as far as an occurrence is from the event it is copied from, in wall-clock time of
 * their zone: "10:00, a week before" stays 10:00 a week before across a DST change (its UTC hour moves).
 * A wall-clock the zone skips moves forward by the gap.
 */
export function shiftedBound(bound: Date | null, zone: string, from: string, to: string): Date | null {
  if (!bound || from === to) return bound;
  const naive = (wall: string) => DateTime.fromFormat(wall, WALL_CLOCK, { zone: 'utc' });
  const wall = naive(wallClock(bound, zone)).plus(naive(to).diff(naive(from)));
  return DateTime.fromFormat(wall.toFormat(WALL_CLOCK), WALL_CLOCK, { zone }).toJSDate();
}

type Tx = WriteScope['tx'];

/** The columns a copy takes from its type (the sales window shifted, the shared capacity its own). */
function copiedColumns(type: TicketType, zone: string, from: string, to: string) {
  return {
    kind: type.kind,
    name: type.name,
    description: type.description,
    price: type.price,
    currency: type.currency,
    capacity: type.capacity,
    salesStart: shiftedBound(type.salesStart, zone, from, to),
    salesEnd: shiftedBound(type.salesEnd, zone, from, to),
    maxPerRequest: type.maxPerRequest,
    waitlist: type.waitlist,
    seriesKey: keyOf(type),
  };
}

const BATCH = 500;
const chunks = <T>(items: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(items.length / BATCH) }, (_, i) => items.slice(i * BATCH, (i + 1) * BATCH));

type Copy = ReturnType<typeof copiedColumns> & { eventId: number; sharedCapacityId: number | null };

/**
 * Writes copies of types on other events of a series, each recorded as its event's `ticket.created`:
 * the one way copies are made, by a scoped type write and for the occurrences a series write or the
 * horizon creates alike, so the change stream, webhooks and caches see every copy.
 */
async function insertCopies(
  w: WriteScope,
  copies: readonly Copy[],
  eventOf: ReadonlyMap<number, Parameters<typeof ticketTypeChanged>[1]>,
): Promise<void> {
  for (const part of chunks(copies))
    for (const copy of await w.tx.ticketType.createManyAndReturn({
      data: part,
      select: { id: true, eventId: true },
    }))
      ticketTypeChanged(w, eventOf.get(copy.eventId)!, copy.id, 'created');
}

/**
 * Gives each new occurrence copies of the types of the event it was created from: never their
 * attendees; a shared capacity becomes a new one of the same size on each occurrence.
 */
async function copyTypesToOccurrences(w: WriteScope, created: readonly NewOccurrence[]): Promise<void> {
  const { tx } = w;
  const templateIds = [...new Set(created.map((occurrence) => occurrence.from.id))];
  const types: TypeRow[] = [];
  for (const part of chunks(templateIds))
    types.push(
      ...(await tx.ticketType.findMany({
        where: { eventId: { in: part } },
        include: { sharedCapacity: true },
        orderBy: { id: 'asc' },
      })),
    );
  if (!types.length) return;
  const byTemplate = new Map<number, TypeRow[]>();
  for (const type of types) byTemplate.set(type.eventId, [...(byTemplate.get(type.eventId) ?? []), type]);
  const sharedOf = (templateId: number) => [
    ...new Map(
      (byTemplate.get(templateId) ?? []).flatMap((type) =>
        type.sharedCapacity ? [[type.sharedCapacity.id, type.sharedCapacity] as const] : [],
      ),
    ).values(),
  ];

  // Shared capacities first (the copies name them): each occurrence's, in the order of its template's.
  const newShared = new Map<string, number>();
  const wantedShared = created.flatMap((occurrence) =>
    sharedOf(occurrence.from.id).map((shared) => ({ occurrence, shared })),
  );
  for (const part of chunks(wantedShared)) {
    const rows = await tx.sharedCapacity.createManyAndReturn({
      data: part.map(({ occurrence, shared }) => ({ eventId: occurrence.id, capacity: shared.capacity })),
      select: { id: true, eventId: true, capacity: true },
    });
    // Told apart by event and size, whatever order the rows come back in (two of the same size on one
    // occurrence are alike: either may stand for either).
    const fresh = new Map<string, number[]>();
    for (const row of rows.toSorted((a, b) => a.id - b.id)) {
      const at = `${row.eventId}:${row.capacity}`;
      fresh.set(at, [...(fresh.get(at) ?? []), row.id]);
    }
    for (const { occurrence, shared } of part)
      newShared.set(
        `${occurrence.id}:${shared.id}`,
        fresh.get(`${occurrence.id}:${shared.capacity}`)!.shift()!,
      );
  }

  const copies = created.flatMap((occurrence) =>
    (byTemplate.get(occurrence.from.id) ?? []).map((type) => ({
      ...copiedColumns(type, occurrence.timezone, occurrence.from.localStart, occurrence.localStart),
      eventId: occurrence.id,
      sharedCapacityId: type.sharedCapacityId
        ? newShared.get(`${occurrence.id}:${type.sharedCapacityId}`)!
        : null,
    })),
  );
  await insertCopies(w, copies, new Map(created.map((occurrence) => [occurrence.id, occurrence])));
}

copyToNewOccurrences(copyTypesToOccurrences);

/**
 * The shared capacity a copy on `target` draws from where the edited type draws from `shared`: the one
 * the copies of its sibling types (those drawing from `shared`) already draw from there, else a new one
 * of the same size, made once per write and occurrence.
 */
async function matchingShared(
  tx: Tx,
  shared: SharedCapacity,
  target: ScopedEvent,
  made: Map<number, number>,
): Promise<number> {
  const known = made.get(target.id);
  if (known !== undefined) return known;
  const siblings = await tx.ticketType.findMany({
    where: { sharedCapacityId: shared.id },
    select: { id: true, seriesKey: true },
  });
  const keys = [...new Set(siblings.map(keyOf))];
  const copy = keys.length
    ? await tx.ticketType.findFirst({
        where: {
          eventId: target.id,
          sharedCapacityId: { not: null },
          OR: [{ seriesKey: { in: keys } }, { id: { in: keys } }],
        },
        select: { sharedCapacityId: true },
      })
    : null;
  const id =
    copy?.sharedCapacityId ??
    (await tx.sharedCapacity.create({ data: { eventId: target.id, capacity: shared.capacity } })).id;
  made.set(target.id, id);
  return id;
}

/**
 * The shared capacity each event in scope's type draws from, as the input says for the edited event
 * (its first): undefined leaves it, null leaves none, a new one per event, or the edited event's own one
 * and its match on the others.
 */
async function sharedCapacities(
  tx: Tx,
  targets: readonly ScopedEvent[],
  input: TicketTypeInput,
): Promise<Map<number, number | null | undefined>> {
  const out = new Map<number, number | null | undefined>();
  if (input.newSharedCapacity !== undefined && input.newSharedCapacity !== null) {
    for (const target of targets)
      out.set(
        target.id,
        (await tx.sharedCapacity.create({ data: { eventId: target.id, capacity: input.newSharedCapacity } }))
          .id,
      );
    return out;
  }
  if (input.sharedCapacityId === undefined || input.sharedCapacityId === null) {
    for (const target of targets) out.set(target.id, input.sharedCapacityId);
    return out;
  }
  const [own, ...others] = targets;
  const shared = await tx.sharedCapacity.findFirst({
    where: { id: input.sharedCapacityId, eventId: own!.id },
  });
  if (!shared) throw invalidParams({ sharedCapacityId: 'No shared capacity of this event has this id.' });
  out.set(own!.id, shared.id);
  const made = new Map<number, number>();
  for (const target of others) out.set(target.id, await matchingShared(tx, shared, target, made));
  return out;
}

/** The sales window of `data` as it applies on `target` (moved by its distance from the edited event). */
function windowOn(data: Record<string, unknown>, edited: ScopedEvent, target: ScopedEvent) {
  const moved: Record<string, Date | null> = {};
  for (const field of ['salesStart', 'salesEnd'] as const)
    if (data[field] !== undefined)
      moved[field] = shiftedBound(
        data[field] as Date | null,
        edited.timezone,
        edited.localStart,
        target.localStart,
      );
  return moved;
}

/** The copies of `type` on the events in scope (its own event's: `type` itself), locked, by event. */
async function lockedCopies(w: WriteScope, type: TicketType, targets: readonly ScopedEvent[]) {
  const key = keyOf(type);
  const others = targets.slice(1).map((target) => target.id);
  const ids = [type.id];
  for (const part of chunks(others))
    ids.push(
      ...(
        await w.tx.ticketType.findMany({
          where: { eventId: { in: part }, OR: [{ seriesKey: key }, { id: key }] },
          select: { id: true },
        })
      ).map((row) => row.id),
    );
  // In id order: two scoped writes never wait for each other's rows crosswise.
  const locked: TypeRow[] = [];
  for (const id of ids.toSorted((a, b) => a - b)) {
    const row = await lockType(w, id);
    if (row) locked.push(row);
  }
  if (!locked.some((row) => row.id === type.id)) throw ticketTypeNotFound();
  return locked;
}

export async function createTicketType(
  ctx: Context,
  eventId: number,
  input: TicketTypeInput,
  scope: RecurrenceScope = 'this',
): Promise<TicketTypeView> {
  const event = await managedEvent(ctx, eventId);
  const data = checkedInput(input, event.timezone, true);
  checkWindow((data.salesStart as Date | null) ?? null, (data.salesEnd as Date | null) ?? null);
  const row = await ctx.writes.run(writeRequest(ctx), async (w) => {
    const targets = await eventsInScope(w, event.id, scope);
    const shared = await sharedCapacities(w.tx, targets, input);
    const [own, ...others] = targets;
    const eventOf = new Map(targets.map((target) => [target.id, target]));
    const created = await w.tx.ticketType.create({
      data: { ...(data as { name: string }), eventId: own!.id, sharedCapacityId: shared.get(own!.id) },
      include: { sharedCapacity: true },
    });
    const copies = others.map((target) => ({
      ...copiedColumns(created, own!.timezone, own!.localStart, target.localStart),
      eventId: target.id,
      sharedCapacityId: shared.get(target.id) ?? null,
    }));
    ticketTypeChanged(w, own!, created.id, 'created');
    await insertCopies(w, copies, eventOf);
    return created;
  });
  return viewOf(row, event);
}

export async function updateTicketType(
  ctx: Context,
  id: number,
  input: TicketTypeInput,
  scope: RecurrenceScope = 'this',
): Promise<TicketTypeView> {
  const found = await ctx.db.ticketType.findUnique({ where: { id } });
  if (!found) throw ticketTypeNotFound();
  const event = await managedEvent(ctx, found.eventId);
  const data = checkedInput(input, event.timezone, false);
  const row = await ctx.writes.run(writeRequest(ctx), async (w) => {
    const targets = await eventsInScope(w, event.id, scope);
    const edited = targets[0]!;
    const eventOf = new Map(targets.map((target) => [target.id, target]));
    const copies = await lockedCopies(w, found, targets);
    // Every copy is checked before any is written: one refused, none written (and the 409 names them).
    if (typeof data.capacity === 'number') {
      const places = await Places.count(w.tx, copies);
      const taken = copies.filter((copy) => places.availability(copy.id).held > (data.capacity as number));
      if (taken.length) throw capacityTaken(taken.map((copy) => copy.eventId));
    }
    const windows = new Map(
      copies.map((copy) => {
        const moved = windowOn(data, edited, eventOf.get(copy.eventId)!);
        checkWindow(
          moved.salesStart !== undefined ? moved.salesStart : copy.salesStart,
          moved.salesEnd !== undefined ? moved.salesEnd : copy.salesEnd,
        );
        return [copy.id, moved];
      }),
    );
    const shared = await sharedCapacities(w.tx, targets, input);
    let updated: TypeRow | undefined;
    for (const copy of copies) {
      const sharedCapacityId = shared.get(copy.eventId);
      const written = await w.tx.ticketType.update({
        where: { id: copy.id },
        data: {
          ...data,
          ...windows.get(copy.id),
          ...(sharedCapacityId !== undefined ? { sharedCapacityId } : {}),
        },
        include: { sharedCapacity: true },
      });
      if (copy.id === id) updated = written;
      ticketTypeChanged(w, eventOf.get(copy.eventId)!, copy.id, 'updated');
    }
    return updated!;
  });
  return viewOf(row, event);
}

/**
 * Deletes a type and its attendees (editors and administrators), answering it as it was. Reaching other
 * events of a series, it deletes copies without reservations only: one with attendees refuses the whole
 * delete (409 TYPE_HAS_ATTENDEES naming their events), which is then theirs to delete one by one.
 */
export async function deleteTicketType(
  ctx: Context,
  id: number,
  scope: RecurrenceScope = 'this',
): Promise<TicketTypeView> {
  const found = await ctx.db.ticketType.findUnique({ where: { id } });
  if (!found) throw ticketTypeNotFound();
  const event = await managedEvent(ctx, found.eventId);
  const row = await ctx.writes.run(writeRequest(ctx), async (w) => {
    const targets = await eventsInScope(w, event.id, scope);
    const eventOf = new Map(targets.map((target) => [target.id, target]));
    const copies = await lockedCopies(w, found, targets);
    if (copies.length > 1) {
      const booked = await w.tx.attendee.groupBy({
        by: ['eventId'],
        where: { ticketTypeId: { in: copies.map((copy) => copy.id) } },
      });
      if (booked.length) throw typeHasAttendees(booked.map((group) => group.eventId).sort((a, b) => a - b));
    }
    for (const part of chunks(copies.map((copy) => copy.id)))
      await w.tx.ticketType.deleteMany({ where: { id: { in: part } } });
    for (const copy of copies) ticketTypeChanged(w, eventOf.get(copy.eventId)!, copy.id, 'deleted');
    return copies.find((copy) => copy.id === id)!;
  });
  return viewOf(row, event);
}
