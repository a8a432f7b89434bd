import { createHash } from 'node:crypto';
import type { Context as KoaContext } from 'koa';
import { LRUCache } from 'lru-cache';
import { DateTime } from 'luxon';
import { versionedEtag } from '../domain/versions.js';

// The one response cache of REST and GraphQL reads. Entries are whole answers (status, headers, bytes)
// for anonymous viewers; every committed write clears them all (`invalidate`, one path for both APIs,
// called by the write pipeline's afterCommit hook and by the invalidation bus of other instances).
// Coarse but correct: a calendar is read far more often than it is written.

interface Entry {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Which store this is: an alias names the entry it was recorded for, never a later one. */
  serial: number;
}

/**
 * A request's own spelling (raw URL, `Accept`, day, GraphQL body) of an entry's normalised key,
 * recorded when the normal path served or stored that entry for an anonymous request; the headers
 * are that request's final ones (`Allow`, `Cache-Control`, validators) minus those of the exchange.
 */
export interface Alias {
  key: string;
  serial: number;
  headers: Array<[string, string]>;
  vary: string[];
  /** The route template the metrics count it under. */
  route: string;
}

/** What `serve` leaves on `ctx.state.cacheEntry` when the answer is a shared entry (hit or stored). */
export interface ServedEntry {
  key: string;
  serial: number;
  body: Buffer;
}

/** What an answer's storing and validators depend on, returned with it by the work that made it. */
export interface AnswerMeta {
  /** A single record's version: its entity tag starts with it (what `If-Match` compares on a write). */
  version?: string;
  /** The answer depends on the time of day (a phrase such as `now`), not only the date: never stored. */
  clockSensitive?: boolean;
}

/** Headers an entry never keeps: they belong to one exchange. */
const EXCHANGE_HEADERS = new Set(['content-length', 'date', 'connection', 'set-cookie', 'x-request-id']);

export type CacheEvent = 'hit' | 'miss' | 'eviction' | 'invalidation';

export interface ResponseCacheOptions {
  enabled: boolean;
  maxBytes: number;
  siteTimezone: string;
  /** Told of every hit, miss, eviction (to stay within the byte bound) and invalidation: metrics. */
  onEvent?: (event: CacheEvent) => void;
  /** The clock (milliseconds since the epoch) that decides the site-zone day of a key; tests set it. */
  now?: () => number;
}

/** Headers of a final answer that an alias never keeps: they are set per exchange. */
const ALIAS_SKIPPED = new Set([...EXCHANGE_HEADERS, 'x-cache', 'vary']);

export function strongEtag(body: Buffer | string): string {
  return `"${bytesHash(body)}"`;
}

function bytesHash(body: Buffer | string): string {
  return createHash('sha1').update(body).digest('base64url');
}

export class ResponseCache {
  private readonly entries: LRUCache<string, Entry> | null;
  private readonly aliases: LRUCache<string, Alias> | null;
  private serial = 0;
  private readonly now: () => number;
  /** The site-zone day of `now()` and the instants where it starts and ends (recomputed outside). */
  private day = { name: '', from: 0, until: -1 };
  /** Bumped by every invalidation: an answer computed across one is not stored (read-during-write race). */
  private generation = 0;
  private readonly listeners: Array<() => void> = [];
  /** While the invalidations of other instances cannot reach this one, nothing is served or stored. */
  private suspended = false;
  /** Numbers answers are made of (a list's total), kept under the same invalidation (`keep`). */
  private readonly kept: LRUCache<string, number> | null;

  constructor(private readonly options: ResponseCacheOptions) {
    this.entries = options.enabled
      ? new LRUCache<string, Entry>({
          maxSize: Math.max(1, options.maxBytes),
          sizeCalculation: (entry, key) => entry.body.length + key.length + 256,
          dispose: (_entry, _key, reason) => {
            if (reason === 'evict') options.onEvent?.('eviction');
          },
        })
      : null;
    // Aliases are small (a URL, a few headers): an eighth of the byte bound, never more entries than
    // could matter.
    this.aliases = options.enabled
      ? new LRUCache<string, Alias>({
          maxSize: Math.max(64 * 1024, Math.floor(options.maxBytes / 8)),
          sizeCalculation: (alias, key) =>
            key.length + alias.key.length + alias.headers.reduce((n, [a, b]) => n + a.length + b.length, 64),
        })
      : null;
    this.kept = options.enabled ? new LRUCache<string, number>({ max: 1000 }) : null;
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

  /** Bytes held, as counted against the bound. */
  get bytes(): number {
    return this.entries?.calculatedSize ?? 0;
  }

  /**
   * Every stored answer is stale from now on. `remote`: another instance wrote (told by the
   * invalidation bus), so the listeners — the bus itself — are not told again.
   */
  invalidate(origin: 'local' | 'remote' = 'local'): void {
    this.generation++;
    this.entries?.clear();
    this.aliases?.clear();
    this.kept?.clear();
    this.options.onEvent?.('invalidation');
    if (origin === 'local') for (const listener of this.listeners) listener();
  }

  /**
   * Stops sharing answers (the bus lost its connection: other instances' writes would go unseen);
   * `resume` starts again from empty, since invalidations may have been missed meanwhile.
   */
  suspend(): void {
    this.suspended = true;
    this.generation++;
    this.entries?.clear();
    this.aliases?.clear();
    this.kept?.clear();
  }

  resume(): void {
    this.generation++;
    this.entries?.clear();
    this.aliases?.clear();
    this.kept?.clear();
    this.suspended = false;
  }

  /**
   * A number answers are made of (a list's total), worked out once and kept under the same
   * invalidation as the answers, for the answers the cache does not hold (another page or page size,
   * a viewer's own list). Worked out every time while the cache is off or suspended; one worked out
   * across an invalidation is not kept.
   */
  async keep(key: string, compute: () => Promise<number>): Promise<number> {
    if (!this.kept || this.suspended) return compute();
    const kept = this.kept.get(key);
    if (kept !== undefined) return kept;
    const generation = this.generation;
    const value = await compute();
    if (generation === this.generation) this.kept.set(key, value);
    return value;
  }

  /** Told about every local invalidation (the bus publishes them to other instances). */
  onInvalidate(listener: () => void): void {
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
   * the alias was recorded for); a hit is counted. Nothing otherwise (and a stale alias is dropped).
   */
  lookupAlias(aliasKey: string): { alias: Alias; body: Buffer } | undefined {
    if (this.suspended || !this.aliases || !this.entries) return undefined;
    const alias = this.aliases.get(aliasKey);
    if (!alias) return undefined;
    const entry = this.entries.get(alias.key);
    if (!entry || entry.serial !== alias.serial) {
      this.aliases.delete(aliasKey);
      return undefined;
    }
    this.options.onEvent?.('hit');
    return { alias, body: entry.body };
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
    this.aliases.set(aliasKey, { key: served.key, serial: served.serial, headers, vary, route });
  }

  /**
   * Answers from the cache when it holds `key`; otherwise runs `compute` (which sets ctx.status,
   * headers and a string or Buffer body, and returns what the answer depends on) and keeps a 200
   * answer. `key` null: never cached. Either way, a 200 answer to GET/HEAD gets its validators and
   * `If-None-Match` is honoured.
   */
  async serve(ctx: KoaContext, key: string | null, compute: () => Promise<AnswerMeta | void>): Promise<void> {
    if (this.suspended) key = null;
    const entry = key !== null ? this.entries?.get(key) : undefined;
    if (key !== null && this.entries) this.options.onEvent?.(entry ? 'hit' : 'miss');
    if (entry) {
      ctx.state.cacheEntry = {
        key: key as string,
        serial: entry.serial,
        body: entry.body,
      } satisfies ServedEntry;
      ctx.status = entry.status;
      for (const [name, value] of Object.entries(entry.headers)) ctx.set(name, value);
      ctx.set('X-Cache', 'hit');
      ctx.body = entry.body;
      conditional(ctx, true);
      return;
    }
    const generation = this.generation;
    const meta = (await compute()) ?? {};
    const body = ctx.body;
    const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.isBuffer(body) ? body : null;
    if (ctx.status !== 200 || bytes === null) return;
    ctx.body = bytes;
    // A single record's tag starts with its version (what `If-Match` compares on a later write).
    ctx.set('ETag', meta.version ? versionedEtag(meta.version, bytesHash(bytes)) : strongEtag(bytes));
    conditional(ctx, key !== null);
    if (key === null || !this.entries || meta.clockSensitive || generation !== this.generation) return;
    ctx.set('X-Cache', 'miss');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(ctx.response.headers)) {
      // CORS headers answer the requesting origin: the policy sets them on every request, hit or miss.
      if (
        value === undefined ||
        EXCHANGE_HEADERS.has(name) ||
        name === 'x-cache' ||
        name.startsWith('access-control-')
      )
        continue;
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    }
    const serial = ++this.serial;
    this.entries.set(key, { status: 200, headers, body: bytes, serial });
    ctx.state.cacheEntry = { key, serial, body: bytes } satisfies ServedEntry;
  }
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
  if (ctx.fresh) {
    ctx.status = 304;
    ctx.body = null;
  }
}
