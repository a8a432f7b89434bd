import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import {
  type CacheEvent,
  ResponseCache,
  type RowRewrite,
} from '../../../../src/core/cache/response-cache.js';
import type { WriteEffect } from '../../../../src/core/cache/dependencies.js';

// An answer refreshed in place (its rows rendered again) for a client without gzip is answered plain
// and coded again on the thread pool a while later (`RECODE_DELAY_MS`), at most a few at once; one
// whose plain bytes would not fit beside the other answers is coded at once instead of evicting one.

describe('ResponseCache: coding refreshed answers again', () => {
  const koa = new Koa();
  const keys = Array.from({ length: 24 }, (_, n) => `list ${n}`);
  let version: number;
  let cache: ResponseCache;
  let events: CacheEvent[];
  const big = () =>
    JSON.stringify({
      events: Array.from({ length: 200 }, (_, n) => ({
        id: n + 1,
        title: `Concert ${n} v${version}`,
        description: `Doors at ${n % 12} pm, bring a lantern`,
      })),
    });
  /** Every row rendered again reads the current version; the body is written whole with it. */
  const rows: RowRewrite = {
    holds: {},
    reader: 'rows',
    read: async (ids) => ids.map((id) => ({ id })),
    fit: (items) => items && (() => Buffer.from(big())),
  };
  /** An edit of event 1's title: its row is rendered again in place. */
  const edit: WriteEffect = {
    records: ['event:1'],
    kinds: [],
    events: [
      {
        id: 1,
        before: { localStart: '2030-01-01 10:00:00', localEnd: '2030-01-01 11:00:00' },
        after: { localStart: '2030-01-01 10:00:00', localEnd: '2030-01-01 11:00:00' },
        facts: ['text'],
      },
    ],
  };

  function start(maxBytes: number, recodeDelayMs: number) {
    version = 1;
    events = [];
    cache = new ResponseCache({
      enabled: true,
      maxBytes,
      siteTimezone: 'UTC',
      recodeDelayMs,
      onEvent: (event) => events.push(event),
    });
  }

  const serve = async (key: string, coding: string) => {
    const request = new IncomingMessage(new Socket());
    request.method = 'GET';
    request.url = '/calendar/events/v1/events';
    request.headers['accept-encoding'] = coding;
    const ctx = koa.createContext(request, new ServerResponse(request));
    await cache.serve(ctx, key, async () => {
      ctx.status = 200;
      ctx.body = big();
      return { dependencies: { records: [], kinds: [], windows: [], rows: [1] }, rewriteRows: rows };
    });
    return { cache: ctx.response.get('X-Cache'), coding: ctx.response.get('Content-Encoding') };
  };

  it('codes every answer one write refreshed, more than are coded at once', async () => {
    start(4 * 1024 * 1024, 20);
    for (const key of keys) expect(await serve(key, 'gzip')).toMatchObject({ cache: 'miss', coding: 'gzip' });
    version = 2;
    cache.invalidate(edit);
    // Refreshed together for clients without gzip: all fall due to be coded at the same moment.
    const refreshed = await Promise.all(keys.map((key) => serve(key, 'identity')));
    expect(refreshed).toEqual(keys.map(() => ({ cache: 'refresh', coding: undefined })));
    const coded = async () =>
      (await Promise.all(keys.map((key) => serve(key, 'gzip')))).filter((answer) => answer.coding === 'gzip')
        .length;
    let done = await coded();
    for (let wait = 0; done < keys.length && wait < 100; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      done = await coded();
    }
    expect(done).toBe(keys.length);
  });

  it('codes a refreshed answer at once when its plain bytes would evict another answer', async () => {
    start(4 * 1024 * 1024, 60_000);
    for (const key of keys) await serve(key, 'gzip');
    const codedBytes = cache.bytes;
    // Room for every coded answer and a few plain ones, not for all of them plain.
    const maxBytes = 3 * codedBytes;
    expect(keys.length * Buffer.byteLength(big())).toBeGreaterThan(maxBytes);
    start(maxBytes, 60_000);
    for (const key of keys) expect(await serve(key, 'gzip')).toMatchObject({ cache: 'miss', coding: 'gzip' });
    version = 2;
    cache.invalidate(edit);
    for (const key of keys)
      expect(await serve(key, 'identity')).toEqual({ cache: 'refresh', coding: undefined });
    // Every answer is still held (none evicted for the plain bodies), within the bound, and some were
    // coded at once: a client that accepts gzip gets them coded before any delayed coding ran.
    expect(events).not.toContain('eviction');
    expect(cache.size).toBe(keys.length);
    expect(cache.bytes).toBeLessThanOrEqual(maxBytes);
    const answers = await Promise.all(keys.map((key) => serve(key, 'gzip')));
    expect(answers.every((answer) => answer.cache === 'hit')).toBe(true);
    expect(answers.filter((answer) => answer.coding === 'gzip').length).toBeGreaterThan(0);
    expect(answers.filter((answer) => answer.coding === undefined).length).toBeGreaterThan(0);
  });
});
