import type { Config } from './config.js';
import type { Db } from './db/client.js';
import { ANONYMOUS, type Viewer } from './domain/permissions.js';
import { type SiteUrls, siteUrls } from './domain/urls.js';
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
}

/** What services need of a request: who asks, the database, the settings and the write pipeline. */
export type Scope = Pick<Context, 'db' | 'viewer' | 'config' | 'writes'>;

export interface AppDeps {
  db: Db;
  config: Config;
  writes: WritePipeline;
}

export interface RequestInfo {
  languageSegment?: string;
  viewer?: Viewer;
}

export function createContext({ db, config, writes }: AppDeps, request: RequestInfo = {}): Context {
  return {
    db,
    config,
    writes,
    viewer: request.viewer ?? ANONYMOUS,
    urls: siteUrls(config.siteUrl, request.languageSegment),
  };
}
