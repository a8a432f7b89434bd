import { type Dependencies, type WriteEffect, recordTag } from '../domain/dependencies.js';

// Which stored answers a write could concern, found without walking them all. A cache of thousands of
// answers judged one by one cost ~12 ms per write (a list shows up to ~150 records, each compared), a
// tenth of the server's time at 10 writes a second. The answers are indexed by the records, families
// and term counts they depend on; a write's candidates are those sharing one with it, plus the answers
// holding event lists when it moved events. Candidates are still judged exactly (`effectTest`): the
// index only rules out answers that share nothing with the write.

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

export class DependencyIndex {
  private readonly byRecord = new Map<string, Set<string>>();
  private readonly byKind = new Map<string, Set<string>>();
  private readonly byCount = new Map<number, Set<string>>();
  /** Answers holding event lists: any event moved may join, leave or move within one of them. */
  private readonly windowed = new Set<string>();

  add(key: string, dependencies: Dependencies): void {
    for (const tag of dependencies.records) put(this.byRecord, tag, key);
    for (const kind of dependencies.kinds) put(this.byKind, kind, key);
    for (const term of dependencies.counts ?? []) put(this.byCount, term, key);
    if (dependencies.windows.length) this.windowed.add(key);
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

  /** The answers a write with `effect` may affect: every one it does, and some it does not. */
  candidates(effect: WriteEffect): Set<string> {
    const found = new Set<string>();
    const addAll = (keys: Set<string> | undefined) => {
      if (keys) for (const key of keys) found.add(key);
    };
    for (const tag of effect.records) {
      addAll(this.byRecord.get(tag));
      if (tag.startsWith(COUNT_TAG)) addAll(this.byCount.get(Number(tag.slice(COUNT_TAG.length))));
    }
    for (const kind of effect.kinds) addAll(this.byKind.get(kind));
    // The same rule as `effectTest`: moves that cannot be told concern the lists through `events`.
    const movesEvents =
      effect.events === 'unknown' ? effect.kinds.includes('events') : effect.events.length > 0;
    if (movesEvents) addAll(this.windowed);
    return found;
  }

  /** How many answers it holds under each part (tests). */
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
