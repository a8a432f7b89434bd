import { hash } from 'node:crypto';

// The content hash in an answer's entity tag. An answer showing term counts that a refresh rewrites
// is hashed in two steps: its bytes with those counts' digits masked (the base, kept with the entry),
// then the base with the counts. A refresh that wrote the digits in place (no count changed width, so
// the masked bytes are the same) hashes only the base and the counts: a few hundred bytes instead of
// the whole body. Either way the hash is a function of the bytes alone, so every instance, and a
// recomputed answer, give the same tag for the same bytes.

const DIGIT_0 = 0x30;

/**
 * Where a body shows term counts, as its edge finds them, three numbers a count: where its digits start,
 * where they end, and its term.
 */
export type CountRuns = Int32Array;

/** One call, no Hash object: refreshes hash every answer they rewrite. */
export function bytesHash(body: Buffer | string): string {
  return hash('sha1', body, 'base64url');
}

/** An answer's content hash, and its base when it shows counts at `runs` (none: a plain hash). */
export function answerHash(body: Buffer, runs?: CountRuns): { hash: string; base?: string } {
  if (!runs || runs.length === 0) return { hash: bytesHash(body) };
  const masked = Buffer.allocUnsafe(body.length);
  body.copy(masked);
  for (let run = 0; run < runs.length; run += 3) masked.fill(DIGIT_0, runs[run]!, runs[run + 1]!);
  const base = bytesHash(masked);
  return { hash: countedHash(base, body, runs), base };
}

/** The hash of `body` from the base of bytes whose counts sit where they sit in it (`answerHash`). */
export function countedHash(base: string, body: Buffer, runs: CountRuns): string {
  let counts = base;
  for (let run = 0; run < runs.length; run += 3) {
    let value = 0;
    for (let at = runs[run]!; at < runs[run + 1]!; at++) value = value * 10 + (body[at]! - DIGIT_0);
    counts += `,${value}`;
  }
  return bytesHash(counts);
}
