import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../../src/app.js';
import { ResponseCache } from '../../../../src/core/cache/response-cache.js';
import { createLogger } from '../../../../src/core/ops/logger.js';
import { WritePipeline } from '../../../../src/core/db/transactions.js';
import { API, type Harness, startHarness } from '../../../helpers/harness.js';
import { createEvent } from '../../../helpers/fixtures.js';
import { type Users, withRoles } from '../../../helpers/users.js';

// A cached answer keeps its body and what refreshes it, never the request that made it: a row reader
// that closed over the request's Koa context kept every cached list's request (its body, headers and
// reads) alive as long as the answer, ~100 MB with the cache full (#51, item 4).

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let h: Harness;
let users: Users;
let first: number;
beforeAll(async () => {
  h = await startHarness();
  users = await withRoles(h);
  for (let day = 6; day >= 1; day--)
    first = (await createEvent(h.db, { title: `Retained ${day}`, start: `2035-03-0${day} 19:00:00` })).id;
});
afterAll(() => h.close());

describe('cached answers and their requests', () => {
  it('keep no request alive once answered', async () => {
    const config = { ...h.config, cache: { enabled: true, maxBytes: 16 * 1024 * 1024 } };
    const cache = new ResponseCache({ ...config.cache, siteTimezone: config.siteTimezone });
    const app = buildApp({
      db: h.db,
      config,
      writes: new WritePipeline(),
      cache,
      logger: createLogger('silent'),
    });
    const collected = new Set<number>();
    const registry = new FinalizationRegistry<number>((request) => collected.add(request));
    let made = 0;
    app.middleware.unshift(async (ctx, next) => {
      registry.register(ctx, made++);
      await next();
    });
    const client = supertest(app.callback());
    const lists = [2, 3, 4, 5].map(
      (size) => `${API}/events?start_date=2035-01-01&end_date=2035-12-31&per_page=${size}`,
    );
    for (const path of lists) await client.get(path).expect(200);
    // Cached, and refreshable in place: the entries and their row readers are alive.
    for (const path of lists) expect((await client.get(path).expect(200)).headers['x-cache']).toBe('hit');
    expect(cache.size).toBeGreaterThanOrEqual(lists.length);
    // A title edit leaves the lists cached: each is refreshed in place by its row reader.
    await client
      .post(`${API}/events/${first}`)
      .auth(users.administrator.login, users.administrator.password)
      .send({ title: 'Retained, renamed' })
      .expect(200);
    for (const path of lists) expect((await client.get(path).expect(200)).headers['x-cache']).toBe('refresh');

    // Collected requests are counted as they go (a WeakRef's deref would keep its target for the job).
    for (let round = 0; round < 10 && collected.size < made; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The misses and the edit (hits and refreshes are served ahead of Koa, with no context).
    expect(made).toBeGreaterThan(lists.length);
    expect([...Array(made).keys()].filter((i) => !collected.has(i))).toEqual([]);
    expect(cache.size).toBeGreaterThanOrEqual(lists.length);
  });
});
