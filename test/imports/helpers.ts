import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Viewer } from '../../src/core/rules/permissions.js';
import type { Batch, Reader } from '../../src/imports/records.js';
import type { Scope } from '../../src/core/context/scope.js';
import type { Harness } from '../helpers/harness.js';

/** The importing side: an administrator writing into the harness's database. */
export function importScope(h: Pick<Harness, 'db' | 'config' | 'writes'>): Scope {
  const viewer: Viewer = { userId: null, login: 'importer', role: 'administrator' };
  return { db: h.db, config: h.config, writes: h.writes, viewer };
}

/** Serves the app on a free local port; the address of its TEC API. */
export async function serve(h: Harness): Promise<{ root: string; server: Server }> {
  const server = h.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return { root: `http://127.0.0.1:${port}/calendar/events/v1`, server };
}

/** Everything an async iterable yields (Node 20 has no `Array.fromAsync`). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** A reader that dies after handing over `batches` batches, as a killed process would stop. */
export function killedAfter(reader: Reader, batches: number): Reader {
  return {
    source: reader.source,
    async *read(after: string | null): AsyncIterable<Batch> {
      let handed = 0;
      for await (const batch of reader.read(after)) {
        yield batch;
        if (++handed === batches) throw new Error('killed');
      }
    },
  };
}

/** How the feed server answers one path: a body (with validators), or a status, after an optional delay. */
export interface FeedAnswer {
  /** Text is sent as UTF-8; bytes as they are. */
  body?: string | Buffer;
  status?: number;
  etag?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

/**
 * A local HTTP server standing for feeds: `set(path, answer)`, then read `url(path)`. It answers 304
 * to a request whose If-None-Match is the answer's ETag, and counts every request by path.
 */
export async function feedServer() {
  const answers = new Map<string, FeedAnswer>();
  const hits: Array<{ path: string; ifNoneMatch: string | undefined }> = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.push({ path, ifNoneMatch: req.headers['if-none-match'] });
    const answer = answers.get(path) ?? { status: 404 };
    setTimeout(() => {
      if (answer.etag && req.headers['if-none-match'] === answer.etag) return res.writeHead(304).end();
      res.writeHead(answer.status ?? 200, {
        'content-type': 'text/calendar',
        ...(answer.etag ? { etag: answer.etag } : {}),
        ...answer.headers,
      });
      res.end(answer.body ?? '');
    }, answer.delayMs ?? 0);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    hits,
    url: (path: string, host = '127.0.0.1') => `http://${host}:${port}${path}`,
    set: (path: string, answer: FeedAnswer) => void answers.set(path, answer),
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** An iCalendar feed of these lines. */
export const icsFeed = (...lines: string[]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test//Feed//EN', ...lines, 'END:VCALENDAR'].join('\r\n');

/** One VEVENT of an hour, `start` as `YYYYMMDDTHHMMSSZ`. */
export const icsEvent = (
  uid: string,
  summary: string,
  start: string,
  end = start.replace(/T(\d\d)/, (_m, hour: string) => `T${String(Number(hour) + 1).padStart(2, '0')}`),
) => ['BEGIN:VEVENT', `UID:${uid}`, `SUMMARY:${summary}`, `DTSTART:${start}`, `DTEND:${end}`, 'END:VEVENT'];
