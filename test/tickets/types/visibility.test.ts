import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '../../../src/core/rules/permissions.js';
import { createEvent } from '../../helpers/fixtures.js';
import { graphqlClient } from '../../helpers/graphql.js';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { type Credentials, type Users, basicAuth, withRoles } from '../../helpers/users.js';
import { TYPES_OF_EVENT, createType, rsvp } from '../tickets-setup.js';

// Who sees what, viewers × ticket paths over GraphQL: anyone who may see an event sees its types and
// their counts and may reserve; a draft or private event is unknown to those who may not read it; a
// protected one shows no types and takes no reservation without its password; only editors and
// administrators see attendees, export them (REST CSV) or check them in; an attendee reaches their own
// reservation by token (GraphQL, and REST's `/rsvp` with the token in its header), nobody else does.

const TICKETS = '/calendar/tickets/v1';
let h: Harness;
let users: Users;
const gql = graphqlClient(() => h);
type Viewer = 'anonymous' | Role;
const VIEWERS: Viewer[] = ['anonymous', ...ROLES];
const as = (viewer: Viewer): Credentials | undefined => (viewer === 'anonymous' ? undefined : users[viewer]);
const manages = (viewer: Viewer) => viewer === 'editor' || viewer === 'administrator';

const KINDS = ['published', 'draft', 'private', 'protected'] as const;
type Kind = (typeof KINDS)[number];
const events = {} as Record<Kind, { id: number; typeId: number }>;

beforeAll(async () => {
  h = await startHarness();
  users = await withRoles(h);
  for (const [name, fields] of [
    ['published', {}],
    ['draft', { status: 'draft' }],
    ['private', { status: 'private' }],
    ['protected', { password: 'open-sesame' }],
  ] as const) {
    const event = await createEvent(h.db, { fields });
    const typeId = await createType(h, users.editor, event.id, { capacity: 100 });
    events[name] = { id: event.id, typeId };
  }
});
afterAll(() => h?.close());

/** Which events a viewer may see the types of (and reserve), without any password. */
const SEES: Record<Viewer, Kind[]> = {
  anonymous: ['published'],
  subscriber: ['published'],
  contributor: ['published'],
  author: ['published'],
  editor: ['published', 'draft', 'private', 'protected'],
  administrator: ['published', 'draft', 'private', 'protected'],
};

describe.each(VIEWERS)('%s', (viewer) => {
  it.each(KINDS)('sees the types of a %s event only if it may', async (name) => {
    const answer = await gql(TYPES_OF_EVENT, { id: events[name].id }, as(viewer));
    const types = answer.data?.event?.ticketTypes as
      Array<{ id: number; availability: { capacity: number } }> | undefined;
    if (SEES[viewer].includes(name)) {
      expect(types?.map((type) => type.id)).toEqual([events[name].typeId]);
      expect(types?.[0]?.availability.capacity).toBe(100);
    } else expect(types ?? []).toEqual([]);
  });

  it.each(KINDS)('reserves on a %s event only if it may see it', async (name) => {
    const answer = await rsvp(
      h,
      { ticketTypeId: events[name].typeId, name: 'V', email: `${viewer}@example.org` },
      as(viewer),
    );
    if (SEES[viewer].includes(name)) expect(answer.confirmation?.attendee.status).toBe('GOING');
    else expect(answer.code).toBe(name === 'protected' ? 'event-password-protected' : 'TICKET_NOT_FOUND');
  });

  it('sees attendees, one attendee, and checks in only as an editor or administrator', async () => {
    const made = await rsvp(h, {
      ticketTypeId: events.published.typeId,
      name: 'Door',
      email: 'door@example.org',
    });
    const { id, checkInCode } = made.confirmation!.attendee;
    const list = await gql(
      `query ($id: Int!) { event(id: $id) { attendees(first: 50) { totalCount edges { node { id email } } } } }`,
      { id: events.published.id },
      as(viewer),
    );
    const one = await gql(`query ($id: Int!) { attendee(id: $id) { email } }`, { id }, as(viewer));
    const checkIn = await gql(
      `mutation ($code: String!) { checkInAttendee(code: $code) { status } }`,
      { code: checkInCode },
      as(viewer),
    );
    if (manages(viewer)) {
      const emails = list.data!.event.attendees.edges.map(
        (edge: { node: { email: string } }) => edge.node.email,
      );
      expect(emails).toContain('door@example.org');
      expect(one.data!.attendee.email).toBe('door@example.org');
      expect(checkIn.data!.checkInAttendee.status).toBe('CHECKED_IN');
    } else {
      const refusal = viewer === 'anonymous' ? 401 : 403;
      for (const answer of [list, one, checkIn]) {
        expect(answer.errors?.[0]?.extensions.code).toBe('rest_forbidden');
        expect(answer.errors?.[0]?.extensions.http).toEqual({ status: refusal });
      }
      expect(JSON.stringify([list.data, one.data, checkIn.data])).not.toContain('door@example.org');
    }
  });

  it('exports the attendee list as CSV only as an editor or administrator', async () => {
    await rsvp(h, { ticketTypeId: events.published.typeId, name: 'Csv', email: `csv-${viewer}@example.org` });
    const request = h.http.get(`${TICKETS}/attendees.csv?post_id=${events.published.id}`);
    const res = await (as(viewer) ? request.set('Authorization', basicAuth(as(viewer)!)) : request);
    if (manages(viewer)) {
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      expect(res.text).toContain(`csv-${viewer}@example.org`);
    } else {
      expect(res.status).toBe(viewer === 'anonymous' ? 401 : 403);
      expect(res.body.code).toBe('rest_forbidden');
      expect(res.text).not.toMatch(/@example\.org/);
    }
  });

  it('reaches a reservation over REST by its token alone, whatever its credentials', async () => {
    const made = await rsvp(h, {
      ticketTypeId: events.published.typeId,
      name: 'Holder',
      email: `holder-${viewer}@example.org`,
    });
    const { token, attendee } = made.confirmation!;
    const withCredentials = (request: ReturnType<typeof h.http.get>) =>
      as(viewer) ? request.set('Authorization', basicAuth(as(viewer)!)) : request;
    const { newToken } = await import('../../../src/tickets/reservations/tokens.js');
    const others = [
      await withCredentials(h.http.get(`${TICKETS}/rsvp`)),
      await withCredentials(h.http.get(`${TICKETS}/rsvp`).set('X-RSVP-Token', newToken().token)),
      await withCredentials(h.http.get(`${TICKETS}/rsvp?token=${token}`)),
      await withCredentials(
        h.http.patch(`${TICKETS}/rsvp`).set('X-RSVP-Token', newToken().token).send({ quantity: 2 }),
      ),
      await withCredentials(h.http.delete(`${TICKETS}/rsvp`).set('X-RSVP-Token', newToken().token)),
      await withCredentials(h.http.post(`${TICKETS}/rsvp/erase`).set('X-RSVP-Token', newToken().token)),
    ];
    for (const answer of others) {
      expect(answer.status).toBe(403);
      expect(answer.body.code).toBe('INVALID_TOKEN');
      expect(answer.text).not.toMatch(/@example\.org/);
    }
    expect(await h.db.attendee.findUniqueOrThrow({ where: { id: attendee.id } })).toMatchObject({
      status: 'GOING',
      guests: 1,
      erased: false,
    });
    const mine = await withCredentials(h.http.get(`${TICKETS}/rsvp`).set('X-RSVP-Token', token)).expect(200);
    expect(mine.body.email).toBe(`holder-${viewer}@example.org`);
  });
});

describe('the attendee’s token', () => {
  it('reads, changes and cancels its own reservation, and nothing else', async () => {
    const made = await rsvp(h, {
      ticketTypeId: events.published.typeId,
      name: 'Tok',
      email: 'tok@example.org',
    });
    const token = made.confirmation!.token;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Only its hash is stored.
    const row = await h.db.attendee.findUniqueOrThrow({ where: { id: made.confirmation!.attendee.id } });
    expect(JSON.stringify(row)).not.toContain(token);
    const mine = await gql(
      `query ($token: String!) { attendeeByToken(token: $token) { name email status } }`,
      { token },
    );
    expect(mine.data!.attendeeByToken).toEqual({ name: 'Tok', email: 'tok@example.org', status: 'GOING' });
    const changed = await gql(
      `mutation ($token: String!) { updateRsvp(token: $token, input: { guests: 3, attending: true }) { guests status } }`,
      { token },
    );
    expect(changed.data!.updateRsvp).toEqual({ guests: 3, status: 'GOING' });
    // The token is no key to the attendee list.
    const list = await gql(`query ($id: Int!) { event(id: $id) { attendees { totalCount } } }`, {
      id: events.published.id,
    });
    expect(list.errors?.[0]?.extensions.code).toBe('rest_forbidden');
    const cancelled = await gql(`mutation ($token: String!) { cancelRsvp(token: $token) { status } }`, {
      token,
    });
    expect(cancelled.data!.cancelRsvp.status).toBe('CANCELLED');
    const later = await gql(
      `mutation ($token: String!) { updateRsvp(token: $token, input: { attending: true }) { status } }`,
      { token },
    );
    expect(later.errors?.[0]?.extensions.code).toBe('RSVP_CLOSED');
  });

  it('an unknown token, a malformed one and an expired one get the same answer', async () => {
    const past = await createEvent(h.db, { start: '2020-01-01 10:00:00' });
    const pastType = await h.db.ticketType.create({ data: { eventId: past.id, name: 'Old' } });
    const { newToken } = await import('../../../src/tickets/reservations/tokens.js');
    const expired = newToken();
    await h.db.attendee.create({
      data: {
        ticketTypeId: pastType.id,
        eventId: past.id,
        name: 'O',
        email: 'o@example.org',
        status: 'GOING',
        checkInCode: 'c'.repeat(16),
        tokenHash: expired.hash,
      },
    });
    const answers = await Promise.all(
      [newToken().token, 'short', expired.token].map((token) =>
        gql(`query ($token: String!) { attendeeByToken(token: $token) { id } }`, { token }),
      ),
    );
    const shapes = answers.map((answer) => ({
      data: answer.data,
      errors: answer.errors?.map((e) => [e.message, e.extensions]),
    }));
    expect(shapes[1]).toEqual(shapes[0]);
    expect(shapes[2]).toEqual(shapes[0]);
    expect(answers[0]!.errors![0]!.extensions.code).toBe('INVALID_TOKEN');
  });
});

describe('no e-mail oracle', () => {
  it('answers a known and an unknown e-mail alike', async () => {
    const typeId = events.published.typeId;
    await rsvp(h, { ticketTypeId: typeId, name: 'First', email: 'known@example.org' });
    const strip = (answer: Awaited<ReturnType<typeof rsvp>>) => ({
      status: answer.confirmation?.attendee.status,
      keys: Object.keys(answer.confirmation ?? {}).sort(),
      attendeeKeys: Object.keys(answer.confirmation?.attendee ?? {}).sort(),
      errors: answer.errors,
    });
    const again = await rsvp(h, { ticketTypeId: typeId, name: 'Second', email: 'known@example.org' });
    const fresh = await rsvp(h, { ticketTypeId: typeId, name: 'Second', email: 'unknown@example.org' });
    expect(strip(again)).toEqual(strip(fresh));
    expect(strip(fresh).status).toBe('GOING');
  });

  it('the availability never names anyone', async () => {
    const answer = await gql(TYPES_OF_EVENT, { id: events.published.id });
    expect(JSON.stringify(answer)).not.toMatch(/@example\.org/);
  });
});

describe('a protected event', () => {
  it('shows its types and takes a reservation with its password', async () => {
    const { id, typeId } = events.protected;
    const answer = await gql(TYPES_OF_EVENT, { id, password: 'open-sesame' });
    expect(answer.data!.event.ticketTypes.map((type: { id: number }) => type.id)).toEqual([typeId]);
    const made = await rsvp(h, {
      ticketTypeId: typeId,
      name: 'P',
      email: 'p@example.org',
      password: 'open-sesame',
    });
    expect(made.confirmation?.attendee.status).toBe('GOING');
  });
});
