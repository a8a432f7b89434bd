import type { Config } from './config.js';
import type { Db } from './db/client.js';
import { ANONYMOUS, type Viewer } from './domain/permissions.js';
import { type SiteUrls, siteUrls } from './domain/urls.js';
import type { ChangeFeed } from './services/change-feed.js';
import type { IfMatch } from './domain/versions.js';
import type { WritePipeline } from './services/transactions.js';

/** Everything a resolver may use, built once per request. */
export interface Context {
  db: Db;
  config: Config;
  urls: SiteUrls;
  /** Who is asking (from HTTP Basic with an application password); anonymous by default. */
  viewer: Viewer;
  /** The one write pipeline (transaction, locks, retries, change listeners). */
  writes: WritePipeline;
  /** Committed changes for GraphQL subscriptions (absent outside the GraphQL endpoint). */
  changes?: ChangeFeed;
  /** Who counts against the per-client subscription limit: a user, or an anonymous address. */
  client?: string;
  /** The version an update or delete requires of its record (REST `If-Match`, GraphQL `ifMatch`). */
  ifMatch?: IfMatch | null;
  /** Set by a single-record read: the version its entity tag starts with. */
  readVersion?: string;
  /** Keeps a number (a list's total) under the response cache's invalidation; absent: worked out each time. */
  keep?: Keep;
}

export type Keep = (key: string, compute: () => Promise<number>) => Promise<number>;

/** What services need of a request: who asks, the database, the settings and the write pipeline. */
export type Scope = Pick<Context, 'db' | 'viewer' | 'config' | 'writes' | 'ifMatch'>;

export interface AppDeps {
  db: Db;
  config: Config;
  writes: WritePipeline;
  changes?: ChangeFeed;
  keep?: Keep;
}

export interface RequestInfo {
  languageSegment?: string;
  viewer?: Viewer;
  /** The client's address (the per-client subscription limit of anonymous viewers). */
  address?: string;
  ifMatch?: IfMatch | null;
}

export function createContext(
  { db, config, writes, changes, keep }: AppDeps,
  request: RequestInfo = {},
): Context {
  const viewer = request.viewer ?? ANONYMOUS;
  return {
    db,
    config,
    writes,
    ...(changes ? { changes } : {}),
    ...(keep ? { keep } : {}),
    client: viewer.userId !== null ? `user:${viewer.userId}` : `address:${request.address ?? 'unknown'}`,
    viewer,
    ifMatch: request.ifMatch ?? null,
    urls: siteUrls(config.siteUrl, request.languageSegment),
  };
}
