import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { afterAll, describe, expect, it } from 'vitest';
import { heldBytes, ownBytes, stringBytes } from '../../../src/core/cache/held-bytes.js';
import { ResponseCache } from '../../../src/core/cache/response-cache.js';
import { loadConfig } from '../../../src/core/config/config.js';
import {
  SQLITE_PAGE_CACHE_KIB,
  SQLITE_WRITER_PAGE_CACHE_KIB,
  createDb,
} from '../../../src/core/db/client.js';
import type { Dependencies } from '../../../src/core/cache/dependencies.js';
import { DocumentCache } from '../../../src/core/graphql/documents.js';

// Every cache bound is a bound on memory (issue #29): the response cache counts what an entry keeps
// (its body's whole backing store, key, headers, dependencies) and its aliases under
// the same CALENDAR_CACHE_MB; kept event rows under their own bound; parsed GraphQL documents are
// bounded in bytes; SQLite's page caches are set; V8's heap is capped where the server starts. Their sum
// at the defaults is the budget docs/operations/memory.md states.

const koa = new Koa();

function contextFor(url: string, acceptEncoding?: string): Koa.Context {
  const request = new IncomingMessage(new Socket());
  request.method = 'GET';
  request.url = url;
  if (acceptEncoding) request.headers['accept-encoding'] = acceptEncoding;
  return koa.createContext(request, new ServerResponse(request));
}

/** Dependencies of a list of `count` events: a record tag each. */
const listOf = (count: number, first = 0): Dependencies => ({
  records: Array.from({ length: count }, (_, i) => `event:${first + i}`),
  kinds: [],
  windows: [],
});

describe('the response cache', () => {
  const maxBytes = 256 * 1024;

  it('keeps entries and aliases within the one byte bound', async () => {
    const cache = new ResponseCache({ enabled: true, maxBytes, siteTimezone: 'UTC' });
    let peak = 0;
    for (let i = 0; i < 600; i++) {
      const ctx = contextFor(`/calendar/events/v1/events?page=${i}`);
      await cache.serve(ctx, `key ${i}`, async () => {
        ctx.status = 200;
        ctx.type = 'application/json';
        ctx.body = JSON.stringify({ page: i, text: 'x'.repeat(1500) });
        return { dependencies: listOf(40, i) };
      });
      cache.recordAlias(`alias ${i} ${'?'.repeat(200)}`, ctx, '/events');
      peak = Math.max(peak, cache.bytes);
    }
    expect(peak).toBeLessThanOrEqual(maxBytes);
    // It was full: the bound, not the traffic, decided what stayed.
    expect(peak).toBeGreaterThan(maxBytes * 0.8);
    expect(cache.size).toBeLessThan(600);
    expect(cache.aliasCount).toBeLessThan(600);
  });

  it('gives plain copies the room the answers leave: a copy never pushes an answer out', async () => {
    const fill = async (count: number, acceptEncoding?: string) => {
      const cache = new ResponseCache({ enabled: true, maxBytes, siteTimezone: 'UTC' });
      let peak = 0;
      for (let i = 0; i < count; i++) {
        const ctx = contextFor(`/calendar/events/v1/events?page=${i}`, acceptEncoding);
        await cache.serve(ctx, `key ${i}`, async () => {
          ctx.status = 200;
          ctx.type = 'application/json';
          ctx.body = JSON.stringify({ page: i, text: `${i} `.repeat(1500) });
          return { dependencies: listOf(10, i) };
        });
        peak = Math.max(peak, cache.bytes);
      }
      return { peak, size: cache.size };
    };
    // Room to spare: the plain clients' copies are kept beside the answers, in whatever room they leave
    // (here well over a quarter of the bound, their share before they shared the answers' room).
    const spare = (await fill(30)).peak - (await fill(30, 'gzip')).peak;
    expect(spare).toBeGreaterThan(maxBytes * 0.4);
    // Full: as many answers as with gzip clients, who leave no copies; the copies went first.
    const coded = await fill(400, 'gzip');
    const plain = await fill(400);
    expect(coded.size).toBeLessThan(400);
    expect(plain.size).toBe(coded.size);
    expect(plain.peak).toBeLessThanOrEqual(maxBytes);
  });

  it('keeps event rows within their own bound, beside the answers', async () => {
    const recordMaxBytes = 64 * 1024;
    const cache = new ResponseCache({ enabled: true, maxBytes, recordMaxBytes, siteTimezone: 'UTC' });
    const row = (id: number) => ({ id, title: `event ${id}`, description: 'y'.repeat(600) });
    let peak = 0;
    for (let batch = 0; batch < 40; batch++) {
      const ids = Array.from({ length: 10 }, (_, i) => batch * 10 + i);
      const rows = await cache.keepRecords(
        ids.map((id) => `event row ${id}`),
        async (missing) =>
          missing.map((index) => ({ value: row(ids[index]!), dependencies: listOf(1, ids[index]) })),
      );
      expect(rows.map((kept) => kept?.id)).toEqual(ids);
      peak = Math.max(peak, cache.recordBytes);
    }
    expect(peak).toBeLessThanOrEqual(recordMaxBytes);
    expect(peak).toBeGreaterThan(recordMaxBytes * 0.8);
    // Their own bound: the rows take nothing from the answers'.
    expect(cache.bytes).toBe(0);
  });

  it("counts an entry's dependencies, key and headers besides its body", async () => {
    const sizeWith = async (dependencies: Dependencies) => {
      const cache = new ResponseCache({ enabled: true, maxBytes, siteTimezone: 'UTC' });
      const ctx = contextFor('/calendar/events/v1/events');
      await cache.serve(ctx, 'the key', async () => {
        ctx.status = 200;
        ctx.body = 'a short body';
        return { dependencies };
      });
      return cache.bytes;
    };
    const few = await sizeWith(listOf(1));
    const many = await sizeWith(listOf(1000));
    // A thousand tags of at least `event:N` each (a string header and its characters, and a slot).
    expect(many - few).toBeGreaterThanOrEqual(999 * (stringBytes('event:1') + 8));
    expect(few).toBeGreaterThan(stringBytes('the key') + 'a short body'.length);
  });

  it('keeps a small body in a buffer of its own, not a view of the shared pool', async () => {
    const cache = new ResponseCache({ enabled: true, maxBytes, siteTimezone: 'UTC' });
    const ctx = contextFor('/calendar/events/v1/events/1');
    await cache.serve(ctx, 'single', async () => {
      ctx.status = 200;
      ctx.body = Buffer.from('{"id":1}');
      return { dependencies: listOf(1) };
    });
    const kept = (ctx.state as { cacheEntry: { body: Buffer } }).cacheEntry.body;
    expect(kept.toString()).toBe('{"id":1}');
    expect(kept.buffer.byteLength).toBe(kept.length);
    expect(ctx.body).toBe(kept);
  });
});

describe('held bytes', () => {
  it("counts a view's whole backing store, and a buffer that owns its bytes as just those", () => {
    const pooled = Buffer.from('tiny');
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.length);
    expect(heldBytes(pooled)).toBeGreaterThanOrEqual(pooled.buffer.byteLength);
    const own = ownBytes(pooled);
    expect(own.buffer.byteLength).toBe(4);
    expect(heldBytes(own)).toBeLessThan(heldBytes(pooled));
  });

  it('walks a syntax tree whose token list is longer than any call stack', () => {
    const cache = new DocumentCache();
    const text = `${'# a comment\n'.repeat(200_000)}{ events { pageInfo { total } } }`;
    const document = cache.parse(text);
    expect(document).not.toBeNull();
    expect(heldBytes(document)).toBeGreaterThan(text.length);
  });

  it('counts two bytes a character beyond Latin-1', () => {
    expect(stringBytes('é'.repeat(80))).toBeLessThan(stringBytes('€'.repeat(80)));
  });
});

describe('the parsed GraphQL documents', () => {
  it('stay within their byte bounds, documents and parse errors alike', () => {
    const maxBytes = 200 * 1024;
    const maxErrorBytes = 32 * 1024;
    const cache = new DocumentCache({ maxBytes, maxErrorBytes });
    for (let i = 0; i < 400; i++) {
      expect(
        cache.parse(`query Q${i} { events(perPage: ${i}) { items { id title venues { name } } } }`),
      ).not.toBe(null);
      expect(cache.parse(`query Broken${i} { events(`)).toBeNull();
      expect(cache.bytes.documents).toBeLessThanOrEqual(maxBytes);
      expect(cache.bytes.errors).toBeLessThanOrEqual(maxErrorBytes);
    }
    expect(cache.bytes.documents).toBeGreaterThan(maxBytes * 0.8);
    expect(cache.size).toBeLessThan(400);
  });

  it("are one cache for the read key and yoga's parser: a document is parsed once", () => {
    const cache = new DocumentCache();
    const text = '{ events { pageInfo { total } } }';
    const document = cache.parse(text);
    const { documentCache, errorCache } = cache.yogaCaches();
    expect(documentCache.get(text)).toBe(document);
    expect(cache.parse(text)).toBe(document);
    expect(cache.parse('{ events(')).toBeNull();
    expect(cache.parse('{ events(')).toBeNull();
    // yoga's own parse error carries the 400 it answers with (test/core/graphql/http-audit.test.ts): the
    // read key's failure is remembered apart, never handed to yoga in its place.
    expect(errorCache.get('{ events(')).toBeUndefined();
    expect(cache.bytes.errors).toBeGreaterThan(0);
  });
});

describe("SQLite's page cache", () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-pragmas-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  type Pragmas = { $queryRawUnsafe<T>(sql: string): Promise<T> };
  const pragmasOf = async (client: Pragmas) => {
    const [cacheSize] =
      await client.$queryRawUnsafe<Array<{ cache_size: bigint | number }>>('PRAGMA cache_size');
    const [mmapSize] =
      await client.$queryRawUnsafe<Array<{ mmap_size: bigint | number }>>('PRAGMA mmap_size');
    return { cacheSize: Number(cacheSize?.cache_size), mmapSize: Number(mmapSize?.mmap_size) };
  };

  it('is sized as stated on the reads and the writer connection, without memory-mapped I/O', async () => {
    const db = await createDb(`file:${join(dir, 'pragmas.db')}`);
    try {
      // Outside a transaction a statement runs on the reads' connection; inside one, on the writer's.
      expect(await pragmasOf(db)).toEqual({ cacheSize: -SQLITE_PAGE_CACHE_KIB, mmapSize: 0 });
      expect(await db.$transaction((tx) => pragmasOf(tx))).toEqual({
        cacheSize: -SQLITE_WRITER_PAGE_CACHE_KIB,
        mmapSize: 0,
      });
      // Both together stay a few megabytes: they are the process's memory, beside the file's OS cache.
      expect(SQLITE_PAGE_CACHE_KIB + SQLITE_WRITER_PAGE_CACHE_KIB).toBeLessThanOrEqual(8 * 1024);
    } finally {
      await db.$disconnect();
    }
  });
});

describe('the default bounds', () => {
  it("are the operations page's budget: 64 MB of answers, 8 MB of rows, 12 MB of shapes", () => {
    const { cache, shapeCache } = loadConfig({});
    const mb = 1024 * 1024;
    expect(cache.maxBytes).toBe(64 * mb);
    expect(cache.recordMaxBytes).toBe(8 * mb);
    expect(shapeCache.maxBytes).toBe(12 * mb);
  });

  it("cap V8's heap and glibc's arenas with the same settings in `npm start` and in the image", () => {
    const root = new URL('../../../', import.meta.url);
    const { scripts } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
      scripts: { start: string };
    };
    const words = scripts.start.trim().split(/\s+/);
    const command = words.findIndex((word) => word === 'node');
    const assignments = words.slice(0, command);
    const start = words.slice(command);
    const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8');
    const imageCommand = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(imageCommand).toBeDefined();
    expect(JSON.parse(imageCommand!) as string[]).toEqual(start);
    expect(start.at(-1)).toBe('dist/src/server.js');
    expect(start.some((word) => /^--max-old-space-size=\d+$/.test(word))).toBe(true);
    // The image sets in ENV what `npm start` sets before `node`.
    expect(assignments).toContain('MALLOC_ARENA_MAX=2');
    const imageEnv = /^ENV ((?:.*\\\n)*.*)$/m.exec(dockerfile)?.[1] ?? '';
    for (const assignment of assignments)
      expect(imageEnv.split(/[\s\\]+/).filter(Boolean)).toContain(assignment);
  });
});
