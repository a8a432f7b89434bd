import { LRUCache } from 'lru-cache';
import type { WriteEffect } from '../dependencies.js';
import { gunzipped } from '../content-coding.js';
import { DependencyIndex } from '../dependency-index.js';
import { heldBytes } from '../held-bytes.js';
import { mechanismOn } from '../../config/cache-mechanisms.js';
import { type CacheEvent, type Entry, SLOT_BYTES, entryBytes, storeIndexed } from './entries.js';

// The stored answers of the response cache within their part of the byte bound: the entries by key and
// the plain copies of coded bodies (`ResponseCache` answers from them, and decides what is stored).

/** What the stored answers read of the cache's options (`ResponseCacheOptions`). */
export interface AnswersOptions {
  enabled: boolean;
  onEvent?: (event: CacheEvent) => void;
}

export class Answers {
  readonly entries: LRUCache<string, Entry> | null;
  /** The entries by what they depend on: a write judges only those it may meet. */
  private readonly entryIndex = new DependencyIndex();
  /**
   * Plain copies of coded bodies by entry serial, for the clients that do not accept gzip: the most
   * read are kept, so those clients' hits are not each an inflate. They share the answers' part of the
   * bound (`answerBytes`) and give way to them: the least read copies go when the answers need room.
   */
  private readonly plain: LRUCache<number, Buffer> | null;
  private serial = 0;

  /** `answerBytes`: the bound of the answers and their plain copies. */
  constructor(
    private readonly options: AnswersOptions,
    private readonly answerBytes: number,
  ) {
    this.entries = options.enabled
      ? new LRUCache<string, Entry>({
          maxSize: this.answerBytes,
          sizeCalculation: entryBytes,
          // Evicted, deleted or cleared, an entry leaves the index too (a replacement: `storeIndexed`),
          // and its plain copy goes with it.
          dispose: (entry, key, reason) => {
            this.plain?.delete(entry.serial);
            if (reason !== 'set') this.entryIndex.remove(key, entry.dependencies);
            if (reason === 'evict') options.onEvent?.('eviction');
          },
        })
      : null;
    this.plain = options.enabled
      ? new LRUCache<number, Buffer>({
          maxSize: this.answerBytes,
          sizeCalculation: (body) => SLOT_BYTES + heldBytes(body),
        })
      : null;
  }

  /** Bytes held by the entries and their plain copies, as counted against the bound. */
  get bytes(): number {
    return (this.entries?.calculatedSize ?? 0) + (this.plain?.calculatedSize ?? 0);
  }

  /** The serial of the next entry stored. */
  nextSerial(): number {
    return ++this.serial;
  }

  /** Drops the entries a write with `effect` meets (not one wholesale: `clear`). */
  invalidate(effect: WriteEffect): void {
    if (effect.all || !this.entries) return;
    for (const key of this.entryIndex.judge(effect))
      if (this.entries.delete(key)) this.options.onEvent?.('dropped');
  }

  clear(): void {
    this.entries?.clear();
    this.plain?.clear();
  }

  /** A computed answer stored under `key`; `plain`: its plain bytes, when coded. */
  store(key: string, entry: Entry, plain: Buffer | null): void {
    if (!this.entries) return;
    storeIndexed(this.entries, this.entryIndex, key, entry, entryBytes(entry, key));
    if (plain) this.keepPlain(entry.serial, plain);
    this.trimPlain();
  }

  /** Keeps the plain copy of a coded entry's body, within what the answers leave of their bound. */
  private keepPlain(serial: number, plain: Buffer): void {
    if (!mechanismOn('plain-copies')) return;
    this.plain?.set(serial, plain);
    this.trimPlain();
  }

  /** Drops the least read plain copies until the answers and their copies fit the answers' bound. */
  private trimPlain(): void {
    if (!this.plain || !this.entries) return;
    while (this.plain.size > 0 && this.entries.calculatedSize + this.plain.calculatedSize > this.answerBytes)
      this.plain.pop();
  }

  /** An entry's plain bytes: its body, or the kept (else inflated, then kept) copy of its coded body. */
  plainBody(entry: Entry): Buffer {
    if (!entry.coded) return entry.body;
    let plain = this.plain?.get(entry.serial);
    if (!plain) {
      plain = gunzipped(entry.body);
      this.keepPlain(entry.serial, plain);
    }
    return plain;
  }
}
