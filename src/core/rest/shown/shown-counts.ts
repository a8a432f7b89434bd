// Where a REST answer shows a term's count as the cache can rewrite it: the WordPress term embedded in
// an event (`presentEmbeddedTerm`) serialises `"count":183,"filter":"raw","id":2`, a run that only the
// structure of the JSON can write (inside a string every quote is escaped). Such an answer stays cached
// when the count moves and gets its numbers rewritten (`Dependencies.counts`), instead of a whole miss.

import type { CountRewrite, CountRuns } from '../../cache/response-cache.js';

const SHOWN_COUNT = /"count":(\d+),"filter":"raw","id":(\d+)/g;

/** The terms whose counts `json` shows in the rewritable run. */
export function countsShown(json: string): number[] {
  const terms = new Set<number>();
  for (const match of json.matchAll(SHOWN_COUNT)) terms.add(Number(match[2]));
  return [...terms];
}

const COUNT_KEY = Buffer.from('"count":');
const AFTER_COUNT = Buffer.from(',"filter":"raw","id":');
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/**
 * Where `body` shows counts in the rewritable run: for each run, its digits' start and end offsets and
 * its term, three numbers a run. Read as bytes (the run is ASCII, and no byte of a multi-byte UTF-8
 * character is), so finding them never decodes the whole body.
 */
export function countRuns(body: Buffer): CountRuns {
  const runs: number[] = [];
  for (let at = body.indexOf(COUNT_KEY); at >= 0; at = body.indexOf(COUNT_KEY, at + 1)) {
    const countStart = at + COUNT_KEY.length;
    const countEnd = digitsEnd(body, countStart);
    const followEnd = Math.min(countEnd + AFTER_COUNT.length, body.length);
    const followed = AFTER_COUNT.compare(body, countEnd, followEnd) === 0;
    if (countEnd === countStart || !followed) continue;
    const idStart = countEnd + AFTER_COUNT.length;
    const idEnd = digitsEnd(body, idStart);
    if (idEnd === idStart) continue;
    runs.push(countStart, countEnd, digitsValue(body, idStart, idEnd));
  }
  return Int32Array.from(runs);
}

/**
 * `body` with the counts it shows replaced by `counts`, and where its runs now are; null when one of
 * its terms has none there (it was deleted meanwhile: the answer is recomputed instead). `runs`: where
 * they are in `body`, as the last rewrite left them (found when not given), so that the answers
 * refreshed after every write that moves a count are rewritten without being searched again.
 * `inPlace`: `body` is the caller's to change, and is changed when no count changes width (the usual
 * case: a count moves by one), so that a refresh allocates nothing.
 */
export function withCounts(
  body: Buffer,
  counts: ReadonlyMap<number, number>,
  runs: CountRuns = countRuns(body),
  inPlace = false,
): { body: Buffer; runs: CountRuns } | null {
  const digits: string[] = [];
  let length = body.length;
  let sameWidths = true;
  for (let run = 0; run < runs.length; run += 3) {
    const count = counts.get(runs[run + 2]!);
    if (count === undefined) return null;
    const text = String(count);
    digits.push(text);
    const width = runs[run + 1]! - runs[run]!;
    if (text.length !== width) sameWidths = false;
    length += text.length - width;
  }
  if (inPlace && sameWidths) {
    for (let run = 0; run < runs.length; run += 3) {
      // Digit by digit from the end, as one write per run costs more than the digits themselves.
      let value = counts.get(runs[run + 2]!)!;
      for (let at = runs[run + 1]! - 1; at >= runs[run]!; at--) {
        body[at] = DIGIT_0 + (value % 10);
        value = Math.floor(value / 10);
      }
    }
    return { body, runs };
  }
  const out = Buffer.allocUnsafe(length);
  const moved = new Int32Array(runs.length);
  let copied = 0;
  let written = 0;
  for (let run = 0; run < runs.length; run += 3) {
    written += body.copy(out, written, copied, runs[run]);
    moved[run] = written;
    written += out.write(digits[run / 3]!, written, 'latin1');
    moved[run + 1] = written;
    moved[run + 2] = runs[run + 2]!;
    copied = runs[run + 1]!;
  }
  body.copy(out, written, copied);
  return { body: out, runs: moved };
}

function digitsEnd(bytes: Buffer, from: number): number {
  let end = from;
  while (end < bytes.length && bytes[end]! >= DIGIT_0 && bytes[end]! <= DIGIT_9) end++;
  return end;
}

function digitsValue(bytes: Buffer, from: number, to: number): number {
  let value = 0;
  for (let at = from; at < to; at++) value = value * 10 + (bytes[at]! - DIGIT_0);
  return value;
}

/** The REST edge's counts, as the cache finds and rewrites them (`AnswerMeta.rewriteCounts`). */
export const SHOWN_COUNTS: CountRewrite = { find: countRuns, rewrite: withCounts };
