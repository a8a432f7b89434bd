import type { DatabaseProvider } from '../../config/config.js';

// Upkeep of the list counts on PostgreSQL (`EventListCount`, migration `event_list_counts`): its
// triggers only insert deltas, so that concurrent writers never wait on one bucket's row; this folds
// them. SQLite's buckets are one row each already (one writer at a time updates them in place).
// `src/events/service/list-counts.ts` reads them.

/** What folding needs of a client (`Db`, which imports the statistics that import this). */
interface RawClient {
  $queryRawUnsafe<T>(sql: string): Promise<T>;
}

/** The fold, in one statement: the buckets of several rows (or of a zero sum) deleted and summed back. */
export const COMPACT_LIST_COUNTS = `WITH "spread" AS (
       SELECT "status", "startDay", "endDay" FROM "EventListCount"
       GROUP BY 1, 2, 3 HAVING count(*) > 1 OR sum("count") = 0
     ), "gone" AS (
       DELETE FROM "EventListCount" AS c USING "spread" AS s
       WHERE c."status" = s."status" AND c."startDay" = s."startDay" AND c."endDay" = s."endDay"
       RETURNING c."status", c."startDay", c."endDay", c."count"
     ), "kept" AS (
       INSERT INTO "EventListCount" ("status", "startDay", "endDay", "count")
       SELECT "status", "startDay", "endDay", sum("count")::int FROM "gone"
       GROUP BY 1, 2, 3 HAVING sum("count") <> 0
     )
     SELECT count(*) AS "buckets" FROM "spread"`;

/**
 * On PostgreSQL, folds each bucket's deltas into one row (and drops the buckets summing to zero), so
 * that a total sums about one row a bucket. Exact under concurrent writes and compactions: a
 * bucket's rows are deleted and their sum written back in one statement, which only sums the rows it
 * deleted itself (a delta committed meanwhile stays as it is). Returns the buckets folded.
 */
export async function compactListCounts(db: RawClient, provider: DatabaseProvider): Promise<number> {
  if (provider !== 'postgresql') return 0;
  const folded = await db.$queryRawUnsafe<Array<{ buckets: number | bigint }>>(COMPACT_LIST_COUNTS);
  return Number(folded[0]?.buckets ?? 0);
}

/** How often the server folds the deltas (`ListCountsCompaction`). */
const COMPACT_LIST_COUNTS_EVERY_MS = 60_000;

/**
 * Runs `compactListCounts` every `everyMs` until stopped (PostgreSQL; SQLite's buckets are single rows
 * already). A failed run is skipped: the next one folds what it missed, and totals stay exact meanwhile.
 */
export class ListCountsCompaction {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: RawClient,
    private readonly provider: DatabaseProvider,
    private readonly onError: (error: unknown) => void,
    private readonly everyMs = COMPACT_LIST_COUNTS_EVERY_MS,
  ) {}

  start(): void {
    if (this.provider !== 'postgresql' || this.timer) return;
    this.timer = setInterval(() => {
      this.running = this.running.then(() => compactListCounts(this.db, this.provider).catch(this.onError));
    }, this.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
