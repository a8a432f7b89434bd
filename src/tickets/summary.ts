import DataLoader from 'dataloader';
import { DateTime } from 'luxon';
import { isoWithOffset } from '../core/rules/dates.js';
import { contentWithheld } from '../core/rules/visibility.js';
import type { Event, SharedCapacity } from '../generated/sqlite/client.js';
import type { Context } from '../core/context/scope.js';
import { type Availability, Places, type TypeRow } from './reservations/places.js';
import { onSale } from './reservations/sales.js';

// What an event's REST shape and JSON-LD say of its tickets: Event Tickets' `ticketed` (the
// providers of its types), our `tickets` summary (counts only, never who) and schema.org offers.
// A page of events loads them together: its ticket types in one statement, their shared capacities
// and their attendees' counts in one more each when it has any (`Places.count`), whatever its size.

/** What of an event its tickets' summary reads (the row its REST shape was made from). */
type EventOfTickets = Pick<
  Event,
  'id' | 'endsAt' | 'status' | 'eventStatus' | 'timezone' | 'password' | 'authorId' | 'currencyCode'
> & { contentWithheld?: boolean };

/** An event's types with their places; null: none, or none the viewer may see. */
interface EventTickets {
  types: TypeRow[];
  places: Places;
}

/** Event Tickets' provider slug of a type (as `/calendar/tickets/v1` shows it). */
const providerOf = (type: Pick<TypeRow, 'kind'>) => (type.kind === 'RSVP' ? 'rsvp' : 'tribe-commerce');

/**
 * The types of events the caller has read as visible to the viewer, with their places. A protected
 * event read without its password shows none, as the ticket endpoints refuse it (`eventForTickets`).
 */
async function loadTickets(
  ctx: Pick<Context, 'db'>,
  events: readonly EventOfTickets[],
): Promise<Array<EventTickets | null>> {
  const open = events.filter((event) => !contentWithheld(event)).map((event) => event.id);
  if (!open.length) return events.map(() => null);
  const rows = await ctx.db.ticketType.findMany({
    where: { eventId: { in: open } },
    orderBy: [{ eventId: 'asc' }, { id: 'asc' }],
  });
  const sharedIds = [...new Set(rows.flatMap((row) => (row.sharedCapacityId ? [row.sharedCapacityId] : [])))];
  const shared = sharedIds.length
    ? new Map(
        (await ctx.db.sharedCapacity.findMany({ where: { id: { in: sharedIds } } })).map((row) => [
          row.id,
          row,
        ]),
      )
    : new Map<number, SharedCapacity>();
  const types: TypeRow[] = rows.map((row) => ({
    ...row,
    sharedCapacity: row.sharedCapacityId ? (shared.get(row.sharedCapacityId) ?? null) : null,
  }));
  const places = await Places.count(ctx.db, types);
  const byEvent = new Map<number, TypeRow[]>();
  for (const type of types) byEvent.set(type.eventId, [...(byEvent.get(type.eventId) ?? []), type]);
  return events.map((event) => {
    const own = contentWithheld(event) ? undefined : byEvent.get(event.id);
    return own ? { types: own, places } : null;
  });
}

const loaders = new WeakMap<object, DataLoader<EventOfTickets, EventTickets | null, number>>();

/** The tickets of an event of this request: the events whose fields ask in one tick load together. */
export function ticketsOf(ctx: Context, event: EventOfTickets): Promise<EventTickets | null> {
  let loader = loaders.get(ctx);
  if (!loader) {
    loader = new DataLoader((events) => loadTickets(ctx, events), { cacheKeyFn: (event) => event.id });
    loaders.set(ctx, loader);
  }
  return loader.load(event);
}

/** Event Tickets' `ticketed`: the providers of the event's types, or false when it has none. */
export function ticketedProviders(tickets: EventTickets | null): string[] | false {
  return tickets ? [...new Set(tickets.types.map(providerOf))] : false;
}

/** The `tickets` extension of the REST event (null when it has no type, or none the viewer may see). */
interface TicketsSummary {
  /** How many ticket types it has. */
  types: number;
  /** Whether at least one can be reserved now (the `ticketed` filter's rule). */
  on_sale: boolean;
  /** Places in all; null when a type is unlimited. */
  capacity: number | null;
  /** Places left in all its types, on sale or not; null when a type is unlimited. */
  available: number | null;
  /** No place left in any type (a type with a waitlist still queues reservations). */
  sold_out: boolean;
  /** Whether a type queues reservations beyond its capacity, and how many wait. */
  waitlist: { enabled: boolean; length: number };
  /** The lowest and highest price as shown (an RSVP costs "0"). */
  min_price: string;
  max_price: string;
  /** The ISO 4217 code of its priced types; "" when none is priced, or they differ. */
  currency: string;
}

/** A type's price as a decimal string: an RSVP, or a ticket without one, is free. */
const priceOf = (type: TypeRow) => (type.kind === 'RSVP' || !type.price ? '0' : type.price);

const sumOrUnlimited = (values: ReadonlyArray<number | null>) =>
  values.some((value) => value === null) ? null : values.reduce<number>((sum, value) => sum + value!, 0);

const smaller = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));

/** The types drawing from each capacity: a shared one's types together, every other type alone. */
function capacityGroups(types: readonly TypeRow[]): TypeRow[][] {
  const groups = new Map<string, TypeRow[]>();
  for (const type of types) {
    const key = type.sharedCapacity ? `shared:${type.sharedCapacity.id}` : `type:${type.id}`;
    groups.set(key, [...(groups.get(key) ?? []), type]);
  }
  return [...groups.values()];
}

/**
 * A capacity group's places in all and left: a shared capacity bounds the sum of its types' own
 * limits (each type also bounded by it), so the group holds the smaller of the two.
 */
function groupPlaces(
  group: readonly TypeRow[],
  places: Places,
): { capacity: number | null; left: number | null } {
  const shared = group[0]!.sharedCapacity;
  if (!shared) return { capacity: group[0]!.capacity, left: places.left(group[0]!.id) };
  const held = group.reduce((sum, type) => sum + places.availability(type.id).held, 0);
  const ownLeft = group.map((type) =>
    type.capacity === null ? null : Math.max(0, type.capacity - places.availability(type.id).held),
  );
  return {
    capacity: smaller(shared.capacity, sumOrUnlimited(group.map((type) => type.capacity))),
    left: smaller(Math.max(0, shared.capacity - held), sumOrUnlimited(ownLeft)),
  };
}

export function ticketsSummary(
  event: EventOfTickets,
  tickets: EventTickets | null,
  now: Date,
): TicketsSummary | null {
  if (!tickets) return null;
  const { types, places } = tickets;
  const groups = capacityGroups(types).map((group) => ({ group, ...groupPlaces(group, places) }));
  const available = sumOrUnlimited(groups.map((group) => group.left));
  const prices = types.map(priceOf).sort((a, b) => Number(a) - Number(b));
  const currencies = new Set(
    types.filter((type) => priceOf(type) !== '0' && type.currency).map((type) => type.currency),
  );
  return {
    types: types.length,
    on_sale: types.some((type) => onSale(type, event, now)),
    capacity: sumOrUnlimited(groups.map((group) => group.capacity)),
    available,
    sold_out: available === 0,
    waitlist: {
      enabled: types.some((type) => type.waitlist),
      // The queue is the group's: counted once for each capacity.
      length: groups.reduce((sum, { group }) => sum + places.waitingFor(group[0]!.id), 0),
    },
    min_price: prices[0]!,
    max_price: prices[prices.length - 1]!,
    currency: currencies.size === 1 ? [...currencies][0]! : '',
  };
}

/**
 * Whether `on_sale` may change before the site's day ends: a type's sales open or close, or its
 * event ends, after `now` and before midnight in `siteZone`. A cached answer never outlives its day
 * in that zone (the response cache keys entries by it); only such an answer reads the clock.
 */
export function onSaleTurnsToday(
  event: Pick<EventOfTickets, 'endsAt'>,
  tickets: EventTickets | null,
  now: Date,
  siteZone: string,
): boolean {
  if (!tickets) return false;
  const midnight = DateTime.fromJSDate(now, { zone: siteZone }).startOf('day').plus({ days: 1 }).toMillis();
  const turns = (instant: Date | null) =>
    instant !== null && instant.getTime() > now.getTime() && instant.getTime() < midnight;
  return turns(event.endsAt) || tickets.types.some((type) => turns(type.salesStart) || turns(type.salesEnd));
}

const SCHEMA_ORG = 'https://schema.org/';

/**
 * One schema.org Offer per type, in Event Tickets' JSON-LD form (`Tribe__Tickets__JSON_LD__Order`)
 * with its name: the price as a decimal string ("0" for an RSVP), InStock or SoldOut by its places
 * (never by the clock: the window says when it sells), valid through its sales end or the event's end,
 * whichever comes first (sales stop with the event).
 */
export function ticketOffers(
  event: EventOfTickets,
  tickets: EventTickets | null,
  url: string,
): Array<Record<string, unknown>> | null {
  if (!tickets) return null;
  return tickets.types.map((type) => {
    const availability: Availability = tickets.places.availability(type.id);
    return {
      '@type': 'Offer',
      name: type.name,
      url,
      price: priceOf(type),
      category: 'primary',
      availability: `${SCHEMA_ORG}${availability.soldOut ? 'SoldOut' : 'InStock'}`,
      priceCurrency: type.currency || event.currencyCode || 'USD',
      ...(type.salesStart ? { validFrom: isoWithOffset(type.salesStart, event.timezone) } : {}),
      validThrough: isoWithOffset(
        type.salesEnd && type.salesEnd < event.endsAt ? type.salesEnd : event.endsAt,
        event.timezone,
      ),
    };
  });
}
