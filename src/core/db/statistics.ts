import type { DatabaseProvider } from '../config/config.js';
import { COMPACT_LIST_COUNTS } from './queries/list-counts.js';

// PostgreSQL plans from table statistics, which only ANALYZE (or autovacuum, when it is on and has
// woken up) gathers. Right after a bulk load they describe the tables as they were before it: a list
// filtered by venue on 10,000 freshly seeded events was planned for one row and took 300 ms where
// 3 ms do. Whatever writes thousands of rows at once refreshes them. SQLite's planner needs none
// for the plans its indexes are built for (`test/core/db/list-plans.test.ts` holds them), but without them
// it cannot tell that a venue's links are fewer than the events of a date window
// (`core/db/queries/list-conditions.ts`): a venue's total at 100,000 events took 25 ms, and 2 ms with them.
// SQLite keeps them in the file (`sqlite_stat1`); a connection checks them when it opens and every
// hour while it stays open (`keepSqliteStatistics`), and a bulk write gathers them again.

/** The tables a bulk load of events fills. */
const LOADED_TABLES = [
  'Event',
  'EventListCount',
  'EventTerm',
  'EventVenue',
  'EventOrganizer',
  'Term',
  'Venue',
  'Organizer',
];

/**
 * On SQLite, the tables of the events' search index (the FTS5 table `EventSearch`, filled by triggers)
 * too. FTS5 drops merged segments with `DELETE … WHERE id >= ? AND id <= ?` on its data table: planned
 * from statistics gathered while the index was nearly empty (a connection opened on a new database,
 * then loaded), that range is a scan of the whole index, and one event edit in fifteen, the one whose
 * flush merges segments, read the 16 MB index of 10,000 events several times over (~130 ms).
 */
const SQLITE_SEARCH_TABLES = ['EventSearch_data', 'EventSearch_idx', 'EventSearch_docsize'];

/** Rows written at once past which the statistics are refreshed. */
export const BULK_ROWS = 1000;

/**
 * What a SQLite connection runs, as SQLite advises for long-lived connections: gathers the statistics
 * of every table that has none or has grown or shrunk tenfold since (0x10000: every table, not only
 * those this connection has read; 0x2: analyze). A few milliseconds when nothing changed; 0.25 s the
 * first time at 100,000 events.
 */
const SQLITE_OPTIMIZE = 'optimize = 0x10002';

/** How often an open SQLite connection checks its statistics again (SQLite advises every few hours). */
const SQLITE_OPTIMIZE_EVERY_MS = 60 * 60 * 1000;

/**
 * Checks a SQLite connection's statistics now, then every `everyMs` while it is open, so that a
 * calendar grown tenfold since the service started is planned for its size; returns the stop. A
 * check that fails (the file busy) is skipped: the next one gathers what it missed.
 */
export function keepSqliteStatistics(
  connection: { pragma(source: string): unknown },
  everyMs = SQLITE_OPTIMIZE_EVERY_MS,
  /** Told after each check: the database's other connections load what it gathered. */
  checked: () => void = () => undefined,
): () => void {
  connection.pragma(SQLITE_OPTIMIZE);
  checked();
  const timer = setInterval(() => {
    try {
      connection.pragma(SQLITE_OPTIMIZE);
      checked();
    } catch {
      // Best effort: the plans stay those of the statistics already kept.
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Refreshes the planner's statistics of the event tables after a bulk write, the list counts' deltas
 * folded first (a bulk load leaves one per bucket and statement).
 */
export async function refreshStatistics(
  db: { $executeRawUnsafe(sql: string): Promise<unknown> },
  provider: DatabaseProvider,
): Promise<void> {
  if (provider === 'postgresql') await db.$executeRawUnsafe(COMPACT_LIST_COUNTS);
  const loaded = provider === 'postgresql' ? LOADED_TABLES : [...LOADED_TABLES, ...SQLITE_SEARCH_TABLES];
  const tables = loaded.map((table) => `"${table}"`);
  if (provider === 'postgresql') await db.$executeRawUnsafe(`ANALYZE ${tables.join(', ')}`);
  else for (const table of tables) await db.$executeRawUnsafe(`ANALYZE ${table}`);
}
