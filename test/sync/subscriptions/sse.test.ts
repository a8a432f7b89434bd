import { type Server, createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/core/config/config.js';
import { type Db, createDb } from '../../../src/core/db/client.js';
import { migrateDatabase } from '../../../src/core/db/migrate.js';
import { createLogger } from '../../../src/core/ops/logger.js';
import { ChangeFeed } from '../../../src/sync/change-feed.js';
import { WritePipeline } from '../../../src/core/db/transactions.js';
import { freshDatabase } from '../../helpers/database.js';
import { SITE_URL } from '../../helpers/harness.js';
import { type Credentials, type Users, basicAuth, createUser, withRoles } from '../../helpers/users.js';
import { dataOf, graphqlClient } from '../../helpers/graphql.js';
import { type Subscription, subscribe } from './sse.js';

// GraphQL subscriptions over Server-Sent Events, through a real port: what each subscriber receives
// follows its own visibility (drafts, password-protected content, filters on blanked fields), a
// record leaving a subscriber's view is told once without content, and nothing is cached or kept
// open past its client.

let database: { url: string; drop: () => Promise<void> };
let db: Db;
/** Every SQL statement the app ran (the fan-out test counts them). */
const queries: string[] = [];
let server: Server;
let base: string;
let feed: ChangeFeed;
let users: Users;
const open: Subscription[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  await migrateDatabase(database.url);
  db = await createDb(database.url, { onQuery: (sql) => queries.push(sql) });
  const config = loadConfig({
    DATABASE_URL: database.url,
    CALENDAR_SITE_URL: SITE_URL,
    LOG_LEVEL: 'silent',
    // On: proves that subscriptions are never answered from (or stored in) the response cache.
    CALENDAR_CACHE: 'on',
    CALENDAR_SUBSCRIPTIONS_PER_CLIENT: '4',
  });
  const logger = createLogger('silent');
  const writes = new WritePipeline();
  feed = new ChangeFeed({ ...config.subscriptions, logger });
  const app = buildApp({ db, config, logger, writes, changes: feed });
  server = createServer(app.callback());
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const h = { db, config, writes };
  users = await withRoles(h);
});

afterAll(async () => {
  for (const subscription of open) subscription.close();
  await feed?.close();
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done));
  await db?.$disconnect();
  await database?.drop();
});

const graphql = graphqlClient(() => base);
const gql = async (query: string, variables: Record<string, unknown>, as?: Credentials) =>
  dataOf(await graphql(query, variables, as));

async function listen(query: string, options: Parameters<typeof subscribe>[2] = {}) {
  const subscription = await subscribe(base, query, options);
  open.push(subscription);
  return subscription;
}

/** Subscriptions register when the stream starts: wait until the feed holds `count` of them. */
async function feedHolds(count: number) {
  const started = Date.now();
  while (feed.size !== count) {
    if (Date.now() - started > 5000) throw new Error(`feed holds ${feed.size}, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const EVENT_FIELDS = `id operation event { id: databaseId title status description contentWithheld venues { id: databaseId } }`;
const EVENTS = `subscription($filter: EventChangeFilter, $password: String) {
  eventChanged(filter: $filter, password: $password) { ${EVENT_FIELDS} } }`;
const CREATE = `mutation($input: CreateEventInput!) { createEvent(input: $input) { id: databaseId } }`;
const UPDATE = `mutation($id: Int!, $input: UpdateEventInput!) { updateEvent(id: $id, input: $input) { id: databaseId } }`;
const TRASH = `mutation($id: Int!) { deleteEvent(id: $id) { id: databaseId } }`;
const WHEN = { startDate: '2031-05-01 10:00:00', endDate: '2031-05-01 12:00:00' };

async function createEvent(input: Record<string, unknown>, as: Credentials = users.editor): Promise<number> {
  return (await gql(CREATE, { input: { ...WHEN, ...input } }, as)).createEvent.id as number;
}

describe('eventChanged over SSE', () => {
  it('streams as text/event-stream, uncached, and delivers a published event to anyone', async () => {
    const anonymous = await listen(EVENTS);
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(anonymous.headers.get('cache-control')).toBe('no-store');
    expect(anonymous.headers.get('x-cache')).toBeNull();
    await feedHolds(1);
    const id = await createEvent({ title: 'Open air', description: 'Bring a chair' });
    const delivered = await anonymous.next();
    expect(delivered).toEqual({
      data: {
        eventChanged: {
          id,
          operation: 'created',
          event: {
            id,
            title: 'Open air',
            status: 'publish',
            description: '<p>Bring a chair</p>',
            contentWithheld: false,
            venues: [],
          },
        },
      },
    });
    anonymous.close();
    await feedHolds(0);
  });

  it('gives drafts only to who may read them; an anonymous subscriber hears nothing of them', async () => {
    const anonymous = await listen(EVENTS);
    const editorial = await listen(EVENTS, { authorization: basicAuth(users.editor) });
    await feedHolds(2);
    const id = await createEvent({ title: 'Secret plans', status: 'draft', description: 'Not yet' });
    const seen = await editorial.next();
    expect(seen.data.eventChanged).toMatchObject({
      id,
      operation: 'created',
      event: { title: 'Secret plans', status: 'draft', description: '<p>Not yet</p>' },
    });
    // Edits of the draft: still nothing for the anonymous subscriber.
    await gql(UPDATE, { id, input: { title: 'Secret plans v2' } }, users.editor);
    expect((await editorial.next()).data.eventChanged.event.title).toBe('Secret plans v2');
    await anonymous.quiet(300);
    // Published: now the anonymous subscriber hears of it, with its content.
    await gql(UPDATE, { id, input: { status: 'publish' } }, users.editor);
    expect((await anonymous.next()).data.eventChanged).toMatchObject({
      id,
      operation: 'updated',
      event: { title: 'Secret plans v2', status: 'publish' },
    });
    await editorial.next();
    // Back to draft: it leaves the anonymous subscriber's view, told once without content.
    await gql(UPDATE, { id, input: { status: 'draft' } }, users.editor);
    expect(await anonymous.next()).toEqual({
      data: { eventChanged: { id, operation: 'updated', event: null } },
    });
    expect((await editorial.next()).data.eventChanged.event.status).toBe('draft');
    // Trashing the draft: the anonymous subscriber was already told; the editor gets a tombstone.
    await gql(TRASH, { id }, users.editor);
    expect(await editorial.next()).toEqual({
      data: { eventChanged: { id, operation: 'trashed', event: null } },
    });
    await anonymous.quiet(300);
    anonymous.close();
    editorial.close();
    await feedHolds(0);
  });

  it("a contributor's own draft reaches the contributor, not another contributor's", async () => {
    const other = await createUser(
      { db, config: loadConfig({ DATABASE_URL: database.url }), writes: new WritePipeline() },
      'contributor',
    );
    const own = await listen(EVENTS, { authorization: basicAuth(users.contributor) });
    const others = await listen(EVENTS, { authorization: basicAuth(other) });
    await feedHolds(2);
    const id = await createEvent({ title: 'Mine' }, users.contributor);
    expect((await own.next()).data.eventChanged).toMatchObject({
      id,
      event: { title: 'Mine', status: 'draft' },
    });
    await others.quiet(300);
    own.close();
    others.close();
    await feedHolds(0);
  });

  it("never shows a protected event's content to who did not unlock it; its password or the right to edit does", async () => {
    const venue = (
      await gql(`mutation { createVenue(input: { name: "Hall" }) { id: databaseId } }`, {}, users.editor)
    ).createVenue.id;
    const anonymous = await listen(EVENTS);
    const unlocked = await listen(EVENTS, { variables: { password: 'sesame' } });
    const editorial = await listen(EVENTS, { authorization: basicAuth(users.editor) });
    await feedHolds(3);
    const id = await createEvent({
      title: 'Members night',
      description: 'The code is 1234',
      password: 'sesame',
      venues: [{ id: venue }],
    });
    expect((await anonymous.next()).data.eventChanged.event).toEqual({
      id,
      title: 'Members night',
      status: 'publish',
      description: '',
      contentWithheld: true,
      venues: [],
    });
    for (const subscriber of [unlocked, editorial]) {
      expect((await subscriber.next()).data.eventChanged.event).toMatchObject({
        description: '<p>The code is 1234</p>',
        contentWithheld: false,
        venues: [{ id: venue }],
      });
    }
    for (const subscriber of [anonymous, unlocked, editorial]) subscriber.close();
    await feedHolds(0);
  });

  it('filters on blanked fields never match a protected event the subscriber cannot unlock (D21)', async () => {
    const venue = (
      await gql(`mutation { createVenue(input: { name: "Cellar" }) { id: databaseId } }`, {}, users.editor)
    ).createVenue.id;
    const elsewhere = (
      await gql(`mutation { createVenue(input: { name: "Roof" }) { id: databaseId } }`, {}, users.editor)
    ).createVenue.id;
    const atVenue = await listen(EVENTS, { variables: { filter: { venues: [venue] } } });
    const withPassword = await listen(EVENTS, {
      variables: { filter: { venues: [venue] }, password: 'cellar' },
    });
    await feedHolds(2);
    const hidden = await createEvent({ title: 'Protected', password: 'cellar', venues: [{ id: venue }] });
    const other = await createEvent({ title: 'Elsewhere', venues: [{ id: elsewhere }] });
    const open = await createEvent({ title: 'Open', venues: [{ id: venue }] });
    // The protected event does not match the venue filter without its password: the first event the
    // filtered subscriber receives is the open one.
    expect((await atVenue.next()).data.eventChanged).toMatchObject({ id: open, event: { title: 'Open' } });
    expect((await withPassword.next()).data.eventChanged).toMatchObject({
      id: hidden,
      event: { title: 'Protected' },
    });
    expect((await withPassword.next()).data.eventChanged).toMatchObject({ id: open });
    // Moving the open event away takes it out of the filtered view: a tombstone.
    await gql(UPDATE, { id: open, input: { venues: [{ id: elsewhere }] } }, users.editor);
    expect(await atVenue.next()).toEqual({
      data: { eventChanged: { id: open, operation: 'updated', event: null } },
    });
    await atVenue.quiet(200);
    expect(other).toBeGreaterThan(0);
    atVenue.close();
    withPassword.close();
    await feedHolds(0);
  });

  it('a filter naming a venue the subscriber may not read answers as for an unknown one', async () => {
    const draftVenue = (
      await gql(
        `mutation { createVenue(input: { name: "Unopened", status: draft }) { id: databaseId } }`,
        {},
        users.editor,
      )
    ).createVenue.id;
    for (const venues of [[draftVenue], [999_999]]) {
      const refused = await listen(EVENTS, { variables: { filter: { venues } } });
      const answer = await refused.next();
      expect(answer.errors[0].extensions.code).toBe('rest_invalid_param');
      expect(answer.errors[0].extensions.data.params).toEqual({ venues: 'Invalid parameter.' });
      await refused.ended;
    }
    await feedHolds(0);
  });

  it('works over GET too, and a filter by ids seeds the view (a later unpublish is told)', async () => {
    const id = await createEvent({ title: 'Known before' });
    const watcher = await listen(EVENTS, { method: 'GET', variables: { filter: { ids: [id] } } });
    expect(watcher.status).toBe(200);
    expect(watcher.headers.get('cache-control')).toBe('no-store');
    await feedHolds(1);
    await createEvent({ title: 'Not watched' });
    await gql(UPDATE, { id, input: { status: 'draft' } }, users.editor);
    expect(await watcher.next()).toEqual({
      data: { eventChanged: { id, operation: 'updated', event: null } },
    });
    watcher.close();
    await feedHolds(0);
  });
});

describe('credentials', () => {
  it("revoking a password ends that user's streams; the revoked password cannot subscribe again", async () => {
    const author = await createUser(
      { db, config: loadConfig({ DATABASE_URL: database.url }), writes: new WritePipeline() },
      'author',
    );
    const stream = await listen(EVENTS, { authorization: basicAuth(author) });
    const anonymous = await listen(EVENTS);
    await feedHolds(2);
    const passwords = await gql('{ viewer { applicationPasswords { id } } }', {}, author);
    const [{ id }] = passwords.viewer.applicationPasswords;
    await gql('mutation($id: Int!) { revokeApplicationPassword(id: $id) { id } }', { id }, author);
    await stream.ended;
    expect(stream.events.at(-1)?.event).toBe('complete');
    // Other subscribers keep theirs.
    await feedHolds(1);
    const again = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        authorization: basicAuth(author),
      },
      body: JSON.stringify({ query: EVENTS }),
    });
    expect(again.status).toBe(401);
    anonymous.close();
    await feedHolds(0);
  });
});

describe('venues, organizers and terms', () => {
  it('venueChanged and organizerChanged follow the read rules; termChanged tells every change', async () => {
    const venues = await listen(`subscription { venueChanged { id operation venue { name status } } }`);
    const organizers = await listen(`subscription { organizerChanged { id operation organizer { name } } }`);
    const terms = await listen(
      `subscription { termChanged { id operation category { name } tag { name } } }`,
    );
    await feedHolds(3);
    await gql(
      `mutation { createVenue(input: { name: "Draft hall", status: draft }) { id: databaseId } }`,
      {},
      users.editor,
    );
    const venue = (
      await gql(`mutation { createVenue(input: { name: "Main hall" }) { id: databaseId } }`, {}, users.editor)
    ).createVenue.id;
    expect(await venues.next()).toEqual({
      data: {
        venueChanged: { id: venue, operation: 'created', venue: { name: 'Main hall', status: 'publish' } },
      },
    });
    const organizer = (
      await gql(`mutation { createOrganizer(input: { name: "Ann" }) { id: databaseId } }`, {}, users.editor)
    ).createOrganizer.id;
    expect((await organizers.next()).data.organizerChanged).toEqual({
      id: organizer,
      operation: 'created',
      organizer: { name: 'Ann' },
    });
    const category = (
      await gql(`mutation { createCategory(input: { name: "Jazz" }) { id: databaseId } }`, {}, users.editor)
    ).createCategory.id;
    expect((await terms.next()).data.termChanged).toEqual({
      id: category,
      operation: 'created',
      category: { name: 'Jazz' },
      tag: null,
    });
    await gql(
      `mutation($id: Int!) { deleteCategory(id: $id) { id: databaseId } }`,
      { id: category },
      users.editor,
    );
    expect((await terms.next()).data.termChanged).toEqual({
      id: category,
      operation: 'deleted',
      category: null,
      tag: null,
    });
    await venues.quiet(200);
    for (const subscription of [venues, organizers, terms]) subscription.close();
    await feedHolds(0);
  });
});

describe('not as SSE', () => {
  it('a subscription asked without Accept: text/event-stream is a coded 406, never a 204 or a hang', async () => {
    const query = 'subscription { eventChanged { id } }';
    const answers = [
      await fetch(`${base}/graphql?${new URLSearchParams({ query })}`, {
        headers: { accept: 'application/json' },
      }),
      await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(406);
      const body = (await answer.json()) as { errors: Array<{ extensions: { code: string } }> };
      expect(body.errors[0]!.extensions.code).toBe('not_acceptable');
    }
    expect(feed.size).toBe(0);
  });
});

describe('limits', () => {
  it('caps the subscriptions of one client, and frees a place when a client leaves', async () => {
    const held = [];
    for (let i = 0; i < 4; i++) held.push(await listen(EVENTS, { authorization: basicAuth(users.editor) }));
    await feedHolds(4);
    const refused = await listen(EVENTS, { authorization: basicAuth(users.editor) });
    const answer = await refused.next();
    expect(answer.errors[0].extensions.code).toBe('too_many_subscriptions');
    await refused.ended;
    // Another client is not affected.
    const anonymous = await listen(EVENTS);
    await feedHolds(5);
    held[0]!.close();
    await feedHolds(4);
    const again = await listen(EVENTS, { authorization: basicAuth(users.editor) });
    await feedHolds(5);
    for (const subscription of [...held, anonymous, again]) subscription.close();
    await feedHolds(0);
  });

  it('measures a subscription like a query (aliases, depth, cost) before it starts', async () => {
    const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: id`).join(' ');
    const refused = await listen(`subscription { eventChanged { ${aliases} } }`);
    expect((await refused.next()).errors[0].extensions.code).toBe('too_many_aliases');
    await refused.ended;
    expect(feed.size).toBe(0);
  });
});

describe('fan-out', () => {
  it('asks once per change whether it is in view for subscribers who see alike, then reads once each', async () => {
    const QUERY = 'subscription { eventChanged { id event { id: databaseId } } }';
    /** Statements run after one write's commit to deliver it to `count` anonymous subscribers. */
    const statementsFor = async (count: number) => {
      const subscribers = [];
      for (let i = 0; i < count; i++) subscribers.push(await listen(QUERY));
      await feedHolds(count);
      queries.length = 0;
      await createEvent({ title: `Fan-out ${count}` });
      for (const subscriber of subscribers) await subscriber.next();
      const afterCommit = queries.slice(queries.findLastIndex((sql) => /^COMMIT/i.test(sql)) + 1);
      for (const subscriber of subscribers) subscriber.close();
      await feedHolds(0);
      return afterCommit.length;
    };
    // One visibility check shared by all, then one read of the record per subscriber.
    expect(await statementsFor(1)).toBe(2);
    expect(await statementsFor(4)).toBe(5);
  });
});

describe('delivery latency', () => {
  it('delivers a write to a subscriber quickly (p50 printed)', async () => {
    const subscriber = await listen(`subscription { eventChanged { id event { title } } }`);
    await feedHolds(1);
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const id = await createEvent({ title: `Tick ${i}` });
      const delivered = await subscriber.next();
      latencies.push(performance.now() - started);
      expect(delivered.data.eventChanged).toEqual({ id, event: { title: `Tick ${i}` } });
    }
    latencies.sort((a, b) => a - b);
    const p50 = latencies[Math.floor(latencies.length / 2)]!;
    console.info(
      `write → SSE event (mutation round trip included): p50 ${p50.toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms`,
    );
    expect(p50).toBeLessThan(1000);
    subscriber.close();
    await feedHolds(0);
  });
});
