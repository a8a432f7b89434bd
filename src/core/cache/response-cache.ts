import type { Context as KoaContext } from 'koa';
import { LRUCache } from 'lru-cache';
import { DateTime } from 'luxon';
import {
  ANY_WRITE,
  type Dependencies,
  EVERYTHING,
  type ReadRecord,
  type WriteEffect,
  affects,
  withoutTexts,
} from './dependencies.js';
import { versionedEtag } from '../rules/versions.js';
import { acceptsGzip, codedEtag, gunzipped, gzipped, gzippedAside } from './content-coding.js';
import { bytesHash } from './answer-hash.js';
import { DependencyIndex, indexBytes } from './dependency-index.js';
import { heldBytes, ownBytes, stringBytes } from './held-bytes.js';
import { mechanismOn } from '../config/cache-mechanisms.js';

// The one response cache of REST and GraphQL reads. Entries are whole answers (status, headers, bytes)
// for anonymous viewers, each with what it depends on (the records it shows, the families its lookups
// read, the date windows of its event lists: `core/cache/dependencies.ts`). A committed write's effect drops
// exactly the entries it meets (`invalidate`, one path for both APIs, called by the write pipeline's
// afterCommit hook and by the invalidation bus with the effects of other instances' writes).

interface Entry {
  status: number;
  /** The plain representation's headers (its entity tag; no `Content-Encoding`). */
  headers: Record<string, string>;
  /** The body as kept: gzip-coded when `coded` (`core/cache/content-coding.ts`), else the plain bytes. */
  body: Buffer;
  coded: boolean;
  /** Which store this is: an alias names the entry it was recorded for, never a later one. */
  serial: number;
  dependencies: Dependencies;
  /** The record version its entity tag starts with (a single record's answer). */
  version?: string;
  /** How its edge counts again and rewrites the list total it shows (`AnswerMeta.rewriteTotal`). */
  rewriteTotal?: TotalRewrite;
  /** Writes changed the total it shows, and nothing it cannot rewrite: the next read refreshes it. */
  staleTotal?: boolean;
  /** How its edge renders again the rows it shows (`AnswerMeta.rewriteRows`). */
  rewriteRows?: RowRewrite;
  /** Writes changed these events, shown as its rows, and nothing it cannot rewrite: the next read renders them. */
  staleRows?: number[];
}

const isStale = (entry: Entry) => entry.staleTotal === true || entry.staleRows !== undefined;

/** A body and the headers kept with it (lower-case names, as Koa gives them). */
export interface Representation {
  body: Buffer;
  headers: Record<string, string>;
}

/** How an answer's list total is counted again and rewritten (`AnswerMeta.rewriteTotal`). */
export interface TotalRewrite {
  recount: () => Promise<number>;
  /** What it keeps alive beside the answer (its count's query), counted against the bound. */
  holds: unknown;
  /** The answer with `total` in place of the one it shows; null when more would change (recompute it). */
  rewrite(answer: Representation, total: number): Representation | null;
}

/** How an answer's rows are rendered again (`AnswerMeta.rewriteRows`). */
export interface RowRewrite {
  /** What it keeps alive beside the answer (what rendering reads), counted against the bound. */
  holds: unknown;
  /**
   * Names what `read` returns: two answers of one reader read the same rows of the same events until
   * the next write, so the cache reads them once for every answer that write made stale.
   */
  reader: string;
  /** These events' rows as they read now; null when the reader refused. */
  read(events: readonly number[]): Promise<readonly unknown[] | null>;
  /**
   * The rows read for `events`, ready to replace those of the answer's plain body (the rewrite returns
   * null when they do not fit it); null when one cannot be rendered in place: gone from the viewer's
   * lists, or showing records or counts the answer does not depend on. Either null: the answer is
   * recomputed.
   */
  fit(
    rows: readonly unknown[] | null,
    events: readonly number[],
    dependencies: Dependencies,
  ): ((body: Buffer) => Buffer | null) | null;
}

/** Where the cache's writes stood when a computation began (`current` compares it afterwards). */
interface Mark {
  epoch: number;
  applied: number;
}

interface Kept {
  value: number;
  dependencies: Dependencies;
}

/** A record as a read selected it, kept until a write meets what it shows (`keepRecords`). */
interface KeptRecord {
  value: object;
  dependencies: Dependencies;
}

/** Row reads shared between two writes at most (`renderedRows`): past it, they are forgotten. */
const MAX_SHARED_ROW_READS = 1_000;

/** Refreshed bodies being coded again on the thread pool at once; the others wait their turn. */
const MAX_RECODING = 8;
/**
 * How long a refreshed body stays plain before it is coded again: while counts move every few seconds,
 * most are refreshed again first (from the plain bytes: no inflating, no coding in between). Measured:
 * 0.5 s spent a fifth more CPU per read at 10 writes a second; never coding again filled the bound
 * with plain bodies (evictions, then misses). A body that does not fit plain is coded at once.
 */
const RECODE_DELAY_MS = 5_000;

/** How many recent effects are remembered to decide whether an answer computed meanwhile is current. */
const RECENT_EFFECTS = 512;

// One byte bound (CALENDAR_CACHE_MB) covers everything the cache keeps: the entries, the aliases that
// lead to them and the kept numbers, each counted as what it holds in memory (`held-bytes.ts`): a body's
// whole backing store, its key, headers and dependencies, and the slots of the LRU that holds it.
/** The share of the bound the aliases may use (a URL and a few headers each, one per spelling). */
const ALIAS_SHARE = 1 / 8;
/** The share of the bound the kept numbers may use (a number and its dependencies each). */
const KEPT_SHARE = 1 / 64;
/** The kept records' bound when none is given, as a share of the answers' (`recordMaxBytes`). */
const RECORD_SHARE = 1 / 8;
/** An LRU slot (its key map entry and five parallel arrays) and the record around a held value. */
const SLOT_BYTES = 128;

/**
 * What an entry's dependencies hold (in and out of the index), and what its rewrites keep alive: a
 * refreshed entry keeps the very objects, so each is measured once.
 */
const measured = new WeakMap<object, number>();

function measuredOnce(value: object, measure: () => number): number {
  let bytes = measured.get(value);
  if (bytes === undefined) {
    bytes = measure();
    measured.set(value, bytes);
  }
  return bytes;
}

const rewriteBytes = (rewrite: { holds: unknown }) => measuredOnce(rewrite, () => heldBytes(rewrite.holds));

function entryBytes(entry: Entry, key: string): number {
  const dependencies = entry.dependencies;
  return (
    SLOT_BYTES +
    stringBytes(key) +
    heldBytes(entry.body) +
    heldBytes(entry.headers) +
    measuredOnce(dependencies, () => heldBytes(dependencies) + indexBytes(dependencies)) +
    (entry.rewriteTotal ? rewriteBytes(entry.rewriteTotal) : 0) +
    (entry.rewriteRows ? rewriteBytes(entry.rewriteRows) : 0)
  );
}

/**
 * A request's own spelling (raw URL, `Accept`, day, GraphQL body) of an entry's normalised key,
 * recorded when the normal path served or stored that entry for an anonymous request; the headers
 * are that request's final ones (`Allow`, `Cache-Control`, validators) minus those of the exchange.
 */
export interface Alias {
  key: string;
  serial: number;
  /** The representation it was recorded with: gzip-coded or plain. */
  coded: boolean;
  /** Its requests accept gzip (part of its key): coded once the entry is, after a refresh's recoding. */
  acceptsGzip: boolean;
  headers: Array<[string, string]>;
  vary: string[];
  /** The route template the metrics count it under. */
  route: string;
}

/** An alias's answer: the bytes to send, and whether they were refreshed for it (`X-Cache`). */
export interface AliasHit {
  alias: Alias;
  body: Buffer;
  as: 'hit' | 'refresh';
}

/** What `serve` leaves on `ctx.state.cacheEntry` when the answer is a shared entry (hit or stored). */
export interface ServedEntry {
  key: string;
  serial: number;
  /** The bytes sent: the entry's coded body, or its plain copy. */
  body: Buffer;
  coded: boolean;
}

/** What an answer's storing and validators depend on, returned with it by the work that made it. */
export interface AnswerMeta {
  /** A single record's version: its entity tag starts with it (what `If-Match` compares on a write). */
  version?: string;
  /** The answer depends on the time of day (a phrase such as `now`), not only the date: never stored. */
  clockSensitive?: boolean;
  /** What a write must meet to make the answer stale; absent: any write does. */
  dependencies?: Dependencies;
  /** The answer reports a failure (a GraphQL one is still a 200): never stored, so never shared. */
  hasErrors?: boolean;
  /**
   * How to count again and rewrite the total of the one list page the answer shows: a write that
   * changes only who is in the list after the page (`ListMeeting` `total`) leaves it cached, to be
   * refreshed with the current total when next read.
   */
  rewriteTotal?: TotalRewrite;
  /**
   * How to render again the rows of `dependencies.rows`: a write to one of those events that changes
   * nothing else of the answer (who is in its list, their order, the total) leaves it cached, to be
   * refreshed with those rows rendered again when next read.
   */
  rewriteRows?: RowRewrite;
}

/** Headers an entry never keeps: they belong to one exchange. */
const EXCHANGE_HEADERS = new Set(['content-length', 'date', 'connection', 'set-cookie', 'x-request-id']);

/**
 * `invalidation`: a write's effect applied; `dropped`: one entry it made stale; `shared`: a miss that
 * waited for the same answer being computed by another request instead of computing it again;
 * `refreshed`: a read answered from an entry whose list total or rows a write had changed, with those
 * read again and rewritten (neither a hit nor a miss: a count or a few rows instead of the whole answer).
 */
export type CacheEvent = 'hit' | 'miss' | 'refreshed' | 'eviction' | 'invalidation' | 'dropped' | 'shared';

export interface ResponseCacheOptions {
  enabled: boolean;
  maxBytes: number;
  siteTimezone: string;
  /** Told of every hit, miss, eviction (to stay within the byte bound) and invalidation: metrics. */
  onEvent?: (event: CacheEvent) => void;
  /** Told how many records each `keepRecords` took from those kept and how many it read: metrics. */
  onRecords?: (kept: number, read: number) => void;
  /** The clock (milliseconds since the epoch) that decides the site-zone day of a key; tests set it. */
  now?: () => number;
  /**
   * The bound of the kept records (`keepRecords`), beside `maxBytes`: an answer that misses assembles
   * the rows it shows from them. By default an eighth of `maxBytes`; 0 keeps none.
   */
  recordMaxBytes?: number;
  /** How long a refreshed body stays plain before it is coded again (`RECODE_DELAY_MS`); tests set it. */
  recodeDelayMs?: number;
}

/** Headers of a final answer that an alias never keeps: they are set per exchange. */
const ALIAS_SKIPPED = new Set([...EXCHANGE_HEADERS, 'x-cache', 'vary']);

/**
 * A byte-bounded LRU of values kept under the invalidation (kept numbers, kept records), each counted
 * with its key and its dependencies' index slots; one that goes (evicted, deleted, cleared) leaves
 * `index` too (a replacement: `storeIndexed`).
 */
function indexedLru<V extends { dependencies: Dependencies }>(maxSize: number, index: DependencyIndex) {
  return new LRUCache<string, V>({
    maxSize,
    sizeCalculation: (kept, key) =>
      SLOT_BYTES + stringBytes(key) + heldBytes(kept) + indexBytes(kept.dependencies),
    dispose: (kept, key, reason) => {
      if (reason !== 'set') index.remove(key, kept.dependencies);
    },
  });
}

/** Freezes a record and everything it holds: shared by every read, none may change it. */
function deepFreeze<T extends object>(value: T): T {
  for (const part of Object.values(value))
    if (typeof part === 'object' && part !== null && !Object.isFrozen(part) && !ArrayBuffer.isView(part))
      deepFreeze(part as object);
  return Object.freeze(value);
}

export function strongEtag(body: Buffer | string): string {
  return `"${bytesHash(body)}"`;
}

/** An answer's strong tag from its content hash; a single record's starts with its version. */
const etagOf = (hash: string, version: string | undefined) =>
  version ? versionedEtag(version, hash) : `"${hash}"`;

export class ResponseCache {
  private readonly entries: LRUCache<string, Entry> | null;
  /** The entries and the kept numbers by what they depend on: a write judges only those it may meet. */
  private readonly entryIndex = new DependencyIndex();
  private readonly keptIndex = new DependencyIndex();
  private readonly recordIndex = new DependencyIndex();
  private readonly aliases: LRUCache<string, Alias> | null;
  /**
   * Plain copies of coded bodies by entry serial, for the clients that do not accept gzip: the most
   * read are kept, so those clients' hits are not each an inflate. They share the answers' part of the
   * bound (`answerBytes`) and give way to them: the least read copies go when the answers need room.
   */
  private readonly plain: LRUCache<number, Buffer> | null;
  /** The bound less the aliases' and kept numbers' shares: the answers and their plain copies. */
  private readonly answerBytes: number;
  private serial = 0;
  private readonly now: () => number;
  /** The site-zone day of `now()` and the instants where it starts and ends (recomputed outside). */
  private day = { name: '', from: 0, until: -1 };
  /**
   * The effects applied lately, the last one numbered `applied`: an answer computed while one of them
   * arrived is stored only if none of those meets its dependencies (read-during-write race).
   */
  private readonly recent: WriteEffect[] = [];
  private applied = 0;
  /** Bumped when the cache is emptied wholesale (suspend, resume): nothing computed before is stored. */
  private epoch = 0;
  private readonly listeners: Array<(effect: WriteEffect) => void> = [];
  /** While the invalidations of other instances cannot reach this one, nothing is served or stored. */
  private suspended = false;
  /** Numbers answers are made of (a list's total), kept under the same invalidation (`keep`). */
  private readonly kept: LRUCache<string, Kept> | null;
  /** Records as reads selected them, kept under the same invalidation (`keepRecords`). */
  private readonly records: LRUCache<string, KeptRecord> | null;
  /** Kept numbers being worked out, by key, since which write (`keep`: single flight). */
  private readonly keeping = new Map<string, { mark: Mark; value: Promise<number> }>();
  /** Answers being computed, by key: concurrent misses of one key wait for the first (single flight). */
  private readonly computing = new Map<string, Promise<unknown>>();
  /**
   * Rows read since the last write, by reader and events: the lists one write made stale show its
   * event's row alike, and each would otherwise read and shape it again. Forgotten at every write.
   */
  private readonly rowReads = new Map<string, Promise<readonly unknown[] | null>>();
  /** Refreshed bodies being coded again (`recode`). */
  private recoding = 0;
  /** Refreshed entries due to be coded again, in the order they became due. */
  private readonly recodeQueue: Array<{ key: string; entry: Entry }> = [];
  /** Refreshed entries whose bodies are still plain, by key, oldest first (`recode`, `makeRoom`). */
  private readonly plainEntries = new Map<string, Entry>();

  constructor(private readonly options: ResponseCacheOptions) {
    const aliasBytes = Math.max(1, Math.floor(options.maxBytes * ALIAS_SHARE));
    const keptBytes = Math.max(1, Math.floor(options.maxBytes * KEPT_SHARE));
    const recordBytes = options.recordMaxBytes ?? Math.floor(options.maxBytes * RECORD_SHARE);
    this.answerBytes = Math.max(1, options.maxBytes - aliasBytes - keptBytes);
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
    this.aliases = options.enabled
      ? new LRUCache<string, Alias>({
          maxSize: aliasBytes,
          sizeCalculation: (alias, key) => SLOT_BYTES + stringBytes(key) + heldBytes(alias),
        })
      : null;
    this.plain = options.enabled
      ? new LRUCache<number, Buffer>({
          maxSize: this.answerBytes,
          sizeCalculation: (body) => SLOT_BYTES + heldBytes(body),
        })
      : null;
    this.kept = options.enabled ? indexedLru<Kept>(keptBytes, this.keptIndex) : null;
    this.records =
      options.enabled && recordBytes > 0 ? indexedLru<KeptRecord>(recordBytes, this.recordIndex) : null;
    this.now = options.now ?? Date.now;
  }

  /** The zone whose day keys entries (and whose clock a relative date phrase reads). */
  get siteTimezone(): string {
    return this.options.siteTimezone;
  }

  get enabled(): boolean {
    return this.entries !== null;
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }

  /** Bytes held (entries, aliases and kept numbers), as counted against the bound. */
  get bytes(): number {
    return (
      (this.entries?.calculatedSize ?? 0) +
      (this.aliases?.calculatedSize ?? 0) +
      (this.plain?.calculatedSize ?? 0) +
      (this.kept?.calculatedSize ?? 0)
    );
  }

  /**
   * Drops every stored answer that a write with `effect` can change (`EVERYTHING` drops them all).
   * `remote`: another instance wrote (told by the invalidation bus), so the listeners — the bus
   * itself — are not told again.
   */
  invalidate(effect: WriteEffect = EVERYTHING, origin: 'local' | 'remote' = 'local'): void {
    // Remembered without texts (bounded memory): an answer computed meanwhile is judged more strictly.
    this.recent.push(withoutTexts(effect));
    if (this.recent.length > RECENT_EFFECTS) this.recent.shift();
    this.applied++;
    this.options.onEvent?.('invalidation');
    this.rowReads.clear();
    if (effect.all) {
      const count = this.entries?.size ?? 0;
      this.clear();
      for (let i = 0; i < count; i++) this.options.onEvent?.('dropped');
    } else {
      if (this.entries) {
        const { beyond, totalsOnly, rowsOnly } = this.entryIndex.judge(effect);
        for (const key of totalsOnly) {
          const entry = this.entries.peek(key);
          if (entry?.rewriteTotal && mechanismOn('total-refresh')) entry.staleTotal = true;
          else beyond.add(key);
        }
        for (const [key, events] of rowsOnly) {
          const entry = this.entries.peek(key);
          if (entry?.rewriteRows && mechanismOn('row-refresh'))
            entry.staleRows = [...new Set([...(entry.staleRows ?? []), ...events])];
          else beyond.add(key);
        }
        for (const key of beyond) if (this.entries.delete(key)) this.options.onEvent?.('dropped');
      }
      if (this.kept) {
        const { beyond, totalsOnly, rowsOnly } = this.keptIndex.judge(effect);
        for (const key of [...beyond, ...totalsOnly, ...rowsOnly.keys()]) this.kept.delete(key);
      }
      // A record depends on records only (what it shows, and its terms' counts).
      if (this.records) for (const key of this.recordIndex.judge(effect).beyond) this.records.delete(key);
    }
    if (origin === 'local') for (const listener of this.listeners) listener(effect);
  }

  /**
   * `rewrite`'s rows of `events` fitted to an answer, read once for every answer of its reader since
   * the last write (a read begun before a write is forgotten with it, so none outlives what it read).
   */
  private async renderedRows(
    rewrite: RowRewrite,
    events: readonly number[],
    dependencies: Dependencies,
  ): Promise<((body: Buffer) => Buffer | null) | null> {
    const sorted = [...events].sort((a, b) => a - b);
    const key = `${rewrite.reader}\u0000${this.today()}\u0000${sorted.join(',')}`;
    let rows = this.rowReads.get(key);
    if (!rows) {
      if (this.rowReads.size >= MAX_SHARED_ROW_READS) this.rowReads.clear();
      rows = rewrite.read(sorted);
      this.rowReads.set(key, rows);
      // A failed read is not shared: the next answer reads again.
      rows.catch(() => {
        if (this.rowReads.get(key) === rows) this.rowReads.delete(key);
      });
    }
    return rewrite.fit(await rows, events, dependencies);
  }

  private clear(): void {
    this.rowReads.clear();
    this.entries?.clear();
    this.aliases?.clear();
    this.plain?.clear();
    this.recodeQueue.length = 0;
    this.plainEntries.clear();
    this.kept?.clear();
    this.records?.clear();
  }

  /**
   * Stops sharing answers (the bus lost its connection: other instances' writes would go unseen);
   * `resume` starts again from empty, since invalidations may have been missed meanwhile.
   */
  suspend(): void {
    this.suspended = true;
    this.epoch++;
    this.clear();
  }

  resume(): void {
    this.epoch++;
    this.clear();
    this.suspended = false;
  }

  /** A mark to compare with `current` once an answer is computed. */
  private mark(): Mark {
    return { epoch: this.epoch, applied: this.applied };
  }

  /** Whether an answer computed since `mark` with these dependencies is still current. */
  private current(mark: Mark, dependencies: Dependencies): boolean {
    if (mark.epoch !== this.epoch) return false;
    const since = this.applied - mark.applied;
    if (since === 0) return true;
    if (since > this.recent.length) return false;
    return !this.recent.slice(-since).some((effect) => affects(effect, dependencies));
  }

  /**
   * A number answers are made of (a list's total), worked out once and kept until a write meets its
   * dependencies, for the answers the cache does not hold (another page or page size, a viewer's own
   * list). Worked out every time while the cache is off or suspended; one worked out across a write
   * that meets it is not kept.
   */
  async keep(key: string, dependencies: Dependencies, compute: () => Promise<number>): Promise<number> {
    if (!this.kept || this.suspended || !mechanismOn('kept-totals')) return compute();
    const kept = this.kept.get(key);
    if (kept !== undefined) return kept.value;
    const mark = this.mark();
    // Pages of one list missed together count it once, unless a write came between (then it is
    // another number); after a failed count, those waiting count again together.
    const pending = this.keeping.get(key);
    if (pending && pending.mark.epoch === mark.epoch && pending.mark.applied === mark.applied)
      return pending.value.catch(() => this.keep(key, dependencies, compute));
    const flight = { mark, value: compute() };
    this.keeping.set(key, flight);
    try {
      const value = await flight.value;
      if (this.current(mark, dependencies))
        this.storeIndexed(this.kept, this.keptIndex, key, { value, dependencies });
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
      const kept = this.suspended ? undefined : this.records?.get(key);
      if (kept) found[index] = kept.value as T;
      else missing.push(index);
    });
    this.options.onRecords?.(keys.length - missing.length, missing.length);
    if (!missing.length) return found;
    const mark = this.mark();
    const records = await read(missing);
    missing.forEach((index, at) => {
      const record = records[at];
      if (!record) return;
      const { value, dependencies } = record;
      found[index] = value;
      if (!this.records || this.suspended || !dependencies || !this.current(mark, dependencies)) return;
      this.storeIndexed(this.records, this.recordIndex, keys[index]!, {
        value: deepFreeze(value),
        dependencies,
      });
    });
    return found;
  }

  /** Whether records are kept (`keepRecords` reads every one when not). */
  get keepsRecords(): boolean {
    return this.records !== null;
  }

  /** Bytes the kept records hold, as counted against their own bound (`recordMaxBytes`). */
  get recordBytes(): number {
    return this.records?.calculatedSize ?? 0;
  }

  /**
   * Stores in `lru` and indexes what was stored (a value over the bound is not stored, and the one it
   * would replace is gone). A refreshed entry keeps its dependencies: the index is left as it is.
   */
  private storeIndexed<V extends { dependencies: Dependencies }>(
    lru: LRUCache<string, V>,
    index: DependencyIndex,
    key: string,
    value: V,
    /** What it counts against the bound, when already worked out (else the cache works it out). */
    size?: number,
  ): void {
    const replaced = lru.peek(key);
    lru.set(key, value, size === undefined ? undefined : { size });
    const stored = lru.peek(key) === value;
    const same = replaced?.dependencies === value.dependencies;
    if (replaced && (!stored || !same)) index.remove(key, replaced.dependencies);
    if (stored && !(replaced && same)) index.add(key, value.dependencies);
  }

  /** Told about every local invalidation (the bus publishes them to other instances). */
  onInvalidate(listener: (effect: WriteEffect) => void): void {
    this.listeners.push(listener);
  }

  /**
   * The key parts every entry shares: the viewer class (only anonymous answers are shared), `Accept`,
   * and the date in the site zone, so that relative dates (`tomorrow`, the default window) never
   * outlive the day they were resolved on.
   */
  keyOf(ctx: KoaContext, parts: readonly unknown[]): string {
    return JSON.stringify(['anonymous', this.today(), ctx.get('accept'), ...parts]);
  }

  /** Today's date in the site zone, recomputed only when the clock leaves the day last computed. */
  today(): string {
    const now = this.now();
    const day = this.day;
    if (now >= day.from && now < day.until) return day.name;
    const moment = DateTime.fromMillis(now, { zone: this.options.siteTimezone });
    const start = moment.startOf('day');
    this.day = {
      name: moment.toISODate() ?? '',
      from: start.toMillis(),
      until: start.plus({ days: 1 }).toMillis(),
    };
    return this.day.name;
  }

  /** Aliases held (tests). */
  get aliasCount(): number {
    return this.aliases?.size ?? 0;
  }

  /**
   * The entry an alias names, with the alias, when both are current (not suspended, the very entry
   * the alias was recorded for); a hit is counted. An entry that writes made stale in what it can
   * rewrite (a list's total, its rows) is refreshed here, and the alias follows the refreshed entry: a
   * refresh never needs the normal path. Nothing otherwise (and an alias that cannot follow is dropped).
   */
  lookupAlias(aliasKey: string): AliasHit | Promise<AliasHit | undefined> | undefined {
    if (this.suspended || !this.aliases || !this.entries) return undefined;
    const alias = this.aliases.get(aliasKey);
    if (!alias) return undefined;
    const entry = this.entries.get(alias.key);
    // The representation the normal path would give now: a refreshed entry is coded after its answer.
    const coded = entry?.coded === true && alias.acceptsGzip;
    if (!entry || entry.serial !== alias.serial || coded !== alias.coded) {
      this.aliases.delete(aliasKey);
      return undefined;
    }
    if (isStale(entry)) return this.refreshAlias(aliasKey, alias, entry);
    this.options.onEvent?.('hit');
    const body = alias.coded ? entry.body : this.plainBody(entry);
    return { alias, body, as: 'hit' };
  }

  /**
   * Refreshes a stale entry for an alias (once for concurrent requests, as `serve` does), moves the
   * alias to the refreshed entry with its new validators and totals, and answers from it. Undefined
   * when the entry must be recomputed: the normal path does that.
   */
  private async refreshAlias(aliasKey: string, alias: Alias, stale: Entry): Promise<AliasHit | undefined> {
    let refreshed: Entry | null | undefined;
    const pending = this.computing.get(alias.key);
    if (pending) {
      await pending.catch(() => undefined);
      refreshed = this.entries?.peek(alias.key);
      if (refreshed && !isStale(refreshed)) this.options.onEvent?.('shared');
    } else {
      const work = this.refreshed(alias.key, stale, alias.acceptsGzip);
      this.computing.set(alias.key, work);
      try {
        refreshed = await work;
      } finally {
        if (this.computing.get(alias.key) === work) this.computing.delete(alias.key);
      }
    }
    const stored = refreshed && this.entries?.peek(alias.key) === refreshed;
    // A refresh keeps the entry's dependencies (the very object); a recomputed answer has its own, and
    // perhaps headers the alias never had: the normal path records the alias for it.
    const followable = refreshed && refreshed.dependencies === stale.dependencies;
    // As `lookupAlias` decides: coded only for an alias whose requests accept gzip.
    const coded = refreshed?.coded === true && alias.acceptsGzip;
    if (!refreshed || !followable || isStale(refreshed) || coded !== alias.coded) {
      this.aliases?.delete(aliasKey);
      return undefined;
    }
    const body = alias.coded ? refreshed.body : this.plainBody(refreshed);
    const followed = { ...alias, serial: refreshed.serial, headers: followHeaders(alias, stale, refreshed) };
    if (stored) this.aliases?.set(aliasKey, followed);
    else this.aliases?.delete(aliasKey);
    return { alias: followed, body, as: pending ? 'hit' : 'refresh' };
  }

  /**
   * Whether `growth` more bytes of the answer stored under `storing` fit in their bound, after coding at
   * once as many of the bodies waiting to be coded as that takes, oldest first: a plain body gives way
   * before an answer is evicted for it. Not the answer being stored, nor one being refreshed or
   * recomputed (its body is about to be replaced), nor a stale one (the same).
   */
  private makeRoom(storing: string, growth: number): boolean {
    if (!this.entries) return false;
    const fits = () => this.entries!.calculatedSize + growth <= this.answerBytes;
    for (const [key, entry] of this.plainEntries) {
      if (fits()) return true;
      if (key === storing || this.computing.has(key) || isStale(entry)) continue;
      this.plainEntries.delete(key);
      if (this.entries.peek(key) !== entry) continue;
      const coded = gzipped(entry.body);
      if (coded) this.storeCoded(key, entry, coded);
    }
    return fits();
  }

  /** What the answer stored under `key` counts against the bound (0: none). */
  private heldFor(key: string): number {
    return this.entries?.info(key)?.size ?? 0;
  }

  /** A plain entry replaced by its coded twin (the same serial: its aliases stay valid). */
  private storeCoded(key: string, entry: Entry, coded: Buffer): void {
    this.storeIndexed(this.entries!, this.entryIndex, key, { ...entry, body: coded, coded: true });
    this.keepPlain(entry.serial, entry.body);
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
  private plainBody(entry: Entry): Buffer {
    if (!entry.coded) return entry.body;
    let plain = this.plain?.get(entry.serial);
    if (!plain) {
      plain = gunzipped(entry.body);
      this.keepPlain(entry.serial, plain);
    }
    return plain;
  }

  /**
   * After the normal path answered: when its answer is the shared entry itself (a 200 whose body is
   * the entry's bytes, nothing reshaped it since), `aliasKey` leads to that entry from now on.
   */
  recordAlias(aliasKey: string, ctx: KoaContext, route: string): void {
    const served = ctx.state.cacheEntry;
    if (!served || !this.aliases || !this.entries || this.suspended) return;
    if (ctx.status !== 200 || ctx.body !== served.body) return;
    if (this.entries.peek(served.key)?.serial !== served.serial) return;
    const headers: Array<[string, string]> = [];
    for (const [name, value] of Object.entries(ctx.response.headers)) {
      if (value === undefined || ALIAS_SKIPPED.has(name) || name.startsWith('access-control-')) continue;
      headers.push([name, Array.isArray(value) ? value.join(', ') : String(value)]);
    }
    const vary = String(ctx.response.get('vary') || '')
      .split(',')
      .map((field) => field.trim())
      .filter((field) => field !== '' && field.toLowerCase() !== 'origin');
    this.aliases.set(aliasKey, {
      key: served.key,
      serial: served.serial,
      coded: served.coded,
      acceptsGzip: acceptsGzip(ctx.get('accept-encoding')),
      headers,
      vary,
      route,
    });
  }

  /**
   * Answers from the cache when it holds `key`; otherwise runs `compute` (which sets ctx.status,
   * headers and a string or Buffer body, and returns what the answer depends on) and keeps a 200
   * answer. Concurrent misses of one key compute it once: the others wait and are answered from the
   * entry (or compute it themselves when it was not stored: an error is never shared). `key` null:
   * never cached. Either way, a 200 answer to GET/HEAD gets its validators and `If-None-Match` is
   * honoured.
   */
  async serve(ctx: KoaContext, key: string | null, compute: () => Promise<AnswerMeta | void>): Promise<void> {
    if (this.suspended) key = null;
    if (key !== null && this.entries) {
      let entry = this.entries.get(key);
      if (!entry || isStale(entry)) {
        const pending = this.computing.get(key);
        if (pending) {
          await pending.catch(() => undefined);
          entry = this.entries.get(key);
          if (entry && !isStale(entry)) this.options.onEvent?.('shared');
        }
      }
      if (entry && !isStale(entry)) {
        this.options.onEvent?.('hit');
        return this.answer(ctx, key, entry, 'hit');
      }
      if (!this.computing.has(key)) {
        const work = entry
          ? this.refresh(ctx, key, entry, compute)
          : this.computeAndStore(ctx, key, compute, 'miss');
        this.computing.set(key, work);
        try {
          return await work;
        } finally {
          if (this.computing.get(key) === work) this.computing.delete(key);
        }
      }
    }
    return this.computeAndStore(ctx, key, compute, key !== null && this.entries ? 'miss' : null);
  }

  private answer(ctx: KoaContext, key: string, entry: Entry, as: 'hit' | 'refresh'): void {
    const coded = entry.coded && acceptsGzip(ctx.get('accept-encoding'));
    const body = coded ? entry.body : this.plainBody(entry);
    ctx.state.cacheEntry = { key, serial: entry.serial, body, coded } satisfies ServedEntry;
    ctx.status = entry.status;
    for (const [name, value] of Object.entries(entry.headers)) ctx.set(name, value);
    ctx.set('X-Cache', as);
    sendRepresentation(ctx, body, coded);
    conditional(ctx, true);
  }

  /** A stale entry refreshed (`refreshed`) and answered; recomputed whole when it cannot be. */
  private async refresh(
    ctx: KoaContext,
    key: string,
    entry: Entry,
    compute: () => Promise<AnswerMeta | void>,
  ): Promise<void> {
    const refreshed = await this.refreshed(key, entry, acceptsGzip(ctx.get('accept-encoding')));
    if (refreshed === null) return this.computeAndStore(ctx, key, compute, 'miss');
    this.answer(ctx, key, refreshed, 'refresh');
  }

  /**
   * A stale entry whose writes changed only its list's total or rows it shows: those read again and
   * rewritten into its body and headers (new validators), stored unless a write met it meanwhile.
   * Null (recompute it whole) when the entry went or changed during the read, a row cannot be rendered
   * in place, or the total changes more than its numbers (the page's links). `coded`: for a client that
   * accepts gzip.
   */
  private async refreshed(key: string, entry: Entry, coded: boolean): Promise<Entry | null> {
    const mark = this.mark();
    const [total, rows] = await Promise.all([
      entry.staleTotal ? entry.rewriteTotal!.recount() : null,
      entry.staleRows ? this.renderedRows(entry.rewriteRows!, entry.staleRows, entry.dependencies) : null,
    ]);
    if (this.entries?.peek(key) !== entry || (entry.staleRows && !rows)) return null;
    // Stored at once unless a write met it meanwhile.
    const storing = this.current(mark, entry.dependencies);
    const rewritten = rewrite(entry, this.plainBody(entry), rows, total);
    if (rewritten === null || !this.entries) return null;
    this.options.onEvent?.('refreshed');
    const plain = ownBytes(rewritten.body);
    const etag = etagOf(bytesHash(plain), entry.version);
    const refreshed: Entry = {
      ...entry,
      headers: { ...rewritten.headers, etag },
      body: plain,
      coded: false,
      serial: ++this.serial,
    };
    delete refreshed.staleTotal;
    delete refreshed.staleRows;
    // Coded before a client that accepts gzip is answered (the same bytes as a recomputed answer); for
    // any other, after its answer on the thread pool (`recode`). Totals and rows move with most writes:
    // coding every refresh on the event loop cost more than the refresh itself. But
    // coded at once when its plain bytes do not fit beside the other answers, even once the bodies
    // waiting to be coded are (`makeRoom`): an evicted answer is a miss later, milliseconds where
    // coding costs about a tenth of one.
    let size = !coded && storing ? entryBytes(refreshed, key) : undefined;
    if (coded || (size !== undefined && !this.makeRoom(key, size - this.heldFor(key)))) {
      const codedBody = gzipped(plain);
      if (codedBody) Object.assign(refreshed, { body: codedBody, coded: true });
      size = undefined;
    }
    if (storing) {
      this.storeIndexed(this.entries, this.entryIndex, key, refreshed, size);
      if (refreshed.coded) this.keepPlain(refreshed.serial, plain);
      else this.recode(key, refreshed);
      this.trimPlain();
    }
    return refreshed;
  }

  /**
   * After `RECODE_DELAY_MS`, codes a refreshed entry's plain body on the thread pool and puts the coded
   * entry in its place (the same serial: its aliases stay valid), unless it changed or went meanwhile.
   * At most `MAX_RECODING` at a time; the others wait their turn (one write refreshes dozens of
   * entries at once, and a body left plain would hold several times its coded size until evicted).
   */
  private recode(key: string, entry: Entry): void {
    this.plainEntries.delete(key);
    this.plainEntries.set(key, entry);
    setTimeout(() => {
      this.recodeQueue.push({ key, entry });
      this.recodeNext();
    }, this.options.recodeDelayMs ?? RECODE_DELAY_MS).unref();
  }

  private recodeNext(): void {
    while (this.recoding < MAX_RECODING && this.recodeQueue.length > 0) {
      const { key, entry } = this.recodeQueue.shift()!;
      if (this.plainEntries.get(key) === entry) this.plainEntries.delete(key);
      const current = () => this.entries?.peek(key) === entry;
      if (!current()) continue;
      this.recoding++;
      gzippedAside(entry.body)
        .then((coded) => {
          if (coded && current()) this.storeCoded(key, entry, coded);
        })
        // A body that cannot be coded stays plain.
        .catch(() => undefined)
        .finally(() => {
          this.recoding--;
          this.recodeNext();
        });
    }
  }

  private async computeAndStore(
    ctx: KoaContext,
    key: string | null,
    compute: () => Promise<AnswerMeta | void>,
    counted: 'miss' | null,
  ): Promise<void> {
    if (counted) this.options.onEvent?.(counted);
    const mark = this.mark();
    const meta = (await compute()) ?? {};
    const body = ctx.body;
    let bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.isBuffer(body) ? body : null;
    if (ctx.status !== 200 || bytes === null) return;
    const dependencies = meta.dependencies ?? ANY_WRITE;
    const storable = this.entries !== null && key !== null && !meta.clockSensitive && !meta.hasErrors;
    // A kept body owns its bytes, so that what the bound counts is what it keeps.
    if (storable) bytes = ownBytes(bytes);
    const acceptsCoded = acceptsGzip(ctx.get('accept-encoding'));
    const coded = storable || acceptsCoded ? gzipped(bytes) : null;
    const storedAs = storable && this.current(mark, dependencies) ? key : null;
    // A single record's tag starts with its version (what `If-Match` compares on a later write).
    const etag = etagOf(bytesHash(bytes), meta.version);
    ctx.set('ETag', etag);
    const sentCoded = coded !== null && acceptsCoded;
    const sent = sentCoded ? coded : bytes;
    sendRepresentation(ctx, sent, sentCoded);
    conditional(ctx, key !== null);
    if (storedAs === null || !this.entries) return;
    ctx.set('X-Cache', 'miss');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(ctx.response.headers)) {
      // CORS headers answer the requesting origin: the policy sets them on every request, hit or miss.
      if (
        value === undefined ||
        EXCHANGE_HEADERS.has(name) ||
        name === 'x-cache' ||
        name === 'content-encoding' ||
        name.startsWith('access-control-')
      )
        continue;
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    }
    // The entry keeps the plain representation's headers; its coded one is derived when sent.
    headers.etag = etag;
    const serial = ++this.serial;
    const entry: Entry = {
      status: 200,
      headers,
      body: coded ?? bytes,
      coded: coded !== null,
      serial,
      dependencies,
      ...(meta.version && { version: meta.version }),
      ...(meta.rewriteTotal && { rewriteTotal: meta.rewriteTotal }),
      ...(meta.rewriteRows && dependencies.rows?.length && { rewriteRows: meta.rewriteRows }),
    };
    const size = entryBytes(entry, storedAs);
    this.makeRoom(storedAs, size - this.heldFor(storedAs));
    this.storeIndexed(this.entries, this.entryIndex, storedAs, entry, size);
    if (coded && !sentCoded) this.keepPlain(serial, bytes);
    this.trimPlain();
    ctx.state.cacheEntry = { key: storedAs, serial, body: sent, coded: sentCoded } satisfies ServedEntry;
  }
}

/**
 * An alias's headers for the entry that replaced `before` by a refresh: each header the refresh changed
 * (validator, totals) takes its new value, the validator in the alias's representation.
 */
function followHeaders(alias: Alias, before: Entry, after: Entry): Array<[string, string]> {
  return alias.headers.map(([name, value]) => {
    const now = after.headers[name];
    if (now === undefined || now === before.headers[name]) return [name, value];
    return [name, name === 'etag' && alias.coded ? codedEtag(now) : now];
  });
}

/**
 * A stale entry's plain body and headers with its rows rendered again and the total read again (null:
 * each not stale); null when one cannot be rewritten.
 */
function rewrite(
  entry: Entry,
  body: Buffer,
  rows: ((body: Buffer) => Buffer | null) | null,
  total: number | null,
): Representation | null {
  const withRows = rows ? rows(body) : body;
  if (!withRows) return null;
  const answer = { body: withRows, headers: entry.headers };
  return total === null ? answer : entry.rewriteTotal!.rewrite(answer, total);
}

/** The body of a 200 answer as sent: gzip-coded (with that representation's entity tag) or plain. */
function sendRepresentation(ctx: KoaContext, body: Buffer, coded: boolean): void {
  if (coded) {
    ctx.set('Content-Encoding', 'gzip');
    ctx.set('ETag', codedEtag(ctx.response.get('etag')));
  }
  ctx.body = body;
}

/** Cache-Control and Vary for a cacheable read; 304 without a body when the client's copy is current. */
function conditional(ctx: KoaContext, shared: boolean): void {
  const anonymous = !ctx.get('authorization');
  ctx.set(
    'Cache-Control',
    anonymous && shared ? 'public, max-age=0, must-revalidate' : 'private, max-age=0, must-revalidate',
  );
  ctx.vary('Authorization');
  ctx.vary('Accept');
  ctx.vary('Accept-Encoding');
  if (ctx.fresh) {
    ctx.status = 304;
    ctx.body = null;
  }
}
