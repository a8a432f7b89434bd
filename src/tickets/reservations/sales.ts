import type { Event, Prisma } from '../../generated/sqlite/client.js';
import type { EventStatusValue } from '../../events/model/event-status.js';
import { eventCanceled, salesClosed } from '../model.js';
import type { TypeRow } from './places.js';

// Whether a ticket type sells: the one rule behind reservations, `onSale`/`is_available`/`on_sale` and
// the events list's `ticketed` filter (declared in src/events/model/event-filters.ts), in code and as SQL.
// A type sells inside its sales window, before its event ends, while its event is not trashed and
// takes place: a canceled event (TEC's event status, `events/model/event-status.ts`) sells nothing, a
// postponed one goes on selling — its reservations stand for the date it is moved to
// (docs/reference/compatibility.md D37).

/** The event statuses under which no type of the event sells. */
const STOPS_SALES: readonly EventStatusValue[] = ['canceled'];

/** What of an event its types' sales read. */
export type EventOfSale = Pick<Event, 'endsAt' | 'status' | 'eventStatus'>;

type TypeOfSale = Pick<TypeRow, 'salesStart' | 'salesEnd'>;

/** Why a type does not sell now: null when it does. */
function notOnSale(type: TypeOfSale, event: EventOfSale, now: Date): 'canceled' | 'closed' | null {
  if ((STOPS_SALES as readonly string[]).includes(event.eventStatus)) return 'canceled';
  const open =
    event.status !== 'trash' &&
    now < event.endsAt &&
    (!type.salesStart || type.salesStart <= now) &&
    (!type.salesEnd || now < type.salesEnd);
  return open ? null : 'closed';
}

/**
 * Whether the type sells now. Who may reserve is the event's visibility (`eventForTickets`): a draft
 * takes reservations from those who may see it.
 */
export function onSale(type: TypeOfSale, event: EventOfSale, now: Date): boolean {
  return notOnSale(type, event, now) === null;
}

/** Refuses a reservation of a type that does not sell now: 409 EVENT_CANCELED or SALES_CLOSED. */
export function assertOnSale(type: TypeOfSale, event: EventOfSale, now: Date): void {
  const reason = notOnSale(type, event, now);
  if (reason === 'canceled') throw eventCanceled();
  if (reason === 'closed') throw salesClosed();
}

/** The `ticketed` filter: events with (true) or without (false) a type on sale at `now` (`notOnSale`). */
export function ticketedWhere(ticketed: boolean, now: Date): Prisma.EventWhereInput {
  const selling: Prisma.EventWhereInput = {
    status: { not: 'trash' },
    endsAt: { gt: now },
    eventStatus: { notIn: [...STOPS_SALES] },
    ticketTypes: {
      some: {
        AND: [
          { OR: [{ salesStart: null }, { salesStart: { lte: now } }] },
          { OR: [{ salesEnd: null }, { salesEnd: { gt: now } }] },
        ],
      },
    },
  };
  return ticketed ? selling : { NOT: selling };
}
