import { AsyncLocalStorage } from 'node:async_hooks';
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
}

/** What a request learns while it runs that decides whether its answer may be stored. */
interface RequestScope {
  /** The answer depends on the time of day (a phrase such as `now` or `+2 hours`), not only the date. */
  clockSensitive: boolean;
}

const scopes = new AsyncLocalStorage<RequestScope>();

/** Called where a relative date phrase resolves to a moment finer than a day: such answers are not kept. */
export function markClockSensitive(): void {
  const scope = scopes.getStore();
  if (scope) scope.clockSensitive = true;
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
}

export function strongEtag(body: Buffer | string): string {
  return `"${bytesHash(body)}"`;
}

function bytesHash(body: Buffer | string): string {
  return createHash('sha1').update(body).digest('base64url');
}

export class ResponseCache {
  private readonly entries: LRUCache<string, Entry> | null;
  /** Bumped by every invalidation: an answer computed across one is not stored (read-during-write race). */
  private generation = 0;
  private readonly listeners: Array<() => void> = [];
  /** While the invalidations of other instances cannot reach this one, nothing is served or stored. */
  private suspended = false;

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
  }

  resume(): void {
    this.generation++;
    this.entries?.clear();
    this.suspended = false;
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
    const day = DateTime.now().setZone(this.options.siteTimezone).toISODate();
    return JSON.stringify(['anonymous', day, ctx.get('accept'), ...parts]);
  }

  /**
   * Answers from the cache when it holds `key`; otherwise runs `compute` (which sets ctx.status,
   * headers and a string or Buffer body) and keeps a 200 answer. `key` null: never cached. Either way,
   * a 200 answer to GET/HEAD gets its validators and `If-None-Match` is honoured.
   */
  async serve(ctx: KoaContext, key: string | null, compute: () => Promise<unknown>): Promise<void> {
    if (this.suspended) key = null;
    const entry = key !== null ? this.entries?.get(key) : undefined;
    if (key !== null && this.entries) this.options.onEvent?.(entry ? 'hit' : 'miss');
    if (entry) {
      ctx.status = entry.status;
      for (const [name, value] of Object.entries(entry.headers)) ctx.set(name, value);
      ctx.set('X-Cache', 'hit');
      ctx.body = entry.body;
      conditional(ctx, true);
      return;
    }
    const generation = this.generation;
    const scope: RequestScope = { clockSensitive: false };
    await scopes.run(scope, compute);
    const body = ctx.body;
    const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.isBuffer(body) ? body : null;
    if (ctx.status !== 200 || bytes === null) return;
    ctx.body = bytes;
    // A single record's tag starts with its version (what `If-Match` compares on a later write).
    const version = ctx.state.recordVersion as string | undefined;
    ctx.set('ETag', version ? versionedEtag(version, bytesHash(bytes)) : strongEtag(bytes));
    conditional(ctx, key !== null);
    if (key === null || !this.entries || scope.clockSensitive || generation !== this.generation) return;
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
    this.entries.set(key, { status: 200, headers, body: bytes });
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
