import {
  type Dependencies,
  type EventSpan,
  type EventWindow,
  type WriteEffect,
  countedTerm,
  effectTest,
  recordMeets,
  shownColumnsWritten,
  writtenEvents,
} from './dependencies.js';

// Which stored answers a write changes, found without judging them all. A cache of thousands of
// answers judged one by one cost ~12 ms per write (a list shows up to ~150 records, each compared), a
// tenth of the server's time at 10 writes a second. The answers are indexed by the records, families
// term counts and rows they depend on, so those matches are set lookups; only the answers holding event
// lists are judged one by one, on their lists (`EffectTest.windowsMeet`), and only those whose filter
// could hold an event moved (a list filtered by a venue, an organizer or a term waits under it). The
// verdicts are `effectTest`'s own (test/core/cache/dependency-index.test.ts compares them over random answers).

/** What the index adds per dependency it holds (a set slot), counted against the cache's bound. */
const INDEX_SLOT_BYTES = 40;

/** The index's own memory for one answer's dependencies. */
export function indexBytes(dependencies: Dependencies): number {
  const slots =
    dependencies.records.length +
    dependencies.kinds.length +
    (dependencies.counts?.length ?? 0) +
    (dependencies.rows?.length ?? 0) +
    (dependencies.eventColumns?.length ?? 0) +
    dependencies.windows.length;
  return slots * INDEX_SLOT_BYTES;
}

/**
 * What one write does to the answers indexed (a write that changes everything is not asked): answers
 * in `countsOnly`, `totalsOnly` or `rowsOnly` (possibly several) are changed in nothing else.
 */
interface Verdicts {
  /** Changed beyond what can be rewritten in place: recomputed (`EffectTest.beyondRefresh`). */
  beyond: Set<string>;
  /** Changed in the term counts they show (`Dependencies.counts`): refreshable in place. */
  countsOnly: Set<string>;
  /** Changed in the total of the page of a list they show (`ListMeeting` `total`): refreshable too. */
  totalsOnly: Set<string>;
  /** Changed in rows they show (`Dependencies.rows`), by the events written: rendered again in place. */
  rowsOnly: Map<string, number[]>;
}

export class DependencyIndex {
  private readonly byRecord = new Map<string, Set<string>>();
  private readonly byKind = new Map<string, Set<string>>();
  private readonly byCount = new Map<number, Set<string>>();
  private readonly byRow = new Map<number, Set<string>>();
  /** The event columns answers show, where they say (`Dependencies.eventColumns`). */
  private readonly eventColumns = new Map<string, ReadonlySet<string>>();
  /**
   * Answers holding event lists, with their dependencies, under each list's filter (`filterOf`): judged
   * one by one when an event that could meet the filter moves.
   */
  private readonly byFilter = new Map<string, Map<string, Dependencies>>();

  add(key: string, dependencies: Dependencies): void {
    for (const tag of dependencies.records) put(this.byRecord, tag, key);
    for (const kind of dependencies.kinds) put(this.byKind, kind, key);
    for (const term of dependencies.counts ?? []) put(this.byCount, term, key);
    for (const event of dependencies.rows ?? []) put(this.byRow, event, key);
    if (dependencies.eventColumns) this.eventColumns.set(key, new Set(dependencies.eventColumns));
    for (const filter of filtersOf(dependencies)) {
      let answers = this.byFilter.get(filter);
      if (!answers) this.byFilter.set(filter, (answers = new Map()));
      answers.set(key, dependencies);
    }
  }

  remove(key: string, dependencies: Dependencies): void {
    for (const tag of dependencies.records) take(this.byRecord, tag, key);
    for (const kind of dependencies.kinds) take(this.byKind, kind, key);
    for (const term of dependencies.counts ?? []) take(this.byCount, term, key);
    for (const event of dependencies.rows ?? []) take(this.byRow, event, key);
    this.eventColumns.delete(key);
    for (const filter of filtersOf(dependencies)) {
      const answers = this.byFilter.get(filter);
      answers?.delete(key);
      if (answers?.size === 0) this.byFilter.delete(filter);
    }
  }

  clear(): void {
    this.byRecord.clear();
    this.byKind.clear();
    this.byCount.clear();
    this.byRow.clear();
    this.eventColumns.clear();
    this.byFilter.clear();
  }

  /** The answers a write with `effect` changes, and how. */
  judge(effect: WriteEffect): Verdicts {
    const beyond = new Set<string>();
    const addAll = (into: Set<string>, keys: Set<string> | undefined) => {
      if (keys) for (const key of keys) into.add(key);
    };
    const countTerms: number[] = [];
    const narrowed = shownColumnsWritten(effect);
    for (const tag of effect.records) {
      if (!narrowed.has(tag)) addAll(beyond, this.byRecord.get(tag));
      // An event written only in columns shown: the answers saying they show none of them stay.
      else
        for (const key of this.byRecord.get(tag) ?? [])
          if (recordMeets(tag, narrowed, this.eventColumns.get(key))) beyond.add(key);
      const term = countedTerm(tag);
      if (term !== undefined) countTerms.push(term);
    }
    // Rows of events written other than in place are no more renderable than records.
    const events = writtenEvents(effect);
    for (const [event, inPlace] of events) if (!inPlace) addAll(beyond, this.byRow.get(event));
    for (const kind of effect.kinds) addAll(beyond, this.byKind.get(kind));
    const movesEvents =
      effect.events === 'unknown' ? effect.kinds.includes('events') : effect.events.length > 0;
    const totalsOnly = new Set<string>();
    if (movesEvents) {
      const test = effectTest(effect);
      const judged = new Set<string>();
      for (const filter of this.filtersMet(effect))
        for (const [key, dependencies] of this.byFilter.get(filter) ?? []) {
          if (beyond.has(key) || judged.has(key)) continue;
          judged.add(key);
          const meeting = test.windowsMeet(dependencies);
          if (meeting === 'rows') beyond.add(key);
          else if (meeting === 'total') totalsOnly.add(key);
        }
    }
    const countsOnly = new Set<string>();
    for (const term of countTerms)
      for (const key of this.byCount.get(term) ?? []) if (!beyond.has(key)) countsOnly.add(key);
    const rowsOnly = new Map<string, number[]>();
    for (const [event, inPlace] of events)
      for (const key of inPlace ? (this.byRow.get(event) ?? []) : []) {
        if (beyond.has(key)) continue;
        const rows = rowsOnly.get(key);
        if (rows) rows.push(event);
        else rowsOnly.set(key, [event]);
      }
    return { beyond, countsOnly, totalsOnly, rowsOnly };
  }

  /** The filters whose lists an effect's moved events could meet (every one when it cannot say). */
  private filtersMet(effect: WriteEffect): Iterable<string> {
    if (effect.events === 'unknown') return this.byFilter.keys();
    const met = new Set<string>([UNFILTERED]);
    const idsOf = (kind: FilterKind, ids: readonly number[] | undefined) => {
      if (ids) for (const id of ids) met.add(`${kind}:${id}`);
      // Links unknown: any list filtered that way may hold it.
      else for (const filter of this.byFilter.keys()) if (filter.startsWith(`${kind}:`)) met.add(filter);
    };
    for (const move of effect.events)
      for (const span of [move.before, move.after] as Array<EventSpan | null>) {
        if (!span) continue;
        idsOf('venue', span.venues);
        idsOf('organizer', span.organizers);
        idsOf('term', span.terms);
      }
    return met;
  }

  /** How many parts it indexes under each heading (tests). */
  get sizes(): { records: number; kinds: number; counts: number; rows: number; filters: number } {
    return {
      records: this.byRecord.size,
      kinds: this.byKind.size,
      counts: this.byCount.size,
      rows: this.byRow.size,
      filters: this.byFilter.size,
    };
  }
}

type FilterKind = 'venue' | 'organizer' | 'term';
const UNFILTERED = 'unfiltered';

/**
 * Where a list waits in the index: under each id of its venue filter, else of its organizer filter,
 * else of its first term filter (a member has one of them: an event with none of them never meets
 * the list), else unfiltered.
 */
function filterOf(window: EventWindow): string[] {
  if (window.venues?.length) return window.venues.map((id) => `venue:${id}`);
  if (window.organizers?.length) return window.organizers.map((id) => `organizer:${id}`);
  if (window.terms[0]?.length) return window.terms[0].map((id) => `term:${id}`);
  return [UNFILTERED];
}

function filtersOf(dependencies: Dependencies): Set<string> {
  return new Set(dependencies.windows.flatMap(filterOf));
}

function put<K>(index: Map<K, Set<string>>, part: K, key: string): void {
  let keys = index.get(part);
  if (!keys) index.set(part, (keys = new Set()));
  keys.add(key);
}

function take<K>(index: Map<K, Set<string>>, part: K, key: string): void {
  const keys = index.get(part);
  if (!keys) return;
  keys.delete(key);
  if (!keys.size) index.delete(part);
}
