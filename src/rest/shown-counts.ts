// Where a REST answer shows a term's count as the cache can rewrite it: the WordPress term embedded in
// an event (`presentEmbeddedTerm`) serialises `"count":183,"filter":"raw","id":2`, a run that only the
// structure of the JSON can write (inside a string every quote is escaped). Such an answer stays cached
// when the count moves and gets its numbers rewritten (`Dependencies.counts`), instead of a whole miss.

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
 * `body` with the counts it shows replaced by `counts`; null when one of its terms has none there (it
 * was deleted meanwhile: the answer is recomputed instead). Read and written as bytes (the run is
 * ASCII, and no byte of a multi-byte UTF-8 character is), so a refresh never decodes the whole body;
 * the runs are found first and the answer written into one buffer (a refresh runs on every read of a
 * list after a count moved).
 */
export function withCounts(body: Buffer, counts: ReadonlyMap<number, number>): Buffer | null {
  // Each run's count digits (start, end) and its new digits.
  const starts: number[] = [];
  const ends: number[] = [];
  const digits: string[] = [];
  let length = body.length;
  for (let at = body.indexOf(COUNT_KEY); at >= 0; at = body.indexOf(COUNT_KEY, at + 1)) {
    const countStart = at + COUNT_KEY.length;
    const countEnd = digitsEnd(body, countStart);
    const followEnd = Math.min(countEnd + AFTER_COUNT.length, body.length);
    const followed = AFTER_COUNT.compare(body, countEnd, followEnd) === 0;
    if (countEnd === countStart || !followed) continue;
    const idStart = countEnd + AFTER_COUNT.length;
    const idEnd = digitsEnd(body, idStart);
    if (idEnd === idStart) continue;
    const count = counts.get(digitsValue(body, idStart, idEnd));
    if (count === undefined) return null;
    const text = String(count);
    starts.push(countStart);
    ends.push(countEnd);
    digits.push(text);
    length += text.length - (countEnd - countStart);
  }
  const out = Buffer.allocUnsafe(length);
  let copied = 0;
  let written = 0;
  for (let slot = 0; slot < starts.length; slot++) {
    written += body.copy(out, written, copied, starts[slot]);
    written += out.write(digits[slot]!, written, 'latin1');
    copied = ends[slot]!;
  }
  body.copy(out, written, copied);
  return out;
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
