import type { Context } from '../core/context/scope.js';
import { inIdOrder } from '../core/rules/ids.js';
import { visibleEvents } from '../events/service/event-access.js';
import { type TicketTypeView, ticketTypesOf } from '../tickets/types/ticket-types.js';

// The ticket types and attendees of a change-stream page, read as the viewer may see them now: only
// those of events it may read whose content is open to it (a protected event's tickets need the right
// to edit it: a stream takes no password), the events' own rule. An attendee is shown without any
// personal data: its type, status and places, whoever reads.

/** An attendee as the change stream shows it. */
export interface AttendeeEntry {
  id: number;
  eventId: number;
  ticketTypeId: number;
  status: string;
  guests: number;
  erased: boolean;
}

/** The events among `ids` whose tickets the viewer may see now, with their verdict. */
async function eventsShowingTickets(ctx: Context, ids: readonly number[]) {
  const events = await visibleEvents(ctx, [...new Set(ids)], {});
  return events.filter((event) => !event.contentWithheld);
}

/** These ticket types (in the order of `ids`), those of events the viewer may not see left out. */
export async function changedTicketTypes(ctx: Context, ids: readonly number[]): Promise<TicketTypeView[]> {
  if (!ids.length) return [];
  const rows = await ctx.db.ticketType.findMany({
    where: { id: { in: [...ids] } },
    select: { eventId: true },
  });
  const events = await eventsShowingTickets(
    ctx,
    rows.map((row) => row.eventId),
  );
  return inIdOrder(ids, [...(await ticketTypesOf(ctx, events)).values()].flat());
}

/** These attendees (in the order of `ids`), those of events the viewer may not see left out. */
export async function changedAttendees(ctx: Context, ids: readonly number[]): Promise<AttendeeEntry[]> {
  if (!ids.length) return [];
  const rows = await ctx.db.attendee.findMany({
    where: { id: { in: [...ids] } },
    select: { id: true, eventId: true, ticketTypeId: true, status: true, guests: true, erased: true },
  });
  const shown = new Set(
    (
      await eventsShowingTickets(
        ctx,
        rows.map((row) => row.eventId),
      )
    ).map((e) => e.id),
  );
  return inIdOrder(
    ids,
    rows.filter((row) => shown.has(row.eventId)),
  );
}

/** The types of one event for a subscriber, or null when it may no longer see the event's tickets. */
export async function ticketTypesShown(
  ctx: Context,
  eventId: number,
  password: string | null,
): Promise<TicketTypeView[] | null> {
  const [event] = await visibleEvents(ctx, [eventId], {}, password);
  if (!event || event.contentWithheld) return null;
  return (await ticketTypesOf(ctx, [event])).get(eventId) ?? [];
}
