import type { Attendee } from '../generated/sqlite/client.js';
import type { Context } from '../services/scope.js';
import { eventsVisibleTo } from '../services/events/event-access.js';
import { type AttendeeStatus, attendeeNotFound, managesTickets, ticketsForbidden } from './model.js';

// The attendee list: editors and administrators only (names and e-mails are personal data). Anyone
// else is refused before anything is read, so the refusal says nothing about who has reserved.

export interface AttendeePage {
  total: number;
  attendees: Attendee[];
}

function assertManager(ctx: Context): void {
  if (!managesTickets(ctx.viewer)) throw ticketsForbidden(ctx.viewer);
}

/** Attendees in arrival order (`afterId` pages on), optionally of one event, type or status. */
export async function listAttendees(
  ctx: Context,
  filter: { eventId?: number | null; ticketTypeId?: number | null; status?: AttendeeStatus | null },
  page: { afterId?: number | null; offset?: number; limit: number },
): Promise<AttendeePage> {
  assertManager(ctx);
  const where = {
    ...(filter.eventId ? { eventId: filter.eventId } : {}),
    ...(filter.ticketTypeId ? { ticketTypeId: filter.ticketTypeId } : {}),
    ...(filter.status ? { status: filter.status } : {}),
    event: { AND: [eventsVisibleTo(ctx.viewer)] },
  };
  const [total, attendees] = await Promise.all([
    ctx.db.attendee.count({ where }),
    ctx.db.attendee.findMany({
      where: { ...where, ...(page.afterId ? { id: { gt: page.afterId } } : {}) },
      orderBy: { id: 'asc' },
      ...(page.offset ? { skip: page.offset } : {}),
      take: page.limit,
    }),
  ]);
  return { total, attendees };
}

export async function attendee(ctx: Context, id: number): Promise<Attendee> {
  assertManager(ctx);
  const found = await ctx.db.attendee.findFirst({
    where: { id, event: { AND: [eventsVisibleTo(ctx.viewer)] } },
  });
  if (!found) throw attendeeNotFound();
  return found;
}

/** The kind (RSVP or TICKET) of each attendee's type, by type id: the REST shape names its provider. */
export async function kindsOf(
  ctx: Pick<Context, 'db'>,
  attendees: readonly Attendee[],
): Promise<Map<number, string>> {
  const types = await ctx.db.ticketType.findMany({
    where: { id: { in: [...new Set(attendees.map((row) => row.ticketTypeId))] } },
    select: { id: true, kind: true },
  });
  return new Map(types.map((type) => [type.id, type.kind]));
}
