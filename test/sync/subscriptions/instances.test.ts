import { randomBytes } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { databaseProviderOf, loadConfig } from '../../../src/core/config/config.js';
import { type Db, createDb } from '../../../src/core/db/client.js';
import { migrateDatabase } from '../../../src/core/db/migrate.js';
import { createLogger } from '../../../src/core/ops/logger.js';
import { type BusAddress, type InstanceBus, connectInstanceBus } from '../../../src/core/ops/instance-bus.js';
import { ChangeFeed } from '../../../src/sync/change-feed.js';
import { WritePipeline } from '../../../src/core/db/transactions.js';
import { freshDatabase } from '../../helpers/database.js';
import { SITE_URL } from '../../helpers/harness.js';
import { testPostgresUrl, testRedisUrl } from '../../helpers/processes/services.js';
import { type Credentials, basicAuth, createUser } from '../../helpers/users.js';
import { dataOf, graphqlClient } from '../../helpers/graphql.js';
import { type Subscription, subscribe } from './sse.js';

// Two instances on one database with Redis (as behind a load balancer): a write on A reaches the
// subscribers of B, each still judged with its own viewer on B; an instance whose Redis is away still
// delivers its own writes to its own subscribers. Without Redis, PostgreSQL's LISTEN/NOTIFY carries
// them (on the test's own PostgreSQL database, or the test run's server when the data is in SQLite).

const REDIS_URL = testRedisUrl();
const POSTGRES_URL = testPostgresUrl();
// Channels of their own: other test files may share this Redis.
const PREFIX = `test:${randomBytes(6).toString('hex')}:`;

interface Instance {
  base: string;
  bus: InstanceBus;
  feed: ChangeFeed;
  server: Server;
  db: Db;
  writes: WritePipeline;
}

let database: { url: string; drop: () => Promise<void> };
const instances: Instance[] = [];
const open: Subscription[] = [];
let a: Instance;
let b: Instance;
let lonely: Instance;
let c: Instance;
let d: Instance;
let editor: Credentials;

async function instance(address: BusAddress): Promise<Instance> {
  const config = loadConfig({ DATABASE_URL: database.url, CALENDAR_SITE_URL: SITE_URL, LOG_LEVEL: 'silent' });
  const db = await createDb(database.url);
  const logger = createLogger('silent');
  const bus = connectInstanceBus(address, logger)!;
  const feed = new ChangeFeed({ ...config.subscriptions, logger, bus, channel: `${PREFIX}changes` });
  const writes = new WritePipeline();
  const server = createServer(buildApp({ db, config, logger, writes, changes: feed }).callback());
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const created = {
    base: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    bus,
    feed,
    server,
    db,
    writes,
  };
  instances.push(created);
  return created;
}

beforeAll(async () => {
  database = await freshDatabase();
  await migrateDatabase(database.url);
  a = await instance({ redisUrl: REDIS_URL });
  b = await instance({ redisUrl: REDIS_URL });
  lonely = await instance({ redisUrl: 'redis://127.0.0.1:1' });
  const postgresUrl = databaseProviderOf(database.url) === 'postgresql' ? database.url : POSTGRES_URL;
  c = await instance({ postgresUrl });
  d = await instance({ postgresUrl });
  await Promise.all([a.feed.ready(), b.feed.ready(), c.feed.ready(), d.feed.ready()]);
  editor = await createUser(
    { db: a.db, config: loadConfig({ DATABASE_URL: database.url }), writes: a.writes },
    'editor',
  );
});

afterAll(async () => {
  for (const subscription of open) subscription.close();
  for (const { bus, feed, server, db } of instances) {
    await feed.close();
    await bus.close();
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
    await db.$disconnect();
  }
  await database?.drop();
});

const gql = async (on: Instance, query: string, variables: Record<string, unknown>) =>
  dataOf(await graphqlClient(on.base)(query, variables, editor));

async function listen(on: Instance, options: Parameters<typeof subscribe>[2] = {}) {
  const subscription = await subscribe(
    on.base,
    `subscription { eventChanged { id operation event { title status } } }`,
    options,
  );
  open.push(subscription);
  return subscription;
}

async function holds(on: Instance, count: number) {
  const started = Date.now();
  while (on.feed.size !== count) {
    if (Date.now() - started > 5000) throw new Error(`feed holds ${on.feed.size}, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const CREATE = `mutation($input: CreateEventInput!) { createEvent(input: $input) { id: databaseId } }`;
const UPDATE = `mutation($id: Int!, $input: UpdateEventInput!) { updateEvent(id: $id, input: $input) { id: databaseId } }`;
const WHEN = { startDate: '2031-06-01 10:00:00', endDate: '2031-06-01 12:00:00' };

describe('subscriptions across instances (Redis)', () => {
  it('a write on A reaches subscribers on B, each judged with its own viewer', async () => {
    const anonymous = await listen(b);
    const editorial = await listen(b, { authorization: basicAuth(editor) });
    await holds(b, 2);
    const draft = (await gql(a, CREATE, { input: { ...WHEN, title: 'Draft on A', status: 'draft' } }))
      .createEvent.id;
    expect((await editorial.next()).data.eventChanged).toEqual({
      id: draft,
      operation: 'created',
      event: { title: 'Draft on A', status: 'draft' },
    });
    await gql(a, UPDATE, { id: draft, input: { status: 'publish' } });
    // The draft was never shown to the anonymous subscriber: what it hears first is the publication.
    expect(await publication(anonymous)).toEqual({
      id: draft,
      operation: 'updated',
      event: { title: 'Draft on A', status: 'publish' },
    });
    expect((await editorial.next()).data.eventChanged.event.status).toBe('publish');
    anonymous.close();
    editorial.close();
    await holds(b, 0);
  });

  it('delivers a write on A to B quickly (p50 printed)', async () => {
    const subscriber = await listen(b);
    await holds(b, 1);
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const id = (await gql(a, CREATE, { input: { ...WHEN, title: `Tick ${i}` } })).createEvent.id;
      expect((await subscriber.next()).data.eventChanged).toMatchObject({ id, operation: 'created' });
      latencies.push(performance.now() - started);
    }
    latencies.sort((x, y) => x - y);
    const p50 = latencies[10]!;
    console.info(
      `write on A → SSE event on B (mutation round trip included): p50 ${p50.toFixed(1)} ms, max ${latencies[19]!.toFixed(1)} ms`,
    );
    expect(p50).toBeLessThan(1000);
    subscriber.close();
    await holds(b, 0);
  });

  it("an instance's own subscribers still hear its writes while its Redis is unreachable", async () => {
    const subscriber = await listen(lonely);
    const onB = await listen(b);
    await holds(lonely, 1);
    await holds(b, 1);
    const id = (await gql(lonely, CREATE, { input: { ...WHEN, title: 'Offline write' } })).createEvent.id;
    expect((await subscriber.next()).data.eventChanged).toMatchObject({ id, operation: 'created' });
    // B cannot hear an instance that cannot publish.
    await onB.quiet(300);
    subscriber.close();
    onB.close();
  });
});

/**
 * The first message an anonymous subscriber gets about a draft that was then published. Each
 * subscriber re-reads the record when a change arrives: when the publication committed before the
 * creation's notice was handled, the creation is told with the published content (never the draft's)
 * and the update follows; otherwise the update comes alone. Either way the draft is never shown.
 */
async function publication(subscriber: Subscription) {
  const first = (await subscriber.next()).data.eventChanged;
  if (first.operation !== 'created') return first;
  expect(first.event.status).toBe('publish');
  return (await subscriber.next()).data.eventChanged;
}

describe('subscriptions across instances (PostgreSQL LISTEN/NOTIFY, no Redis)', () => {
  it('a write on C reaches a subscriber on D, and C hears its own', async () => {
    const onD = await listen(d);
    const onC = await listen(c);
    await holds(d, 1);
    await holds(c, 1);
    const draft = (await gql(c, CREATE, { input: { ...WHEN, title: 'Via NOTIFY', status: 'draft' } }))
      .createEvent.id;
    await gql(c, UPDATE, { id: draft, input: { status: 'publish' } });
    // The anonymous subscribers never heard of the draft: what they hear first is the publication.
    for (const subscriber of [onD, onC]) {
      expect(await publication(subscriber)).toEqual({
        id: draft,
        operation: 'updated',
        event: { title: 'Via NOTIFY', status: 'publish' },
      });
    }
    onD.close();
    onC.close();
  });
});
