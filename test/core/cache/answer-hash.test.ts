import { describe, expect, it } from 'vitest';
import { answerHash, bytesHash, countedHash } from '../../../src/core/cache/answer-hash.js';
import { countRuns, withCounts } from '../../../src/core/rest/shown/shown-counts.js';

// An answer showing counts is hashed from its bytes with the counts masked (the base) and the counts:
// a function of the bytes alone, which a refresh in place updates by hashing the counts only.

const term = (id: number, count: number) =>
  `{"name":"Term ${id}","count":${count},"filter":"raw","id":${id}}`;
const body = (title: string, one: number, two: number) =>
  Buffer.from(`[{"title":${JSON.stringify(title)},"categories":[${term(1, one)},${term(2, two)}]}]`);
const hashOf = (bytes: Buffer) => answerHash(bytes, countRuns(bytes)).hash;

describe('the content hash of an answer that shows counts', () => {
  it('is the same for the same bytes, however they were reached', () => {
    const start = body('Concert', 5, 17);
    const { base } = answerHash(start, countRuns(start));
    const rewritten = withCounts(
      Buffer.from(start),
      new Map([
        [1, 6],
        [2, 18],
      ]),
      undefined,
      true,
    )!;
    const fresh = body('Concert', 6, 18);
    expect(countedHash(base!, rewritten.body, rewritten.runs)).toBe(hashOf(fresh));
    expect(answerHash(fresh, countRuns(fresh)).base).toBe(base);
  });

  it('changes with any byte: a count, its width, or the text around the counts', () => {
    const hashes = [
      body('Concert', 5, 17),
      body('Concert', 6, 17),
      body('Concert', 5, 71),
      body('Concert', 50, 17),
      body('Concerts', 5, 17),
      body('Concert', 17, 5),
    ].map(hashOf);
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it('is the plain hash of the bytes when they show no counts', () => {
    const bytes = Buffer.from('{"title":"No terms"}');
    expect(answerHash(bytes, countRuns(bytes))).toEqual({ hash: bytesHash(bytes) });
    expect(answerHash(bytes)).toEqual({ hash: bytesHash(bytes) });
  });
});
