import { type Dependencies, type WriteEffect, effectTest, recordTag } from '../domain/dependencies.js';

// Which stored answers a write changes, found without judging them all. A cache of thousands of
// answers judged one by one cost ~12 ms per write (a list shows up to ~150 records, each compared), a
// tenth of the server's time at 10 writes a second. The answers are indexed by the records, families
// and term counts they depend on, so those matches are set lookups; only the answers holding event
// lists are judged one by one, and only on their lists (`EffectTest.windowsMeet`). The verdicts are
// `effectTest`'s own (test/cache/dependency-index.test.ts compares them over random answers).

const COUNT_TAG = recordTag('term-count', '');

/** What the index adds per dependency it holds (a set slot), counted against the cache's bound. */
export const INDEX_SLOT_BYTES = 40;

/** The index's own memory for one answer's dependencies. */
export function indexBytes(dependencies: Dependencies): number {
  const slots =
    dependencies.records.length +
    dependencies.kinds.length +
    (dependencies.counts?.length ?? 0) +
    (dependencies.windows.length ? 1 : 0);
  return slots * INDEX_SLOT_BYTES;
}

/** What one write does to the answers indexed (a write that changes everything is not asked). */
export interface Verdicts {
  /** Changed beyond the term counts they show: recomputed (`EffectTest.beyondCounts`). */
  beyond: Set<string>;
  /** Changed only in the term counts they show (`Dependencies.counts`): refreshable in place. */
  countsOnly: Set<string>;
}

export class DependencyIndex {
  private readonly byRecord = new Map<string, Set<string>>();
  private readonly byKind = new Map<string, Set<string>>();
  private readonly byCount = new Map<number, Set<string>>();
  /** Answers holding event lists, with their dependencies: judged one by one when events move. */
  private readonly windowed = new Map<string, Dependencies>();

  add(key: string, dependencies: Dependencies): void {
    for (const tag of dependencies.records) put(this.byRecord, tag, key);
    for (const kind of dependencies.kinds) put(this.byKind, kind, key);
    for (const term of dependencies.counts ?? []) put(this.byCount, term, key);
    if (dependencies.windows.length) this.windowed.set(key, dependencies);
  }

  remove(key: string, dependencies: Dependencies): void {
    for (const tag of dependencies.records) take(this.byRecord, tag, key);
    for (const kind of dependencies.kinds) take(this.byKind, kind, key);
    for (const term of dependencies.counts ?? []) take(this.byCount, term, key);
    this.windowed.delete(key);
  }

  clear(): void {
    this.byRecord.clear();
    this.byKind.clear();
    this.byCount.clear();
    this.windowed.clear();
  }

  /** The answers a write with `effect` changes, and how. */
  judge(effect: WriteEffect): Verdicts {
    const beyond = new Set<string>();
    const addAll = (into: Set<string>, keys: Set<string> | undefined) => {
      if (keys) for (const key of keys) into.add(key);
    };
    const countTerms: number[] = [];
    for (const tag of effect.records) {
      addAll(beyond, this.byRecord.get(tag));
      if (tag.startsWith(COUNT_TAG)) countTerms.push(Number(tag.slice(COUNT_TAG.length)));
    }
    for (const kind of effect.kinds) addAll(beyond, this.byKind.get(kind));
    const movesEvents =
      effect.events === 'unknown' ? effect.kinds.includes('events') : effect.events.length > 0;
    if (movesEvents) {
      const test = effectTest(effect);
      for (const [key, dependencies] of this.windowed)
        if (!beyond.has(key) && test.windowsMeet(dependencies)) beyond.add(key);
    }
    const countsOnly = new Set<string>();
    for (const term of countTerms)
      for (const key of this.byCount.get(term) ?? []) if (!beyond.has(key)) countsOnly.add(key);
    return { beyond, countsOnly };
  }

  /** How many parts it indexes under each heading (tests). */
  get sizes(): { records: number; kinds: number; counts: number; windowed: number } {
    return {
      records: this.byRecord.size,
      kinds: this.byKind.size,
      counts: this.byCount.size,
      windowed: this.windowed.size,
    };
  }
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
