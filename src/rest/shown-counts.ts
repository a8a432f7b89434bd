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
 * ASCII, and no byte of a multi-byte UTF-8 character is), so a refresh never decodes the whole body.
 */
export function withCounts(body: Buffer, counts: ReadonlyMap<number, number>): Buffer | null {
  const parts: Buffer[] = [];
  let copied = 0;
  for (let at = body.indexOf(COUNT_KEY); at >= 0; at = body.indexOf(COUNT_KEY, at + 1)) {
    const countStart = at + COUNT_KEY.length;
    const countEnd = digitsEnd(body, countStart);
    const followEnd = Math.min(countEnd + AFTER_COUNT.length, body.length);
    const followed = AFTER_COUNT.compare(body, countEnd, followEnd) === 0;
    if (countEnd === countStart || !followed) continue;
    const idStart = countEnd + AFTER_COUNT.length;
    const idEnd = digitsEnd(body, idStart);
    if (idEnd === idStart) continue;
    const count = counts.get(Number(body.toString('latin1', idStart, idEnd)));
    if (count === undefined) return null;
    parts.push(body.subarray(copied, countStart), Buffer.from(String(count)));
    copied = countEnd;
  }
  parts.push(body.subarray(copied));
  return Buffer.concat(parts);
}

function digitsEnd(bytes: Buffer, from: number): number {
  let end = from;
  while (end < bytes.length && bytes[end]! >= DIGIT_0 && bytes[end]! <= DIGIT_9) end++;
  return end;
}
