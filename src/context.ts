import DataLoader from 'dataloader';
import type { Config } from './config.js';
import type { Db } from './db/client.js';
import { ANONYMOUS, type Viewer } from './domain/permissions.js';
import { type SiteUrls, siteUrls } from './domain/urls.js';

export interface Loaders {
  /** Number of published events carrying each term (the reference's term `count`, stored on the term). */
  termEventCount: DataLoader<number, number>;
}

/** Everything a resolver may use; built once per request so loaders never leak between requests. */
export interface Context {
  db: Db;
  config: Config;
  urls: SiteUrls;
  loaders: Loaders;
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
    loaders: {
      termEventCount: new DataLoader(async (termIds) => {
        const rows = await db.term.findMany({ where: { id: { in: [...termIds] } }, select: { id: true, eventCount: true } });
        const counts = new Map(rows.map((row) => [row.id, row.eventCount]));
        return termIds.map((id) => counts.get(id) ?? 0);
      }),
    },
  };
}
