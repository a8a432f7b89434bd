import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import Koa from 'koa';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  type AnswerMeta,
  type CacheEvent,
  ResponseCache,
} from '../../../../src/core/cache/response-cache.js';
import type { Dependencies, WriteEffect } from '../../../../src/core/cache/dependencies.js';
import {
  SHOWN_COUNTS,
  countRuns,
  countsShown,
  withCounts,
} from '../../../../src/core/rest/shown/shown-counts.js';

// An answer whose only change is a term count it shows is refreshed in place (src/core/cache/
// response-cache.ts `refresh`): the counts read again and rewritten into the body, with new
// validators; single flight; never stored across a write that meets it; recomputed whole when the
// entry went meanwhile or a term is gone.

/** A term embedded in an event, as the REST edge serialises it. */
const term = (id: number, count: number, name = `Term ${id}`) =>
  `{"name":${JSON.stringify(name)},"taxonomy":"tribe_events_cat","parent":0,"count":${count},"filter":"raw","id":${id}}`;
const body = (counts: Record<number, number>, title = 'Concert') =>
  `{"id":1,"title":${JSON.stringify(title)},"categories":[${Object.entries(counts)
    .map(([id, count]) => term(Number(id), count))
    .join(',')}]}`;

describe('the counts a REST body shows', () => {
  it('finds each term whose count shows in the rewritable run, once', () => {
    expect(countsShown(`[${body({ 2: 183, 5: 7 })},${body({ 2: 183 })}]`)).toEqual([2, 5]);
  });

  it('does not take text inside a string for the run', () => {
    const title = '"count":3,"filter":"raw","id":9';
    expect(countsShown(body({}, title))).toEqual([]);
    const counts = new Map([[9, 100]]);
    expect(rewrite(body({}, title), counts)).toBe(body({}, title));
  });

  it('rewrites every run of a term, and refuses when a term has no count (deleted)', () => {
    const json = `[${body({ 2: 1, 5: 7 })},${body({ 2: 1 })}]`;
    expect(
      rewrite(
        json,
        new Map([
          [2, 40],
          [5, 8],
        ]),
      ),
    ).toBe(`[${body({ 2: 40, 5: 8 })},${body({ 2: 40 })}]`);
    expect(rewrite(json, new Map([[2, 40]]))).toBeNull();
  });

  it('rewrites bytes around characters of several bytes, and leaves a body without counts as it is', () => {
    const json = `[${body({ 2: 9 }, 'Café “Ñ” 🎷')},${body({ 2: 9 }, '"count":1,')}]`;
    expect(rewrite(json, new Map([[2, 1234]]))).toBe(
      `[${body({ 2: 1234 }, 'Café “Ñ” 🎷')},${body({ 2: 1234 }, '"count":1,')}]`,
    );
    expect(rewrite('{"count":5,"id":2}', new Map([[2, 1]]))).toBe('{"count":5,"id":2}');
  });
});

/** The REST edge's rewrite of a body's bytes, as text. */
const rewrite = (json: string, counts: ReadonlyMap<number, number>) =>
  withCounts(Buffer.from(json), counts)?.body.toString() ?? null;

describe('the runs a rewrite leaves', () => {
  it('are where the counts now are: a rewrite from them is the rewrite of a body searched anew', () => {
    const json = `[${body({ 2: 9, 5: 100 }, 'Café “Ñ” 🎷')},${body({ 5: 100 }, '"count":1,')},${body({ 2: 9 })}]`;
    let bytes: Buffer = Buffer.from(json);
    let runs = countRuns(bytes);
    expect(runs.length).toBe(4 * 3);
    const steps = [
      [1234, 7],
      [8, 100000],
      [8, 100000],
      [0, 1],
    ] as const;
    for (const [two, five] of steps) {
      const counts = new Map([
        [2, two],
        [5, five],
      ]);
      const searched = withCounts(bytes, counts)!;
      const kept = withCounts(bytes, counts, runs)!;
      expect(kept.body.equals(searched.body)).toBe(true);
      expect(kept.body.toString()).toBe(
        `[${body({ 2: two, 5: five }, 'Café “Ñ” 🎷')},${body({ 5: five }, '"count":1,')},${body({ 2: two })}]`,
      );
      expect([...kept.runs]).toEqual([...countRuns(kept.body)]);
      bytes = kept.body;
      runs = kept.runs;
    }
    expect(withCounts(bytes, new Map([[2, 1]]), runs)).toBeNull();
  });
});

describe('a rewrite in place', () => {
  it('writes the counts into the body itself when none changes width, and copies otherwise', () => {
    const bytes = Buffer.from(`[${body({ 2: 9, 5: 10 })},${body({ 2: 9 })}]`);
    const counts = (two: number, five: number) =>
      new Map([
        [2, two],
        [5, five],
      ]);
    const same = withCounts(bytes, counts(7, 42), undefined, true)!;
    expect(same.body).toBe(bytes);
    expect(bytes.toString()).toBe(`[${body({ 2: 7, 5: 42 })},${body({ 2: 7 })}]`);
    expect([...same.runs]).toEqual([...countRuns(bytes)]);
    const wider = withCounts(bytes, counts(10, 42), same.runs, true)!;
    expect(wider.body).not.toBe(bytes);
    expect(wider.body.toString()).toBe(`[${body({ 2: 10, 5: 42 })},${body({ 2: 10 })}]`);
    expect(bytes.toString()).toBe(`[${body({ 2: 7, 5: 42 })},${body({ 2: 7 })}]`);
    const copied = withCounts(bytes, counts(8, 43), same.runs)!;
    expect(copied.body).not.toBe(bytes);
    expect(bytes.toString()).toBe(`[${body({ 2: 7, 5: 42 })},${body({ 2: 7 })}]`);
  });
});

describe('ResponseCache: refreshing counts', () => {
  const koa = new Koa();
  const KEY = 'a single';
  const DEPENDS: Dependencies = { records: ['event:1', 'term:2'], kinds: [], windows: [], counts: [2] };
  const countMoved = (id: number): WriteEffect => ({
    records: [`term-count:${id}`],
    kinds: ['term-counts'],
    events: [],
  });
  const eventWritten: WriteEffect = { records: ['event:1'], kinds: ['events'], events: 'unknown' };

  let cache: ResponseCache;
  let events: CacheEvent[];
  let stored: Map<number, number>;
  let reads: number;
  let computes: number;
  /** Held count reads: each resolves with the counts stored when it is released. */
  let gate: Promise<void> | null;
  let open: () => void;

  beforeEach(() => {
    events = [];
    stored = new Map([[2, 10]]);
    reads = computes = 0;
    gate = null;
    cache = new ResponseCache({
      enabled: true,
      maxBytes: 1024 * 1024,
      siteTimezone: 'UTC',
      onEvent: (event) => events.push(event),
    });
    cache.readCountsWith(async (terms) => {
      reads++;
      if (gate) await gate;
      return new Map(terms.flatMap((id) => (stored.has(id) ? [[id, stored.get(id)!] as const] : [])));
    });
  });

  function context(etag?: string): Koa.Context {
    const request = new IncomingMessage(new Socket());
    request.method = 'GET';
    request.url = '/calendar/events/v1/events/1';
    if (etag) request.headers['if-none-match'] = etag;
    return koa.createContext(request, new ServerResponse(request));
  }

  /** A compute answering the current state: the stored counts, with `rewriteCounts` unless told not. */
  const compute =
    (ctx: Koa.Context, rewritable = true) =>
    async (): Promise<AnswerMeta> => {
      computes++;
      ctx.status = 200;
      ctx.body = body(Object.fromEntries(stored));
      return rewritable
        ? { dependencies: DEPENDS, version: 'v1', rewriteCounts: SHOWN_COUNTS }
        : { dependencies: { ...DEPENDS, records: [...DEPENDS.records, 'term-count:2'], counts: [] } };
    };

  async function get(etag?: string, rewritable = true, key = KEY) {
    const ctx = context(etag);
    await cache.serve(ctx, key, compute(ctx, rewritable));
    return {
      status: ctx.status,
      body: ctx.body === null ? null : String(ctx.body),
      cache: ctx.response.get('X-Cache'),
      etag: ctx.response.get('ETag'),
    };
  }

  /** A read whose response then closes (sent in full, so no longer reading its bytes), unless `held`. */
  async function read(held = false) {
    const ctx = context();
    await cache.serve(ctx, KEY, compute(ctx));
    const bytes = ctx.body as Buffer;
    const text = bytes.toString();
    const close = () => ctx.res.emit('close');
    if (!held) close();
    return { bytes, text, cache: ctx.response.get('X-Cache'), etag: ctx.response.get('ETag'), close };
  }

  it('kept bytes no client reads any more are refreshed in place; bytes still being sent never change', async () => {
    const miss = await read();
    const hit = await read(true);
    expect([miss.cache, hit.cache]).toEqual(['miss', 'hit']);
    /** A write moves the count to `count`; the next read refreshes the answer. */
    const movedTo = (count: number) => {
      stored.set(2, count);
      cache.invalidate(countMoved(2));
      return read();
    };
    // The hit's client is still being sent the kept bytes: the refresh writes new ones.
    const copied = await movedTo(11);
    expect(copied).toMatchObject({ cache: 'refresh', text: body({ 2: 11 }) });
    expect(copied.bytes).not.toBe(hit.bytes);
    expect(hit.bytes.toString()).toBe(body({ 2: 10 }));
    hit.close();
    // Nobody reads the refreshed bytes now: the next refresh writes its counts into them.
    const inPlace = await movedTo(12);
    expect(inPlace).toMatchObject({ cache: 'refresh', text: body({ 2: 12 }) });
    expect(inPlace.bytes).toBe(copied.bytes);
    expect(inPlace.etag).not.toBe(copied.etag);
    // A wider count cannot fit: new bytes, the old ones as they were.
    const wider = await movedTo(100);
    expect(wider).toMatchObject({ cache: 'refresh', text: body({ 2: 100 }) });
    expect(wider.bytes).not.toBe(inPlace.bytes);
    expect(inPlace.bytes.toString()).toBe(body({ 2: 12 }));
    // Each validator is the one a recomputed answer of those bytes gets.
    cache.invalidate(eventWritten);
    const recomputed = await read();
    expect(recomputed).toMatchObject({ cache: 'miss', text: wider.text, etag: wider.etag });
  });

  it('a count that moves refreshes the answer in place: new body, new validator, one read', async () => {
    const first = await get();
    expect(first).toMatchObject({ cache: 'miss', body: body({ 2: 10 }) });
    stored.set(2, 11);
    cache.invalidate(countMoved(2));
    expect(events).not.toContain('dropped');

    const refreshed = await get(first.etag);
    expect(refreshed).toMatchObject({ status: 200, cache: 'refresh', body: body({ 2: 11 }) });
    expect(refreshed.etag).not.toBe(first.etag);
    expect(refreshed.etag.startsWith('"v1')).toBe(true);
    expect([reads, computes]).toEqual([1, 1]);
    // Stored: the next read is a plain hit, and the new validator is honoured.
    expect(await get(refreshed.etag)).toMatchObject({ status: 304, cache: 'hit' });
    expect(reads).toBe(1);
  });

  it('the answers one write made stale are refreshed with one read of its counts', async () => {
    const keys = ['one', 'two', 'three'];
    for (const key of keys) await get(undefined, true, key);
    stored.set(2, 15);
    cache.invalidate(countMoved(2));
    for (const key of keys) expect(await get(undefined, true, key)).toMatchObject({ body: body({ 2: 15 }) });
    expect(reads).toBe(1);
    // The next write that moves the count makes it unknown again (rewritten where the last rewrite
    // left it, one digit longer now).
    stored.set(2, 160);
    cache.invalidate(countMoved(2));
    for (const key of keys) expect(await get(undefined, true, key)).toMatchObject({ body: body({ 2: 160 }) });
    expect(reads).toBe(2);
    stored.set(2, 9);
    cache.invalidate(countMoved(2));
    for (const key of keys) expect(await get(undefined, true, key)).toMatchObject({ body: body({ 2: 9 }) });
  });

  it('a count read while a write moved it is not kept for the next refresh', async () => {
    for (const key of ['one', 'two']) await get(undefined, true, key);
    cache.invalidate(countMoved(2));
    gate = new Promise((resolve) => (open = resolve));
    const during = get(undefined, true, 'one');
    await Promise.resolve();
    stored.set(2, 30);
    cache.invalidate(countMoved(2));
    open();
    await during;
    gate = null;
    expect(await get(undefined, true, 'two')).toMatchObject({ cache: 'refresh', body: body({ 2: 30 }) });
    expect(reads).toBe(2);
  });

  it('a count the answer does not show leaves it as it is', async () => {
    await get();
    cache.invalidate(countMoved(3));
    expect(await get()).toMatchObject({ cache: 'hit' });
    expect(reads).toBe(0);
  });

  it('a write that changes more than counts drops it', async () => {
    await get();
    cache.invalidate({ ...eventWritten, records: ['event:1', 'term-count:2'] });
    expect(events).toContain('dropped');
    expect(await get()).toMatchObject({ cache: 'miss' });
    expect([reads, computes]).toEqual([0, 2]);
  });

  it('an answer its edge cannot rewrite drops, as before', async () => {
    await get(undefined, false);
    cache.invalidate(countMoved(2));
    expect(events).toContain('dropped');
    expect(await get(undefined, false)).toMatchObject({ cache: 'miss' });
  });

  it('concurrent reads of a stale answer read the counts once', async () => {
    await get();
    stored.set(2, 12);
    cache.invalidate(countMoved(2));
    gate = new Promise((resolve) => (open = resolve));
    const all = Promise.all(Array.from({ length: 6 }, () => get()));
    open();
    const answers = await all;
    expect(reads).toBe(1);
    expect(new Set(answers.map((answer) => answer.body))).toEqual(new Set([body({ 2: 12 })]));
    expect(answers.map((answer) => answer.cache).sort()).toEqual([
      'hit',
      'hit',
      'hit',
      'hit',
      'hit',
      'refresh',
    ]);
  });

  it('a count moving again during the refresh: served, not stored, refreshed again next time', async () => {
    await get();
    stored.set(2, 12);
    cache.invalidate(countMoved(2));
    gate = new Promise((resolve) => (open = resolve));
    const during = get();
    await Promise.resolve();
    cache.invalidate(countMoved(2));
    stored.set(2, 13);
    open();
    expect(await during).toMatchObject({ cache: 'refresh' });
    gate = null;
    expect(await get()).toMatchObject({ cache: 'refresh', body: body({ 2: 13 }) });
    expect(reads).toBe(2);
  });

  it('an entry dropped during the refresh is recomputed whole', async () => {
    await get();
    cache.invalidate(countMoved(2));
    gate = new Promise((resolve) => (open = resolve));
    const during = get();
    await Promise.resolve();
    cache.invalidate(eventWritten);
    stored.set(2, 20);
    open();
    expect(await during).toMatchObject({ cache: 'miss', body: body({ 2: 20 }) });
    expect(computes).toBe(2);
  });

  it('a term deleted before the refresh: recomputed whole', async () => {
    await get();
    cache.invalidate(countMoved(2));
    stored.delete(2);
    expect(await get()).toMatchObject({ cache: 'miss', body: body({}) });
    expect(computes).toBe(2);
  });

  it('without a count reader (no app gave one), a count that moves drops the answer', async () => {
    const bare = new ResponseCache({ enabled: true, maxBytes: 1024 * 1024, siteTimezone: 'UTC' });
    const ctx = context();
    await bare.serve(ctx, KEY, compute(ctx));
    bare.invalidate(countMoved(2));
    expect(bare.size).toBe(0);
  });
});

describe('ResponseCache: coding refreshed answers again', () => {
  const koa = new Koa();
  const keys = Array.from({ length: 24 }, (_, n) => `list ${n}`);
  let count: number;
  let cache: ResponseCache;
  let events: CacheEvent[];
  const big = () => `[${Array.from({ length: 40 }, (_, n) => body({ 2: count }, `Concert ${n}`)).join(',')}]`;

  function start(maxBytes: number, recodeDelayMs: number) {
    count = 10;
    events = [];
    cache = new ResponseCache({
      enabled: true,
      maxBytes,
      siteTimezone: 'UTC',
      recodeDelayMs,
      onEvent: (event) => events.push(event),
    });
    cache.readCountsWith(async (terms) => new Map(terms.map((id) => [id, count])));
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
      return {
        dependencies: { records: ['term:2'], kinds: [], windows: [], counts: [2] },
        rewriteCounts: SHOWN_COUNTS,
      };
    });
    return { cache: ctx.response.get('X-Cache'), coding: ctx.response.get('Content-Encoding') };
  };

  it('codes every answer one write refreshed, more than are coded at once', async () => {
    start(4 * 1024 * 1024, 20);
    for (const key of keys) expect(await serve(key, 'gzip')).toMatchObject({ cache: 'miss', coding: 'gzip' });
    count = 11;
    cache.invalidate({ records: ['term-count:2'], kinds: ['term-counts'], events: [] });
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
    count = 11;
    cache.invalidate({ records: ['term-count:2'], kinds: ['term-counts'], events: [] });
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
