import type { Config } from './config.js';
import type { Db } from './db/client.js';
import { ANONYMOUS, type Viewer } from './domain/permissions.js';
import { siteUrls } from './domain/urls.js';
import type { IfMatch } from './domain/versions.js';
import type { ReadLog } from './services/read-log.js';
import type { ShapeCache } from './cache/shape-cache.js';
import type { ChangeFeed } from './services/sync/change-feed.js';
import type { Context, Keep, KeepRecords } from './services/scope.js';
import type { WritePipeline } from './services/transactions.js';
import { limitedClient } from './http/client-address.js';

export type { Context, Keep, KeepRecords, Scope } from './services/scope.js';

export interface AppDeps {
  db: Db;
  config: Config;
  writes: WritePipeline;
  changes?: ChangeFeed;
  keep?: Keep;
  keepRecords?: KeepRecords;
  shapes?: ShapeCache;
}

export interface RequestInfo {
  languageSegment?: string;
  viewer?: Viewer;
  /** The client's address (the per-client subscription limit of anonymous viewers). */
  address?: string;
  /** The version an update or delete requires (REST `If-Match`), fixed when the context is made. */
  ifMatch?: IfMatch | null;
  /** Where the services note what the answer's reads depended on (an edge that caches it). */
  reads?: ReadLog;
}

/** The request's context, made once by the edge that received it (REST router, GraphQL endpoint). */
export function createContext(
  { db, config, writes, changes, keep, keepRecords, shapes }: AppDeps,
  request: RequestInfo = {},
): Context {
  const viewer = request.viewer ?? ANONYMOUS;
  return {
    db,
    config,
    writes,
    ...(changes ? { changes } : {}),
    ...(keep ? { keep } : {}),
    ...(keepRecords ? { keepRecords } : {}),
    ...(shapes ? { shapes } : {}),
    client:
      viewer.userId !== null
        ? `user:${viewer.userId}`
        : `address:${request.address ? limitedClient(request.address) : 'unknown'}`,
    viewer,
    ifMatch: request.ifMatch ?? null,
    ...(request.reads ? { reads: request.reads } : {}),
    urls: siteUrls(config.siteUrl, request.languageSegment),
  };
}
