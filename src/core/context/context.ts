import type { Config } from '../config/config.js';
import type { Db } from '../db/client.js';
import { ANONYMOUS, type Viewer } from '../rules/permissions.js';
import { siteUrls } from '../rules/urls.js';
import type { IfMatch } from '../rules/versions.js';
import type { ReadLog } from '../cache/read-log.js';
import type { ShapeCache } from '../cache/shape-cache.js';
import type { Context, KeepRecords, RoomServices } from './scope.js';
import type { WritePipeline } from '../db/transactions.js';
import { limitedClient } from '../config/client-address.js';

export type { Context, Scope } from './scope.js';

export interface AppDeps extends RoomServices {
  db: Db;
  config: Config;
  writes: WritePipeline;
  keepRecords?: KeepRecords;
  shapes?: ShapeCache;
}

interface RequestInfo {
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
  { db, config, writes, changes, keepRecords, shapes }: AppDeps,
  request: RequestInfo = {},
): Context {
  const viewer = request.viewer ?? ANONYMOUS;
  return {
    db,
    config,
    writes,
    ...(changes ? { changes } : {}),
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
