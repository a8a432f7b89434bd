import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { databaseProviderOf } from '../config/config.js';
import { PrismaClient } from '../../generated/sqlite/client.js';
import type { Metrics } from '../ops/metrics.js';
import { StatementReusingSqlite, readingCommitted } from './sqlite-statements.js';
import { keepSqliteStatistics } from './statistics.js';

// Both generated clients expose the same model API (they come from one schema); the application is
// typed against the SQLite one and receives the PostgreSQL one behind the same type.
export type Db = PrismaClient;

export interface DbOptions {
  /** Called once per SQL statement Prisma sends; tests use it to prove lists are free of N+1. */
  onQuery?: (sql: string) => void;
  /** Counts SQL statements and times model operations; the pool gauges follow on PostgreSQL. */
  metrics?: Metrics;
}

/**
 * SQLite's page cache of the reads' connection, in KiB (better-sqlite3's build default is 16 MB). It is
 * malloc'd memory of the process (RSS), not the OS's file cache, which holds the file whatever this says:
 * a page missing here is copied from there, not read from disk, so a larger cache mostly keeps more of
 * the file twice (docs/operations/memory.md). Memory-mapped I/O stays off (SQLite's default): mapped
 * pages would count in RSS as they are read, up to the whole file.
 */
export const SQLITE_PAGE_CACHE_KIB = 4_096;
/** The writer's page cache, in KiB: its statements touch few pages, and it reads nothing outside writes. */
export const SQLITE_WRITER_PAGE_CACHE_KIB = 1_024;

/**
 * How many values one statement may bind: the connection's own limit (`MAX_VARIABLE_NUMBER`, 32766 in
 * better-sqlite3's build), told to Prisma, which otherwise assumes SQLite's old default of 999 and
 * refuses (or splits) a statement naming more. Searches name the events their index found (`id IN`).
 */
function sqliteBindLimit(client: { pragma(source: string): unknown }): number {
  const options = client.pragma('compile_options') as Array<{ compile_options: string }>;
  const limit = options
    .map((row) => /^MAX_VARIABLE_NUMBER=(\d+)$/.exec(row.compile_options)?.[1])
    .find(Boolean);
  return limit ? Number(limit) : 999;
}

/** A connection's page cache set to `kib`, memory-mapped I/O off (`SQLITE_PAGE_CACHE_KIB`). */
function sized(connection: Database.Database, kib: number): Database.Database {
  connection.pragma(`cache_size = -${kib}`);
  connection.pragma('mmap_size = 0');
  return connection;
}

/**
 * The adapter whose connections reuse statements, with the page cache, mapping and bind limit set and
 * the planner's statistics kept.
 */
class SizedSqlite extends StatementReusingSqlite {
  constructor(private readonly path: string) {
    super({ url: `file:${path}` });
  }

  override async connect(): ReturnType<StatementReusingSqlite['connect']> {
    const adapter = await super.connect();
    const { client } = adapter as unknown as { client: Database.Database };
    // Committed reads on a connection of their own need WAL (readers never wait for the writer). The
    // mode is kept in the file, so this only matters for a database no migration has opened; one that
    // cannot take it is read on the writer's connection, as before.
    const wal = client.pragma('journal_mode = WAL', { simple: true }) === 'wal';
    // The reader runs nearly every query: it gets the page cache; the writer's statements touch few pages.
    sized(client, wal ? SQLITE_WRITER_PAGE_CACHE_KIB : SQLITE_PAGE_CACHE_KIB);
    const reads = wal
      ? readingCommitted(adapter, () => {
          // Read-only: a write routed to it by mistake fails instead of committing apart.
          const reader = new Database(this.path, { readonly: true });
          reader.defaultSafeIntegers(true);
          return sized(reader, SQLITE_PAGE_CACHE_KIB);
        })
      : undefined;
    const stopStatistics = keepSqliteStatistics(client, undefined, reads?.statisticsGathered);
    const connectionInfo = { supportsRelationJoins: false, maxBindValues: sqliteBindLimit(client) };
    const dispose = adapter.dispose.bind(adapter);
    return Object.assign(adapter, {
      getConnectionInfo: () => connectionInfo,
      dispose: async () => {
        stopStatistics();
        reads?.close();
        await dispose();
      },
    });
  }
}

/** `file:./data/x.db` or a bare path → an absolute file path (its folder is created). */
export function sqliteFilePath(url: string): string {
  const path = resolve(url.replace(/^file:/, ''));
  mkdirSync(dirname(path), { recursive: true });
  return path;
}

/**
 * Prisma's other formats capture a stack trace at every query, to point an error's message at the
 * caller's line: about a fifth of the client's time for a simple read here (a `findUnique` of three
 * columns, ~150 → ~115 µs). Its messages never reach a client (the edges answer with their own), and
 * codes and metadata are the same in every format.
 */
const ERROR_FORMAT = 'minimal';

/**
 * PostgreSQL plans an unnamed statement again at every execution: for an event with its relations,
 * ~0.4 ms of the server's CPU a read, on the cores the service shares with it. A named one is parsed
 * and planned once per connection (pg keeps it per client). Named by its text: a statement's shape
 * comes from the code, so their number is bounded by the code's queries and their list sizes; one
 * with more parameters than a page holds (a long `IN` list, a bulk write) stays unnamed, so no
 * connection keeps a statement per list length.
 */
const MAX_PREPARED_PARAMETERS = 64;
/**
 * A statement whose best plan depends on its values: a pattern match (a search) or a filter through a
 * link (`EXISTS`: the events of one venue, organizer or term, which may hold 20 events or 2,000). After
 * five executions of a named statement PostgreSQL may keep a generic plan, blind to those values: it
 * walks the list's order index testing every event where a rare word's trigram index, or a small
 * venue's links, find a few (at 100,000 events a rare word's list took 900 ms for 0.2 ms planned for
 * its value, a small venue's 300 ms for 13). Such statements are planned for their values each time.
 */
const PLANNED_BY_VALUES = /\bI?LIKE\b|\bEXISTS\s*\(/;
function preparedStatementName(query: { sql: string; args: readonly unknown[] }): string {
  // pg sends a statement without a name (`''`) unprepared.
  if (query.args.length > MAX_PREPARED_PARAMETERS || PLANNED_BY_VALUES.test(query.sql)) return '';
  return `p${createHash('sha1').update(query.sql).digest('base64url')}`;
}

export async function createDb(databaseUrl: string, options: DbOptions = {}): Promise<Db> {
  const { metrics } = options;
  const log = options.onQuery || metrics ? [{ emit: 'event' as const, level: 'query' as const }] : [];
  let db: Db;
  if (databaseProviderOf(databaseUrl) === 'postgresql') {
    const { PrismaPg } = await import('@prisma/adapter-pg');
    const { default: pg } = await import('pg');
    const { PrismaClient: PgClient } = await import('../../generated/postgres/client.js');
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
    metrics?.observePool(pool);
    // The adapter does not end a pool it was handed unless told to; $disconnect must.
    const adapter = new PrismaPg(pool as unknown as ConstructorParameters<typeof PrismaPg>[0], {
      disposeExternalPool: true,
      statementNameGenerator: preparedStatementName,
    });
    db = new PgClient({ adapter, log, errorFormat: ERROR_FORMAT }) as unknown as Db;
  } else {
    const adapter = new SizedSqlite(sqliteFilePath(databaseUrl));
    db = new PrismaClient({ adapter, log, errorFormat: ERROR_FORMAT });
  }
  const onQuery = options.onQuery;
  if (onQuery || metrics) {
    (db as unknown as { $on(event: 'query', cb: (e: { query: string }) => void): void }).$on('query', (e) => {
      onQuery?.(e.query);
      metrics?.sqlStatements.inc();
    });
  }
  return metrics ? timed(db, metrics) : db;
}

/** The same client, each model operation timed by model and operation name. */
function timed(db: Db, metrics: Metrics): Db {
  return db.$extends({
    query: {
      async $allOperations({ model, operation, args, query }) {
        const stop = metrics.dbOperations.startTimer({ model: model ?? 'raw', operation });
        try {
          return await query(args);
        } finally {
          stop();
        }
      },
    },
  }) as unknown as Db;
}
