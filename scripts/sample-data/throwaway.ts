import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Db, type DbOptions, createDb } from '../../src/core/db/client.js';
import { migrateDatabase } from '../../src/core/db/migrate.js';
import { defaultCounts } from './generate.js';
import { seedDatabase } from './seed.js';

/**
 * A SQLite database of its own for an in-process benchmark: migrated, seeded with `events` (seed 42,
 * today's sample), and connected with `options`; `remove` deletes its folder once the client is closed.
 */
export async function throwawaySqlite(
  label: string,
  events: number,
  options: DbOptions = {},
): Promise<{ url: string; db: Db; remove: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), `calendar-${label}-`));
  const url = `file:${join(dir, 'bench.sqlite')}`;
  await migrateDatabase(url);
  const db = await createDb(url, options);
  const today = new Date(new Date().setUTCHours(0, 0, 0, 0));
  await seedDatabase(db, 'sqlite', { seed: 42, now: today, events, ...defaultCounts(events), reset: false });
  return { url, db, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
