import type { Db } from '../core/db/client.js';
import { Prisma } from '../generated/sqlite/client.js';

/** A client or an interactive transaction: counts are refreshed inside the write's transaction. */
type DbOrTransaction = Pick<Db, '$executeRaw'>;

const COUNT_PUBLISHED = Prisma.sql`(
  SELECT COUNT(*) FROM "EventTerm" JOIN "Event" ON "Event"."id" = "EventTerm"."eventId"
  WHERE "EventTerm"."termId" = "Term"."id" AND "Event"."status" = 'publish'
)`;

/**
 * Recomputes `Term.eventCount` (published events carrying the term) for the given terms. Every write
 * that changes an event's status or its term links calls it with the terms before and after.
 */
export async function refreshTermCounts(db: DbOrTransaction, termIds: Iterable<number>): Promise<void> {
  const ids = [...new Set(termIds)];
  if (ids.length === 0) return;
  await db.$executeRaw`UPDATE "Term" SET "eventCount" = ${COUNT_PUBLISHED} WHERE "id" IN (${Prisma.join(ids)})`;
}

/**
 * The stored counts of these terms (a term that no longer exists is absent): what a cached answer
 * showing them is refreshed with when a write moved them. Counts are public, the same for every viewer.
 */
export async function termCounts(db: Db, termIds: readonly number[]): Promise<Map<number, number>> {
  const rows = await db.term.findMany({
    where: { id: { in: [...termIds] } },
    select: { id: true, eventCount: true },
  });
  return new Map(rows.map((row) => [row.id, row.eventCount]));
}

/** After bulk loads (seeding, imports). */
export async function refreshAllTermCounts(db: DbOrTransaction): Promise<void> {
  await db.$executeRaw`UPDATE "Term" SET "eventCount" = ${COUNT_PUBLISHED}`;
}
