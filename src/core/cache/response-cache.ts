import type { ServerResponse } from 'node:http';
import type { Context as KoaContext } from 'koa';
import { LRUCache } from 'lru-cache';
import { DateTime } from 'luxon';
import {
  ANY_WRITE,
  type Dependencies,
  EVERYTHING,
  type ReadRecord,
  type WriteEffect,
} from './dependencies.js';
import { acceptsGzip, gzipped } from './content-coding.js';
import { answerHash } from './answer-hash.js';
import { lendToResponse } from './lent-bodies.js';
import { heldBytes, ownBytes, stringBytes } from './held-bytes.js';
import { Answers, type ReadTermCounts } from './engine/answers.js';
import {
  ALIAS_SHARE,
  type Alias,
  type AliasHit,
  type CacheEvent,
  type CountRewrite,
  type Entry,
  RECORD_SHARE,
  type RowRewrite,
  SLOT_BYTES,
  type ServedEntry,
  type TotalRewrite,
  etagOf,
  isStale,
} from './engine/entries.js';
import { aliasHeaders, conditional, entryHeaders, followHeaders, sendRepresentation } from './engine/http.js';
import { KeptRecords } from './engine/kept.js';
import { WriteMarks } from './engine/write-marks.js';

export type { CountRuns } from './answer-hash.js';
export type {
  AliasHit,
  CacheEvent,
  CountRewrite,
  RowRewrite,
  ServedEntry,
  TotalRewrite,
} from './engine/entries.js';

// The one response cache of REST and GraphQL reads. Entries are whole answers (status, headers, bytes)
// for anonymous viewers, each with what it depends on (the records it shows, the families its lookups
// read, the date windows of its event lists: `core/cache/dependencies.ts`). A committed write's effect drops
// exactly the entries it meets (`invalidate`, one path for both APIs, called by the write pipeline's
// afterCommit hook and by the invalidation bus with the effects of other instances' writes). By job
// (`core/cache/engine/`): what it keeps and what that costs (`entries.ts`), the stored answers, their
// refreshes and recoding (`answers.ts`), the kept records (`kept.ts`), where the writes
// stand (`write-marks.ts`), the headers it keeps and sends (`http.ts`).

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
   * How to rewrite the counts of the terms in `dependencies.counts` in the answer's body: a write that
   * moves only those counts leaves it cached, to be refreshed with the current numbers when next read.
   */
  rewriteCounts?: CountRewrite;
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

export class ResponseCache {
  private readonly entries: LRUCache<string, Entry> | null;
  /** The entries with their plain copies, refreshes and recoding, within the answers' bound. */
  private readonly answers: Answers;
  private readonly aliases: LRUCache<string, Alias> | null;
  private readonly now: () => number;
  /** The site-zone day of `now()` and the instants where it starts and ends (recomputed outside). */
  private day = { name: '', from: 0, until: -1 };
  /** Where the writes stand (an answer computed across one that meets it is not stored), suspension. */
  private readonly writes = new WriteMarks();
  private readonly listeners: Array<(effect: WriteEffect) => void> = [];
  /** The kept records, under the same invalidation (`keepRecords`). */
  private readonly kept: KeptRecords;
  /** Answers being computed, by key: concurrent misses of one key wait for the first (single flight). */
  private readonly computing = new Map<string, Promise<unknown>>();

  constructor(private readonly options: ResponseCacheOptions) {
    const aliasBytes = Math.max(1, Math.floor(options.maxBytes * ALIAS_SHARE));
    const recordBytes = options.recordMaxBytes ?? Math.floor(options.maxBytes * RECORD_SHARE);
    // The bound less the aliases' share: the answers and their plain copies.
    const answerBytes = Math.max(1, options.maxBytes - aliasBytes);
    this.answers = new Answers(options, answerBytes, this.writes, this.computing, () => this.today());
    this.entries = this.answers.entries;
    this.aliases = options.enabled
      ? new LRUCache<string, Alias>({
          maxSize: aliasBytes,
          sizeCalculation: (alias, key) => SLOT_BYTES + stringBytes(key) + heldBytes(alias),
        })
      : null;
    this.kept = new KeptRecords(this.writes, options.enabled ? recordBytes : 0, options);
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

  /** Bytes held (entries and aliases), as counted against the bound. */
  get bytes(): number {
    return this.answers.bytes + (this.aliases?.calculatedSize ?? 0);
  }

  /**
   * Drops every stored answer that a write with `effect` can change (`EVERYTHING` drops them all).
   * `remote`: another instance wrote (told by the invalidation bus), so the listeners — the bus
   * itself — are not told again.
   */
  invalidate(effect: WriteEffect = EVERYTHING, origin: 'local' | 'remote' = 'local'): void {
    this.writes.note(effect);
    this.options.onEvent?.('invalidation');
    if (effect.all) {
      const count = this.entries?.size ?? 0;
      this.clear();
      for (let i = 0; i < count; i++) this.options.onEvent?.('dropped');
    } else {
      this.answers.invalidate(effect);
      this.kept.invalidate(effect);
    }
    if (origin === 'local') for (const listener of this.listeners) listener(effect);
  }

  private clear(): void {
    this.answers.clear();
    this.aliases?.clear();
    this.kept.clear();
  }

  /**
   * Stops sharing answers (the bus lost its connection: other instances' writes would go unseen);
   * `resume` starts again from empty, since invalidations may have been missed meanwhile.
   */
  suspend(): void {
    this.writes.suspended = true;
    this.writes.emptied();
    this.clear();
  }

  resume(): void {
    this.writes.emptied();
    this.clear();
    this.writes.suspended = false;
  }

  /**
   * Records (rows as one selection reads them) by `keys`, those not kept read together by `read` (given
   * their indexes in `keys`, it answers in that order; undefined: the record is gone). A record is kept
   * frozen, shared by every read of it until a write meets its dependencies; one read across such a
   * write is not kept. Read every time while the cache is off or suspended.
   */
  keepRecords<T extends object>(
    keys: readonly string[],
    read: (missing: readonly number[]) => Promise<ReadonlyArray<ReadRecord<T> | undefined>>,
  ): Promise<Array<T | undefined>> {
    return this.kept.keepRecords(keys, read);
  }

  /** Whether records are kept (`keepRecords` reads every one when not). */
  get keepsRecords(): boolean {
    return this.kept.records !== null;
  }

  /** Bytes the kept records hold, as counted against their own bound (`recordMaxBytes`). */
  get recordBytes(): number {
    return this.kept.records?.calculatedSize ?? 0;
  }

  /** The app that serves through this cache gives it its database's term counts. */
  readCountsWith(read: ReadTermCounts): void {
    this.answers.readTermCounts = read;
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
  lookupAlias(
    aliasKey: string,
    response: ServerResponse,
  ): AliasHit | Promise<AliasHit | undefined> | undefined {
    if (this.writes.suspended || !this.aliases || !this.entries) return undefined;
    const alias = this.aliases.get(aliasKey);
    if (!alias) return undefined;
    const entry = this.entries.get(alias.key);
    // The representation the normal path would give now: a refreshed entry is coded after its answer.
    const coded = entry?.coded === true && alias.acceptsGzip;
    if (!entry || entry.serial !== alias.serial || coded !== alias.coded) {
      this.aliases.delete(aliasKey);
      return undefined;
    }
    if (isStale(entry)) return this.refreshAlias(aliasKey, alias, entry, response);
    this.options.onEvent?.('hit');
    const body = alias.coded ? entry.body : this.answers.plainBody(entry);
    lendToResponse(body, response);
    return { alias, body, as: 'hit' };
  }

  /**
   * Refreshes a stale entry for an alias (once for concurrent requests, as `serve` does), moves the
   * alias to the refreshed entry with its new validators and totals, and answers from it. Undefined
   * when the entry must be recomputed: the normal path does that.
   */
  private async refreshAlias(
    aliasKey: string,
    alias: Alias,
    stale: Entry,
    response: ServerResponse,
  ): Promise<AliasHit | undefined> {
    let refreshed: Entry | null | undefined;
    const pending = this.computing.get(alias.key);
    if (pending) {
      await pending.catch(() => undefined);
      refreshed = this.entries?.peek(alias.key);
      if (refreshed && !isStale(refreshed)) this.options.onEvent?.('shared');
    } else {
      refreshed = await this.inFlight(alias.key, this.answers.refreshed(alias.key, stale, alias.acceptsGzip));
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
    const body = alias.coded ? refreshed.body : this.answers.plainBody(refreshed);
    lendToResponse(body, response);
    const followed = { ...alias, serial: refreshed.serial, headers: followHeaders(alias, stale, refreshed) };
    if (stored) this.aliases?.set(aliasKey, followed);
    else this.aliases?.delete(aliasKey);
    return { alias: followed, body, as: pending ? 'hit' : 'refresh' };
  }

  /**
   * After the normal path answered: when its answer is the shared entry itself (a 200 whose body is
   * the entry's bytes, nothing reshaped it since), `aliasKey` leads to that entry from now on.
   */
  recordAlias(aliasKey: string, ctx: KoaContext, route: string): void {
    const served = ctx.state.cacheEntry;
    if (!served || !this.aliases || !this.entries || this.writes.suspended) return;
    if (ctx.status !== 200 || ctx.body !== served.body) return;
    if (this.entries.peek(served.key)?.serial !== served.serial) return;
    const { headers, vary } = aliasHeaders(ctx);
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
    if (this.writes.suspended) key = null;
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
      if (!this.computing.has(key))
        return this.inFlight(
          key,
          entry ? this.refresh(ctx, key, entry, compute) : this.computeAndStore(ctx, key, compute, 'miss'),
        );
    }
    return this.computeAndStore(ctx, key, compute, key !== null && this.entries ? 'miss' : null);
  }

  /** `work` awaited as the one computation of `key` (what concurrent misses of it wait for). */
  private async inFlight<T>(key: string, work: Promise<T>): Promise<T> {
    this.computing.set(key, work);
    try {
      return await work;
    } finally {
      if (this.computing.get(key) === work) this.computing.delete(key);
    }
  }

  private answer(ctx: KoaContext, key: string, entry: Entry, as: 'hit' | 'refresh'): void {
    const coded = entry.coded && acceptsGzip(ctx.get('accept-encoding'));
    const body = coded ? entry.body : this.answers.plainBody(entry);
    lendToResponse(body, ctx.res);
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
    const refreshed = await this.answers.refreshed(key, entry, acceptsGzip(ctx.get('accept-encoding')));
    if (refreshed === null) return this.computeAndStore(ctx, key, compute, 'miss');
    this.answer(ctx, key, refreshed, 'refresh');
  }

  private async computeAndStore(
    ctx: KoaContext,
    key: string | null,
    compute: () => Promise<AnswerMeta | void>,
    counted: 'miss' | null,
  ): Promise<void> {
    if (counted) this.options.onEvent?.(counted);
    const mark = this.writes.mark();
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
    const storedAs = storable && this.writes.current(mark, dependencies) ? key : null;
    // A single record's tag starts with its version (what `If-Match` compares on a later write).
    // Counted as the entry will be refreshed: the same bytes get the same tag, fresh or refreshed.
    const counting = dependencies.counts?.length ? meta.rewriteCounts : undefined;
    const { hash, base } = answerHash(bytes, counting?.find(bytes));
    const etag = etagOf(hash, meta.version);
    ctx.set('ETag', etag);
    const sentCoded = coded !== null && acceptsCoded;
    const sent = sentCoded ? coded : bytes;
    lendToResponse(sent, ctx.res);
    sendRepresentation(ctx, sent, sentCoded);
    conditional(ctx, key !== null);
    if (storedAs === null || !this.entries) return;
    ctx.set('X-Cache', 'miss');
    const headers = entryHeaders(ctx);
    // The entry keeps the plain representation's headers; its coded one is derived when sent.
    headers.etag = etag;
    const serial = this.answers.nextSerial();
    const entry: Entry = {
      status: 200,
      headers,
      body: coded ?? bytes,
      coded: coded !== null,
      serial,
      dependencies,
      ...(meta.version && { version: meta.version }),
      ...(counting && { rewriteCounts: counting }),
      ...(base && { hashBase: base }),
      ...(meta.rewriteTotal && { rewriteTotal: meta.rewriteTotal }),
      ...(meta.rewriteRows && dependencies.rows?.length && { rewriteRows: meta.rewriteRows }),
    };
    this.answers.store(storedAs, entry, coded && !sentCoded ? bytes : null);
    ctx.state.cacheEntry = { key: storedAs, serial, body: sent, coded: sentCoded } satisfies ServedEntry;
  }
}
