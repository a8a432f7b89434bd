import { hash } from 'node:crypto';

// The content hash in an answer's entity tag: a function of the bytes alone, so that every instance,
// and a recomputed answer, give the same tag for the same bytes.

/** One call, no Hash object: refreshes hash every answer they rewrite. */
export function bytesHash(body: Buffer | string): string {
  return hash('sha1', body, 'base64url');
}
