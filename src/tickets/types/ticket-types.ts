import { wallClock } from '../../core/rules/dates.js';
import type { Event, Prisma } from '../../generated/sqlite/client.js';
import type { Context } from '../../core/context/scope.js';
import { eventsVisibleTo } from '../../events/service/event-access.js';
import type { RecurrenceScope } from '../../events/series/series-place.js';
import { eventsInScope } from '../../events/series/occurrence-records.js';
import { contentOpenWhere } from '../../core/rules/visibility.js';
import {
  capacityTaken,
  managesTickets,
  ticketTypeNotFound,
  ticketsForbidden,
  typeHasAttendees,
} from '../model.js';
import { type Availability, Places, type TypeRow } from '../reservations/places.js';
import { eventForTickets, promote, ticketTypeChanged } from '../reservations/reservations.js';
import type { EventOfSale } from '../reservations/sales.js';
import { type TicketTypeInput, checkWindow, checkedInput } from './input.js';
import {
  chunks,
  copiedColumns,
  insertCopies,
  lockedCopies,
  sharedCapacities,
  windowOn,
} from './series-copies.js';

// Ticket types: read by anyone who may see their event (a protected one needs its password), written
// by editors and administrators. Sales windows are given and shown in the event's zone, stored as UTC
// (`input.ts`). On an event of a series a write takes the event edits' scope and reaches the copies of
// the type in it (`series-copies.ts`, which also copies the types to every new occurrence).

export interface TicketTypeView extends TypeRow {
  /** The event's zone: the window is shown in it. */
  timezone: string;
  /** What of its event its sales read (`sales.ts`). */
  event: EventOfSale;
}

type EventOfType = Pick<Event, 'id' | 'timezone'> & EventOfSale;

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

/** The types of every event the viewer may see, protected ones it may not open left out, by id. */
export async function visibleTicketTypes(
  ctx: Context,
  page: { offset: number; limit: number; eventId?: number | null },
): Promise<{ total: number; types: TicketTypeView[] }> {
  // A listing never shows, nor counts, what a password hides.
  const where = {
    ...(page.eventId ? { eventId: page.eventId } : {}),
    event: { AND: [eventsVisibleTo(ctx.viewer), contentOpenWhere(ctx.viewer) as Prisma.EventWhereInput] },
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
  return { total, types: rows.map(({ event, ...type }) => viewOf(type, event)) };
}

async function managedEvent(ctx: Context, eventId: number): Promise<Event> {
  if (!managesTickets(ctx.viewer)) throw ticketsForbidden(ctx.viewer);
  return eventForTickets(ctx, eventId);
}

const writeRequest = (ctx: Context) => ({ db: ctx.db, viewer: ctx.viewer, config: ctx.config });

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
      // A raised capacity (or a new shared pool) makes room: the waitlist moves up in the same transaction.
      if (data.capacity !== undefined || sharedCapacityId !== undefined)
        await promote(w, await Places.count(w.tx, [written]), copy.id, eventOf.get(copy.eventId)!);
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
