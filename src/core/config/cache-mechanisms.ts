// The response cache's mechanisms that can be turned off one at a time (`CALENDAR_CACHE_WITHOUT`), to
// measure what each pays for its code (`npm run bench -- --mix --without …`, issue #51). Each falls back
// to what is always exact: a refresh in place becomes a drop, a verdict "it may meet", a kept
// record a read, a plain copy an inflate. Set once per process at start-up (`src/server.ts`), never by
// a request: tests that need one off set it and set it back.

export const CACHE_MECHANISMS = [
  /** A REST answer whose only change is its terms' counts is rewritten in place (`shown-counts.ts`). */
  'count-refresh',
  /** A full REST page before an event's place keeps its rows; its total is counted and rewritten. */
  'total-refresh',
  /** A REST list whose rows changed but not its members is given those rows again in place. */
  'row-refresh',
  /** Event rows as a read selected them, kept under the invalidation (`ResponseCache.keepRecords`). */
  'kept-records',
  /** REST shapes of events, kept by version (`shape-cache.ts`). */
  'kept-shapes',
  /** A page keeps its answer when a write moved an event wholly before or after its rows. */
  'page-verdicts',
  /** A search list keeps its answer when a text edit matches its terms alike before and after. */
  'search-verdicts',
  /** A GraphQL answer keeps its answer when a write changed only columns none of its fields show. */
  'column-verdicts',
  /** Plain copies of the most read coded answers, for clients that do not accept gzip. */
  'plain-copies',
] as const;

export type CacheMechanism = (typeof CACHE_MECHANISMS)[number];

const turnedOff = new Set<CacheMechanism>();

/** Whether `mechanism` runs (all do unless the process turned some off). */
export const mechanismOn = (mechanism: CacheMechanism): boolean => !turnedOff.has(mechanism);

/** Turns off exactly `mechanisms` (none: every mechanism on again). */
export function turnOffMechanisms(mechanisms: Iterable<CacheMechanism>): void {
  turnedOff.clear();
  for (const mechanism of mechanisms) turnedOff.add(mechanism);
}
