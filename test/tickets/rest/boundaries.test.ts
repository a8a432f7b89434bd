import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent } from '../../helpers/fixtures.js';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { type Credentials, type Users, basicAuth, withRoles } from '../../helpers/users.js';
import { createType, rsvp } from '../tickets-setup.js';

// The ticket routes' boundary: ids and counts are numbers (or their digits), never what JavaScript
// would turn into one; a check-in refused is not written; a listing counts only what it may show; an
// address is refused with a control character in it.

const TICKETS = '/calendar/tickets/v1';
let h: Harness;
let users: Users;
let eventId: number;
let typeId: number;

beforeAll(async () => {
  h = await startHarness();
  users = await withRoles(h);
  eventId = (await createEvent(h.db)).id;
  typeId = await createType(h, users.editor, eventId, { capacity: 20, maxPerRequest: 5 });
});
afterAll(() => h?.close());

const post = (path: string, body: object, as?: Credentials) => {
  const request = h.http.post(`${TICKETS}${path}`).send(body);
  return as ? request.set('Authorization', basicAuth(as)) : request;
};
const attendeesOf = (event: number) => h.db.attendee.count({ where: { eventId: event } });

describe('POST /attendees (an RSVP)', () => {
  it.each([
    ['2^31', 2 ** 31],
    ['a huge number', 1e300],
    ['true', true],
    ['an array', [7]],
    ['a hex string', '0x7'],
    ['a fraction', 1.5],
    ['zero', 0],
  ])('refuses a ticket_id that is %s with a 400 naming it, writing nothing', async (_name, ticketId) => {
    const before = await attendeesOf(eventId);
    const res = await post('/attendees', { ticket_id: ticketId, full_name: 'Ada', email: 'ada@example.org' });
    expect([res.status, res.body.code]).toEqual([400, 'rest_invalid_param']);
    expect(Object.keys(res.body.data.params)).toContain('ticket_id');
    expect(await attendeesOf(eventId)).toBe(before);
  });

  it('reads a ticket_id and a quantity sent as digits', async () => {
    const res = await post('/attendees', {
      ticket_id: String(typeId),
      full_name: 'Digits',
      email: 'digits@example.org',
      quantity: '2',
    }).expect(201);
    expect(res.body).toMatchObject({ ticket_id: typeId, guests: 2 });
  });

  it.each([
    ['true', true],
    ['an array', [2]],
    ['a hex string', '0x2'],
    ['null', null],
  ])('refuses a quantity that is %s, writing nothing', async (_name, quantity) => {
    const before = await attendeesOf(eventId);
    const res = await post('/attendees', {
      ticket_id: typeId,
      full_name: 'Ada',
      email: 'ada@example.org',
      quantity,
    });
    expect([res.status, res.body.code]).toEqual([400, 'rest_invalid_param']);
    expect(await attendeesOf(eventId)).toBe(before);
  });

  it.each(['\u0000', '\u0001', '\u001f', '\u007f', '\u0085', '\u009f'])(
    'refuses an e-mail address holding U+%#, on both APIs',
    async (control) => {
      const before = await attendeesOf(eventId);
      const email = `ada${control}x@example.org`;
      const res = await post('/attendees', { ticket_id: typeId, full_name: 'Ada', email });
      expect([res.status, res.body.code]).toEqual([400, 'rest_invalid_param']);
      // GraphQL refuses a NUL anywhere in a request body before reading it.
      expect((await rsvp(h, { ticketTypeId: typeId, name: 'Ada', email })).code).toBe(
        control === '\u0000' ? 'invalid_body' : 'rest_invalid_param',
      );
      expect(await attendeesOf(eventId)).toBe(before);
    },
  );
});

describe('POST /qr (a check-in)', () => {
  it.each([
    ['another attendee’s id', (id: number) => id + 1_000],
    ['null', () => null],
    ['true', () => true],
    ['2^31', () => 2 ** 31],
  ])('with a ticket_id that is %s is a 404, and the attendee is not checked in', async (name, idOf) => {
    const email = `cy-${name.replace(/\W/g, '')}@example.org`;
    const made = (await rsvp(h, { ticketTypeId: typeId, name: 'Cy', email })).confirmation!;
    const res = await post(
      '/qr',
      { security_code: made.attendee.checkInCode, ticket_id: idOf(made.attendee.id) },
      users.editor,
    );
    expect([res.status, res.body.code]).toEqual([404, 'ATTENDEE_NOT_FOUND']);
    const row = await h.db.attendee.findUniqueOrThrow({ where: { id: made.attendee.id } });
    expect(row.status).toBe('GOING');
  });
});

describe('GET /tickets', () => {
  it('counts in its totals only the types it shows: a protected event’s are left out unless editable', async () => {
    const open = await createEvent(h.db, { start: '2032-03-01 10:00:00' });
    const locked = await createEvent(h.db, { start: '2032-03-02 10:00:00', fields: { password: 'secret' } });
    const openTypes = [await createType(h, users.editor, open.id, {})];
    const lockedTypes = [
      await createType(h, users.editor, locked.id, {}),
      await createType(h, users.editor, locked.id, {}),
    ];
    const all = (await h.db.ticketType.count()) as number;
    const list = async (query: string, as?: Credentials) => {
      const request = h.http.get(`${TICKETS}/tickets${query}`);
      return (as ? request.set('Authorization', basicAuth(as)) : request).expect(200);
    };
    // Pages of one: the protected types are never on the page asked for, yet they were counted.
    const anonymous = await list('?per_page=1');
    expect(anonymous.body.total).toBe(all - lockedTypes.length);
    expect(anonymous.headers['x-et-total']).toBe(String(all - lockedTypes.length));
    expect(anonymous.body.total_pages).toBe(all - lockedTypes.length);
    expect((await list(`?event=${locked.id}`)).body).toMatchObject({ total: 0, tickets: [] });
    expect((await list(`?event=${open.id}`)).body.total).toBe(openTypes.length);
    const editor = await list('?per_page=1', users.editor);
    expect(editor.body.total).toBe(all);
    expect((await list(`?event=${locked.id}`, users.editor)).body.total).toBe(lockedTypes.length);
  });
});
