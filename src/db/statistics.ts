import type { DatabaseProvider } from '../config.js';

// PostgreSQL plans from table statistics, which only ANALYZE (or autovacuum, when it is on and has
// woken up) gathers. Right after a bulk load they describe the tables as they were before it: a list
// filtered by venue on 10,000 freshly seeded events was planned for one row and took 300 ms where
// 3 ms do. Whatever writes thousands of rows at once refreshes them. SQLite's planner needs none
// for the plans its indexes are built for (`test/db/list-plans.test.ts` holds them), but without them
// it cannot tell that a list naming a venue's events (`services/list-conditions.ts`) reads fewer rows by
// id than through its date window: a venue's total at 100,000 events took 18 ms, and 0.6 ms with them.
// SQLite keeps them in the file (`sqlite_stat1`); a connection checks them when it opens
// (`SQLITE_OPTIMIZE`), and a bulk write gathers them again.

/** The tables a bulk load of events fills. */
const LOADED_TABLES = ['Event', 'EventTerm', 'EventVenue', 'EventOrganizer', 'Term', 'Venue', 'Organizer'];

/** Rows written at once past which the statistics are refreshed. */
export const BULK_ROWS = 1000;

/**
 * What a SQLite connection runs when it opens, as SQLite advises for long-lived connections: gathers
 * the statistics of every table that has none or has grown or shrunk tenfold since (0x10000: every
 * table, not only those this connection has read; 0x2: analyze). A few milliseconds when nothing
 * changed; 0.25 s the first time at 100,000 events.
 */
export const SQLITE_OPTIMIZE = 'optimize = 0x10002';

/** Refreshes the planner's statistics of the event tables after a bulk write. */
export async function refreshStatistics(
  db: { $executeRawUnsafe(sql: string): Promise<unknown> },
  provider: DatabaseProvider,
): Promise<void> {
  const tables = LOADED_TABLES.map((table) => `"${table}"`);
  if (provider === 'postgresql') await db.$executeRawUnsafe(`ANALYZE ${tables.join(', ')}`);
  else for (const table of tables) await db.$executeRawUnsafe(`ANALYZE ${table}`);
}
