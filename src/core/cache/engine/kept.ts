import type { LRUCache } from 'lru-cache';
import type { Dependencies, ReadRecord, WriteEffect } from '../dependencies.js';
import { DependencyIndex } from '../dependency-index.js';
import { indexedLru, storeIndexed } from './entries.js';
import type { WriteMarks } from './write-marks.js';

// Records as reads selected them, kept beside the answers under the same invalidation
// (`ResponseCache.keepRecords`): the answers the cache does not hold assemble from these.

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

export class KeptRecords {
  /** The kept records by what they depend on: a write judges only those it may meet. */
  private readonly recordIndex = new DependencyIndex();
  /** Records as reads selected them (null: none kept). */
  readonly records: LRUCache<string, KeptRecord> | null;

  /** `recordBytes` 0 keeps no records (a cache that is off gives 0). */
  constructor(
    private readonly writes: WriteMarks,
    recordBytes: number,
    /** Told how many records each `keepRecords` took from those kept and how many it read. */
    private readonly options: { onRecords?: (kept: number, read: number) => void },
  ) {
    this.records = recordBytes > 0 ? indexedLru<KeptRecord>(recordBytes, this.recordIndex) : null;
  }

  /** Drops what a write with `effect` meets (not one wholesale: `clear`). */
  invalidate(effect: WriteEffect): void {
    // A record depends on records only (what it shows, and its terms' counts).
    if (this.records) for (const key of this.recordIndex.judge(effect).beyond) this.records.delete(key);
  }

  clear(): void {
    this.records?.clear();
  }

  /** `ResponseCache.keepRecords`. */
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
