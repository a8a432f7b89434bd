import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent } from '../../helpers/fixtures.js';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { type Credentials, type Users, basicAuth, withRoles } from '../../helpers/users.js';
import { createType } from '../tickets-setup.js';

// `/calendar/tickets/v1`: Event Tickets' shapes over the same services, the language segment, `/doc`,
// the RSVP by POST, check-in by security code, and who may read attendees.

const TICKETS = '/calendar/tickets/v1';
let h: Harness;
let users: Users;
let eventId: number;
let typeId: number;

beforeAll(async () => {
  h = await startHarness();
  users = await withRoles(h);
  eventId = (await createEvent(h.db)).id;
  typeId = await createType(h, users.editor, eventId, { capacity: 2, waitlist: true, maxPerRequest: 2 });
});
afterAll(() => h?.close());

const get = (path: string, as?: Credentials) => {
  const request = h.http.get(`${TICKETS}${path}`);
  return as ? request.set('Authorization', basicAuth(as)) : request;
};
const post = (path: string, body: object, as?: Credentials) => {
  const request = h.http.post(`${TICKETS}${path}`).send(body);
  return as ? request.set('Authorization', basicAuth(as)) : request;
};

describe('tickets', () => {
  it('lists the tickets of visible events with their capacity, in Event Tickets keys', async () => {
    const res = await get(`/tickets?event=${eventId}`).expect(200);
    expect(res.headers['x-et-total']).toBe('1');
    expect(res.body).toMatchObject({ total: 1, total_pages: 1 });
    expect(res.body.tickets[0]).toMatchObject({
      id: typeId,
      post_id: eventId,
      provider: 'rsvp',
      capacity: 2,
      capacity_details: { max: 2, available: 2, sold: 0 },
      is_available: true,
      rest_url: `http://calendar.test:8080${TICKETS}/tickets/${typeId}`,
    });
  });

  it('answers under a language segment with its links in it, and describes itself at /doc', async () => {
    const res = await h.http.get(`/fr${TICKETS}/tickets/${typeId}`).expect(200);
    expect(res.body.rest_url).toBe(`http://calendar.test:8080/fr${TICKETS}/tickets/${typeId}`);
    const doc = await get('/doc').expect(200);
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/tickets', '/attendees', '/qr']));
    expect(doc.body.servers[0].url).toBe(`http://calendar.test:8080${TICKETS}/`);
    const index = await get('').expect(200);
    expect(index.body.namespace).toBe('calendar/tickets/v1');
  });

  it('an unknown ticket is a JSON 404; a bad page a 400', async () => {
    expect((await get('/tickets/999999').expect(404)).body.code).toBe('TICKET_NOT_FOUND');
    expect((await get('/tickets?per_page=500').expect(400)).body.code).toBe('rest_invalid_param');
    expect((await get('/nothing-here').expect(404)).body.code).toBe('rest_no_route');
  });
});

describe('RSVP, attendees and check-in', () => {
  it('reserves by POST (201 with the token once), queues past capacity, refuses bad input with nothing written', async () => {
    const made = await post('/attendees', {
      ticket_id: typeId,
      full_name: 'Ada',
      email: 'ada@example.org',
      quantity: 2,
    }).expect(201);
    expect(made.body).toMatchObject({
      ticket_id: typeId,
      title: 'Ada',
      attendee_status: 'going',
      guests: 2,
      rsvp_going: true,
    });
    expect(made.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(made.headers.location).toBe(made.body.rest_url);
    const queued = await post('/attendees', {
      ticket_id: typeId,
      full_name: 'Bo',
      email: 'bo@example.org',
    }).expect(201);
    expect(queued.body.attendee_status).toBe('waitlisted');
    const before = await h.db.attendee.count();
    const bad = await post('/attendees', {
      ticket_id: typeId,
      full_name: '',
      email: 'nope',
      quantity: 3,
    }).expect(400);
    expect(Object.keys(bad.body.data.params).sort()).toEqual(['email', 'name']);
    expect(
      (
        await post('/attendees', {
          ticket_id: typeId,
          full_name: 'C',
          email: 'c@example.org',
          quantity: 3,
        }).expect(400)
      ).body.code,
    ).toBe('TOO_MANY');
    expect(await h.db.attendee.count()).toBe(before);
  });

  it('shows attendees to editors and administrators only', async () => {
    for (const viewer of [undefined, users.subscriber, users.contributor, users.author]) {
      const res = await get(`/attendees?post_id=${eventId}`, viewer);
      expect(res.status).toBe(viewer ? 403 : 401);
      expect(res.body.code).toBe('rest_forbidden');
      expect(JSON.stringify(res.body)).not.toContain('ada@example.org');
    }
    for (const viewer of [users.editor, users.administrator]) {
      const res = await get(`/attendees?post_id=${eventId}`, viewer).expect(200);
      expect(res.body.attendees.map((a: { email: string }) => a.email)).toEqual([
        'ada@example.org',
        'bo@example.org',
      ]);
      const one = await get(`/attendees/${res.body.attendees[0].id}`, viewer).expect(200);
      expect(one.body.email).toBe('ada@example.org');
    }
  });

  it('checks in by security code (editors), once', async () => {
    const ada = await h.db.attendee.findFirstOrThrow({ where: { email: 'ada@example.org' } });
    expect((await post('/qr', { security_code: ada.checkInCode }, users.author).expect(403)).body.code).toBe(
      'rest_forbidden',
    );
    const done = await post(
      '/qr',
      { security_code: ada.checkInCode, ticket_id: ada.id },
      users.editor,
    ).expect(200);
    expect(done.body.attendee).toMatchObject({ id: ada.id, checked_in: true, attendee_status: 'checked_in' });
    expect((await post('/qr', { security_code: ada.checkInCode }, users.editor).expect(409)).body.code).toBe(
      'NOT_CHECKABLE',
    );
  });

  it('a draft event’s tickets are unknown to anonymous readers', async () => {
    const draft = await createEvent(h.db, { status: 'draft' });
    const draftType = await createType(h, users.editor, draft.id, {});
    expect((await get(`/tickets/${draftType}`).expect(404)).body.code).toBe('TICKET_NOT_FOUND');
    expect((await get(`/tickets?event=${draft.id}`).expect(200)).body.total).toBe(0);
    expect(
      (await post('/attendees', { ticket_id: draftType, full_name: 'X', email: 'x@example.org' }).expect(404))
        .body.code,
    ).toBe('TICKET_NOT_FOUND');
    expect((await get(`/tickets/${draftType}`, users.editor).expect(200)).body.id).toBe(draftType);
  });
});
