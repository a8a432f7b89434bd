import { LRUCache } from 'lru-cache';
import type { Dependencies } from '../dependencies.js';
import { type DependencyIndex, indexBytes } from '../dependency-index.js';
import type { CountRuns } from '../answer-hash.js';
import { heldBytes, stringBytes } from '../held-bytes.js';
import { versionedEtag } from '../../rules/versions.js';

// What the response cache keeps and what each costs of its byte bound: the entries and the aliases
// that lead to them, the rewrites answers hand it, and the LRUs indexed by what they depend on
// (`core/cache/response-cache.ts` holds them).

export interface Entry {
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
  /** How its edge finds and rewrites the term counts it shows (`AnswerMeta.rewriteCounts`). */
  rewriteCounts?: CountRewrite;
  /** Its content hash's base: its plain bytes with those counts masked (`answer-hash.ts`). */
  hashBase?: string;
  /** Where its plain body shows those counts, as its last count refresh left them (none yet: found then). */
  countRuns?: CountRuns;
  /** Writes moved counts it shows, and nothing it cannot rewrite: the next read refreshes them. */
  staleCounts?: boolean;
  /** How its edge counts again and rewrites the list total it shows (`AnswerMeta.rewriteTotal`). */
  rewriteTotal?: TotalRewrite;
  /** Writes changed the total it shows, and nothing it cannot rewrite: the next read refreshes it. */
  staleTotal?: boolean;
  /** How its edge renders again the rows it shows (`AnswerMeta.rewriteRows`). */
  rewriteRows?: RowRewrite;
  /** Writes changed these events, shown as its rows, and nothing it cannot rewrite: the next read renders them. */
  staleRows?: number[];
}

export const isStale = (entry: Entry) =>
  entry.staleCounts === true || entry.staleTotal === true || entry.staleRows !== undefined;

/** How an edge finds and rewrites the term counts its answers show. */
export interface CountRewrite {
  /** Where `body` shows them. */
  find(body: Buffer): CountRuns;
  /**
   * The body with the counts replaced, and where they now are; null when it cannot be (recompute it
   * instead). `runs`: where they were, from the last rewrite (found anew when not given). `inPlace`:
   * the body may be changed and returned (no one else reads it) rather than copied.
   */
  rewrite(
    body: Buffer,
    counts: ReadonlyMap<number, number>,
    runs?: CountRuns,
    inPlace?: boolean,
  ): { body: Buffer; runs: CountRuns } | null;
}

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
export interface Mark {
  epoch: number;
  applied: number;
}

// One byte bound (CALENDAR_CACHE_MB) covers everything the cache keeps: the entries, the aliases that
// lead to them, each counted as what it holds in memory (`held-bytes.ts`): a body's
// whole backing store, its key, headers and dependencies, and the slots of the LRU that holds it.
/** The share of the bound the aliases may use (a URL and a few headers each, one per spelling). */
export const ALIAS_SHARE = 1 / 8;
/** The kept records' bound when none is given, as a share of the answers' (`recordMaxBytes`). */
export const RECORD_SHARE = 1 / 8;
/** An LRU slot (its key map entry and five parallel arrays) and the record around a held value. */
export const SLOT_BYTES = 128;

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

export function entryBytes(entry: Entry, key: string): number {
  const dependencies = entry.dependencies;
  return (
    SLOT_BYTES +
    stringBytes(key) +
    heldBytes(entry.body) +
    heldBytes(entry.headers) +
    measuredOnce(dependencies, () => heldBytes(dependencies) + indexBytes(dependencies)) +
    (entry.rewriteTotal ? rewriteBytes(entry.rewriteTotal) : 0) +
    (entry.rewriteRows ? rewriteBytes(entry.rewriteRows) : 0) +
    (entry.countRuns ? heldBytes(entry.countRuns) : 0)
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

/**
 * `invalidation`: a write's effect applied; `dropped`: one entry it made stale; `shared`: a miss that
 * waited for the same answer being computed by another request instead of computing it again;
 * `refreshed`: a read answered from an entry whose term counts, list total or rows a write had changed,
 * with those read again and rewritten (neither a hit nor a miss: a small read instead of the whole answer).
 */
export type CacheEvent = 'hit' | 'miss' | 'refreshed' | 'eviction' | 'invalidation' | 'dropped' | 'shared';

/**
 * A byte-bounded LRU of values kept under the invalidation (kept records), each counted
 * with its key and its dependencies' index slots; one that goes (evicted, deleted, cleared) leaves
 * `index` too (a replacement: `storeIndexed`).
 */
export function indexedLru<V extends { dependencies: Dependencies }>(
  maxSize: number,
  index: DependencyIndex,
) {
  return new LRUCache<string, V>({
    maxSize,
    sizeCalculation: (kept, key) =>
      SLOT_BYTES + stringBytes(key) + heldBytes(kept) + indexBytes(kept.dependencies),
    dispose: (kept, key, reason) => {
      if (reason !== 'set') index.remove(key, kept.dependencies);
    },
  });
}

/**
 * Stores in `lru` and indexes what was stored (a value over the bound is not stored, and the one it
 * would replace is gone). A refreshed entry keeps its dependencies: the index is left as it is.
 */
export function storeIndexed<V extends { dependencies: Dependencies }>(
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

/** An answer's strong tag from its content hash; a single record's starts with its version. */
export const etagOf = (hash: string, version: string | undefined) =>
  version ? versionedEtag(version, hash) : `"${hash}"`;
