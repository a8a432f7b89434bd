import pg from 'pg';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../../src/app.js';
import { announceInvalidation, shareInvalidations } from '../../../../src/core/cache/invalidation-channel.js';
import { type CacheEvent, ResponseCache } from '../../../../src/core/cache/response-cache.js';
import { loadConfig } from '../../../../src/core/config/config.js';
import { type Db, createDb } from '../../../../src/core/db/client.js';
import { migrateDatabase } from '../../../../src/core/db/migrate.js';
import { createLogger } from '../../../../src/core/ops/logger.js';
import { calendarNamespace, joinCalendar } from '../../../../src/core/db/calendar-identity.js';
import { type InstanceBus, connectInstanceBus } from '../../../../src/core/ops/instance-bus.js';
import { WritePipeline } from '../../../../src/core/db/transactions.js';
import { freshDatabase } from '../../../helpers/database.js';
import { API, SITE_URL } from '../../../helpers/harness.js';
import { capturingLogger } from '../../../helpers/logs.js';
import { testPostgresUrl, testRedisUrl } from '../../../helpers/processes/services.js';
import { createEvent, createTerm, createVenue } from '../../../helpers/fixtures.js';
import { createUser } from '../../../helpers/users.js';

// Two instances on one database, each with its own response cache: a write on one is seen by the
// other within 100 ms (the invalidation travels over Redis pub/sub, or PostgreSQL LISTEN/NOTIFY), and
// an instance that cannot hear the channel stops sharing answers rather than serve stale ones. Their
// channels are named by the database they share (src/core/db/calendar-identity.ts), so instances whose
// site URLs differ still hear each other (and say that the URLs differ). Before each write, the other
// instance's answer is cached (a hit), so a missed invalidation shows as a stale answer.

const REDIS_URL = testRedisUrl();
const POSTGRES_URL = testPostgresUrl();
const LIST = `${API}/events?start_date=2031-04-01&end_date=2031-04-30`;

type Database = { url: string; drop: () => Promise<void> };
let database: Database;
/** Another calendar's database, made when a test needs it. */
let otherDatabase: Promise<Database> | undefined;
const opened: Array<{ db: Db; bus?: InstanceBus; leave: () => Promise<void> }> = [];

beforeAll(async () => {
  database = await freshDatabase();
  await migrateDatabase(database.url);
});

afterAll(async () => {
  for (const { db, bus, leave } of opened) {
    await bus?.close();
    await leave();
    await db.$disconnect();
  }
  await database?.drop();
  await (await otherDatabase)?.drop();
});

function anotherCalendar(): Promise<Database> {
  otherDatabase ??= freshDatabase().then(async (other) => (await migrateDatabase(other.url), other));
  return otherDatabase;
}

/**
 * An instance on `channel` serving under `siteUrl`, as `server.ts` starts one: it joins the calendar
 * its database holds, whose namespace names its channels; its log lines are kept (`logs`).
 */
async function instance(
  channel: 'redis' | 'postgres' | 'redis-down',
  {
    siteUrl = SITE_URL,
    on = database,
    heartbeatMs,
  }: { siteUrl?: string; on?: Database; heartbeatMs?: number } = {},
) {
  const config = loadConfig({
    DATABASE_URL: on.url,
    CALENDAR_SITE_URL: siteUrl,
    LOG_LEVEL: 'warn',
    CALENDAR_CACHE: 'on',
  });
  const db = await createDb(on.url);
  const { logger, lines: logs } = capturingLogger('warn');
  const { namespace, leave } = await joinCalendar(db, config.siteUrl, logger, { heartbeatMs });
  const events: CacheEvent[] = [];
  const cache = new ResponseCache({
    ...config.cache,
    siteTimezone: config.siteTimezone,
    onEvent: (event) => events.push(event),
  });
  const bus = connectInstanceBus(
    channel === 'postgres'
      ? { postgresUrl: POSTGRES_URL, namespace }
      : { redisUrl: channel === 'redis' ? REDIS_URL : 'redis://127.0.0.1:1', namespace },
    logger,
  )!;
  shareInvalidations(cache, bus);
  opened.push({ db, bus, leave });
  const writes = new WritePipeline();
  const app = buildApp({ db, config, logger, writes, cache });
  return { http: supertest(app.callback()), db, config, namespace, writes, bus, events, cache, logs };
}

/** Two instances on one channel, both listening, and an administrator written on the first. */
async function twoInstances(channel: 'redis' | 'postgres', login: string, sites = [SITE_URL, SITE_URL]) {
  const a = await instance(channel, { siteUrl: sites[0] });
  const b = await instance(channel, { siteUrl: sites[1] });
  await Promise.all([a.bus.ready(), b.bus.ready()]);
  const admin = await createUser(a, 'administrator', login);
  // That write's invalidation travels too: let it arrive before B fills its cache.
  await new Promise((done) => setTimeout(done, 50));
  return { a, b, admin };
}

const titles = (body: { events: Array<{ title: string }> }) => body.events.map((event) => event.title);

/** Reads `path` on `on` until its answer is a cache hit (so a missed invalidation would serve it). */
async function warm(on: { http: ReturnType<typeof supertest> }, path: string): Promise<string[]> {
  await on.http.get(path).expect(200);
  const cached = await on.http.get(path).expect(200);
  expect(cached.headers['x-cache'], `${path} is cached`).toBe('hit');
  return titles(cached.body);
}

/**
 * The titles `path` lists on `on`, read again until they include `title` or 100 ms have passed (called
 * right after the write's response, or the announcement).
 */
async function titlesWithin100ms(
  on: { http: ReturnType<typeof supertest> },
  path: string,
  title: string,
): Promise<string[]> {
  const since = performance.now();
  let seen: string[] = [];
  while (performance.now() - since < 100) {
    seen = titles((await on.http.get(path).expect(200)).body);
    if (seen.includes(title)) break;
    await new Promise((done) => setTimeout(done, 5));
  }
  return seen;
}

describe.each(['redis', 'postgres'] as const)('over %s', (channel) => {
  it('a write on one instance reaches the other within 100 ms of its response', async () => {
    const { a, b, admin } = await twoInstances(channel, `admin-${channel}`);
    const before = titles((await b.http.get(LIST).expect(200)).body).length;

    for (let round = 1; round <= 3; round++) {
      expect(await warm(b, LIST)).toHaveLength(before + round - 1);
      const title = `Seen by B ${channel} ${round}`;
      await a.http
        .post(`${API}/events`)
        .auth(admin.login, admin.password)
        .send({ title, start_date: '2031-04-10 10:00:00', end_date: '2031-04-10 11:00:00' })
        .expect(201);
      const seen = await titlesWithin100ms(b, LIST, title);
      expect(seen, `round ${round}`).toContain(title);
      expect(seen.length).toBe(before + round);
    }
  });
});

describe.each([
  ['redis', 2037],
  ['postgres', 2038],
] as const)('instances whose site URLs differ, over %s', (channel, year) => {
  it('hear each other: B’s next read after the message shows A’s write; both name the two URLs', async () => {
    // As two instances started without CALENDAR_SITE_URL (each then defaults to its own port).
    const sites = [`http://localhost:${year}`, `http://localhost:${year + 100}`];
    const a = await instance(channel, { siteUrl: sites[0], heartbeatMs: 50 });
    const b = await instance(channel, { siteUrl: sites[1] });
    await Promise.all([a.bus.ready(), b.bus.ready()]);
    expect(b.namespace).toBe(a.namespace);
    const admin = await createUser(a, 'administrator', `admin-sites-${channel}`);
    await new Promise((done) => setTimeout(done, 50));
    const path = `${API}/events?start_date=${year}-04-01&end_date=${year}-04-30`;

    for (let round = 1; round <= 3; round++) {
      expect(await warm(b, path)).toHaveLength(round - 1);
      b.events.length = 0;
      const title = `Across sites ${channel} ${round}`;
      await a.http
        .post(`${API}/events`)
        .auth(admin.login, admin.password)
        .send({ title, start_date: `${year}-04-10 10:00:00`, end_date: `${year}-04-10 11:00:00` })
        .expect(201);
      // B is not asked until the invalidation has reached it: then one read, and it is fresh.
      const since = performance.now();
      while (!b.events.includes('invalidation') && performance.now() - since < 100)
        await new Promise((done) => setTimeout(done, 5));
      expect(b.events, `round ${round}`).toContain('invalidation');
      const next = await b.http.get(path).expect(200);
      expect(titles(next.body), `round ${round}`).toContain(title);
      // Each builds its links from its own site URL.
      expect(next.body.rest_url).toMatch(new RegExp(`^${sites[1]}/`));
    }

    // B found A running under another URL as it started; A (heartbeat 50 ms) found B since.
    const warning = (logs: typeof a.logs, here: string, there: string) =>
      logs.filter((line) => line.level === 40 && line.siteUrl === here && line.otherSiteUrl === there);
    expect(warning(b.logs, sites[1]!, sites[0]!)).toHaveLength(1);
    expect(warning(b.logs, sites[1]!, sites[0]!)[0]!.msg).toContain(
      `${sites[1]} here, ${sites[0]} on another`,
    );
    expect(warning(a.logs, sites[0]!, sites[1]!)).toHaveLength(1);
  });
});

describe.each([
  ['redis', 2035],
  ['postgres', 2036],
] as const)('kept rows, over %s', (channel, year) => {
  it('a venue renamed on one instance shows in the other’s signed-in reads within 100 ms', async () => {
    const { a, b, admin } = await twoInstances(channel, `admin-rows-${channel}`);
    const venue = await createVenue(a.db, { name: `Hall ${channel}` });
    await createEvent(a.db, {
      title: `Rows ${channel}`,
      start: `${year}-05-10 10:00:00`,
      venueIds: [venue.id],
    });
    await new Promise((done) => setTimeout(done, 50));
    // A signed-in read is never a shared answer: what B shows comes from its kept rows.
    const path = `${API}/events?start_date=${year}-05-01&end_date=${year}-05-31`;
    const venueOnB = async () =>
      JSON.stringify((await b.http.get(path).auth(admin.login, admin.password).expect(200)).body.events);
    expect(await venueOnB()).toContain(`Hall ${channel}`);
    expect(b.cache.recordBytes).toBeGreaterThan(0);

    await a.http
      .post(`${API}/venues/${venue.id}`)
      .auth(admin.login, admin.password)
      .send({ venue: `Opera ${channel}` })
      .expect(200);
    const since = performance.now();
    let seen = '';
    while (performance.now() - since < 100) {
      seen = await venueOnB();
      if (seen.includes(`Opera ${channel}`)) break;
      await new Promise((done) => setTimeout(done, 5));
    }
    expect(seen).toContain(`Opera ${channel}`);
  });
});

describe.each(['redis', 'postgres'] as const)('two calendars on one %s', (channel) => {
  it('never hear each other: a write on one leaves the other’s answers cached', async () => {
    const { a, b, admin } = await twoInstances(channel, `admin-apart-${channel}`);
    // Another calendar (its own database, so its own namespace) whose instance shares the bus's host,
    // under the same site URL even: the database names the calendar.
    const other = await instance(channel, { on: await anotherCalendar() });
    await other.bus.ready();
    expect(other.namespace).not.toBe(a.namespace);
    expect(b.namespace).toBe(a.namespace);
    await warm(b, LIST);
    await warm(other, LIST);
    other.events.length = 0;
    await a.http
      .post(`${API}/events`)
      .auth(admin.login, admin.password)
      .send({ title: `Apart ${channel}`, start_date: '2031-04-14 10:00:00', end_date: '2031-04-14 11:00:00' })
      .expect(201);
    const seen = await titlesWithin100ms(b, LIST, `Apart ${channel}`);
    expect(seen).toContain(`Apart ${channel}`);
    // The same calendar heard it; the other one, given as long again, did not.
    await new Promise((done) => setTimeout(done, 100));
    expect((await other.http.get(LIST).expect(200)).headers['x-cache']).toBe('hit');
    expect(other.events).not.toContain('invalidation');
  });
});

describe.each([
  ['redis', 2033],
  ['postgres', 2034],
] as const)('selectively, over %s', (channel, year) => {
  it('a write on one instance drops on the other exactly the answers it meets, within 100 ms', async () => {
    const { a, b, admin } = await twoInstances(channel, `admin-selective-${channel}`);
    const venue = await createVenue(a.db);
    const moved = await createEvent(a.db, { title: `Moved ${year}`, start: `${year}-07-15 10:00:00` });
    const other = await createEvent(a.db, {
      title: `Stays ${year}`,
      start: `${year}-08-15 10:00:00`,
      venueIds: [venue.id],
    });
    const month = (m: string) => `${API}/events?start_date=${year}-${m}-01&end_date=${year}-${m}-30`;
    const onB = {
      june: month('06'),
      july: month('07'),
      august: month('08'),
      moved: `${API}/events/${moved.id}`,
      other: `${API}/events/${other.id}`,
      venue: `${API}/venues/${venue.id}`,
      doc: `${API}/doc`,
    };
    for (const path of Object.values(onB))
      expect((await b.http.get(path).expect(200)).headers['x-cache']).toBe('miss');
    b.events.length = 0;

    // A moves the July event to June: B's June and July lists and the event's single go, nothing else.
    await a.http
      .post(`${API}/events/${moved.id}`)
      .auth(admin.login, admin.password)
      .send({ start_date: `${year}-06-20 10:00:00`, end_date: `${year}-06-20 11:00:00` })
      .expect(200);
    const june = await titlesWithin100ms(b, onB.june, `Moved ${year}`);
    expect(june).toContain(`Moved ${year}`);
    const dropped = b.events.filter((event) => event === 'dropped').length;
    const cached: Record<string, string | undefined> = {};
    for (const [name, path] of Object.entries(onB))
      if (name !== 'june') cached[name] = (await b.http.get(path).expect(200)).headers['x-cache'];
    expect(cached).toEqual({
      july: 'miss',
      august: 'hit',
      moved: 'miss',
      other: 'hit',
      venue: 'hit',
      doc: 'hit',
    });
    expect(dropped).toBe(3);
  });
});

describe.each([
  ['redis', 2035],
  ['postgres', 2036],
] as const)('term counts, over %s', (channel, year) => {
  it('a count moved on one instance is refreshed in the other’s answers showing it, within 100 ms', async () => {
    const { a, b, admin } = await twoInstances(channel, `admin-counts-${channel}`);
    const category = await createTerm(a.db, 'tribe_events_cat', `Counted ${channel}`);
    const shown = await createEvent(a.db, { start: `${year}-03-10 10:00:00`, termIds: [category.id] });
    const elsewhere = await createEvent(a.db, { start: `${year}-09-10 10:00:00` });
    const onB = { shown: `${API}/events/${shown.id}`, elsewhere: `${API}/events/${elsewhere.id}` };
    const countOnB = async () => {
      const res = await b.http.get(onB.shown).expect(200);
      return { count: res.body.categories[0].count as number, cache: res.headers['x-cache'] };
    };
    expect(await countOnB()).toEqual({ count: 1, cache: 'miss' });
    expect(await countOnB()).toEqual({ count: 1, cache: 'hit' });
    await b.http.get(onB.elsewhere).expect(200);
    b.events.length = 0;

    // A creates a second event in the category, in another month: the single on B shows the count.
    await a.http
      .post(`${API}/events`)
      .auth(admin.login, admin.password)
      .send({
        title: 'Counted too',
        start_date: `${year}-05-10 10:00:00`,
        end_date: `${year}-05-10 11:00:00`,
        categories: [category.id],
      })
      .expect(201);
    const written = performance.now();
    let seen = await countOnB();
    while (seen.count !== 2 && performance.now() - written < 100) {
      await new Promise((done) => setTimeout(done, 5));
      seen = await countOnB();
    }
    expect(seen).toEqual({ count: 2, cache: 'refresh' });
    expect(await countOnB()).toEqual({ count: 2, cache: 'hit' });
    expect((await b.http.get(onB.elsewhere).expect(200)).headers['x-cache']).toBe('hit');
    expect(b.events.filter((event) => event === 'dropped')).toHaveLength(0);
  });
});

describe.each(['redis', 'postgres'] as const)('a write by another process, over %s', (channel) => {
  it('is announced (as the calendar CLI and the seed script do) and reaches the instance at once', async () => {
    const b = await instance(channel);
    await b.bus.ready();
    const admin = await createUser(b, 'administrator', `admin-external-${channel}`);
    const created = await b.http
      .post(`${API}/events`)
      .auth(admin.login, admin.password)
      .send({
        title: `Before ${channel}`,
        start_date: '2031-04-12 10:00:00',
        end_date: '2031-04-12 11:00:00',
      })
      .expect(201);
    await new Promise((done) => setTimeout(done, 50));
    await warm(b, LIST);
    // A write the instance's pipeline never saw: the cache cannot know of it…
    await b.db.event.update({
      where: { id: created.body.id as number },
      data: { title: `After ${channel}` },
    });
    expect(titles((await b.http.get(LIST).expect(200)).body)).toContain(`Before ${channel}`);
    // …until the writer announces it on the instances' channel.
    // On another calendar's channel first: the instance does not hear it.
    const announceAs = (namespace: string) =>
      announceInvalidation(
        channel === 'redis'
          ? { redisUrl: REDIS_URL, databaseUrl: database.url, databaseProvider: 'sqlite', namespace }
          : { databaseUrl: POSTGRES_URL, databaseProvider: 'postgresql', namespace },
        createLogger('silent'),
      );
    const other = await createDb((await anotherCalendar()).url);
    opened.push({ db: other, leave: async () => undefined });
    expect(await announceAs(await calendarNamespace(other))).toBe(true);
    await new Promise((done) => setTimeout(done, 50));
    expect(titles((await b.http.get(LIST).expect(200)).body)).toContain(`Before ${channel}`);
    // On the channel the CLI finds in the database it wrote to: heard.
    const told = await announceAs(await calendarNamespace(b.db));
    expect(told).toBe(true);
    const seen = await titlesWithin100ms(b, LIST, `After ${channel}`);
    expect(seen).toContain(`After ${channel}`);
  });

  it('an unreachable channel is reported, never thrown', async () => {
    const logger = createLogger('silent');
    const told = await announceInvalidation(
      channel === 'redis'
        ? {
            redisUrl: 'redis://127.0.0.1:1',
            databaseUrl: database.url,
            databaseProvider: 'sqlite',
            namespace: 'calendar-unreachable',
          }
        : {
            databaseUrl: 'postgresql://root@127.0.0.1:1/postgres',
            databaseProvider: 'postgresql',
            namespace: 'calendar-unreachable',
          },
      logger,
    );
    expect(told).toBe(false);
  });
});

describe('when the channel is down', () => {
  it('an instance that cannot hear other writes shares nothing and stays fresh', async () => {
    const a = await instance('redis');
    const b = await instance('redis-down');
    await a.bus.ready();
    const admin = await createUser(a, 'administrator', 'admin-down');
    await b.http.get(LIST).expect(200);
    const again = await b.http.get(LIST).expect(200);
    expect(again.headers['x-cache']).toBeUndefined();
    await a.http
      .post(`${API}/events`)
      .auth(admin.login, admin.password)
      .send({
        title: 'Fresh without a channel',
        start_date: '2031-04-11 10:00:00',
        end_date: '2031-04-11 11:00:00',
      })
      .expect(201);
    expect(titles((await b.http.get(LIST).expect(200)).body)).toContain('Fresh without a channel');
  });

  it('PostgreSQL: a lost LISTEN connection suspends the cache until it is back, then shares again', async () => {
    const a = await instance('postgres');
    const b = await instance('postgres');
    await Promise.all([a.bus.ready(), b.bus.ready()]);
    const admin = await createUser(a, 'administrator', 'admin-pg-lost');
    // Cut every LISTEN connection of this calendar's channels (both instances reconnect within about a
    // second); a channel's name on the wire is within the calendar's namespace.
    const killer = new pg.Client({ connectionString: POSTGRES_URL });
    await killer.connect();
    await killer.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE $1 AND pid <> pg_backend_pid()`,
      [`LISTEN "${a.namespace}.calendar_cache%`],
    );
    await killer.end();
    await new Promise((done) => setTimeout(done, 50));
    await b.http.get(LIST).expect(200);
    expect((await b.http.get(LIST).expect(200)).headers['x-cache']).toBeUndefined();
    // Back within a few seconds: answers are shared again, and writes still reach B.
    const deadline = Date.now() + 5000;
    let shared = false;
    while (!shared && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 200));
      await b.http.get(LIST);
      shared = (await b.http.get(LIST)).headers['x-cache'] === 'hit';
    }
    expect(shared).toBe(true);
    await a.http
      .post(`${API}/events`)
      .auth(admin.login, admin.password)
      .send({
        title: 'After the reconnect',
        start_date: '2031-04-12 10:00:00',
        end_date: '2031-04-12 11:00:00',
      })
      .expect(201);
    await new Promise((done) => setTimeout(done, 100));
    expect(titles((await b.http.get(LIST).expect(200)).body)).toContain('After the reconnect');
  });
});
