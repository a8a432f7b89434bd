import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { databaseProviderOf } from '../config.js';
import { PrismaClient } from '../generated/sqlite/client.js';

// Both generated clients expose the same model API (they come from one schema); the application is
// typed against the SQLite one and receives the PostgreSQL one behind the same type.
export type Db = PrismaClient;

export interface DbOptions {
  /** Called once per SQL statement Prisma sends; tests use it to prove lists are free of N+1. */
  onQuery?: (sql: string) => void;
}

/** `file:./data/x.db` or a bare path → an absolute file path (its folder is created). */
export function sqliteFilePath(url: string): string {
  const path = resolve(url.replace(/^file:/, ''));
  mkdirSync(dirname(path), { recursive: true });
  return path;
}

export async function createDb(databaseUrl: string, options: DbOptions = {}): Promise<Db> {
  const log = options.onQuery ? [{ emit: 'event' as const, level: 'query' as const }] : [];
  let db: Db;
  if (databaseProviderOf(databaseUrl) === 'postgresql') {
    const { PrismaPg } = await import('@prisma/adapter-pg');
    const { PrismaClient: PgClient } = await import('../generated/postgres/client.js');
    const adapter = new PrismaPg({ connectionString: databaseUrl, max: 10 });
    db = new PgClient({ adapter, log }) as unknown as Db;
  } else {
    const adapter = new PrismaBetterSqlite3({ url: `file:${sqliteFilePath(databaseUrl)}` });
    db = new PrismaClient({ adapter, log });
  }
  if (options.onQuery) {
    const onQuery = options.onQuery;
    (db as unknown as { $on(event: 'query', cb: (e: { query: string }) => void): void }).$on('query', (e) =>
      onQuery(e.query),
    );
  }
  return db;
}
