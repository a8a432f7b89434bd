import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent } from '../../helpers/fixtures.js';
import { graphqlClient } from '../../helpers/graphql.js';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { type Users, basicAuth, withRoles } from '../../helpers/users.js';
import { createType, rsvp } from '../tickets-setup.js';

// A trashed event's tickets are no one's: its types are unknown to every reader, editors included,
// on both APIs (TICKET_NOT_FOUND, as for a missing id), it takes no reservation, and its
// reservations' tokens are one INVALID_TOKEN on every token path, with nothing written.

const TICKETS = '/calendar/tickets/v1';
let h: Harness;
let users: Users;
const gql = graphqlClient(() => h);
let eventId: number;
let typeId: number;
let token: string;
let attendeeId: number;

beforeAll(async () => {
  h = await startHarness();
  users = await withRoles(h);
  eventId = (await createEvent(h.db)).id;
  typeId = await createType(h, users.editor, eventId, { capacity: 5 });
  const made = (await rsvp(h, { ticketTypeId: typeId, name: 'Ada', email: 'ada@example.org' })).confirmation!;
  token = made.token;
  attendeeId = made.attendee.id;
  await h.db.event.update({ where: { id: eventId }, data: { status: 'trash' } });
});
afterAll(() => h?.close());

describe('the types of a trashed event', () => {
  it.each(['anonymous', 'editor', 'administrator'] as const)('are unknown to %s', async (who) => {
    const as = who === 'anonymous' ? undefined : users[who];
    const auth = (request: ReturnType<Harness['http']['get']>) =>
      as ? request.set('Authorization', basicAuth(as)) : request;
    const one = await auth(h.http.get(`${TICKETS}/tickets/${typeId}`));
    expect([one.status, one.body.code]).toEqual([404, 'TICKET_NOT_FOUND']);
    const list = await auth(h.http.get(`${TICKETS}/tickets?event=${eventId}`)).expect(200);
    expect([list.body.total, list.body.tickets]).toEqual([0, []]);
    const read = await gql(`query ($id: Int!) { ticketType(id: $id) { id } }`, { id: typeId }, as);
    expect(read.errors?.[0]?.extensions.code).toBe('TICKET_NOT_FOUND');
    const reserved = await rsvp(h, { ticketTypeId: typeId, name: 'Bo', email: `bo-${who}@example.org` }, as);
    expect(reserved.code).toBe('TICKET_NOT_FOUND');
    expect(await h.db.attendee.count({ where: { eventId } })).toBe(1);
  });
});

describe('a reservation of a trashed event', () => {
  it('is INVALID_TOKEN to every token path, with nothing written', async () => {
    const withToken = <R extends { set(name: string, value: string): R }>(request: R) =>
      request.set('X-RSVP-Token', token);
    for (const request of [
      withToken(h.http.get(`${TICKETS}/rsvp`)),
      withToken(h.http.patch(`${TICKETS}/rsvp`)).send({ quantity: 2 }),
      withToken(h.http.delete(`${TICKETS}/rsvp`)),
      withToken(h.http.post(`${TICKETS}/rsvp/erase`)),
    ]) {
      const res = await request;
      expect([res.status, res.body.code]).toEqual([403, 'INVALID_TOKEN']);
    }
    const row = await h.db.attendee.findUniqueOrThrow({ where: { id: attendeeId } });
    expect(row).toMatchObject({ status: 'GOING', guests: 1, erased: false, name: 'Ada' });
  });
});
