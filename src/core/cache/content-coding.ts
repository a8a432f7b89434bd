import { promisify } from 'node:util';
import { constants, gunzipSync, gzip, gzipSync } from 'node:zlib';
import Negotiator from 'negotiator';
import { ownBytes } from './held-bytes.js';

// Answers read through the response cache are sent gzip-coded to clients that accept it (RFC 9110
// §8.4), and the cache keeps them coded: a list of ten events shrinks about ten times, so the same
// memory holds ten times the answers. The coded and the plain bytes are two representations of one
// answer, each with its own strong entity tag (the plain tag with `.gz` inside the quotes), so a
// validator never matches bytes it was not given; `If-Match` reads only the version part, before the
// first dot, and ignores the suffix.

/** Bodies this small are sent and kept as they are: gzip's framing would outweigh what it saves. */
const MIN_CODED_BYTES = 1024;

/** The fastest level: a list already shrinks about tenfold, at a fifth of the default level's time. */
const LEVEL = constants.Z_BEST_SPEED;

/** Distinct `Accept-Encoding` values remembered (clients send a handful; past it, forgotten at once). */
const MAX_REMEMBERED = 256;
const decided = new Map<string, boolean>();

/** Whether a request's `Accept-Encoding` prefers gzip to the plain bytes (the same rule on every path). */
export function acceptsGzip(header: string | readonly string[] | undefined): boolean {
  if (header === undefined || header === '') return false;
  const value = typeof header === 'string' ? header : header.join(', ');
  let prefers = decided.get(value);
  if (prefers === undefined) {
    prefers =
      new Negotiator({ headers: { 'accept-encoding': value } }).encoding(['gzip', 'identity']) === 'gzip';
    if (decided.size >= MAX_REMEMBERED) decided.clear();
    decided.set(value, prefers);
  }
  return prefers;
}

/** The gzip coding of `body`, or null when it is too small to gain from it. */
export function gzipped(body: Buffer): Buffer | null {
  if (body.length < MIN_CODED_BYTES) return null;
  return smaller(gzipSync(body, { level: LEVEL }), body);
}

const gzipInPool = promisify(gzip);

/**
 * `gzipped` on libuv's thread pool, for a body no request waits for. A body a request waits for is
 * coded on the event loop: the pool adds a hop and a handle per call, and the mix measured no gain
 * from it (docs/internals/performance.md).
 */
export async function gzippedAside(body: Buffer): Promise<Buffer | null> {
  if (body.length < MIN_CODED_BYTES) return null;
  return smaller(await gzipInPool(body, { level: LEVEL }), body);
}

/** zlib's output is a view of a larger chunk: a kept copy owns exactly its bytes. */
const smaller = (coded: Buffer, body: Buffer) => (coded.length < body.length ? ownBytes(coded) : null);

/** Past this, a plain body is inflated in zlib's default chunks (no single buffer of a claimed size). */
const MAX_SIZED_INFLATE = 64 * 1024 * 1024;

export function gunzipped(coded: Buffer): Buffer {
  // Inflated into one buffer of the plain size the gzip trailer states (ISIZE, RFC 1952), where
  // zlib's 16 KB chunks make a list's body three pieces joined: a quarter less time for each hit of a
  // client that does not accept gzip. Several gzip members (the trailer gives the last one's size)
  // only cost the chunking.
  const size = coded.length >= 18 ? coded.readUInt32LE(coded.length - 4) : 0;
  const chunkSize = size >= 64 && size <= MAX_SIZED_INFLATE ? size : undefined;
  return ownBytes(gunzipSync(coded, chunkSize === undefined ? {} : { chunkSize }));
}

/** The entity tag of the gzip-coded representation of the answer tagged `etag` (a strong tag). */
export function codedEtag(etag: string): string {
  return etag.endsWith('"') ? `${etag.slice(0, -1)}.gz"` : etag;
}
