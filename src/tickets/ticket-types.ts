import { DateTime } from 'luxon';
import { WALL_CLOCK, wallClock } from '../domain/dates.js';
import { invalidParams } from '../domain/errors.js';
import type { Event } from '../generated/sqlite/client.js';
import type { Context } from '../services/scope.js';
import { eventsVisibleTo } from '../services/events/event-access.js';
import { passwordWithheld } from '../domain/visibility.js';
import {
  DEFAULT_MAX_PER_REQUEST,
  LIMITS,
  TICKET_KINDS,
  type TicketKind,
  checkedText,
  managesTickets,
  ticketTypeNotFound,
  ticketsForbidden,
} from './model.js';
import { type Availability, Places, type TypeRow, lockType } from './places.js';
import { eventForTickets, ticketTypeChanged } from './reservations.js';

// Ticket types: read by anyone who may see their event (a protected one needs its password), written
// by editors and administrators. Sales windows are given and shown in the event's zone, stored as UTC.

export interface TicketTypeView extends TypeRow {
  /** The event's zone: the window is shown in it. */
  timezone: string;
  /** Its event's end and status: sales stop with them. */
  eventEndsAt: Date;
  eventStatus: string;
}

type EventOfType = Pick<Event, 'id' | 'timezone' | 'endsAt' | 'status'>;

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
  eventEndsAt: event.endsAt,
  eventStatus: event.status,
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

export async function createTicketType(
  ctx: Context,
  eventId: number,
  input: TicketTypeInput,
): Promise<TicketTypeView> {
  const event = await managedEvent(ctx, eventId);
  const data = checkedInput(input, event.timezone, true);
  checkWindow((data.salesStart as Date | null) ?? null, (data.salesEnd as Date | null) ?? null);
  const row = await ctx.writes.run(writeRequest(ctx), async (scope) => {
    const sharedCapacityId = await sharedCapacityFor(scope.tx, event.id, input);
    const created = await scope.tx.ticketType.create({
      data: { ...(data as { name: string }), eventId: event.id, sharedCapacityId },
      include: { sharedCapacity: true },
    });
    ticketTypeChanged(scope, event, created.id, 'created');
    return created;
  });
  return viewOf(row, event);
}

async function sharedCapacityFor(
  tx: Parameters<Parameters<Context['writes']['run']>[1]>[0]['tx'],
  eventId: number,
  input: TicketTypeInput,
): Promise<number | null | undefined> {
  if (input.newSharedCapacity !== undefined && input.newSharedCapacity !== null)
    return (await tx.sharedCapacity.create({ data: { eventId, capacity: input.newSharedCapacity } })).id;
  if (input.sharedCapacityId === undefined || input.sharedCapacityId === null) return input.sharedCapacityId;
  const shared = await tx.sharedCapacity.findFirst({ where: { id: input.sharedCapacityId, eventId } });
  if (!shared) throw invalidParams({ sharedCapacityId: 'No shared capacity of this event has this id.' });
  return shared.id;
}

export async function updateTicketType(
  ctx: Context,
  id: number,
  input: TicketTypeInput,
): Promise<TicketTypeView> {
  const found = await ctx.db.ticketType.findUnique({ where: { id } });
  if (!found) throw ticketTypeNotFound();
  const event = await managedEvent(ctx, found.eventId);
  const data = checkedInput(input, event.timezone, false);
  const row = await ctx.writes.run(writeRequest(ctx), async (scope) => {
    const current = await lockType(scope, id);
    if (!current) throw ticketTypeNotFound();
    const start = data.salesStart !== undefined ? (data.salesStart as Date | null) : current.salesStart;
    const end = data.salesEnd !== undefined ? (data.salesEnd as Date | null) : current.salesEnd;
    checkWindow(start, end);
    const sharedCapacityId = await sharedCapacityFor(scope.tx, event.id, input);
    const updated = await scope.tx.ticketType.update({
      where: { id },
      data: { ...data, ...(sharedCapacityId !== undefined ? { sharedCapacityId } : {}) },
      include: { sharedCapacity: true },
    });
    ticketTypeChanged(scope, event, id, 'updated');
    return updated;
  });
  return viewOf(row, event);
}

/** Deletes a type and its attendees (editors and administrators), answering it as it was. */
export async function deleteTicketType(ctx: Context, id: number): Promise<TicketTypeView> {
  const found = await ctx.db.ticketType.findUnique({ where: { id } });
  if (!found) throw ticketTypeNotFound();
  const event = await managedEvent(ctx, found.eventId);
  const row = await ctx.writes.run(writeRequest(ctx), async (scope) => {
    const current = await lockType(scope, id);
    if (!current) throw ticketTypeNotFound();
    await scope.tx.ticketType.delete({ where: { id } });
    ticketTypeChanged(scope, event, id, 'deleted');
    return current;
  });
  return viewOf(row, event);
}
