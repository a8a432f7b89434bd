import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent } from '../../helpers/fixtures.js';
import { dataOf, graphqlClient } from '../../helpers/graphql.js';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { type Users, withRoles } from '../../helpers/users.js';
import { createType, rsvp, secondInstance } from '../tickets-setup.js';

// What a reservation may still do once it stands: more places need sales open; a closed one (checked
// in, cancelled) changes no more; two changes at once both hold; a raised capacity serves the waitlist;
// a trashed event's attendees are no one's to check in or erase; the attendee list's cursors are its own.

let h: Harness;
let users: Users;
const gql = graphqlClient(() => h);
let n = 0;

beforeAll(async () => {
  h = await startHarness();
  users = await withRoles(h);
});
afterAll(() => h?.close());

const UPDATE = `mutation ($token: String!, $input: UpdateRsvpInput!) {
  updateRsvp(token: $token, input: $input) { id name guests status }
}`;
const CANCEL = `mutation ($token: String!) { cancelRsvp(token: $token) { id status } }`;
const CHECK_IN = `mutation ($code: String!) { checkInAttendee(code: $code) { id status } }`;
const ERASE = `mutation ($id: Int, $token: String) { eraseAttendee(id: $id, token: $token) { id } }`;
const UPDATE_TYPE = `mutation ($id: Int!, $input: TicketTypeInput!) { updateTicketType(id: $id, input: $input) { id } }`;

/** An event with one type, and a going reservation of `guests` places. */
async function booked(type: Record<string, unknown> = {}, guests = 1) {
  const event = await createEvent(h.db);
  const typeId = await createType(h, users.editor, event.id, { maxPerRequest: 5, ...type });
  n += 1;
  const made = await rsvp(h, { ticketTypeId: typeId, name: 'Ada', email: `ada${n}@example.org`, guests });
  return { event, typeId, ...made.confirmation! };
}

const codeOf = (answer: { errors?: ReadonlyArray<{ extensions: Record<string, unknown> }> }) =>
  answer.errors?.[0]?.extensions.code;
const rowOf = (id: number) => h.db.attendee.findUniqueOrThrow({ where: { id } });

describe('more places for a going reservation', () => {
  it.each([
    ['after its sales closed', 'SALES_CLOSED', { salesEnd: new Date(Date.now() - 60_000) }, {}],
    ['on a canceled event', 'EVENT_CANCELED', {}, { eventStatus: 'canceled' }],
  ])('are refused %s (%s), fewer are not', async (_when, code, typeChange, eventChange) => {
    const { event, typeId, token, attendee } = await booked({}, 2);
    await h.db.ticketType.update({ where: { id: typeId }, data: typeChange });
    await h.db.event.update({ where: { id: event.id }, data: eventChange });
    expect(codeOf(await gql(UPDATE, { token, input: { guests: 3 } }))).toBe(code);
    expect(await rowOf(attendee.id)).toMatchObject({ guests: 2, status: 'GOING' });
    const fewer = dataOf(await gql(UPDATE, { token, input: { guests: 1, name: 'Ada L.' } }));
    expect(fewer.updateRsvp).toMatchObject({ guests: 1, name: 'Ada L.', status: 'GOING' });
  });

  it('a waitlisted reservation asking for more places after sales closed is refused too', async () => {
    const event = await createEvent(h.db);
    const typeId = await createType(h, users.editor, event.id, {
      capacity: 1,
      waitlist: true,
      maxPerRequest: 5,
    });
    await rsvp(h, { ticketTypeId: typeId, name: 'First', email: 'first@example.org' });
    const waiting = (await rsvp(h, { ticketTypeId: typeId, name: 'Second', email: 'second@example.org' }))
      .confirmation!;
    expect(waiting.attendee.status).toBe('WAITLISTED');
    await h.db.ticketType.update({
      where: { id: typeId },
      data: { salesEnd: new Date(Date.now() - 60_000) },
    });
    expect(codeOf(await gql(UPDATE, { token: waiting.token, input: { guests: 2 } }))).toBe('SALES_CLOSED');
    expect(await rowOf(waiting.attendee.id)).toMatchObject({ guests: 1, status: 'WAITLISTED' });
  });
});

describe('a checked-in reservation', () => {
  it('can neither change nor be cancelled: RSVP_CLOSED, nothing written', async () => {
    const { token, attendee } = await booked();
    dataOf(await gql(CHECK_IN, { code: attendee.checkInCode }, users.editor));
    expect(codeOf(await gql(UPDATE, { token, input: { guests: 2 } }))).toBe('RSVP_CLOSED');
    expect(codeOf(await gql(CANCEL, { token }))).toBe('RSVP_CLOSED');
    expect(await rowOf(attendee.id)).toMatchObject({ guests: 1, status: 'CHECKED_IN' });
  });
});

// Only PostgreSQL runs two writes at once (SQLite runs one write transaction at a time, so there the
// race cannot arise). The changes go through two instances: within one, a type's writes queue in memory.
const concurrentWrites = (process.env.DATABASE_URL ?? '').startsWith('postgres');

describe.runIf(concurrentWrites)('two changes of one reservation at once', () => {
  it('both hold: each keeps what the other changed', async () => {
    const { typeId, token, attendee } = await booked();
    const other = await secondInstance(h);
    try {
      const change = (http: typeof other.http, input: object) =>
        http.post('/graphql').send({ query: UPDATE, variables: { token, input } });
      // The type's row is locked while both changes arrive: each reads the reservation, then waits for
      // the lock; whichever goes second must build on the row as the first left it.
      let both: Promise<Array<{ body: { errors?: unknown } }>> | undefined;
      await h.db.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT "id" FROM "TicketType" WHERE "id" = ${typeId} FOR UPDATE`;
        both = Promise.all([change(other.http, { name: 'Ada Lovelace' }), change(h.http, { guests: 3 })]);
        await new Promise((resolve) => setTimeout(resolve, 500));
      });
      for (const answer of await both!)
        expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
    } finally {
      await other.close();
    }
    expect(await rowOf(attendee.id)).toMatchObject({ name: 'Ada Lovelace', guests: 3, status: 'GOING' });
  });
});

describe('a raised capacity', () => {
  it('promotes the waitlist, first come first served, while the next fits', async () => {
    const event = await createEvent(h.db);
    const typeId = await createType(h, users.editor, event.id, {
      capacity: 1,
      waitlist: true,
      maxPerRequest: 5,
    });
    const reserve = async (name: string, guests: number) =>
      (await rsvp(h, { ticketTypeId: typeId, name, email: `${name}@example.org`, guests })).confirmation!
        .attendee;
    await reserve('going', 1);
    const [two, three, one] = [await reserve('two', 2), await reserve('three', 3), await reserve('one', 1)];
    expect([two.status, three.status, one.status]).toEqual(['WAITLISTED', 'WAITLISTED', 'WAITLISTED']);
    dataOf(await gql(UPDATE_TYPE, { id: typeId, input: { capacity: 4 } }, users.editor));
    // Three places came free: `two` fits, `three` does not, and `one` waits behind it.
    const statuses = async () =>
      Promise.all([two, three, one].map(async (row) => (await rowOf(row.id)).status));
    expect(await statuses()).toEqual(['GOING', 'WAITLISTED', 'WAITLISTED']);
    dataOf(await gql(UPDATE_TYPE, { id: typeId, input: { capacity: null } }, users.editor));
    expect(await statuses()).toEqual(['GOING', 'GOING', 'GOING']);
  });
});

describe('the attendees of a trashed event', () => {
  it('are not found to check in or to erase by id, for editors and administrators; nothing written', async () => {
    const { event, attendee } = await booked();
    await h.db.event.update({ where: { id: event.id }, data: { status: 'trash' } });
    for (const as of [users.editor, users.administrator]) {
      expect(codeOf(await gql(CHECK_IN, { code: attendee.checkInCode }, as))).toBe('ATTENDEE_NOT_FOUND');
      expect(codeOf(await gql(ERASE, { id: attendee.id }, as))).toBe('ATTENDEE_NOT_FOUND');
    }
    expect(await rowOf(attendee.id)).toMatchObject({ status: 'GOING', erased: false, name: 'Ada' });
  });
});

describe('eraseAttendee', () => {
  it('with an empty token is INVALID_TOKEN (the attendee’s path), for anyone', async () => {
    const { attendee } = await booked();
    for (const as of [undefined, users.editor])
      expect(codeOf(await gql(ERASE, { id: attendee.id, token: '' }, as))).toBe('INVALID_TOKEN');
    expect((await rowOf(attendee.id)).erased).toBe(false);
  });
});

describe('the attendees connection', () => {
  const PAGE = `query ($id: Int!, $first: Int, $after: String) {
    event(id: $id) { attendees(first: $first, after: $after) { totalCount edges { cursor node { id } } pageInfo { hasNextPage } } }
  }`;
  const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  it('pages in arrival order by its own cursors', async () => {
    const { event, typeId } = await booked({}, 1);
    await rsvp(h, { ticketTypeId: typeId, name: 'Bo', email: 'bo-page@example.org' });
    await rsvp(h, { ticketTypeId: typeId, name: 'Cy', email: 'cy-page@example.org' });
    const ids = (await h.db.attendee.findMany({ where: { eventId: event.id }, orderBy: { id: 'asc' } })).map(
      (row) => row.id,
    );
    const first = dataOf(await gql(PAGE, { id: event.id, first: 2 }, users.editor)).event.attendees;
    expect(first.totalCount).toBe(3);
    expect(first.edges.map((edge: { node: { id: number } }) => edge.node.id)).toEqual(ids.slice(0, 2));
    expect(first.pageInfo.hasNextPage).toBe(true);
    const after = first.edges[1].cursor;
    const next = dataOf(await gql(PAGE, { id: event.id, first: 2, after }, users.editor)).event.attendees;
    expect(next.edges.map((edge: { node: { id: number } }) => edge.node.id)).toEqual(ids.slice(2));
    expect(next.pageInfo.hasNextPage).toBe(false);
  });

  it.each([
    ['a negative offset', Buffer.from('arrayconnection:-5').toString('base64')],
    ['a huge offset', Buffer.from('arrayconnection:99999999999999999999').toString('base64')],
    ['a fraction', cursor([1.5])],
    ['a text', cursor(['x'])],
    ['garbage', '%%%'],
  ])('refuses a crafted cursor (%s) with a 400 naming after', async (_name, after) => {
    const { event } = await booked();
    const answer = await gql(PAGE, { id: event.id, first: 2, after }, users.editor);
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'rest_invalid_param',
      http: { status: 400 },
    });
    expect(answer.errors?.[0]?.extensions.data).toMatchObject({ params: { after: expect.any(String) } });
  });
});
