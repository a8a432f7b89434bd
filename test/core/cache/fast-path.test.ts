import supertest from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { buildApp, createResponseCache } from '../../../src/app.js';
import { rawCacheHits } from '../../../src/core/cache/fast-path.js';
import { ResponseCache } from '../../../src/core/cache/response-cache.js';
import { createLogger } from '../../../src/core/ops/logger.js';
import { Metrics } from '../../../src/core/ops/metrics.js';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent, createTerm } from '../../helpers/fixtures.js';
import { type Users, withRoles } from '../../helpers/users.js';

// The cache-hit fast path (src/core/cache/fast-path.ts): an anonymous read answered from a shared entry
// under the exact spelling the normal path recorded, with the same headers, validators, metrics and
// invalidation as the normal path; never for credentials or a password; never past the site-zone day.

let h: Harness;
let http: ReturnType<typeof supertest>;
let cache: ResponseCache;
let metrics: Metrics;
let users: Users;
let secret: { id: number };
/** The clock that decides the site-zone day of keys and aliases. */
let clock = Date.now();
let fastHits: Array<boolean>;

beforeAll(async () => {
  h = await startHarness();
  metrics = new Metrics();
  const config = {
    ...h.config,
    cache: { enabled: true, maxBytes: 8 * 1024 * 1024 },
    siteTimezone: 'America/New_York',
    corsOrigins: ['https://app.example'],
  };
  cache = new ResponseCache({
    ...config.cache,
    siteTimezone: config.siteTimezone,
    now: () => clock,
    onEvent: (event) => metrics.cacheEvents.inc({ event }),
  });
  const lookup = cache.lookupAlias.bind(cache);
  vi.spyOn(cache, 'lookupAlias').mockImplementation((key, response) => {
    const found = lookup(key, response);
    if (found instanceof Promise)
      return found.then((hit) => {
        fastHits.push(hit !== undefined);
        return hit;
      });
    fastHits.push(found !== undefined);
    return found;
  });
  http = supertest(buildApp({ db: h.db, config, cache, metrics, logger: createLogger('silent') }).callback());
  users = await withRoles(h);
  await createEvent(h.db, { title: 'Open house' });
  secret = await createEvent(h.db, {
    title: 'Secret party',
    fields: { password: 'hunter2', description: 'The cellar' },
  });
});
afterAll(() => h.close());
beforeEach(() => {
  fastHits = [];
  cache.invalidate();
  clock = Date.now();
});

const LIST = `${API}/events?per_page=5`;
const GRAPHQL_LIST = '{ events(perPage: 5) { items { id: databaseId title } } }';

describe('the cache-hit fast path', () => {
  it('answers a repeated anonymous read from the entry with the headers of a normal hit', async () => {
    const first = await http.get(LIST).expect(200);
    expect(first.headers['x-cache']).toBe('miss');
    const normalHit = await http.get(LIST).expect(200);
    expect(fastHits).toEqual([false, true]);
    const fast = await http.get(LIST).set('X-Request-Id', 'trace-42').expect(200);
    expect(fastHits).toEqual([false, true, true]);
    expect(fast.text).toBe(first.text);
    expect(fast.headers['x-request-id']).toBe('trace-42');
    for (const name of ['etag', 'cache-control', 'vary', 'allow', 'x-tec-total', 'content-type', 'x-cache'])
      expect(fast.headers[name], name).toBe(normalHit.headers[name]);
    expect(fast.headers.vary).toMatch(/Authorization/);
    expect(fast.headers['cache-control']).toBe('public, max-age=0, must-revalidate');
    // Each exchange its own request id.
    const other = await http.get(LIST).set('X-Request-Id', 'not acceptable!').expect(200);
    expect(other.headers['x-request-id']).toMatch(/^[\w-]{36}$/);
    // superagent asks for no coding on a HEAD by itself: this one asks as its GETs did.
    const head = await http.head(LIST).set('Accept-Encoding', 'gzip, deflate').expect(200);
    expect(head.headers['content-length']).toBe(first.headers['content-length']);
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(head.text).toBeUndefined();
    expect(fastHits).toEqual([false, true, true, true, true]);
    // A HEAD that accepts no coding is the plain representation: another alias, the same entry.
    const plainHead = await http.head(LIST).expect(200);
    expect(plainHead.headers['content-length']).toBe(String(Buffer.byteLength(first.text)));
    expect(plainHead.headers['content-encoding']).toBeUndefined();
    expect(plainHead.headers['x-cache']).toBe('hit');
    expect(fastHits).toEqual([false, true, true, true, true, false]);
  });

  it('honours If-None-Match (304 without a body) and HEAD', async () => {
    const first = await http.get(LIST).expect(200);
    await http.get(LIST).expect(200);
    const notModified = await http.get(LIST).set('If-None-Match', first.headers.etag as string);
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
    const head = await http.head(LIST).set('Accept-Encoding', 'gzip, deflate').expect(200);
    expect(head.headers.etag).toBe(first.headers.etag);
    const changed = await http.get(LIST).set('If-None-Match', '"other"').expect(200);
    expect(changed.text).toBe(first.text);
    expect(fastHits).toEqual([false, true, true, true, true]);
  });

  it('gives CORS headers to the origin that asks, and Vary: Origin', async () => {
    await http.get(LIST).expect(200);
    const fast = await http.get(LIST).set('Origin', 'https://app.example').expect(200);
    expect(fastHits).toEqual([false, true]);
    expect(fast.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(fast.headers.vary).toMatch(/Origin/);
    const stranger = await http.get(LIST).set('Origin', 'https://evil.example').expect(200);
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers a repeated GraphQL POST before Koa, reading its small body itself', async () => {
    const body = JSON.stringify({ query: GRAPHQL_LIST });
    const first = await http.post('/graphql').set('Accept', 'application/json').send(body).type('json');
    await http.post('/graphql').set('Accept', 'application/json').send(body).type('json').expect(200);
    expect(fastHits).toEqual([false, true]);
    const raw = rawCacheHits({ cache, logger: createLogger('silent'), corsOrigins: [] });
    const request = (text: string, headers: Record<string, string> = {}) =>
      Object.assign(Readable.from([Buffer.from(text)]), {
        method: 'POST',
        url: '/graphql',
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(text)),
          accept: 'application/json',
          'accept-encoding': 'gzip, deflate',
          ...headers,
        },
      }) as unknown as IncomingMessage;
    const written: { status?: number; headers?: Record<string, unknown>; body?: Buffer } = {};
    const response = {
      writeHead: (status: number, headers: Record<string, unknown>) =>
        Object.assign(written, { status, headers }),
      end: (chunk?: Buffer) => Object.assign(written, { body: chunk }),
      // The cache lends the body it answers until the response closes.
      once: () => undefined,
    } as unknown as ServerResponse;
    expect(await raw(request(body), response)).toBe(true);
    await new Promise((done) => setImmediate(done));
    expect(written.status).toBe(200);
    // Small, this answer is kept and sent plain even to a client that accepts gzip.
    expect(written.headers?.['content-encoding']).toBeUndefined();
    expect(written.body?.toString()).toBe(first.text);
    expect(written.headers).toMatchObject({ 'x-cache': 'hit', etag: first.headers.etag });
    // Another body, a credential or a password: not answered here (the normal path decides).
    const other = JSON.stringify({ query: '{ events(perPage: 4) { items { title } } }' });
    expect(await raw(request(other), response)).toBe(false);
    expect(await raw(request(body, { authorization: 'Basic eDp5' }), response)).toBe(false);
    const unlocked = JSON.stringify({ query: GRAPHQL_LIST, variables: { password: 'x' } });
    expect(await raw(request(unlocked), response)).toBe(false);
  });

  it('never serves credentials, cookies or a password from a shared entry', async () => {
    const shared = { query: `{ event(id: ${secret.id}) { title description } }` };
    const blanked = await http.post('/graphql').send(shared).expect(200);
    expect((await http.post('/graphql').send(shared).expect(200)).text).toBe(blanked.text);
    expect(fastHits).toEqual([false, true]);
    expect(blanked.text).not.toContain('The cellar');
    fastHits = [];
    const authenticated = await http
      .post('/graphql')
      .auth(users.administrator.login, users.administrator.password)
      .send(shared);
    expect(authenticated.headers['x-cache']).toBeUndefined();
    expect(authenticated.headers['cache-control']).toMatch(/^private/);
    expect(authenticated.text).toContain('The cellar');
    await http.post('/graphql').set('Cookie', 'session=1').send(shared).expect(200);
    expect(fastHits).toEqual([]);
    const path = `${API}/events/${secret.id}`;
    for (const spelling of ['password=hunter2', 'pass%77ord=hunter2'])
      for (let i = 0; i < 2; i++) {
        const unlocked = await http.get(`${path}?${spelling}`).expect(200);
        expect(unlocked.headers['x-cache']).toBeUndefined();
        expect(unlocked.text).toContain('The cellar');
      }
    const withPassword = `{ event(id: ${secret.id}, password: "hunter2") { title description } }`;
    for (let i = 0; i < 2; i++) {
      const res = await http.post('/graphql').send({ query: withPassword }).expect(200);
      expect(res.headers['x-cache']).toBeUndefined();
      expect(res.text).toContain('The cellar');
    }
    expect(fastHits).toEqual([]);
    // The shared entry still holds the blanked answer, and the fast path still gives it.
    const again = await http.post('/graphql').send(shared).expect(200);
    expect(again.text).toBe(blanked.text);
    expect(fastHits).toEqual([true]);
  });

  it('answers reshaped requests (_fields, _envelope) by the normal path, never with the whole entry', async () => {
    await http.get(LIST).expect(200);
    for (let i = 0; i < 2; i++) {
      const picked = await http.get(`${LIST}&_fields=events.id`).expect(200);
      expect(Object.keys((picked.body as { events: object[] }).events[0]!)).toEqual(['id']);
    }
    expect(fastHits).toEqual([false, false, false]);
  });

  it.each([
    ['REST', () => http.get(LIST)],
    ['GraphQL GET', () => http.get('/graphql').query({ query: GRAPHQL_LIST })],
    ['GraphQL POST', () => http.post('/graphql').send({ query: GRAPHQL_LIST })],
  ])('%s: a write invalidates it exactly as it does the normal path', async (_name, read) => {
    const before = await read().expect(200);
    expect((await read().expect(200)).text).toBe(before.text);
    expect(fastHits).toEqual([false, true]);
    const soon = new Date(Date.now() + 86400_000).toISOString().slice(0, 10);
    await http
      .post(`${API}/events`)
      .auth(users.administrator.login, users.administrator.password)
      .send({ title: `Written ${_name}`, start_date: `${soon} 00:00:01`, end_date: `${soon} 00:00:02` })
      .expect(201);
    const after = await read().expect(200);
    expect(after.headers['x-cache']).toBe('miss');
    expect(after.text).toContain(`Written ${_name}`);
    const fast = await read().expect(200);
    expect(fast.text).toBe(after.text);
    expect(fastHits).toEqual([false, true, false, true]);
  });

  it('refreshes an entry whose counts or total a write moved before Koa, and the alias follows it', async () => {
    const term = await createTerm(h.db, 'tribe_events_cat', 'Fast refresh');
    const soon = new Date(Date.now() + 2 * 86400_000).toISOString().slice(0, 10);
    await createEvent(h.db, { title: 'Counted', start: `${soon} 09:00:00`, termIds: [term.id] });
    const list = `${API}/events?per_page=50`;
    const shown = (count: number) => `"count":${count},"filter":"raw","id":${term.id}`;
    /** A past event in the category: outside the list's window, it moves only the count the list shows. */
    const createPast = (year: string) =>
      http
        .post(`${API}/events`)
        .auth(users.administrator.login, users.administrator.password)
        .send({
          title: `Back in ${year}`,
          status: 'publish',
          categories: [term.id],
          start_date: `${year}-01-01 10:00:00`,
          end_date: `${year}-01-01 11:00:00`,
        })
        .expect(201);
    const first = await http.get(list).expect(200);
    expect(first.text).toContain(shown(1));
    await http.get(list).expect(200);
    expect(fastHits).toEqual([false, true]);
    await createPast('2020');
    const refreshed = await http.get(list).expect(200);
    expect(fastHits).toEqual([false, true, true]);
    expect(refreshed.headers['x-cache']).toBe('refresh');
    expect(refreshed.text).toBe(first.text.replace(shown(1), shown(2)));
    expect(refreshed.headers.etag).not.toBe(first.headers.etag);
    for (const name of ['cache-control', 'vary', 'allow', 'x-tec-total', 'content-type'])
      expect(refreshed.headers[name], name).toBe(first.headers[name]);
    // The alias now names the refreshed entry: a fast hit, whose validator is the new one.
    const again = await http.get(list).expect(200);
    expect(fastHits).toEqual([false, true, true, true]);
    expect(again.headers['x-cache']).toBe('hit');
    expect(again.headers.etag).toBe(refreshed.headers.etag);
    expect(again.text).toBe(refreshed.text);
    await http
      .get(list)
      .set('If-None-Match', refreshed.headers.etag as string)
      .expect(304);
    // Concurrent reads of the stale entry: one refreshes it, the others wait and are answered from it.
    await createPast('2019');
    fastHits = [];
    const together = await Promise.all(Array.from({ length: 5 }, () => http.get(list).expect(200)));
    expect(fastHits).toEqual([true, true, true, true, true]);
    expect(together.map((answer) => answer.headers['x-cache']).sort()).toEqual([
      'hit',
      'hit',
      'hit',
      'hit',
      'refresh',
    ]);
    expect(new Set(together.map((answer) => answer.text))).toEqual(
      new Set([first.text.replace(shown(1), shown(3))]),
    );
    expect(new Set(together.map((answer) => answer.headers.etag)).size).toBe(1);
  });

  it('does not let an alias outlive its day in the site zone', async () => {
    // 23:59:30 in New York.
    clock = Date.parse('2026-11-23T23:59:30-05:00');
    await http.get(LIST).expect(200);
    expect((await http.get(LIST).expect(200)).headers['x-cache']).toBe('hit');
    expect(fastHits).toEqual([false, true]);
    clock += 60_000;
    const nextDay = await http.get(LIST).expect(200);
    expect(nextDay.headers['x-cache']).toBe('miss');
    expect(fastHits).toEqual([false, true, false]);
    expect((await http.get(LIST).expect(200)).headers['x-cache']).toBe('hit');
    expect(fastHits).toEqual([false, true, false, true]);
  });

  it('counts fast answers in the metrics under their route template', async () => {
    await http.get(LIST).expect(200);
    const count = async () =>
      (await metrics.registry.getSingleMetric('calendar_http_requests_total')!.get()).values.find(
        (v) =>
          v.labels.route === `${API}/events` &&
          v.labels.method === 'GET' &&
          String(v.labels.status) === '200',
      )?.value ?? 0;
    const hits = async () =>
      (await metrics.registry.getSingleMetric('calendar_response_cache_events_total')!.get()).values.find(
        (v) => v.labels.event === 'hit',
      )?.value ?? 0;
    const [requests, hitCount] = [await count(), await hits()];
    await http.get(LIST).expect(200);
    await http.get(LIST).expect(200);
    expect(fastHits).toEqual([false, true, true]);
    expect(await count()).toBe(requests + 2);
    expect(await hits()).toBe(hitCount + 2);
  });

  it('is off with the cache', async () => {
    const off = createResponseCache({ ...h.config, cache: { enabled: false, maxBytes: 0 } });
    const plain = supertest(
      buildApp({ db: h.db, config: h.config, cache: off, logger: createLogger('silent') }).callback(),
    );
    await plain.get(LIST).expect(200);
    expect((await plain.get(LIST).expect(200)).headers['x-cache']).toBeUndefined();
    expect(off.aliasCount).toBe(0);
  });
});
