import type { LRUCache } from 'lru-cache';
import type { Dependencies, ReadRecord, WriteEffect } from '../dependencies.js';
import { DependencyIndex } from '../dependency-index.js';
import { mechanismOn } from '../../config/cache-mechanisms.js';
import { type Mark, indexedLru, storeIndexed } from './entries.js';
import type { WriteMarks } from './write-marks.js';

// What answers are made of, kept beside them under the same invalidation (`ResponseCache.keep`,
// `ResponseCache.keepRecords`): the answers the cache does not hold assemble from these.

interface Kept {
  value: number;
  dependencies: Dependencies;
}

/** A record as a read selected it, kept until a write meets what it shows (`keepRecords`). */
interface KeptRecord {
  value: object;
  dependencies: Dependencies;
}

/** Freezes a record and everything it holds: shared by every read, none may change it. */
function deepFreeze<T extends object>(value: T): T {
  for (const part of Object.values(value))
    if (typeof part === 'object' && part !== null && !Object.isFrozen(part) && !ArrayBuffer.isView(part))
      deepFreeze(part as object);
  return Object.freeze(value);
}

export class KeptValues {
  /** The kept numbers and records by what they depend on: a write judges only those it may meet. */
  private readonly keptIndex = new DependencyIndex();
  private readonly recordIndex = new DependencyIndex();
  /** Numbers answers are made of (a list's total), kept under the same invalidation (`keep`). */
  private readonly kept: LRUCache<string, Kept> | null;
  /** Records as reads selected them, kept under the same invalidation (`keepRecords`). */
  private readonly records: LRUCache<string, KeptRecord> | null;
  /** Kept numbers being worked out, by key, since which write (`keep`: single flight). */
  private readonly keeping = new Map<string, { mark: Mark; value: Promise<number> }>();

  /** `keptBytes` null: the cache is off; `recordBytes` 0 keeps no records. */
  constructor(
    private readonly writes: WriteMarks,
    keptBytes: number | null,
    recordBytes: number,
    /** Told how many records each `keepRecords` took from those kept and how many it read. */
    private readonly options: { onRecords?: (kept: number, read: number) => void },
  ) {
    this.kept = keptBytes !== null ? indexedLru<Kept>(keptBytes, this.keptIndex) : null;
    this.records =
      keptBytes !== null && recordBytes > 0 ? indexedLru<KeptRecord>(recordBytes, this.recordIndex) : null;
  }

  /** Bytes the kept numbers hold, as counted against the cache's bound. */
  get keptBytes(): number {
    return this.kept?.calculatedSize ?? 0;
  }

  /** Whether records are kept (`keepRecords` reads every one when not). */
  get keepsRecords(): boolean {
    return this.records !== null;
  }

  /** Bytes the kept records hold, as counted against their own bound (`recordMaxBytes`). */
  get recordBytes(): number {
    return this.records?.calculatedSize ?? 0;
  }

  /** Drops what a write with `effect` meets (not one wholesale: `clear`). */
  invalidate(effect: WriteEffect): void {
    if (this.kept) {
      const { beyond, totalsOnly, rowsOnly } = this.keptIndex.judge(effect);
      for (const key of [...beyond, ...totalsOnly, ...rowsOnly.keys()]) this.kept.delete(key);
    }
    // A record depends on records only (what it shows, and its terms' counts).
    if (this.records) for (const key of this.recordIndex.judge(effect).beyond) this.records.delete(key);
  }

  clear(): void {
    this.kept?.clear();
    this.records?.clear();
  }

  /**
   * A number answers are made of (a list's total), worked out once and kept until a write meets its
   * dependencies, for the answers the cache does not hold (another page or page size, a viewer's own
   * list). Worked out every time while the cache is off or suspended; one worked out across a write
   * that meets it is not kept.
   */
  async keep(key: string, dependencies: Dependencies, compute: () => Promise<number>): Promise<number> {
    if (!this.kept || this.writes.suspended || !mechanismOn('kept-totals')) return compute();
    const kept = this.kept.get(key);
    if (kept !== undefined) return kept.value;
    const mark = this.writes.mark();
    // Pages of one list missed together count it once, unless a write came between (then it is
    // another number); after a failed count, those waiting count again together.
    const pending = this.keeping.get(key);
    if (pending && pending.mark.epoch === mark.epoch && pending.mark.applied === mark.applied)
      return pending.value.catch(() => this.keep(key, dependencies, compute));
    const flight = { mark, value: compute() };
    this.keeping.set(key, flight);
    try {
      const value = await flight.value;
      if (this.writes.current(mark, dependencies))
        storeIndexed(this.kept, this.keptIndex, key, { value, dependencies });
      return value;
    } finally {
      if (this.keeping.get(key) === flight) this.keeping.delete(key);
    }
  }

  /**
   * Records (rows as one selection reads them) by `keys`, those not kept read together by `read` (given
   * their indexes in `keys`, it answers in that order; undefined: the record is gone). A record is kept
   * frozen, shared by every read of it until a write meets its dependencies; one read across such a
   * write is not kept. Read every time while the cache is off or suspended.
   */
  async keepRecords<T extends object>(
    keys: readonly string[],
    read: (missing: readonly number[]) => Promise<ReadonlyArray<ReadRecord<T> | undefined>>,
  ): Promise<Array<T | undefined>> {
    const found: Array<T | undefined> = new Array(keys.length);
    const missing: number[] = [];
    keys.forEach((key, index) => {
      const kept = this.writes.suspended ? undefined : this.records?.get(key);
      if (kept) found[index] = kept.value as T;
      else missing.push(index);
    });
    this.options.onRecords?.(keys.length - missing.length, missing.length);
    if (!missing.length) return found;
    const mark = this.writes.mark();
    const records = await read(missing);
    missing.forEach((index, at) => {
      const record = records[at];
      if (!record) return;
      const { value, dependencies } = record;
      found[index] = value;
      if (!this.records || this.writes.suspended || !dependencies || !this.writes.current(mark, dependencies))
        return;
      storeIndexed(this.records, this.recordIndex, keys[index]!, {
        value: deepFreeze(value),
        dependencies,
      });
    });
    return found;
  }
}
