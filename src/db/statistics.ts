import type { DatabaseProvider } from '../config.js';
import type { Db } from './client.js';

// PostgreSQL plans from table statistics, which only ANALYZE (or autovacuum, when it is on and has
// woken up) gathers. Right after a bulk load they describe the tables as they were before it: a list
// filtered by venue on 10,000 freshly seeded events was planned for one row and took 300 ms where
// 3 ms do. Whatever writes thousands of rows at once refreshes them. SQLite's planner needs no
// statistics for the plans its indexes are built for (`test/db/list-plans.test.ts` holds them).

/** The tables a bulk load of events fills. */
const LOADED_TABLES = ['Event', 'EventTerm', 'EventVenue', 'EventOrganizer', 'Term', 'Venue', 'Organizer'];

/** Rows written at once past which the statistics are refreshed. */
export const BULK_ROWS = 1000;

/** Refreshes the planner's statistics of the event tables after a bulk write (PostgreSQL only). */
export async function refreshStatistics(db: Db, provider: DatabaseProvider): Promise<void> {
  if (provider !== 'postgresql') return;
  await db.$executeRawUnsafe(`ANALYZE ${LOADED_TABLES.map((table) => `"${table}"`).join(', ')}`);
}
