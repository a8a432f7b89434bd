import type { DatabaseProvider } from '../config.js';
import { Prisma } from '../generated/sqlite/client.js';

/**
 * PostgreSQL: waits until the other transactions that hold any of these keys (a name, a slug) have
 * finished, so that what they committed is seen — advisory transaction locks, taken in key order so
 * that two writers never deadlock. SQLite runs one write transaction at a time: nothing to do.
 */
export async function lockKeys(
  tx: Prisma.TransactionClient,
  provider: DatabaseProvider,
  keys: string[],
): Promise<void> {
  if (provider !== 'postgresql') return;
  for (const key of [...new Set(keys)].sort()) {
    await tx.$queryRaw(
      Prisma.sql`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtext(${key}))) AS l`,
    );
  }
}
