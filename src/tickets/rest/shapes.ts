import type { Attendee } from '../../generated/sqlite/client.js';
import { dateDetails, wallClock } from '../../core/rules/dates.js';
import { API_PREFIX, type SiteUrls } from '../../core/rules/urls.js';
import type { Availability } from '../reservations/places.js';
import { type TicketTypeView, availabilityOf } from '../types/ticket-types.js';
import { onSale } from '../reservations/sales.js';
import type { Context } from '../../core/context/scope.js';

// The representations of `/calendar/tickets/v1`, in Event Tickets' REST API v1 shapes (its
// `tribe/tickets/v1` tickets and attendees) where it has the key, our extensions after them.
// Event Tickets writes "unlimited" as -1; so do these.

export const TICKETS_PREFIX = '/calendar/tickets/v1';

/** The tickets namespace's root for this request (its language segment kept). */
export const ticketsRoot = (urls: SiteUrls): string =>
  `${urls.api.slice(0, -API_PREFIX.length)}${TICKETS_PREFIX}`;

const UNLIMITED = -1;
const orUnlimited = (value: number | null) => (value === null ? UNLIMITED : value);

function dates(created: Date, modified: Date, zone: string) {
  return {
    date: wallClock(created, zone),
    date_utc: wallClock(created, 'UTC'),
    modified: wallClock(modified, zone),
    modified_utc: wallClock(modified, 'UTC'),
  };
}

function bound(instant: Date | null, zone: string) {
  const wall = instant ? wallClock(instant, zone) : '';
  return { wall, details: wall ? dateDetails(wall) : '' };
}

export function presentTicket(
  type: TicketTypeView,
  availability: Availability,
  urls: SiteUrls,
  siteZone: string,
  now: Date,
) {
  const from = bound(type.salesStart, type.timezone);
  const until = bound(type.salesEnd, type.timezone);
  const max = orUnlimited(availability.capacity);
  const available = orUnlimited(availability.available);
  return {
    id: type.id,
    post_id: type.eventId,
    global_id: `${urls.globalIdBase}?id=${type.id}`,
    global_id_lineage: [`${urls.globalIdBase}?id=${type.id}`],
    author: 0,
    status: 'publish',
    ...dates(type.createdAt, type.modifiedAt, siteZone),
    rest_url: `${ticketsRoot(urls)}/tickets/${type.id}`,
    provider: type.kind === 'RSVP' ? 'rsvp' : 'tribe-commerce',
    title: type.name,
    description: type.description,
    image: false,
    available_from: from.wall,
    available_from_details: from.details,
    available_until: until.wall,
    available_until_details: until.details,
    capacity: max,
    capacity_details: {
      available_percentage:
        max > 0 ? Math.floor((Math.max(available, 0) / max) * 100) : max === UNLIMITED ? 100 : 0,
      max,
      available,
      sold: availability.held,
      pending: 0,
    },
    is_available: onSale(type, type.event, now) && !availability.soldOut,
    cost: type.price,
    cost_details: {
      currency_code: type.currency,
      currency_position: 'prefix',
      values: type.price ? [type.price] : [],
    },
    supports_attendee_information: false,
    requires_attendee_information: false,
    attendee_information_fields: [],
    // Extensions: the waitlist, the per-request maximum, the shared capacity.
    waitlist: { enabled: type.waitlist, length: availability.waitlist },
    max_per_request: type.maxPerRequest,
    shared_capacity_id: type.sharedCapacityId ?? 0,
  };
}

/** Ticket types as the tickets routes and `/changes` show them, with their availability now. */
export async function presentTickets(ctx: Context, types: readonly TicketTypeView[]) {
  const availability = await availabilityOf(ctx, types);
  const now = new Date();
  return types.map((type) =>
    presentTicket(type, availability.get(type.id)!, ctx.urls, ctx.config.siteTimezone, now),
  );
}

export function presentAttendee(attendee: Attendee, kind: string, urls: SiteUrls, siteZone: string) {
  const checkedIn = attendee.status === 'CHECKED_IN';
  return {
    id: attendee.id,
    post_id: attendee.eventId,
    ticket_id: attendee.ticketTypeId,
    global_id: `${urls.globalIdBase}?id=${attendee.id}`,
    global_id_lineage: [`${urls.globalIdBase}?id=${attendee.id}`],
    author: 0,
    status: 'publish',
    ...dates(attendee.createdAt, attendee.modifiedAt, siteZone),
    rest_url: `${ticketsRoot(urls)}/attendees/${attendee.id}`,
    provider: kind === 'RSVP' ? 'rsvp' : 'tribe-commerce',
    order: '',
    sku: '',
    title: attendee.name,
    email: attendee.email,
    checked_in: checkedIn,
    checkin_details: checkedIn
      ? { date: wallClock(attendee.modifiedAt, siteZone), source: 'api', author: 0 }
      : false,
    rsvp_going: attendee.status === 'GOING' || checkedIn,
    // Extensions: where the reservation stands, its places, its check-in code, erasure.
    attendee_status: attendee.status.toLowerCase(),
    guests: attendee.guests,
    security_code: attendee.checkInCode,
    erased: attendee.erased,
  };
}
