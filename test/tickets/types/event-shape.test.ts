import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onSaleTurnsToday } from '../../../src/tickets/summary.js';
import { cachedAndFresh } from '../../helpers/cached-app.js';
import { createEvent } from '../../helpers/fixtures.js';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { type Users, withRoles } from '../../helpers/users.js';
import { createType, rsvp } from '../tickets-setup.js';

// What an event's REST shape says of its tickets: Event Tickets' `ticketed` and our `tickets`
// summary (list and single alike, counts only, nothing to whoever may not open a protected event),
// the single event's JSON-LD `offers`, the answers the response cache keeps with them, and the
// iCalendar export, which names no attendee.

/** A site zone where it is now about noon: a time later today is always a few hours ahead. */
function noonZone(): string {
  const offset = 12 - new Date().getUTCHours();
  return offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}

let h: Harness;
let users: Users;
const YEAR = 2032;
const MONTH = `start_date=${YEAR}-06-01&end_date=${YEAR}-06-30`;
let plain: number;
let mixed: number;
let rsvpType: number;
let full: number;
let protectedEvent: number;
let paris: number;

beforeAll(async () => {
  h = await startHarness({ CALENDAR_TIMEZONE: noonZone() });
  users = await withRoles(h);
  plain = (await createEvent(h.db, { title: 'Plain', start: `${YEAR}-06-01 10:00:00` })).id;
  mixed = (
    await createEvent(h.db, {
      title: 'Mixed',
      start: `${YEAR}-06-02 10:00:00`,
      fields: { cost: '5', currencyCode: 'GBP' },
    })
  ).id;
  rsvpType = await createType(h, users.editor, mixed, { capacity: 10, waitlist: true });
  // Two tickets sharing 8 places, one of them also limited to 3 of its own.
  const vip = await createType(h, users.editor, mixed, {
    kind: 'TICKET',
    name: 'VIP',
    price: '40.00',
    currency: 'EUR',
    capacity: 3,
    newSharedCapacity: 8,
  });
  const sharedId = (await h.db.ticketType.findUniqueOrThrow({ where: { id: vip } })).sharedCapacityId;
  await createType(h, users.editor, mixed, {
    kind: 'TICKET',
    name: 'Standard',
    price: '12.5',
    currency: 'EUR',
    sharedCapacityId: sharedId,
  });
  expect(
    (await rsvp(h, { ticketTypeId: rsvpType, name: 'Ada', email: 'ada@example.org', guests: 2 })).code,
  ).toBeUndefined();
  expect(
    (await rsvp(h, { ticketTypeId: vip, name: 'Bo', email: 'bo@example.org', guests: 2 })).code,
  ).toBeUndefined();
  full = (await createEvent(h.db, { title: 'Full', start: `${YEAR}-06-03 10:00:00` })).id;
  const one = await createType(h, users.editor, full, { capacity: 1 });
  await rsvp(h, { ticketTypeId: one, name: 'Cy', email: 'cy@example.org' });
  protectedEvent = (
    await createEvent(h.db, {
      title: 'Locked',
      start: `${YEAR}-06-04 10:00:00`,
      fields: { password: 'pw' },
    })
  ).id;
  await createType(h, users.editor, protectedEvent, { capacity: 4 });
  // Sales open in the winter (+01:00) and close in the summer (+02:00) of the event's zone.
  paris = (
    await createEvent(h.db, { title: 'Paris', start: `${YEAR}-06-05 20:00:00`, timezone: 'Europe/Paris' })
  ).id;
  await createType(h, users.editor, paris, {
    kind: 'TICKET',
    price: '',
    salesStart: `${YEAR}-01-15 09:00:00`,
    salesEnd: `${YEAR}-06-05 18:00:00`,
  });
});
afterAll(() => h?.close());

const single = async (id: number, query = '') =>
  (await h.http.get(`${API}/events/${id}${query}`).expect(200)).body;
const listed = async (query = '') => {
  const body = (await h.http.get(`${API}/events?${MONTH}${query}`).expect(200)).body;
  return new Map<number, Record<string, unknown>>(
    body.events.map((event: Record<string, unknown>) => [event.id, event]),
  );
};

describe('the REST event’s tickets', () => {
  it('an event without ticket types: ticketed false, tickets null, its cost offer as before', async () => {
    const event = await single(plain);
    expect(event.ticketed).toBe(false);
    expect(event).toHaveProperty('tickets', null);
    // TEC's one offer of the event's cost, not a list of ticket offers.
    expect(event.json_ld.offers).toMatchObject({ '@type': 'Offer', price: '10', availability: 'inStock' });
    // The keys close the shape after the series' own, before a single event's JSON-LD.
    const keys = Object.keys(event);
    expect(keys.slice(keys.indexOf('recurrence'))).toEqual(['recurrence', 'ticketed', 'tickets', 'json_ld']);
    expect((await listed()).get(plain)).toMatchObject({ ticketed: false, tickets: null });
  });

  it('sums its types: places of every capacity once, the waitlist, prices and the providers', async () => {
    const expected = {
      ticketed: ['rsvp', 'tribe-commerce'],
      tickets: {
        types: 3,
        on_sale: true,
        // The RSVP's 10, and the 8 the two tickets share (VIP's own 3 fit within them).
        capacity: 18,
        available: 18 - 2 - 2,
        sold_out: false,
        waitlist: { enabled: true, length: 0 },
        min_price: '0',
        max_price: '40.00',
        currency: 'EUR',
      },
    };
    expect(await single(mixed)).toMatchObject(expected);
    expect((await listed()).get(mixed)).toMatchObject(expected);
    // Counts only: no name or e-mail of an attendee anywhere in the answer.
    const text = JSON.stringify(await single(mixed));
    for (const secret of ['Ada', 'ada@example.org', 'Bo', 'bo@example.org'])
      expect(text).not.toContain(secret);
  });

  it('says sold out when no place is left, and the window decides on_sale', async () => {
    expect((await single(full)).tickets).toMatchObject({
      types: 1,
      capacity: 1,
      available: 0,
      sold_out: true,
      on_sale: true,
      waitlist: { enabled: false, length: 0 },
    });
    // Sales closed before the event: not on sale; a ticket without a price is free.
    expect((await single(paris)).tickets).toMatchObject({
      on_sale: false,
      capacity: null,
      available: null,
      sold_out: false,
      min_price: '0',
      max_price: '0',
      currency: '',
    });
  });

  it('shows nothing of a protected event’s tickets without its password, as the ticket endpoints', async () => {
    const withheld = { ticketed: false, tickets: null };
    expect((await listed()).get(protectedEvent)).toMatchObject(withheld);
    // Its single answer is refused without the password (as the reference).
    await h.http.get(`${API}/events/${protectedEvent}`).expect(403);
    await h.http.get(`/calendar/tickets/v1/tickets?event=${protectedEvent}`).expect(200, /"total":0/);
    const opened = { ticketed: ['rsvp'], tickets: { types: 1, capacity: 4, available: 4 } };
    expect(await single(protectedEvent, '?password=pw')).toMatchObject(opened);
    expect((await listed('&password=pw')).get(protectedEvent)).toMatchObject(opened);
  });

  it('loads a page’s tickets in the same statements whatever its size', async () => {
    const more = await Promise.all(
      [6, 7, 8, 9, 10, 11].map((day) =>
        createEvent(h.db, { start: `${YEAR}-06-${String(day).padStart(2, '0')} 12:00:00` }),
      ),
    );
    for (const event of more) await createType(h, users.editor, event.id, { capacity: 5 });
    const ticketStatements = async (perPage: number) => {
      h.queries.length = 0;
      const res = await h.http.get(`${API}/events?${MONTH}&per_page=${perPage}`).expect(200);
      expect(res.body.events.filter((event: { ticketed: unknown }) => event.ticketed)).not.toHaveLength(0);
      return h.queries.filter((sql) => /\b(TicketType|SharedCapacity|Attendee)\b/.test(sql)).length;
    };
    const small = await ticketStatements(2);
    expect(await ticketStatements(11)).toBe(small);
    // The page's types; their shared capacities, the types sharing them and the places held.
    expect(small).toBeLessThanOrEqual(5);
  });
});

describe('JSON-LD offers', () => {
  it('one Offer per type, with its price, availability and sales window in the event zone', async () => {
    const event = await single(mixed);
    const url = event.json_ld.url;
    expect(event.json_ld.offers).toEqual([
      {
        '@type': 'Offer',
        name: 'Entry',
        url,
        price: '0',
        category: 'primary',
        availability: 'https://schema.org/InStock',
        // An RSVP has no currency of its own: the event's.
        priceCurrency: 'GBP',
        validThrough: `${YEAR}-06-02T12:00:00+00:00`,
      },
      expect.objectContaining({ name: 'VIP', price: '40.00', priceCurrency: 'EUR' }),
      expect.objectContaining({ name: 'Standard', price: '12.5', priceCurrency: 'EUR' }),
    ]);
    expect(Object.keys(event.json_ld).indexOf('offers')).toBeLessThan(
      Object.keys(event.json_ld).indexOf('performer'),
    );
    expect((await single(full)).json_ld.offers[0].availability).toBe('https://schema.org/SoldOut');
    expect((await single(paris)).json_ld.offers).toEqual([
      expect.objectContaining({
        price: '0',
        priceCurrency: 'USD',
        validFrom: `${YEAR}-01-15T09:00:00+01:00`,
        validThrough: `${YEAR}-06-05T18:00:00+02:00`,
      }),
    ]);
  });

  it('a protected event has no JSON-LD, even with its password', async () => {
    expect(await single(protectedEvent, '?password=pw')).not.toHaveProperty('json_ld');
  });
});

describe('the response cache', () => {
  it('shows the new availability of a cached single event and list right after an RSVP', async () => {
    const { cached, readBoth } = cachedAndFresh(h);
    const event = (await createEvent(h.db, { title: 'Cached', start: `${YEAR}-06-20 10:00:00` })).id;
    const type = await createType(h, users.editor, event, { capacity: 6 });
    const one = `${API}/events/${event}`;
    const page = `${API}/events?${MONTH}&per_page=50`;
    const read = async (path: string) => {
      const res = await readBoth(path);
      const body = res.body as { events?: Array<{ id: number; tickets: unknown }>; tickets?: unknown };
      return {
        cache: res.headers['x-cache'] as string | undefined,
        tickets: (body.events ? body.events.find((row) => row.id === event)!.tickets : body.tickets) as {
          available: number;
        },
      };
    };
    for (const path of [one, page]) {
      expect((await read(path)).cache).toBe('miss');
      expect(await read(path)).toMatchObject({ cache: 'hit', tickets: { available: 6 } });
    }
    const made = await cached
      .post('/calendar/tickets/v1/attendees')
      .send({ ticket_id: type, full_name: 'Dee', email: 'dee@example.org', quantity: 2 })
      .expect(201);
    expect(made.body.attendee_status).toBe('going');
    for (const path of [one, page]) {
      const after = await read(path);
      expect(after.cache).not.toBe('hit');
      expect(after.tickets.available).toBe(4);
      expect(await read(path)).toMatchObject({ cache: 'hit', tickets: { available: 4 } });
    }
  });

  it('keeps no answer whose on_sale turns before the site’s day ends', async () => {
    const { cached } = cachedAndFresh(h);
    const soon = DateTime.now().toUTC().plus({ hours: 2 });
    const event = (await createEvent(h.db, { title: 'Today', start: `${YEAR}-06-21 10:00:00` })).id;
    await createType(h, users.editor, event, { salesStart: soon.toFormat('yyyy-MM-dd HH:mm:ss') });
    const cacheOf = async (path: string) => (await cached.get(path).expect(200)).headers['x-cache'];
    const one = `${API}/events/${event}`;
    const day = `${API}/events?start_date=${YEAR}-06-21&end_date=${YEAR}-06-21`;
    for (const path of [one, day]) {
      // Computed, never stored: no `X-Cache` (a stored answer says `miss`, then `hit`).
      expect([await cacheOf(path), await cacheOf(path)]).toEqual([undefined, undefined]);
    }
    expect((await cached.get(one).expect(200)).body.tickets.on_sale).toBe(false);
  });

  it('reads the clock only for a turn after now and before the site’s midnight', () => {
    const now = new Date('2032-03-10T15:00:00Z');
    const tickets = (salesStart: string | null, salesEnd: string | null) =>
      ({
        types: [{ salesStart: salesStart && new Date(salesStart), salesEnd: salesEnd && new Date(salesEnd) }],
        places: {},
      }) as unknown as Parameters<typeof onSaleTurnsToday>[1];
    const later = { endsAt: new Date('2032-04-01T00:00:00Z') };
    expect(onSaleTurnsToday(later, null, now, 'UTC')).toBe(false);
    expect(onSaleTurnsToday(later, tickets(null, null), now, 'UTC')).toBe(false);
    expect(onSaleTurnsToday(later, tickets('2032-03-10T20:00:00Z', null), now, 'UTC')).toBe(true);
    expect(onSaleTurnsToday(later, tickets('2032-03-10T10:00:00Z', '2032-03-11T01:00:00Z'), now, 'UTC')).toBe(
      false,
    );
    // Midnight in the site's zone: 01:00 UTC tomorrow is still today in New York.
    expect(onSaleTurnsToday(later, tickets(null, '2032-03-11T01:00:00Z'), now, 'America/New_York')).toBe(
      true,
    );
    expect(
      onSaleTurnsToday({ endsAt: new Date('2032-03-10T18:00:00Z') }, tickets(null, null), now, 'UTC'),
    ).toBe(true);
  });
});

describe('iCalendar', () => {
  it('an event with attendees exports none of them: no ATTENDEE, no name, no e-mail', async () => {
    const res = await h.http.get(`${API}/events/${mixed}.ics`).expect(200);
    expect(res.text).toContain('BEGIN:VEVENT');
    expect(res.text).not.toMatch(/^ATTENDEE/m);
    for (const secret of ['Ada', 'ada@example.org', 'Bo', 'bo@example.org'])
      expect(res.text).not.toContain(secret);
    const feed = await h.http.get(`${API}/events.ics?${MONTH}`).expect(200);
    expect(feed.text).toContain('SUMMARY:Mixed');
    expect(feed.text).not.toMatch(/^ATTENDEE/m);
    expect(feed.text).not.toContain('ada@example.org');
  });
});
