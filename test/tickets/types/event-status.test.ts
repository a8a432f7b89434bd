import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onSale } from '../../../src/tickets/reservations/sales.js';
import { createEvent } from '../../helpers/fixtures.js';
import { dataOf, graphqlClient } from '../../helpers/graphql.js';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { type Users, withRoles } from '../../helpers/users.js';
import { TYPES_OF_EVENT, createType, rsvp } from '../tickets-setup.js';

// An event's status (TEC's scheduled, canceled, postponed) and its sales, through the one rule
// (`src/tickets/reservations/sales.ts`): a canceled event takes no reservation and is on sale nowhere — the
// reservation's answer, `onSale`, `is_available`, `tickets.on_sale` and the `ticketed` filter agree —
// while a postponed one goes on selling.

let h: Harness;
let users: Users;
const gql = graphqlClient(() => h);
const TICKETS = '/calendar/tickets/v1';
const MONTH = 'start_date=2031-06-01&end_date=2031-06-30';
const events: Record<'scheduled' | 'canceled' | 'postponed', { eventId: number; typeId: number }> = {
  scheduled: { eventId: 0, typeId: 0 },
  canceled: { eventId: 0, typeId: 0 },
  postponed: { eventId: 0, typeId: 0 },
};

beforeAll(async () => {
  h = await startHarness();
  users = await withRoles(h);
  let day = 10;
  for (const eventStatus of ['scheduled', 'canceled', 'postponed'] as const) {
    const event = await createEvent(h.db, {
      title: eventStatus,
      start: `2031-06-${day++} 10:00:00`,
      fields: { eventStatus },
    });
    events[eventStatus] = { eventId: event.id, typeId: await createType(h, users.editor, event.id, {}) };
  }
});
afterAll(() => h?.close());

const person = (name: string) => ({ name, email: `${name.toLowerCase()}@example.org` });

describe('a canceled event', () => {
  it('refuses a reservation on both APIs with 409 EVENT_CANCELED, nothing written', async () => {
    const { eventId, typeId } = events.canceled;
    const answer = await rsvp(h, { ticketTypeId: typeId, ...person('Ada') });
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'EVENT_CANCELED',
      http: { status: 409 },
      data: { event_status: 'canceled' },
    });
    const rest = await h.http
      .post(`${TICKETS}/attendees`)
      .send({ ticket_id: typeId, full_name: 'Bo', email: 'bo@example.org' })
      .expect(409)
      .expect('Content-Type', /json/);
    expect(rest.body).toMatchObject({
      code: 'EVENT_CANCELED',
      data: { status: 409, event_status: 'canceled' },
    });
    expect(await h.db.attendee.count({ where: { eventId } })).toBe(0);
  });

  it('lets a reservation made before the cancellation go, but not come back', async () => {
    const event = await createEvent(h.db, { start: '2031-07-01 10:00:00' });
    const typeId = await createType(h, users.editor, event.id, {});
    const { confirmation } = await rsvp(h, { ticketTypeId: typeId, ...person('Cy') });
    await h.db.event.update({ where: { id: event.id }, data: { eventStatus: 'canceled' } });
    const change = (attending: boolean) =>
      h.http.put(`${TICKETS}/rsvp`).set('X-RSVP-Token', confirmation!.token).send({ attending });
    expect((await change(false).expect(200)).body.attendee_status).toBe('not_going');
    expect((await change(true).expect(409)).body.code).toBe('EVENT_CANCELED');
    expect((await h.db.attendee.findUniqueOrThrow({ where: { id: confirmation!.attendee.id } })).status).toBe(
      'NOT_GOING',
    );
  });

  it('is on sale nowhere: onSale, is_available, tickets.on_sale', async () => {
    const shown = async (which: keyof typeof events) => {
      const { eventId, typeId } = events[which];
      const graphql = dataOf(await gql(TYPES_OF_EVENT, { id: eventId })).event.ticketTypes[0].onSale;
      const ticket = (await h.http.get(`${TICKETS}/tickets/${typeId}`).expect(200)).body.is_available;
      const summary = (await h.http.get(`${API}/events/${eventId}`).expect(200)).body.tickets.on_sale;
      return [graphql, ticket, summary];
    };
    expect(await shown('scheduled')).toEqual([true, true, true]);
    expect(await shown('canceled')).toEqual([false, false, false]);
    expect(await shown('postponed')).toEqual([true, true, true]);
  });

  it('is not ticketed in the events list (REST and GraphQL)', async () => {
    const titles = async (ticketed: string) =>
      (await h.http.get(`${API}/events?${MONTH}&ticketed=${ticketed}`).expect(200)).body.events.map(
        (event: { title: string }) => event.title,
      );
    expect(await titles('1')).toEqual(['scheduled', 'postponed']);
    expect(await titles('0')).toEqual(['canceled']);
    const graphql = dataOf(
      await gql(
        '{ events(filter: { ticketed: true, startDate: "2031-06-01", endDate: "2031-06-30" }) { items { title } } }',
      ),
    ).events.items.map((event: { title: string }) => event.title);
    expect(graphql).toEqual(['scheduled', 'postponed']);
  });

  it('takes reservations again once it is scheduled again', async () => {
    const { eventId, typeId } = events.canceled;
    await h.db.event.update({ where: { id: eventId }, data: { eventStatus: 'scheduled' } });
    const answer = await rsvp(h, { ticketTypeId: typeId, ...person('Di') });
    expect(answer.confirmation?.attendee.status).toBe('GOING');
    await h.db.event.update({ where: { id: eventId }, data: { eventStatus: 'canceled' } });
  });
});

describe('a postponed event', () => {
  it('goes on taking reservations', async () => {
    const answer = await rsvp(h, { ticketTypeId: events.postponed.typeId, ...person('Ed') });
    expect(answer.code).toBeUndefined();
    expect(answer.confirmation?.attendee.status).toBe('GOING');
  });
});

describe('the rule', () => {
  it('stops sales for a canceled event whatever the window, and only for it', () => {
    const now = new Date('2031-06-01T00:00:00Z');
    const type = { salesStart: null, salesEnd: null };
    const event = (eventStatus: string) => ({
      endsAt: new Date('2031-06-10T12:00:00Z'),
      status: 'publish',
      eventStatus,
    });
    expect(['scheduled', 'postponed', 'canceled'].map((status) => onSale(type, event(status), now))).toEqual([
      true,
      true,
      false,
    ]);
    expect(onSale(type, { ...event('scheduled'), status: 'trash' }, now)).toBe(false);
  });
});
