import type { Config } from '../config/config.js';
import type { ReadRecord } from '../cache/dependencies.js';
import type { Db } from '../db/client.js';
import type { Viewer } from '../rules/permissions.js';
import type { SiteUrls } from '../rules/urls.js';
import type { IfMatch } from '../rules/versions.js';
import type { ReadLog } from '../cache/read-log.js';
import type { WritePipeline } from '../db/transactions.js';

// What a request hands the services, declared here so that services never import the request
// context (`src/core/context/context.ts` builds it from these pieces, one level up).

/**
 * What rooms add to every request's context, declared by the rooms themselves (declaration merging:
 * `sync/change-feed.ts` adds the change feed), so that the core names no room.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the rooms' declarations
export interface RoomServices {}

/** Everything a resolver may use, built once per request (`createContext`). */
export interface Context extends RoomServices {
  db: Db;
  config: Config;
  urls: SiteUrls;
  /** Who is asking (from HTTP Basic with an application password); anonymous by default. */
  viewer: Viewer;
  /** The one write pipeline (transaction, locks, retries, change listeners). */
  writes: WritePipeline;
  /** Who counts against the per-client subscription limit: a user, or an anonymous address. */
  client?: string;
  /** The version an update or delete requires of its record (REST `If-Match`, GraphQL `ifMatch`). */
  ifMatch?: IfMatch | null;
  /** Keeps records (rows as a read selects them) under the response cache's invalidation; absent: read each time. */
  keepRecords?: KeepRecords;
  /** Where the services note what an answer's reads depended on (the edge that caches it reads it back). */
  reads?: ReadLog;
  /** Kept REST shapes of records, keyed by every input of the shape; absent: made every time. */
  shapes?: KeptShapes;
}

/** Representations kept by a key that spells every input (`core/cache/shape-cache.ts` keeps them, bounded). */
interface KeptShapes {
  /** The shape kept under `key`, or the one `compute` makes. Callers must not mutate it. */
  shaped<T extends object>(key: string, compute: () => T): T;
}

/**
 * The records kept under `keys` (frozen: shared by every read), those not kept read together by `read`
 * (given their indexes in `keys`, in that order; undefined: gone).
 */
export type KeepRecords = <T extends object>(
  keys: readonly string[],
  read: (missing: readonly number[]) => Promise<ReadonlyArray<ReadRecord<T> | undefined>>,
) => Promise<Array<T | undefined>>;

/** What services need of a request: who asks, the database, the settings and the write pipeline. */
export type Scope = Pick<Context, 'db' | 'viewer' | 'config' | 'writes' | 'ifMatch'>;
