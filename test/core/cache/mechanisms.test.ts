import supertest from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/core/config/config.js';
import {
  CACHE_MECHANISMS,
  type CacheMechanism,
  turnOffMechanisms,
} from '../../../src/core/config/cache-mechanisms.js';
import { ResponseCache } from '../../../src/core/cache/response-cache.js';
import { createLogger } from '../../../src/core/ops/logger.js';
import { WritePipeline } from '../../../src/core/db/transactions.js';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { cachedAndFresh } from '../../helpers/cached-app.js';
import { createEvent, createTerm } from '../../helpers/fixtures.js';
import { type Users, withRoles } from '../../helpers/users.js';

// Each of the cache's mechanisms that `CALENDAR_CACHE_WITHOUT` can turn off (#51 item 3, measured by
// `npm run bench -- --mix --without …`) is shown here doing its work: one scenario each, read with the
// mechanism on and again with it off, where the cache then falls back to what is always exact (a
// drop, a read). Every answer is also compared with an app without a cache, byte for byte.

let h: Harness;
let users: Users;
/** A year of its own for every scenario run, so that no run sees another's events. */
let year = 2040;

beforeAll(async () => {
  h = await startHarness();
  users = await withRoles(h);
});
afterAll(() => h.close());
afterEach(() => turnOffMechanisms([]));

const admin = () => [users.administrator.login, users.administrator.password] as const;

interface Scenario {
  /** What the second read answers from the cache: with the mechanism on, and off. */
  on: string;
  off: string;
  /** Events made, answers read (and cached), a write through the cached app, then the read judged. */
  run(apps: ReturnType<typeof cachedAndFresh>, year: number): Promise<string | undefined>;
}

/** Three events on the first days of `year`, titled by day; their ids in order. */
async function threeEvents(y: number): Promise<number[]> {
  const ids = [];
  for (let day = 1; day <= 3; day++)
    ids.push((await createEvent(h.db, { title: `Day ${day}`, start: `${y}-01-0${day} 10:00:00` })).id);
  return ids;
}

const yearList = (y: number, more = '') => `${API}/events?start_date=${y}-01-01&end_date=${y}-12-31${more}`;

const SCENARIOS: Partial<Record<CacheMechanism, Scenario>> = {
  'row-refresh': {
    on: 'refresh',
    off: 'miss',
    async run({ cached, readBoth }, y) {
      const [first] = await threeEvents(y);
      await readBoth(yearList(y));
      await cached
        .post(`${API}/events/${first}`)
        .auth(...admin())
        .send({ title: 'Day 1, renamed' })
        .expect(200);
      return (await readBoth(yearList(y))).headers['x-cache'];
    },
  },
  'count-refresh': {
    on: 'refresh',
    off: 'miss',
    async run({ cached, readBoth }, y) {
      const term = await createTerm(h.db, 'tribe_events_cat', `Counted ${y}`);
      const shown = await createEvent(h.db, { start: `${y}-02-01 10:00:00`, termIds: [term.id] });
      await readBoth(`${API}/events/${shown.id}`);
      // Another event joins the category: the single shows the category's count, nothing else moved.
      await cached
        .post(`${API}/events`)
        .auth(...admin())
        .send({
          title: 'Joins',
          start_date: `${y}-03-01 10:00:00`,
          end_date: `${y}-03-01 11:00:00`,
          categories: [term.id],
        })
        .expect(201);
      return (await readBoth(`${API}/events/${shown.id}`)).headers['x-cache'];
    },
  },
  'total-refresh': {
    on: 'refresh',
    off: 'miss',
    async run({ cached, readBoth }, y) {
      await threeEvents(y);
      const page = yearList(y, '&per_page=2');
      await readBoth(page);
      // Created after the full page's last row: only the page's total changes.
      await cached
        .post(`${API}/events`)
        .auth(...admin())
        .send({ title: 'Later', start_date: `${y}-06-01 10:00:00`, end_date: `${y}-06-01 11:00:00` })
        .expect(201);
      return (await readBoth(page)).headers['x-cache'];
    },
  },
  'page-verdicts': {
    on: 'hit',
    off: 'miss',
    async run({ cached, readBoth }, y) {
      const [, , third] = await threeEvents(y);
      const page = yearList(y, '&per_page=2');
      await readBoth(page);
      // The third moves later in the year: still after the page's rows, which stay as they were.
      await cached
        .post(`${API}/events/${third}`)
        .auth(...admin())
        .send({ start_date: `${y}-09-01 10:00:00`, end_date: `${y}-09-01 11:00:00` })
        .expect(200);
      return (await readBoth(page)).headers['x-cache'];
    },
  },
  'search-verdicts': {
    on: 'hit',
    off: 'miss',
    async run({ cached, readBoth }, y) {
      const [first] = await threeEvents(y);
      await createEvent(h.db, { title: `Zebra ${y}`, start: `${y}-04-01 10:00:00` });
      const searched = yearList(y, '&search=zebra');
      await readBoth(searched);
      // An event the search finds neither before nor after its edit.
      await cached
        .post(`${API}/events/${first}`)
        .auth(...admin())
        .send({ title: 'Day 1, still no stripes' })
        .expect(200);
      return (await readBoth(searched)).headers['x-cache'];
    },
  },
  'column-verdicts': {
    on: 'hit',
    off: 'miss',
    async run({ cached, fresh }, y) {
      const [first] = await threeEvents(y);
      const query = `{ event(id: ${first}) { title startDate } }`;
      const ask = async () => {
        const answer = await cached.post('/graphql').send({ query }).expect(200);
        expect(answer.text).toBe((await fresh.post('/graphql').send({ query }).expect(200)).text);
        expect(answer.body.data.event.title).toBe('Day 1');
        return answer.headers['x-cache'];
      };
      await ask();
      // A description no selected field shows.
      await cached
        .post(`${API}/events/${first}`)
        .auth(...admin())
        .send({ description: 'Longer now' })
        .expect(200);
      return ask();
    },
  },
};

describe("the cache's mechanisms, on and off", () => {
  it('has a scenario or a check below for every mechanism', () => {
    const checkedBelow: CacheMechanism[] = ['kept-records', 'kept-shapes', 'plain-copies'];
    expect([...Object.keys(SCENARIOS), ...checkedBelow].sort()).toEqual([...CACHE_MECHANISMS].sort());
  });

  for (const [mechanism, scenario] of Object.entries(SCENARIOS) as Array<[CacheMechanism, Scenario]>)
    it(`${mechanism}: ${scenario.on} on, ${scenario.off} off`, async () => {
      expect(await scenario.run(cachedAndFresh(h), year++)).toBe(scenario.on);
      turnOffMechanisms([mechanism]);
      expect(await scenario.run(cachedAndFresh(h), year++)).toBe(scenario.off);
    });

  it('kept-records and kept-shapes: turned off, their bounds are none', () => {
    const env = { DATABASE_URL: 'file:./unused.db', LOG_LEVEL: 'silent' };
    const on = loadConfig(env);
    expect(on.cache.recordMaxBytes).toBeGreaterThan(0);
    expect(on.shapeCache.maxBytes).toBeGreaterThan(0);
    const off = loadConfig({ ...env, CALENDAR_CACHE_WITHOUT: 'kept-records, kept-shapes' });
    expect(off.cacheWithout).toEqual(['kept-records', 'kept-shapes']);
    expect(off.cache.recordMaxBytes).toBe(0);
    expect(off.shapeCache.maxBytes).toBe(0);
    expect(() => loadConfig({ ...env, CALENDAR_CACHE_WITHOUT: 'kept-everything' })).toThrow(
      /CALENDAR_CACHE_WITHOUT/,
    );
  });

  it('plain-copies: a client without gzip is answered from a kept plain copy, or an inflate when off', async () => {
    const held = async (y: number) => {
      await threeEvents(y);
      const config = { ...h.config, cache: { enabled: true, maxBytes: 16 * 1024 * 1024 } };
      const cache = new ResponseCache({ ...config.cache, siteTimezone: config.siteTimezone });
      const app = buildApp({
        db: h.db,
        config,
        writes: new WritePipeline(),
        cache,
        logger: createLogger('silent'),
      });
      const client = supertest(app.callback());
      await client.get(yearList(y)).set('Accept-Encoding', 'gzip').expect(200);
      const coded = cache.bytes;
      const plain = await client.get(yearList(y)).set('Accept-Encoding', 'identity').expect(200);
      expect(plain.headers['x-cache']).toBe('hit');
      expect(plain.headers['content-encoding']).toBeUndefined();
      return { growth: cache.bytes - coded, plain: plain.text.length };
    };
    const on = await held(year++);
    turnOffMechanisms(['plain-copies']);
    const off = await held(year++);
    // Off, only the identity client's alias is added; on, the plain copy too (the same list, another year).
    expect(on.growth - off.growth).toBeGreaterThanOrEqual(on.plain * 0.9);
  });
});
