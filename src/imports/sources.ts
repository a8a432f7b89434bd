import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Config } from '../core/config/config.js';
import { ApiError } from '../core/errors/errors.js';
import { guardedLookup } from '../sync/webhook-dispatcher.js';
import { isPrivateAddress } from '../sync/webhooks.js';
import { CsvReader, type CsvType } from './csv.js';
import { IcsReader } from './ics.js';
import type { Reader } from './records.js';
import { TecReader } from './tec.js';

// Where an import reads from: a file, or a URL fetched within a size cap and a time limit, with the
// validators of the last answer (a subscribed feed that did not change answers 304 and costs nothing).
// A URL the server reads follows the webhooks' SSRF rules: the address connected to (after DNS, on
// every redirect) must not be private, loopback or link-local unless CALENDAR_WEBHOOKS_ALLOW_PRIVATE.

export const IMPORT_TYPES = ['tec', 'ics', 'csv'] as const;
export type ImportType = (typeof IMPORT_TYPES)[number];

/** The largest feed or file read (bytes). */
const MAX_SOURCE_BYTES = 50 * 1024 * 1024;
const SOURCE_TIMEOUT_MS = 60_000;
const MAX_REDIRECTS = 5;

export interface SourceSpec {
  type: ImportType;
  /** An API root (tec), a URL or a file (ics, csv). */
  location: string;
  user?: string;
  appPassword?: string;
  /** csv only. */
  csvType?: CsvType;
  /** csv only: the file's encoding, when detection should not decide (`windows-1252`, `utf-16le`). */
  encoding?: string;
}

interface Validators {
  etag?: string | null;
  lastModified?: string | null;
}

interface LoadOptions {
  /** The validators of the last answer: a source that did not change answers 304. */
  validators?: Validators;
  /** Private, loopback and link-local targets (the operator's own command line allows them). */
  allowPrivate: boolean;
  maxBytes?: number;
  /** For the whole exchange, redirects and body included. */
  timeoutMs?: number;
}

type Loaded = { changed: false } | { changed: true; text: string; validators: Validators };
/** The bytes as read: a CSV file's encoding is its reader's to find. */
type LoadedBody = { changed: false } | { changed: true; body: Buffer; validators: Validators };

export const isUrl = (location: string) => /^(https?|webcal):\/\//i.test(location);

/** A source that could not be read (refused address, error status, too large, too slow). */
function unreadable(location: string, why: string): ApiError {
  return new ApiError(502, 'import_source_unreadable', `${location}: ${why}`);
}

/** The text (UTF-8) of a file or URL, unless the URL answers that nothing changed since `validators`. */
export async function loadText(location: string, options: LoadOptions): Promise<Loaded> {
  const loaded = await loadBody(location, options);
  if (!loaded.changed) return loaded;
  return { changed: true, text: loaded.body.toString('utf8'), validators: loaded.validators };
}

/** The bytes of a file or URL, unless the URL answers that nothing changed since `validators`. */
export async function loadBody(location: string, options: LoadOptions): Promise<LoadedBody> {
  const maxBytes = options.maxBytes ?? MAX_SOURCE_BYTES;
  if (!isUrl(location)) {
    const info = await stat(location);
    if (info.size > maxBytes) throw unreadable(location, `larger than ${maxBytes} bytes`);
    return { changed: true, body: await readFile(location), validators: {} };
  }
  const timeoutMs = options.timeoutMs ?? SOURCE_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  let url = new URL(location.replace(/^webcal:/i, 'https:'));
  try {
    for (let hop = 0; ; hop++) {
      const answer = await get(url, options, maxBytes, deadline);
      if (answer.kind !== 'redirect') return answer.loaded;
      if (hop === MAX_REDIRECTS) throw unreadable(location, `more than ${MAX_REDIRECTS} redirects`);
      url = new URL(answer.to, url);
    }
  } catch (error) {
    if (deadline.aborted) throw unreadable(location, `no complete answer within ${timeoutMs} ms`);
    throw error instanceof ApiError ? error : unreadable(location, (error as Error).message);
  }
}

type Answer = { kind: 'redirect'; to: string } | { kind: 'loaded'; loaded: LoadedBody };

/** One GET, connected only to an allowed address; a body past `maxBytes` ends the exchange. */
function get(url: URL, options: LoadOptions, maxBytes: number, signal: AbortSignal): Promise<Answer> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return Promise.reject(unreadable(url.href, 'only http and https are read'));
  // A literal address is connected to without a lookup: it is checked here.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && isIP(host) && isPrivateAddress(host))
    return Promise.reject(unreadable(url.href, 'a private address (CALENDAR_WEBHOOKS_ALLOW_PRIVATE)'));
  const headers: Record<string, string> = { accept: 'text/calendar, text/csv, */*' };
  if (options.validators?.etag) headers['if-none-match'] = options.validators.etag;
  if (options.validators?.lastModified) headers['if-modified-since'] = options.validators.lastModified;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(
      url,
      { headers, lookup: guardedLookup(options.allowPrivate), agent: false, signal },
      (response) => {
        const status = response.statusCode ?? 0;
        const location = response.headers.location;
        if (status >= 300 && status < 400 && status !== 304 && location) {
          response.resume();
          return resolve({ kind: 'redirect', to: location });
        }
        if (status === 304) {
          response.resume();
          return resolve({ kind: 'loaded', loaded: { changed: false } });
        }
        if (status < 200 || status >= 300) {
          response.resume();
          return reject(unreadable(url.href, `answered ${status}`));
        }
        if (Number(response.headers['content-length'] ?? 0) > maxBytes) {
          response.destroy();
          return reject(unreadable(url.href, `larger than ${maxBytes} bytes`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            response.destroy();
            reject(unreadable(url.href, `larger than ${maxBytes} bytes`));
          } else chunks.push(chunk);
        });
        response.on('error', reject);
        response.on('close', () => {
          if (!response.complete) reject(unreadable(url.href, 'the answer was cut short'));
        });
        response.on('end', () => {
          const header = (name: string) => {
            const value = response.headers[name];
            return typeof value === 'string' ? value : null;
          };
          resolve({
            kind: 'loaded',
            loaded: {
              changed: true,
              body: Buffer.concat(chunks),
              validators: { etag: header('etag'), lastModified: header('last-modified') },
            },
          });
        });
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EPRIVATE'
          ? unreadable(url.href, `${error.message} (CALENDAR_WEBHOOKS_ALLOW_PRIVATE)`)
          : error,
      ),
    );
  });
}

/**
 * Refuses an API root whose host resolves to a private address only (TEC sources page their API with
 * their own requests: this checks the address before the run, not on each connection).
 */
export function assertPublicHost(location: string, allowPrivate: boolean): Promise<void> {
  const url = new URL(location);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (allowPrivate) return Promise.resolve();
  if (isIP(host))
    return isPrivateAddress(host)
      ? Promise.reject(unreadable(location, 'a private address (CALENDAR_WEBHOOKS_ALLOW_PRIVATE)'))
      : Promise.resolve();
  return new Promise((resolve, reject) =>
    guardedLookup(false)(host, { all: true }, (error) =>
      error ? reject(unreadable(location, error.message)) : resolve(),
    ),
  );
}

/**
 * The reader of a source; `body` is what `loadText` or `loadBody` read (not used by TEC, which pages
 * its API). A CSV file given without it is streamed from disk as it is read.
 */
export function readerFor(
  spec: SourceSpec,
  config: Pick<Config, 'siteTimezone'>,
  body?: string | Buffer,
): Reader {
  switch (spec.type) {
    case 'tec':
      return new TecReader(spec.location, { user: spec.user, appPassword: spec.appPassword });
    case 'ics':
      return new IcsReader(spec.location, typeof body === 'string' ? body : (body?.toString('utf8') ?? ''), {
        siteTimezone: config.siteTimezone,
      });
    case 'csv':
      return new CsvReader(
        spec.location,
        body ?? (() => createReadStream(spec.location)),
        spec.csvType ?? 'events',
        {
          siteTimezone: config.siteTimezone,
          encoding: spec.encoding,
        },
      );
  }
}
