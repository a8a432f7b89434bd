import { type Server, createServer } from 'node:http';
import supertest from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/core/config/config.js';
import { type Db, createDb } from '../../../src/core/db/client.js';
import { migrateDatabase } from '../../../src/core/db/migrate.js';
import { affects } from '../../../src/core/cache/dependencies.js';
import { createLogger } from '../../../src/core/ops/logger.js';
import { ChangeFeed } from '../../../src/sync/change-feed.js';
import { WebhookDispatcher } from '../../../src/sync/webhook-dispatcher.js';
import { type Change, WritePipeline } from '../../../src/core/db/transactions.js';
import { writeEffectOf } from '../../../src/core/db/write-effects.js';
import { freshDatabase } from '../../helpers/database.js';
import { createEvent } from '../../helpers/fixtures.js';
import { dataOf, graphqlClient } from '../../helpers/graphql.js';
import { API, SITE_URL } from '../../helpers/harness.js';
import { type Credentials, type Users, basicAuth, withRoles } from '../../helpers/users.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { type Subscription, subscribe } from '../../sync/subscriptions/sse.js';
import { CANCEL, createType, rsvp } from '../tickets-setup.js';

// Ticket types and attendees in the change stream, webhooks and subscriptions: a reservation is an
// `attendee.created` (never an `event.updated`), without personal data unless a webhook endpoint
// asked for it (then with the token, held only until delivered); a cancellation and the promotion it
// makes are two entries; availability is published after each change of an event's tickets; an event
// the reader may not see shows none of it. And the response cache: a reservation drops the answers
// showing the event's tickets, not the lists that do not show them.

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
let database: { url: string; drop: () => Promise<void> };
let db: Db;
let server: Server;
let base: string;
let feed: ChangeFeed;
let writes: WritePipeline;
let users: Users;
let http: ReturnType<typeof supertest>;
let receiver: WebhookReceiver;
let config: ReturnType<typeof loadConfig>;
const open: Subscription[] = [];
const dispatchers: WebhookDispatcher[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  await migrateDatabase(database.url);
  db = await createDb(database.url);
  config = loadConfig({
    DATABASE_URL: database.url,
    CALENDAR_SITE_URL: SITE_URL,
    CALENDAR_TIMEZONE: 'UTC',
    LOG_LEVEL: 'silent',
    CALENDAR_CACHE: 'on',
    CALENDAR_WEBHOOKS_ALLOW_PRIVATE: 'true',
    CALENDAR_WEBHOOK_POLL_MS: '50',
    CALENDAR_WEBHOOK_TIMEOUT_MS: '1000',
    // Every request comes from one address: the limits are tested in limits.test.ts.
    CALENDAR_RSVP_PER_ADDRESS: '0',
    CALENDAR_RSVP_PER_EMAIL: '0',
  });
  const logger = createLogger('silent');
  writes = new WritePipeline();
  feed = new ChangeFeed({ ...config.subscriptions, logger });
  const app = buildApp({ db, config, logger, writes, changes: feed });
  http = supertest(app.callback());
  server = createServer(app.callback());
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  users = await withRoles({ db, config, writes });
  receiver = await WebhookReceiver.start();
});

afterEach(async () => {
  for (const subscription of open.splice(0)) subscription.close();
  await Promise.all(dispatchers.splice(0).map((dispatcher) => dispatcher.stop()));
  receiver.reset();
  await db.webhookEndpoint.deleteMany();
});

afterAll(async () => {
  await receiver?.close();
  await feed?.close();
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done));
  await db?.$disconnect();
  await database?.drop();
});

const target = () => ({ http });
const gql = graphqlClient(target);

const CHANGES = `query ($since: String) {
  changes(since: $since) {
    events { databaseId }
    ticketTypes { id eventId availability { available } }
    attendees { id eventId ticketTypeId status guests erased }
    deleted { events ticketTypes attendees }
    next
  }
}`;

async function position(as?: Credentials): Promise<string> {
  return dataOf(await gql(CHANGES, {}, as)).changes.next as string;
}

async function changesSince(since: string, as?: Credentials) {
  return dataOf(await gql(CHANGES, { since }, as)).changes as Record<string, any>;
}

/** The change-log rows after the last one now: what a write appended. */
async function logAfter(sequence: number) {
  return (await db.changeLog.findMany({ where: { id: { gt: sequence } }, orderBy: { id: 'asc' } })).map(
    (row) => `${row.kind}.${row.operation}:${row.recordId}`,
  );
}

const lastSequence = async () =>
  (await db.changeLog.findFirst({ orderBy: { id: 'desc' }, select: { id: true } }))?.id ?? 0;

async function register(events: string[], personalData?: boolean, as: Credentials = users.administrator) {
  return gql(
    `mutation ($url: String!, $events: [String!]!, $personalData: Boolean) {
      createWebhookEndpoint(url: $url, events: $events, personalData: $personalData) {
        endpoint { id personalData }
      }
    }`,
    { url: `${receiver.base}/hook`, events, personalData },
    as,
  );
}

function startDispatcher(): void {
  const dispatcher = new WebhookDispatcher(db, config, createLogger('silent'));
  const remove = writes.afterCommit(() => dispatcher.kick());
  const stop = dispatcher.stop.bind(dispatcher);
  dispatcher.stop = async () => {
    remove();
    await stop();
  };
  dispatcher.start();
  dispatchers.push(dispatcher);
}

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const PERSONAL = (person: { name: string; email: string }, token: string, code: string) => [
  person.name,
  person.email,
  token,
  code,
];

describe('the change stream', () => {
  it('records a reservation as attendee.created, without personal data and without event.updated', async () => {
    const event = await createEvent(db);
    const ticketTypeId = await createType(target(), users.editor, event.id, { capacity: 5 });
    const since = await position();
    const sequence = await lastSequence();
    const person = { name: 'Ada Quietly', email: 'ada.quietly@example.org' };
    const { confirmation } = await rsvp(target(), { ticketTypeId, ...person, guests: 2 });
    expect(await logAfter(sequence)).toEqual([`attendee.created:${confirmation!.attendee.id}`]);

    const page = await changesSince(since);
    expect(page.events).toEqual([]);
    expect(page.attendees).toEqual([
      {
        id: confirmation!.attendee.id,
        eventId: event.id,
        ticketTypeId,
        status: 'GOING',
        guests: 2,
        erased: false,
      },
    ]);
    const rest = await http.get(`${API}/changes?since=${since}`).expect(200);
    expect(rest.body.events).toEqual([]);
    expect(rest.body.attendees).toEqual([
      expect.objectContaining({ id: confirmation!.attendee.id, post_id: event.id, attendee_status: 'going' }),
    ]);
    for (const secret of PERSONAL(person, confirmation!.token, confirmation!.attendee.checkInCode)) {
      expect(JSON.stringify(page)).not.toContain(secret);
      expect(rest.text).not.toContain(secret);
      expect(JSON.stringify(await db.changeLog.findMany())).not.toContain(secret);
    }
  });

  it('records ticket type writes as ticket.created, ticket.updated and ticket.deleted', async () => {
    const event = await createEvent(db);
    const sequence = await lastSequence();
    const since = await position();
    const id = await createType(target(), users.editor, event.id, { capacity: 5 });
    const page = await changesSince(since);
    expect(page.ticketTypes).toEqual([{ id, eventId: event.id, availability: { available: 5 } }]);
    const rest = await http.get(`${API}/changes?since=${since}`).expect(200);
    expect(rest.body.tickets).toEqual([expect.objectContaining({ id, post_id: event.id })]);
    dataOf(
      await gql(
        `mutation ($id: Int!) { updateTicketType(id: $id, input: { capacity: 6 }) { id } }`,
        { id },
        users.editor,
      ),
    );
    dataOf(await gql(`mutation ($id: Int!) { deleteTicketType(id: $id) { id } }`, { id }, users.editor));
    expect(await logAfter(sequence)).toEqual([
      `ticket.created:${id}`,
      `ticket.updated:${id}`,
      `ticket.deleted:${id}`,
    ]);
    const after = await changesSince(since);
    expect(after.ticketTypes).toEqual([]);
    expect(after.deleted.ticketTypes).toEqual([id]);
  });

  it('a cancellation that promotes from the waitlist: attendee.cancelled, then attendee.updated', async () => {
    const event = await createEvent(db);
    const ticketTypeId = await createType(target(), users.editor, event.id, { capacity: 1, waitlist: true });
    const first = (await rsvp(target(), { ticketTypeId, name: 'First', email: 'first@example.org' }))
      .confirmation!;
    const second = (await rsvp(target(), { ticketTypeId, name: 'Second', email: 'second@example.org' }))
      .confirmation!;
    expect(second.attendee.status).toBe('WAITLISTED');
    const since = await position();
    const sequence = await lastSequence();
    dataOf(await gql(CANCEL, { token: first.token }));
    expect(await logAfter(sequence)).toEqual([
      `attendee.cancelled:${first.attendee.id}`,
      `attendee.updated:${second.attendee.id}`,
    ]);
    const page = await changesSince(since);
    expect(page.events).toEqual([]);
    expect(page.attendees.map((a: any) => [a.id, a.status])).toEqual([
      [first.attendee.id, 'CANCELLED'],
      [second.attendee.id, 'GOING'],
    ]);
  });

  it('shows nothing of the attendees of an event the reader may not see, not even as deleted', async () => {
    const draft = await createEvent(db, { status: 'draft' });
    const locked = await createEvent(db, { fields: { password: 'open-sesame' } });
    const since = { anonymous: await position(), editor: await position(users.editor) };
    const attendees: number[] = [];
    for (const event of [draft, locked]) {
      const ticketTypeId = await createType(target(), users.editor, event.id, { capacity: 5 });
      const { confirmation } = await rsvp(
        target(),
        { ticketTypeId, name: 'Hidden', email: 'hidden@example.org' },
        users.editor,
      );
      attendees.push(confirmation!.attendee.id);
    }
    const anonymous = await changesSince(since.anonymous);
    expect(anonymous.ticketTypes).toEqual([]);
    expect(anonymous.attendees).toEqual([]);
    expect(anonymous.deleted).toMatchObject({ ticketTypes: [], attendees: [] });
    const subscriber = await changesSince(since.anonymous, users.subscriber);
    expect(subscriber.attendees).toEqual([]);
    const rest = await http.get(`${API}/changes?since=${since.anonymous}`).expect(200);
    expect(rest.body.attendees).toEqual([]);
    expect(rest.body.deleted.attendees).toEqual([]);
    // Who may see both events sees both.
    expect((await changesSince(since.editor, users.editor)).attendees.map((a: any) => a.id)).toEqual(
      attendees,
    );
  });
});

describe('webhooks', () => {
  it('send attendee.created without personal data, unless the endpoint asked for it (then with the token)', async () => {
    const event = await createEvent(db);
    const ticketTypeId = await createType(target(), users.editor, event.id, { capacity: 5 });
    const plain = await register(['attendee.*']);
    const personal = await register(['*'], true);
    expect(dataOf(plain).createWebhookEndpoint.endpoint.personalData).toBe(false);
    const personalId = dataOf(personal).createWebhookEndpoint.endpoint.id as number;
    startDispatcher();
    const person = { name: 'Grace Hopper', email: 'grace@example.org' };
    const { confirmation } = await rsvp(target(), { ticketTypeId, ...person });
    const { token, attendee } = confirmation!;
    // Until delivered, the token waits for the endpoint that asked for it, and only there.
    await until(() => receiver.received.filter((r) => r.answered === 204).length === 2, 'two deliveries');
    const bodies = receiver.received.map((entry) => entry.json);
    await new Promise((resolve) => setTimeout(resolve, 150));
    // The endpoint of `*` gets no event.updated for a reservation.
    expect(receiver.received.map((entry) => entry.json.type)).toEqual([
      'attendee.created',
      'attendee.created',
    ]);
    const [withoutData] = bodies.filter((body) => body.data.full_name === undefined);
    const [withData] = bodies.filter((body) => body.data.full_name !== undefined);
    expect(withoutData!.data).toEqual({
      id: attendee.id,
      resource: 'attendee',
      operation: 'created',
      sequence: expect.any(Number),
      changed_at: expect.any(String),
      rest_url: `${SITE_URL}/calendar/tickets/v1/attendees/${attendee.id}`,
      event_id: event.id,
      ticket_id: ticketTypeId,
      attendee_status: 'going',
      guests: 1,
      erased: false,
    });
    for (const secret of PERSONAL(person, token, attendee.checkInCode))
      expect(JSON.stringify(withoutData)).not.toContain(secret);
    expect(withData!.data).toMatchObject({ full_name: person.name, email: person.email, token });
    expect(JSON.stringify(withData)).not.toContain(attendee.checkInCode);
    // Delivered: the token is kept nowhere any more.
    await until(async () => (await db.webhookHeldToken.count()) === 0, 'the held token to go');
    const deliveries = await db.webhookDelivery.findMany({ where: { endpointId: personalId } });
    expect(JSON.stringify(deliveries)).not.toContain(token);
  });

  it('an erasure drops a token still waiting, and later deliveries carry no personal data', async () => {
    await register(['attendee.*'], true);
    const event = await createEvent(db);
    const ticketTypeId = await createType(target(), users.editor, event.id, { capacity: 5 });
    const person = { name: 'Erased Soon', email: 'erased.soon@example.org' };
    const { confirmation } = await rsvp(target(), { ticketTypeId, ...person });
    expect(await db.webhookHeldToken.count({ where: { attendeeId: confirmation!.attendee.id } })).toBe(1);
    dataOf(
      await gql(`mutation ($token: String!) { eraseAttendee(token: $token) { erased } }`, {
        token: confirmation!.token,
      }),
    );
    expect(await db.webhookHeldToken.count()).toBe(0);
    startDispatcher();
    await until(() => receiver.received.filter((r) => r.answered === 204).length === 2, 'two deliveries');
    const bodies = receiver.received.map((entry) => entry.json);
    expect(bodies.map((body) => body.type)).toEqual(['attendee.created', 'attendee.erased']);
    for (const body of bodies) {
      expect(body.data.erased).toBe(true);
      for (const secret of PERSONAL(person, confirmation!.token, confirmation!.attendee.checkInCode))
        expect(JSON.stringify(body)).not.toContain(secret);
    }
  });

  it('a cancellation with a promotion is delivered as attendee.cancelled and attendee.updated', async () => {
    await register(['attendee.cancelled', 'attendee.updated', 'event.*']);
    const event = await createEvent(db);
    const ticketTypeId = await createType(target(), users.editor, event.id, { capacity: 1, waitlist: true });
    const first = (await rsvp(target(), { ticketTypeId, name: 'A', email: 'a@example.org' })).confirmation!;
    const second = (await rsvp(target(), { ticketTypeId, name: 'B', email: 'b@example.org' })).confirmation!;
    startDispatcher();
    dataOf(await gql(CANCEL, { token: first.token }));
    await until(() => receiver.received.filter((r) => r.answered === 204).length === 2, 'two deliveries');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(receiver.received.map((entry) => [entry.json.type, entry.json.data.id])).toEqual([
      ['attendee.cancelled', first.attendee.id],
      ['attendee.updated', second.attendee.id],
    ]);
    expect(receiver.received[1]!.json.data.attendee_status).toBe('going');
  });

  it('personal data is asked for by who may manage webhooks and see attendees only', async () => {
    const refused = await register(['attendee.created'], true, users.editor);
    expect(refused.errors?.[0]?.extensions.code).toBe('rest_forbidden');
    expect(await db.webhookEndpoint.count()).toBe(0);
    const unknown = await register(['attendee.promoted']);
    expect(unknown.errors?.[0]?.extensions.code).toBe('rest_invalid_param');
  });
});

const AVAILABILITY = `subscription ($eventId: Int!, $password: String) {
  ticketAvailability(eventId: $eventId, password: $password) {
    eventId
    ticketTypes { id availability { capacity available soldOut waitlist } }
  }
}`;

async function listen(variables: Record<string, unknown>, as?: Credentials) {
  const subscription = await subscribe(base, AVAILABILITY, {
    variables,
    ...(as ? { authorization: basicAuth(as) } : {}),
  });
  open.push(subscription);
  return subscription;
}

async function feedHolds(count: number) {
  const started = Date.now();
  while (feed.size !== count) {
    if (Date.now() - started > 5000) throw new Error(`feed holds ${feed.size}, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the availability subscription', () => {
  it('emits the types with their availability after each change of the event’s tickets, once per write', async () => {
    const event = await createEvent(db);
    const other = await createEvent(db);
    const ticketTypeId = await createType(target(), users.editor, event.id, { capacity: 2, waitlist: true });
    const otherType = await createType(target(), users.editor, other.id, { capacity: 2 });
    const subscription = await listen({ eventId: event.id });
    await feedHolds(1);
    await rsvp(target(), { ticketTypeId, name: 'Other', email: 'o@example.org' }).then(() => undefined);
    const first = await subscription.next();
    expect(first.data.ticketAvailability).toEqual({
      eventId: event.id,
      ticketTypes: [
        { id: ticketTypeId, availability: { capacity: 2, available: 1, soldOut: false, waitlist: 0 } },
      ],
    });
    expect(JSON.stringify(first)).not.toContain('o@example.org');
    // Another event's reservations are not told here.
    await rsvp(target(), { ticketTypeId: otherType, name: 'Elsewhere', email: 'e@example.org' });
    const big = (await rsvp(target(), { ticketTypeId, name: 'Big', email: 'big@example.org', guests: 2 }))
      .confirmation!;
    expect(big.attendee.status).toBe('WAITLISTED');
    expect((await subscription.next()).data.ticketAvailability.ticketTypes[0].availability).toEqual({
      capacity: 2,
      available: 1,
      soldOut: false,
      waitlist: 1,
    });
    await subscription.quiet(150);
  });

  it('an event the subscriber may not see is refused as an unknown one, and tells nothing', async () => {
    const draft = await createEvent(db, { status: 'draft' });
    const ticketTypeId = await createType(target(), users.editor, draft.id, { capacity: 3 });
    for (const eventId of [draft.id, 999_999]) {
      const refused = await listen({ eventId });
      const answer = await refused.next();
      expect(answer.errors[0].extensions.code).toBe('TICKET_NOT_FOUND');
      await refused.ended;
    }
    const locked = await createEvent(db, { fields: { password: 'open-sesame' } });
    const withoutPassword = await listen({ eventId: locked.id });
    expect((await withoutPassword.next()).errors[0].extensions.code).toBe('event-password-protected');
    await withoutPassword.ended;
    await feedHolds(0);
    // An editor sees the draft's; a reservation there reaches only them.
    const editor = await listen({ eventId: draft.id }, users.editor);
    await feedHolds(1);
    await rsvp(target(), { ticketTypeId, name: 'Editor', email: 'ed@example.org' }, users.editor);
    expect((await editor.next()).data.ticketAvailability.ticketTypes[0].availability.available).toBe(2);
  });

  it('stops telling an event that its subscriber may no longer see', async () => {
    const event = await createEvent(db);
    const ticketTypeId = await createType(target(), users.editor, event.id, { capacity: 3 });
    const subscription = await listen({ eventId: event.id });
    await feedHolds(1);
    await db.event.update({ where: { id: event.id }, data: { status: 'draft' } });
    await rsvp(target(), { ticketTypeId, name: 'Late', email: 'late@example.org' }, users.editor);
    await subscription.quiet(200);
  });
});

describe('the response cache', () => {
  const EVENT_TICKETS = `query ($id: Int!) { event(id: $id) { ticketTypes { availability { available } } } }`;
  const EVENT_TITLES = `query { events(perPage: 50) { items { title } } }`;
  const read = (query: string, variables: Record<string, unknown> = {}) =>
    http.post('/graphql').send({ query, variables }).expect(200);

  it('a reservation drops the cached answers showing its event’s tickets, not lists that do not show them', async () => {
    const event = await createEvent(db);
    const ticketTypeId = await createType(target(), users.editor, event.id, { capacity: 3 });
    for (const [query, variables] of [
      [EVENT_TICKETS, { id: event.id }],
      [EVENT_TITLES, {}],
    ] as const) {
      await read(query, variables);
      expect((await read(query, variables)).headers['x-cache']).toBe('hit');
    }
    await rsvp(target(), { ticketTypeId, name: 'Cached', email: 'cached@example.org' });
    const tickets = await read(EVENT_TICKETS, { id: event.id });
    expect(tickets.headers['x-cache']).not.toBe('hit');
    expect(tickets.body.data.event.ticketTypes[0].availability.available).toBe(2);
    expect((await read(EVENT_TITLES)).headers['x-cache']).toBe('hit');
  });

  it('an attendee change meets the event’s ticket answers only; a type change every list that may hold it', () => {
    const span = { localStart: '2030-01-01 10:00:00', localEnd: '2030-01-01 12:00:00', status: 'publish' };
    const change = (kind: 'attendee' | 'ticket'): Change => ({
      kind,
      id: 1,
      operation: 'created',
      event: { id: 7, span },
    });
    const showingTickets = { records: ['event:7'], kinds: [], windows: [], eventColumns: ['tickets'] };
    const showingTitle = { records: ['event:7'], kinds: [], windows: [], eventColumns: ['title'] };
    const list = {
      records: [],
      kinds: [],
      windows: [
        {
          startFrom: null,
          startTo: null,
          endFrom: null,
          endTo: null,
          facts: ['span', 'order', 'status', 'hidden'] as const,
          statuses: ['publish'],
          terms: [],
          venues: null,
          organizers: null,
        },
      ],
    };
    const attendee = writeEffectOf([change('attendee')]);
    expect([
      affects(attendee, showingTickets),
      affects(attendee, showingTitle),
      affects(attendee, list),
    ]).toEqual([true, false, false]);
    const type = writeEffectOf([change('ticket')]);
    expect([affects(type, showingTickets), affects(type, list)]).toEqual([true, true]);
  });
});
