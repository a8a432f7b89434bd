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

/**
 * `json` with the counts it shows replaced by `counts`; null when one of its terms has none there (it
 * was deleted meanwhile: the answer is recomputed instead).
 */
export function withCounts(json: string, counts: ReadonlyMap<number, number>): string | null {
  let complete = true;
  const rewritten = json.replace(SHOWN_COUNT, (_run: string, _count: string, id: string) => {
    const count = counts.get(Number(id));
    if (count === undefined) complete = false;
    return `"count":${count ?? 0},"filter":"raw","id":${id}`;
  });
  return complete ? rewritten : null;
}
