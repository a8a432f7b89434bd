import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onSale } from '../../../src/tickets/reservations/sales.js';
import { createEvent } from '../../helpers/fixtures.js';
import { dataOf, graphqlClient } from '../../helpers/graphql.js';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { type Users, withRoles } from '../../helpers/users.js';
import { CREATE_TYPE, createType, rsvp } from '../tickets-setup.js';

// The rules at the boundary: sales windows given in the event's zone across a DST change, bounds on a
// reservation refused as 4xx JSON with nothing written, and the cache: an anonymous answer showing
// availability is dropped by the reservation that changes it.

let h: Harness;
let users: Users;
const gql = graphqlClient(() => h);

beforeAll(async () => {
  h = await startHarness({ CALENDAR_CACHE: 'on' });
  users = await withRoles(h);
});
afterAll(() => h?.close());

describe('sales windows in the event zone', () => {
  it('reads a window across the spring change (Europe/Paris, 2027-03-28) as one UTC hour, and shows it back', async () => {
    const event = await createEvent(h.db, { timezone: 'Europe/Paris', start: '2027-04-10 20:00:00' });
    const input = { name: 'Early', salesStart: '2027-03-28 01:30:00', salesEnd: '2027-03-28 03:30:00' };
    const type = dataOf(await gql(CREATE_TYPE, { eventId: event.id, input }, users.editor)).createTicketType;
    // 01:30 is still CET (+01:00), 03:30 already CEST (+02:00): 60 minutes of sales, not 120.
    expect(type).toMatchObject({
      salesStart: '2027-03-28 01:30:00',
      salesEnd: '2027-03-28 03:30:00',
      salesStartUtc: '2027-03-28T00:30:00.000Z',
      salesEndUtc: '2027-03-28T01:30:00.000Z',
    });
    const row = await h.db.ticketType.findUniqueOrThrow({ where: { id: type.id } });
    const sells = (iso: string) => onSale(row, event, new Date(iso));
    expect([
      sells('2027-03-28T00:29:59Z'),
      sells('2027-03-28T00:30:00Z'),
      sells('2027-03-28T01:29:59Z'),
      sells('2027-03-28T01:30:00Z'),
    ]).toEqual([false, true, true, false]);
  });

  it('refuses a wall-clock the zone skips, naming the field', async () => {
    const event = await createEvent(h.db, { timezone: 'Europe/Paris', start: '2027-04-10 20:00:00' });
    const answer = await gql(
      CREATE_TYPE,
      { eventId: event.id, input: { name: 'Gap', salesStart: '2027-03-28 02:30:00' } },
      users.editor,
    );
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'rest_invalid_param',
      http: { status: 400 },
    });
    expect(answer.errors?.[0]?.extensions.data.params).toHaveProperty('salesStart');
    expect(await h.db.ticketType.count({ where: { eventId: event.id } })).toBe(0);
  });

  it('a window over or not yet open answers SALES_CLOSED (409)', async () => {
    const event = await createEvent(h.db);
    const over = await createType(h, users.editor, event.id, { salesEnd: '2020-01-01 00:00:00' });
    const later = await createType(h, users.editor, event.id, { salesStart: '2099-01-01 00:00:00' });
    for (const ticketTypeId of [over, later]) {
      const answer = await rsvp(h, { ticketTypeId, name: 'N', email: 'n@example.org' });
      expect(answer.code).toBe('SALES_CLOSED');
    }
    expect(await h.db.attendee.count({ where: { eventId: event.id } })).toBe(0);
  });
});

describe('bounds of a reservation', () => {
  it.each([
    [{ name: '', email: 'a@example.org' }, ['name']],
    [{ name: 'x'.repeat(201), email: 'a@example.org' }, ['name']],
    [{ name: 'A', email: 'not-an-address' }, ['email']],
    [{ name: 'A\u0007B', email: 'a@example.org', guests: 0 }, ['guests', 'name']],
    [{ name: 'A', email: 'a@example.org', guests: 51 }, ['guests']],
  ])('%j is refused (400), naming %j, with nothing written', async (person, fields) => {
    const event = await createEvent(h.db);
    const ticketTypeId = await createType(h, users.editor, event.id, { capacity: 5 });
    const answer = await rsvp(h, { ticketTypeId, ...person });
    expect(answer.code).toBe('rest_invalid_param');
    expect(Object.keys(answer.errors![0]!.extensions.data.params).sort()).toEqual(fields);
    expect(await h.db.attendee.count({ where: { ticketTypeId } })).toBe(0);
  });

  it('more places than the type allows per request is TOO_MANY (400)', async () => {
    const event = await createEvent(h.db);
    const ticketTypeId = await createType(h, users.editor, event.id, { maxPerRequest: 2 });
    const answer = await rsvp(h, { ticketTypeId, name: 'A', email: 'a@example.org', guests: 3 });
    expect(answer.code).toBe('TOO_MANY');
    expect(answer.errors![0]!.extensions.http).toEqual({ status: 400 });
    expect(await h.db.attendee.count({ where: { ticketTypeId } })).toBe(0);
  });

  it('an unknown type is TICKET_NOT_FOUND (404); a mistyped variable a GraphQL request error', async () => {
    expect((await rsvp(h, { ticketTypeId: 999_999, name: 'A', email: 'a@example.org' })).code).toBe(
      'TICKET_NOT_FOUND',
    );
    const bad = await h.http.post('/graphql').send({
      query: `mutation { rsvp(input: { ticketTypeId: "x", name: "A", email: "a@b.c" }) { token } }`,
    });
    expect(bad.status).toBeGreaterThanOrEqual(200);
    expect(bad.status).toBeLessThan(500);
    expect(bad.body.errors?.length).toBeGreaterThan(0);
  });

  it('ticket type writes are for editors and administrators, and check their input', async () => {
    const event = await createEvent(h.db);
    const refused = await gql(CREATE_TYPE, { eventId: event.id, input: { name: 'A' } }, users.author);
    expect(refused.errors?.[0]?.extensions.code).toBe('rest_forbidden');
    const invalid = await gql(
      CREATE_TYPE,
      { eventId: event.id, input: { name: 'A', price: '12,5', currency: 'euro', capacity: -1 } },
      users.editor,
    );
    expect(Object.keys(invalid.errors![0]!.extensions.data.params).sort()).toEqual([
      'capacity',
      'currency',
      'price',
    ]);
    expect(await h.db.ticketType.count({ where: { eventId: event.id } })).toBe(0);
  });
});

describe('the response cache', () => {
  it('drops an anonymous answer showing availability when a reservation commits', async () => {
    const event = await createEvent(h.db);
    const ticketTypeId = await createType(h, users.editor, event.id, { capacity: 3 });
    // A document naming a password is never shared: this one names none.
    const query = `query ($id: Int!) { event(id: $id) { ticketTypes { availability { available } } } }`;
    const read = () =>
      h.http
        .post('/graphql')
        .send({ query, variables: { id: event.id } })
        .expect(200);
    const available = (body: {
      data: { event: { ticketTypes: Array<{ availability: { available: number } }> } };
    }) => body.data.event.ticketTypes[0]!.availability.available;
    expect(available((await read()).body)).toBe(3);
    const cached = await read();
    expect(cached.headers['x-cache']).toBe('hit');
    await rsvp(h, { ticketTypeId, name: 'A', email: 'a@example.org', guests: 2 });
    const after = await read();
    expect(after.headers['x-cache']).not.toBe('hit');
    expect(available(after.body)).toBe(1);
  });
});
