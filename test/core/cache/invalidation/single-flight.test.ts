import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import Koa from 'koa';
import supertest from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../../src/app.js';
import {
  type AnswerMeta,
  type CacheEvent,
  ResponseCache,
} from '../../../../src/core/cache/response-cache.js';
import type { Db } from '../../../../src/core/db/client.js';
import type { Dependencies } from '../../../../src/core/cache/dependencies.js';
import { createLogger } from '../../../../src/core/ops/logger.js';
import { writeEffectOf } from '../../../../src/core/db/write-effects.js';
import { API, type Harness, startHarness } from '../../../helpers/harness.js';
import { createEvent } from '../../../helpers/fixtures.js';

// Single flight (src/core/cache/response-cache.ts `serve`): concurrent misses of one key compute it once,
// the others waiting for that answer; an answer that is not stored (an error, a failure, one computed
// across a write that meets it) is never handed to them: they compute their own.

const N = 8;

type Compute = () => Promise<AnswerMeta | void>;

/**
 * A cache whose misses wait until `hold(n)` has seen n requests reach it: the first request's work is
 * still under way when the others arrive, whatever the machine's speed.
 */
class GatedCache extends ResponseCache {
  private arrivals = 0;
  private expected = 0;
  private gate: Promise<void> = Promise.resolve();
  private open: () => void = () => undefined;

  hold(requests: number): void {
    this.arrivals = 0;
    this.expected = requests;
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  override serve(ctx: Koa.Context, key: string | null, compute: Compute): Promise<void> {
    if (++this.arrivals === this.expected) this.open();
    const gate = this.gate;
    return super.serve(ctx, key, async () => {
      await gate;
      return compute();
    });
  }
}

describe('over HTTP', () => {
  let h: Harness;
  let http: ReturnType<typeof supertest>;
  let cache: GatedCache;
  const events: CacheEvent[] = [];
  /** Transient database failures to inject: the next totals (`event.count`, or a sum of the list counts) throw. */
  let failingCounts = 0;

  beforeAll(async () => {
    h = await startHarness();
    const config = { ...h.config, cache: { enabled: true, maxBytes: 8 * 1024 * 1024 } };
    cache = new GatedCache({
      ...config.cache,
      siteTimezone: config.siteTimezone,
      onEvent: (event) => events.push(event),
    });
    http = supertest(
      buildApp({ db: withFailingCounts(h.db), config, cache, logger: createLogger('silent') }).callback(),
    );
    for (let day = 1; day <= 12; day++)
      await createEvent(h.db, { start: `2031-03-${String(day).padStart(2, '0')} 10:00:00` });
  });
  afterAll(() => h.close());
  beforeEach(() => {
    cache.invalidate();
    events.length = 0;
    failingCounts = 0;
  });

  /** The database, except that a pending injected failure makes the next total throw once. */
  function withFailingCounts(db: Db): Db {
    const bound = (target: object, property: string | symbol) => {
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    };
    const failed = () => {
      failingCounts--;
      return Promise.reject(new Error('Connection terminated unexpectedly'));
    };
    return new Proxy(db, {
      get(target, property) {
        if (property === '$queryRawUnsafe')
          return (sql: string, ...values: unknown[]) =>
            sql.includes('"EventListCount"') && failingCounts > 0
              ? failed()
              : target.$queryRawUnsafe(sql, ...values);
        if (property !== 'event') return bound(target, property);
        return new Proxy(target.event, {
          get(model, name) {
            if (name === 'count' && failingCounts > 0) return failed;
            return bound(model, name);
          },
        });
      },
    });
  }

  const LIST = `${API}/events?start_date=2031-03-01&end_date=2031-03-31&per_page=5`;
  const QUERY =
    '{ events(filter: { startDate: "2031-03-01", endDate: "2031-03-31" }) { pageInfo { total } items { id title } } }';
  const requestOf = (target: string) =>
    target.startsWith('{') ? http.post('/graphql').send({ query: target }) : http.get(target);

  /** The SQL statements one request sends on a cold cache. */
  async function statementsOfOne(target: string): Promise<number> {
    cache.invalidate();
    h.queries.length = 0;
    await requestOf(target);
    const count = h.queries.length;
    cache.invalidate();
    events.length = 0;
    return count;
  }

  /** N requests of `target` at once, the first one's work held until all have arrived. */
  async function concurrently(target: string) {
    h.queries.length = 0;
    cache.hold(N);
    const answers = await Promise.all(Array.from({ length: N }, () => requestOf(target)));
    return { answers, statements: h.queries.length };
  }

  it.each([
    ['a REST list', LIST],
    ['a GraphQL query', QUERY],
  ])('%s: N concurrent misses run its statements once', async (_name, target) => {
    const one = await statementsOfOne(target);
    expect(one).toBeGreaterThan(0);
    const { answers, statements } = await concurrently(target);
    expect(statements).toBe(one);
    expect(events.filter((event) => event === 'shared')).toHaveLength(N - 1);
    expect(answers.map((res) => res.status)).toEqual(Array(N).fill(200));
    expect(new Set(answers.map((res) => res.text)).size).toBe(1);
    expect(answers.map((res) => res.headers['x-cache']).sort()).toEqual([
      ...Array(N - 1).fill('hit'),
      'miss',
    ]);
  });

  it('an error answer (REST 400) is not shared: each request computes its own', async () => {
    const target = `${API}/events?categories=no-such-category`;
    const one = await statementsOfOne(target);
    const { answers, statements } = await concurrently(target);
    expect(answers.map((res) => [res.status, res.body.code, res.headers['x-cache']])).toEqual(
      Array(N).fill([400, 'rest_invalid_param', undefined]),
    );
    expect(events).not.toContain('shared');
    expect(statements).toBe(N * one);
  });

  it.each([
    ['REST', LIST],
    ['GraphQL', QUERY],
  ])(
    '%s: a failure of the first request is not shared: the others answer from the database',
    async (_api, target) => {
      const expected = (await requestOf(target)).text;
      cache.invalidate();
      failingCounts = 1;
      const { answers } = await concurrently(target);
      // The first request alone met the failure, and its answer was not stored (no `X-Cache`): it is
      // not what the others, or the next reader, get.
      const failed = answers.filter((res) => res.text !== expected);
      expect(failed.map((res) => res.headers['x-cache'] ?? 'not stored')).toEqual(['not stored']);
      expect(events).not.toContain('shared');
      const next = await requestOf(target);
      expect(next.text).toBe(expected);
    },
  );
});

describe('ResponseCache.serve', () => {
  const koa = new Koa();
  const events: CacheEvent[] = [];
  let cache: ResponseCache;
  const KEY = 'one key';
  const DEPENDS: Dependencies = { records: ['event:1'], kinds: [], windows: [] };
  /** Computes started, and the gate every compute waits at before answering. */
  let calls: number;
  let release: () => void;
  let released: Promise<void>;

  beforeEach(() => {
    events.length = 0;
    cache = new ResponseCache({
      enabled: true,
      maxBytes: 1024 * 1024,
      siteTimezone: 'UTC',
      onEvent: (event) => events.push(event),
    });
    calls = 0;
    released = new Promise((resolve) => (release = resolve));
  });

  function context(): Koa.Context {
    const request = new IncomingMessage(new Socket());
    request.method = 'GET';
    request.url = '/calendar/events/v1/events';
    return koa.createContext(request, new ServerResponse(request));
  }

  /** A compute for `ctx` that answers `status` once released, numbered by the order it started in. */
  const answering =
    (ctx: Koa.Context, status = 200): Compute =>
    async () => {
      const call = ++calls;
      await released;
      ctx.status = status;
      ctx.body = `answer ${call}`;
      return { dependencies: DEPENDS };
    };

  const shared = () => events.filter((event) => event === 'shared').length;
  const bodies = (contexts: Koa.Context[]) => contexts.map((ctx) => String(ctx.body));

  /** N serves of KEY at once: the first with `first` (default: an answer), the others answering 200. */
  function serveAll(first?: (ctx: Koa.Context) => Compute) {
    const contexts = Array.from({ length: N }, context);
    const served = contexts.map((ctx, i) =>
      cache.serve(ctx, KEY, i === 0 && first ? first(ctx) : answering(ctx)),
    );
    return { contexts, settled: Promise.allSettled(served) };
  }

  it('N concurrent misses compute once; the others are answered from that entry', async () => {
    const { contexts, settled } = serveAll();
    release();
    await settled;
    expect(calls).toBe(1);
    expect(bodies(contexts)).toEqual(Array(N).fill('answer 1'));
    expect(shared()).toBe(N - 1);
  });

  it('a thrown compute is not shared: the others compute their own answers', async () => {
    const { contexts, settled } = serveAll(() => async () => {
      calls++;
      await released;
      throw new Error('database gone');
    });
    release();
    const outcomes = await settled;
    expect(outcomes[0]!.status).toBe('rejected');
    expect(outcomes.slice(1).every((outcome) => outcome.status === 'fulfilled')).toBe(true);
    expect(contexts.slice(1).map((ctx) => ctx.status)).toEqual(Array(N - 1).fill(200));
    expect(new Set(bodies(contexts.slice(1))).size).toBeGreaterThan(1);
    expect(calls).toBe(N);
    expect(shared()).toBe(0);
  });

  it('an error status is not shared: the others compute their own answers', async () => {
    const { contexts, settled } = serveAll((ctx) => answering(ctx, 500));
    release();
    await settled;
    expect(contexts.map((ctx) => ctx.status)).toEqual([500, ...Array(N - 1).fill(200)]);
    expect(bodies(contexts.slice(1))).not.toContain('answer 1');
    expect(calls).toBe(N);
    expect(shared()).toBe(0);
  });

  it('an answer computed across a write that meets it is not shared', async () => {
    const { contexts, settled } = serveAll();
    // The write commits while the first answer is computed: that answer may be older than the write.
    cache.invalidate(writeEffectOf([{ kind: 'event', id: 1, operation: 'updated' }]));
    release();
    await settled;
    expect(calls).toBe(N);
    expect(bodies(contexts).filter((body) => body === 'answer 1')).toHaveLength(1);
    expect(shared()).toBe(0);
  });

  it('an answer computed across a write that does not meet it is shared', async () => {
    const { contexts, settled } = serveAll();
    cache.invalidate(writeEffectOf([{ kind: 'venue', id: 2, operation: 'updated' }]));
    release();
    await settled;
    expect(calls).toBe(1);
    expect(bodies(contexts)).toEqual(Array(N).fill('answer 1'));
    expect(shared()).toBe(N - 1);
  });
});
