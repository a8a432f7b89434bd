import supertest from 'supertest';
import { expect } from 'vitest';
import { buildApp } from '../../src/app.js';
import { type CacheEvent, ResponseCache } from '../../src/core/cache/response-cache.js';
import { createLogger } from '../../src/core/ops/logger.js';
import { WritePipeline } from '../../src/core/db/transactions.js';
import type { Harness } from './harness.js';

/**
 * Two apps over the harness's database: `cached`, with a response cache of its own whose events
 * (hits, misses, refreshes, drops) are pushed on `events`, and `fresh`, without a cache, to compare
 * the cached answers with byte for byte.
 */
export function cachedAndFresh(h: Harness) {
  const events: CacheEvent[] = [];
  const config = { ...h.config, cache: { enabled: true, maxBytes: 16 * 1024 * 1024 } };
  const cache = new ResponseCache({
    ...config.cache,
    siteTimezone: config.siteTimezone,
    onEvent: (event) => events.push(event),
  });
  const app = buildApp({
    db: h.db,
    config,
    writes: new WritePipeline(),
    cache,
    logger: createLogger('silent'),
  });
  const cached = supertest(app.callback());
  const fresh = supertest(
    buildApp({ db: h.db, config: h.config, logger: createLogger('silent') }).callback(),
  );
  /**
   * A REST list read from the cached app and checked against the app without a cache: the same body,
   * totals, validator and coding.
   */
  const readBoth = async (path: string, accept: 'gzip' | 'identity' = 'gzip') => {
    const answer = await cached.get(path).set('Accept-Encoding', accept).expect(200);
    const expected = await fresh.get(path).set('Accept-Encoding', accept).expect(200);
    expect(answer.text, path).toBe(expected.text);
    for (const header of ['x-tec-total', 'x-tec-totalpages', 'etag', 'content-encoding'])
      expect(answer.headers[header], `${path} ${header}`).toBe(expected.headers[header]);
    return answer;
  };
  return { cached, fresh, events, readBoth };
}
