import { type IncomingHttpHeaders, type Server, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { ResponseCache } from '../../../src/core/cache/response-cache.js';
import { acceptsGzip, gunzipped, gzipped } from '../../../src/core/cache/content-coding.js';
import { createLogger } from '../../../src/core/ops/logger.js';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent, createTerm } from '../../helpers/fixtures.js';
import { type Users, basicAuth, withRoles } from '../../helpers/users.js';

// Answers read through the response cache are sent gzip-coded to clients that accept it, and kept
// coded (src/core/cache/content-coding.ts): the two representations carry their own entity tags, both are
// hits once one is stored, and a client that does not accept gzip gets the very bytes it got before.

let h: Harness;
let server: Server;
let cache: ResponseCache;
let users: Users;
let category: { id: number };

beforeAll(async () => {
  h = await startHarness();
  const config = { ...h.config, cache: { enabled: true, maxBytes: 8 * 1024 * 1024 } };
  // Refreshed answers coded again a tenth of a second after (5 s in service), so the test need not wait.
  cache = new ResponseCache({ ...config.cache, siteTimezone: config.siteTimezone, recodeDelayMs: 100 });
  server = buildApp({ db: h.db, config, cache, logger: createLogger('silent') }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  users = await withRoles(h);
  category = await createTerm(h.db, 'tribe_events_cat', 'Concerts');
  for (let i = 0; i < 12; i++)
    await createEvent(h.db, {
      termIds: [category.id],
      title: `Evening concert ${i}`,
      fields: {
        description: `<p>Strings and brass, programme ${i}: ${'a long description '.repeat(20)}</p>`,
      },
    });
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await h.close();
});
beforeEach(() => cache.invalidate());

const LIST = `${API}/events?per_page=10`;
const SMALL = `${API}/events?per_page=1&search=no-such-words`;

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders & { etag: string };
  body: Buffer;
}

/** A read over a socket, its bytes as they came (HTTP clients inflate a coded body on their own). */
function raw(
  path: string,
  acceptEncoding: string,
  ifNoneMatch?: string,
  write?: { method: string; body: string; authorization: string },
): Promise<RawAnswer> {
  const { port } = server.address() as AddressInfo;
  const headers = {
    'accept-encoding': acceptEncoding,
    ...(ifNoneMatch && { 'if-none-match': ifNoneMatch }),
    ...(write && { authorization: write.authorization, 'content-type': 'application/json' }),
  };
  return new Promise((resolve, reject) => {
    const sent = request(
      { host: '127.0.0.1', port, path, headers, method: write?.method ?? 'GET' },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers as RawAnswer['headers'],
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    sent.on('error', reject);
    sent.end(write?.body);
  });
}

async function read(path: string, acceptEncoding: string, ifNoneMatch?: string, status = 200) {
  const answer = await raw(path, acceptEncoding, ifNoneMatch);
  expect(answer.status).toBe(status);
  return answer;
}

/** The plain bytes of an answer, whichever representation it is. */
const plainOf = (answer: RawAnswer) =>
  answer.headers['content-encoding'] === 'gzip' ? gunzipSync(answer.body) : answer.body;

describe('gzip-coded answers', () => {
  it('sends a client that accepts gzip the coded bytes of the plain answer, under their own tag', async () => {
    const plain = await read(LIST, 'identity');
    const coded = await read(LIST, 'gzip, deflate, br');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(coded.headers['content-encoding']).toBe('gzip');
    expect(plain.headers['x-cache']).toBe('miss');
    expect(coded.headers['x-cache']).toBe('hit');
    const plainBytes = plain.body;
    const codedBytes = coded.body;
    expect(gunzipSync(codedBytes).equals(plainBytes)).toBe(true);
    expect(codedBytes.length).toBeLessThan(plainBytes.length / 3);
    expect(Number(coded.headers['content-length'])).toBe(codedBytes.length);
    expect(coded.headers.etag).toBe(`${plain.headers.etag.slice(0, -1)}.gz"`);
    for (const answer of [plain, coded]) expect(answer.headers.vary).toMatch(/Accept-Encoding/);
    for (const name of ['x-tec-total', 'x-tec-totalpages', 'content-type', 'cache-control'])
      expect(coded.headers[name], name).toBe(plain.headers[name]);
  });

  it('gives both representations from one stored entry, whichever was asked first', async () => {
    const coded = await read(LIST, 'gzip');
    expect(coded.headers['x-cache']).toBe('miss');
    for (let i = 0; i < 2; i++) {
      const plain = await read(LIST, 'identity');
      expect(plain.headers['x-cache']).toBe('hit');
      expect(plain.body.equals(gunzipSync(coded.body))).toBe(true);
      const again = await read(LIST, 'gzip');
      expect(again.headers['x-cache']).toBe('hit');
      expect(again.body.equals(coded.body)).toBe(true);
    }
  });

  it('answers If-None-Match per representation: a tag matches only the bytes it was given for', async () => {
    const plain = await read(LIST, 'identity');
    const coded = await read(LIST, 'gzip');
    await read(LIST, 'gzip', coded.headers.etag, 304);
    await read(LIST, 'identity', plain.headers.etag, 304);
    const crossed = await read(LIST, 'identity', coded.headers.etag, 200);
    expect(crossed.headers['content-encoding']).toBeUndefined();
    await read(LIST, 'gzip', plain.headers.etag, 200);
  });

  it('keeps a coded single read writable: If-Match takes the version part of either tag', async () => {
    const [event] = await h.db.event.findMany({ take: 1, orderBy: { id: 'asc' } });
    const coded = await read(`${API}/events/${event!.id}`, 'gzip');
    expect(coded.headers['content-encoding']).toBe('gzip');
    expect(coded.headers.etag).toMatch(/^"m[0-9a-z]+\.[\w-]+\.gz"$/);
  });

  it('codes a refreshed answer again after answering a client that does not accept gzip', async () => {
    const before = await read(LIST, 'gzip');
    expect(before.headers['content-encoding']).toBe('gzip');
    // An event past the list's window moves only the count of a category every listed event shows.
    const created = await raw(`${API}/events`, 'identity', undefined, {
      method: 'POST',
      authorization: basicAuth(users.administrator),
      body: JSON.stringify({
        title: 'Far ahead',
        start_date: '2031-05-01 10:00:00',
        end_date: '2031-05-01 12:00:00',
        categories: [category.id],
      }),
    });
    expect(created.status).toBe(201);
    // A client that does not accept gzip is answered at once; the entry is coded after.
    const refreshed = await read(LIST, 'identity');
    expect(refreshed.headers['x-cache']).toBe('refresh');
    expect(refreshed.headers['content-encoding']).toBeUndefined();
    const counts = (
      JSON.parse(refreshed.body.toString('utf8')) as {
        events: Array<{ categories: Array<{ count: number }> }>;
      }
    ).events.map((event) => event.categories[0]!.count);
    expect(new Set(counts)).toEqual(new Set([13]));
    let again = await read(LIST, 'gzip');
    // Coded a moment after the refresh (`recodeDelayMs`).
    for (let wait = 0; again.headers['content-encoding'] !== 'gzip' && wait < 60; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await read(LIST, 'gzip');
    }
    expect(again.headers['x-cache']).toBe('hit');
    expect(again.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(again.body).equals(refreshed.body)).toBe(true);
    expect(again.headers.etag).toBe(`${refreshed.headers.etag.slice(0, -1)}.gz"`);
  });

  it('leaves a small answer plain whatever the client accepts', async () => {
    const small = await read(SMALL, 'gzip');
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString('utf8'))).toMatchObject({ events: [], total: 0 });
  });

  it('refuses the coding a client rules out, and prefers what it ranks higher', () => {
    expect(acceptsGzip('gzip, deflate')).toBe(true);
    expect(acceptsGzip('br;q=1.0, gzip;q=0.8, *;q=0.1')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('br')).toBe(false);
    expect(acceptsGzip('identity;q=1, gzip;q=0.5')).toBe(false);
  });

  it('inflates a kept body to its very bytes, one buffer of its own, whatever its size', () => {
    const text = (length: number) =>
      Buffer.from(Array.from({ length }, (_, n) => String.fromCharCode(32 + ((n * 7919) % 95))).join(''));
    for (const length of [1024, 16 * 1024, 16 * 1024 + 1, 34_000, 200_000]) {
      const plain = text(length);
      const inflated = gunzipped(gzipped(plain)!);
      expect(inflated.equals(plain)).toBe(true);
      expect(inflated.buffer.byteLength).toBe(length);
    }
    // Two gzip members: the trailer's size is the last member's alone, and both are still inflated.
    const first = text(40_000);
    const second = text(3_000);
    const members = Buffer.concat([gzipSync(first), gzipSync(second)]);
    expect(gunzipped(members).equals(Buffer.concat([first, second]))).toBe(true);
  });

  it('holds coded answers in a fraction of their plain size', async () => {
    let plainBytes = 0;
    const pages = [
      [10, 1],
      [10, 2],
      [12, 1],
      [6, 1],
      [6, 2],
      [5, 1],
      [5, 2],
      [5, 3],
    ];
    for (const [perPage, page] of pages) {
      const answer = await read(`${API}/events?per_page=${perPage}&page=${page}`, 'gzip');
      plainBytes += plainOf(answer).length;
    }
    expect(cache.size).toBe(pages.length);
    // Everything the cache holds for its answers (keys, headers, dependencies, aliases, slots; not the
    // event rows it keeps besides) against the plain bodies alone: kept plain, the bodies by themselves
    // would be more than all of it twice over.
    expect(cache.bytes - cache.recordBytes).toBeLessThan(plainBytes / 2);
  });
});
