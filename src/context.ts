import DataLoader from 'dataloader';
import type { Config } from './config.js';
import type { Db } from './db/client.js';
import { type SiteUrls, siteUrls } from './domain/urls.js';

export interface Loaders {
  /** Number of published events carrying each term (the reference's term `count`). */
  termEventCount: DataLoader<number, number>;
}

/** Everything a resolver may use; built once per request so loaders never leak between requests. */
export interface Context {
  db: Db;
  config: Config;
  urls: SiteUrls;
  loaders: Loaders;
}

export interface AppDeps {
  db: Db;
  config: Config;
}

export function createContext({ db, config }: AppDeps, languageSegment?: string): Context {
  return {
    db,
    config,
    urls: siteUrls(config.siteUrl, languageSegment),
    loaders: {
      termEventCount: new DataLoader(async (termIds) => {
        const rows = await db.eventTerm.groupBy({
          by: ['termId'],
          where: { termId: { in: [...termIds] }, event: { status: 'publish' } },
          _count: { _all: true },
        });
        const counts = new Map(rows.map((row) => [row.termId, row._count._all]));
        return termIds.map((id) => counts.get(id) ?? 0);
      }),
    },
  };
}
