import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent } from '../../helpers/fixtures.js';
import { graphqlClient } from '../../helpers/graphql.js';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { type Users, basicAuth, withRoles } from '../../helpers/users.js';
import { createType } from '../tickets-setup.js';

// An attendee's own reservation over REST (`/calendar/tickets/v1/rsvp`, our extension): read, change,
// cancel and erase by its token, sent in the X-RSVP-Token header only (never in a URL), with the
// very errors GraphQL's `attendeeByToken`, `updateRsvp`, `cancelRsvp` and `eraseAttendee` give.

const TICKETS = '/calendar/tickets/v1';
const HEADER = 'X-RSVP-Token';
let h: Harness;
let users: Users;
let eventId: number;
/** One place, with a waitlist; at most 2 places per request. */
let typeId: number;
/** Ten places, no waitlist. */
let openTypeId: number;
const gql = graphqlClient(() => h);

beforeAll(async () => {
  h = await startHarness();
  users = await withRoles(h);
  eventId = (await createEvent(h.db)).id;
  typeId = await createType(h, users.editor, eventId, { capacity: 1, waitlist: true, maxPerRequest: 2 });
  openTypeId = await createType(h, users.editor, eventId, { name: 'Open', capacity: 10 });
});
afterAll(() => h?.close());

async function reserve(ticket: number, name: string, quantity = 1) {
  const res = await h.http
    .post(`${TICKETS}/attendees`)
    .send({ ticket_id: ticket, full_name: name, email: `${name.toLowerCase()}@example.org`, quantity })
    .expect(201);
  return res.body as { id: number; token: string; attendee_status: string };
}

const read = (token?: string) => {
  const request = h.http.get(`${TICKETS}/rsvp`);
  return token === undefined ? request : request.set(HEADER, token);
};
const change = (token: string, body: object, method: 'post' | 'put' | 'patch' = 'patch') =>
  h.http[method](`${TICKETS}/rsvp`).set(HEADER, token).send(body);
const cancel = (token: string) => h.http.delete(`${TICKETS}/rsvp`).set(HEADER, token);
const erase = (token: string) => h.http.post(`${TICKETS}/rsvp/erase`).set(HEADER, token);

/** An error body without its request id (which differs from one request to the next). */
const errorOf = (body: { code: string; message: string; data: Record<string, unknown> }) => {
  const { request_id: _id, ...data } = body.data;
  return { code: body.code, message: body.message, data };
};

describe('by its token', () => {
  it('reads the reservation in the attendee shape, whoever sends the token', async () => {
    const ada = await reserve(openTypeId, 'Ada');
    const mine = await read(ada.token).expect(200);
    expect(mine.body).toMatchObject({
      id: ada.id,
      ticket_id: openTypeId,
      post_id: eventId,
      title: 'Ada',
      email: 'ada@example.org',
      attendee_status: 'going',
      guests: 1,
    });
    expect(mine.body).not.toHaveProperty('token');
    // Credentials neither add nor take away: the token alone is the key.
    const asSubscriber = await read(ada.token).set('Authorization', basicAuth(users.subscriber)).expect(200);
    expect(asSubscriber.body.id).toBe(ada.id);
  });

  it('changes the places, the name and whether the attendee comes (POST, PUT and PATCH alike)', async () => {
    const bo = await reserve(openTypeId, 'Bo');
    expect((await change(bo.token, { quantity: 3 }).expect(200)).body).toMatchObject({
      guests: 3,
      attendee_status: 'going',
    });
    expect((await change(bo.token, { full_name: 'Bo B.' }, 'post').expect(200)).body.title).toBe('Bo B.');
    expect((await change(bo.token, { attending: 'no' }, 'put').expect(200)).body).toMatchObject({
      attendee_status: 'not_going',
      rsvp_going: false,
    });
    expect((await change(bo.token, { attending: true }).expect(200)).body.attendee_status).toBe('going');
    const row = await h.db.attendee.findUniqueOrThrow({ where: { id: bo.id } });
    expect(row).toMatchObject({ name: 'Bo B.', guests: 3, status: 'GOING' });
  });

  it('refuses a bad change naming its fields, with nothing written', async () => {
    const cy = await reserve(openTypeId, 'Cy');
    const bad = await change(cy.token, { attending: 'maybe', full_name: 7 }).expect(400);
    expect(bad.body.code).toBe('rest_invalid_param');
    expect(Object.keys(bad.body.data.params).sort()).toEqual(['attending', 'full_name']);
    const tooMany = await change(cy.token, { quantity: 11 }).expect(400);
    expect(tooMany.body.code).toBe('TOO_MANY');
    expect(await h.db.attendee.findUniqueOrThrow({ where: { id: cy.id } })).toMatchObject({
      guests: 1,
      status: 'GOING',
      name: 'Cy',
    });
  });

  it('cancels: the first waitlisted reservation takes the place, and the cancelled one is closed', async () => {
    const first = await reserve(typeId, 'First');
    const second = await reserve(typeId, 'Second');
    expect([first.attendee_status, second.attendee_status]).toEqual(['going', 'waitlisted']);
    const cancelled = await cancel(first.token).expect(200);
    expect(cancelled.body).toMatchObject({ id: first.id, attendee_status: 'cancelled' });
    expect((await read(second.token).expect(200)).body.attendee_status).toBe('going');
    // Cancelling again answers the same cancelled reservation; changing it is closed.
    expect((await cancel(first.token).expect(200)).body.attendee_status).toBe('cancelled');
    const closed = await change(first.token, { attending: true }).expect(409);
    expect(closed.body).toMatchObject({ code: 'RSVP_CLOSED', data: { attendee_status: 'CANCELLED' } });
  });

  it('erases the name and e-mail; the token stops working', async () => {
    const dee = await reserve(openTypeId, 'Dee');
    const erased = await erase(dee.token).expect(200);
    expect(erased.body).toMatchObject({ id: dee.id, title: '', email: '', erased: true });
    expect(JSON.stringify(erased.body)).not.toContain('dee@example.org');
    const row = await h.db.attendee.findUniqueOrThrow({ where: { id: dee.id } });
    expect(row).toMatchObject({ name: '', email: '', erased: true, status: 'GOING' });
    expect((await read(dee.token).expect(403)).body.code).toBe('INVALID_TOKEN');
  });
});

describe('a token that is not one', () => {
  it('unknown, malformed, missing or expired: one answer, the same as GraphQL’s', async () => {
    const { newToken } = await import('../../../src/tickets/reservations/tokens.js');
    const past = await createEvent(h.db, { start: '2020-01-01 10:00:00' });
    const pastType = await h.db.ticketType.create({ data: { eventId: past.id, name: 'Old' } });
    const expired = newToken();
    await h.db.attendee.create({
      data: {
        ticketTypeId: pastType.id,
        eventId: past.id,
        name: 'Old',
        email: 'old@example.org',
        status: 'GOING',
        checkInCode: 'e'.repeat(16),
        tokenHash: expired.hash,
      },
    });
    const answers = [
      await read(newToken().token),
      await read('short'),
      await read(),
      await read(expired.token),
      await change(expired.token, { quantity: 1 }),
      await cancel(newToken().token),
      await erase('x'.repeat(43)),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(errorOf(answer.body)).toEqual(errorOf(answers[0]!.body));
    }
    expect(answers[0]!.body.code).toBe('INVALID_TOKEN');
    expect(JSON.stringify(answers.map((answer) => answer.body))).not.toContain('old@example.org');
    const graphql = await gql(`query ($token: String!) { attendeeByToken(token: $token) { id } }`, {
      token: expired.token,
    });
    expect(graphql.errors?.[0]?.message).toBe(answers[0]!.body.message);
    expect(graphql.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_TOKEN', http: { status: 403 } });
  });

  it('never reads the token from the URL or the body', async () => {
    const eve = await reserve(openTypeId, 'Eve');
    const inQuery = await h.http.get(`${TICKETS}/rsvp?token=${eve.token}`).expect(403);
    expect(inQuery.body.code).toBe('INVALID_TOKEN');
    const inBody = await h.http.patch(`${TICKETS}/rsvp`).send({ token: eve.token, quantity: 2 }).expect(403);
    expect(inBody.body.code).toBe('INVALID_TOKEN');
    expect((await h.db.attendee.findUniqueOrThrow({ where: { id: eve.id } })).guests).toBe(1);
    expect((await h.http.get(`${TICKETS}/rsvp/${eve.token}`)).status).toBe(404);
  });

  it('gives the errors GraphQL gives for the same change', async () => {
    const full = await createType(h, users.editor, eventId, { name: 'Full', capacity: 2 });
    const taker = await reserve(full, 'Taker');
    const other = await reserve(full, 'Other');
    const rest = await change(taker.token, { quantity: 2 }).expect(409);
    const graphql = await gql(
      `mutation ($token: String!) { updateRsvp(token: $token, input: { guests: 2 }) { guests } }`,
      { token: other.token },
    );
    expect(rest.body.code).toBe('SOLD_OUT');
    expect(graphql.errors?.[0]?.extensions).toMatchObject({ code: 'SOLD_OUT', http: { status: 409 } });
    expect(graphql.errors?.[0]?.message).toBe(rest.body.message);
  });
});

describe('described at /doc', () => {
  it('names the token as a header, and the namespace index lists no such parameter', async () => {
    const doc = await h.http.get(`${TICKETS}/doc`).expect(200);
    const rsvp = doc.body.paths['/rsvp'];
    expect(Object.keys(rsvp).sort()).toEqual(
      expect.arrayContaining(['delete', 'get', 'patch', 'post', 'put']),
    );
    for (const method of ['get', 'patch', 'delete'])
      expect(rsvp[method].parameters).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: HEADER, in: 'header' })]),
      );
    expect(rsvp.get.parameters.some((parameter: { in: string }) => parameter.in === 'query')).toBe(false);
    expect(Object.keys(rsvp.patch.requestBody.content['application/json'].schema.properties).sort()).toEqual([
      'attending',
      'full_name',
      'quantity',
    ]);
    expect(doc.body.paths['/rsvp/erase'].post.parameters[0]).toMatchObject({ name: HEADER, in: 'header' });
    const index = await h.http.get(TICKETS).expect(200);
    const endpoints = index.body.routes['/calendar/tickets/v1/rsvp'].endpoints as Array<{ args: object }>;
    for (const endpoint of endpoints) expect(Object.keys(endpoint.args)).not.toContain(HEADER);
  });
});
