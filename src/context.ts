import type { Config } from './config.js';
import type { Db } from './db/client.js';
import { ANONYMOUS, type Viewer } from './domain/permissions.js';
import { type SiteUrls, siteUrls } from './domain/urls.js';

/** Everything a resolver may use, built once per request. */
export interface Context {
  db: Db;
  config: Config;
  urls: SiteUrls;
  /** Who is asking (from HTTP Basic with an application password); anonymous by default. */
  viewer: Viewer;
}

export interface AppDeps {
  db: Db;
  config: Config;
}

export interface RequestInfo {
  languageSegment?: string;
  viewer?: Viewer;
}

export function createContext({ db, config }: AppDeps, request: RequestInfo = {}): Context {
  return {
    db,
    config,
    viewer: request.viewer ?? ANONYMOUS,
    urls: siteUrls(config.siteUrl, request.languageSegment),
  };
}
