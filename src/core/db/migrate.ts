import Database from 'better-sqlite3';
import pg from 'pg';
import { databaseProviderOf } from '../config/config.js';
import { sqliteFilePath } from './client.js';
import { type EngineTarget, schemaFilter, readMigrationList, withSchemaEngine } from './schema-engine.js';

// The engine takes pg_advisory_lock(72707369) itself but gives up after 10 s, so an instance starting
// while another applies a long migration would fail. This lock waits as long as it takes; its key
// must differ from the engine's, which runs on another session and would otherwise wait on ours.
const MIGRATION_LOCK_KEY = 4_242_001;

async function applyPending(target: EngineTarget): Promise<{ applied: string[] }> {
  const migrationsList = readMigrationList(target.provider);
  const { appliedMigrationNames } = await withSchemaEngine(target, (engine) =>
    engine.applyMigrations({ migrationsList, filters: schemaFilter(target.provider) }),
  );
  return { applied: appliedMigrationNames };
}

interface AppliedRow {
  migration_name: string;
}

const APPLIED_SQL =
  'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL';

/** Names recorded as applied; none when the bookkeeping table does not exist yet. */
function appliedIn(read: () => AppliedRow[]): Set<string> {
  try {
    return new Set(read().map((row) => row.migration_name));
  } catch {
    return new Set();
  }
}

function hasAll(applied: Set<string>, provider: 'sqlite' | 'postgresql'): boolean {
  return readMigrationList(provider).migrationDirectories.every((dir) => applied.has(dir.path));
}

/**
 * Applies the committed migrations the database lacks, recording them in `_prisma_migrations` as
 * `prisma migrate deploy` would. Idempotent: meant to run at every start.
 */
export async function migrateDatabase(databaseUrl: string): Promise<{ applied: string[] }> {
  if (databaseProviderOf(databaseUrl) === 'sqlite') {
    const file = sqliteFilePath(databaseUrl);
    // WAL is stored in the file itself, so setting it here covers every later connection.
    const db = new Database(file);
    let upToDate: boolean;
    try {
      db.pragma('journal_mode = WAL');
      upToDate = hasAll(
        appliedIn(() => db.prepare(APPLIED_SQL).all() as AppliedRow[]),
        'sqlite',
      );
    } finally {
      db.close();
    }
    // The engine takes write locks even when nothing is pending; skipping it keeps the CLI and
    // extra instances from waiting on a busy database.
    if (upToDate) return { applied: [] };
    return applyPending({ provider: 'sqlite', url: `file:${file}` });
  }

  // Instances starting together would race to apply the same migration. The session-level lock
  // makes the others wait, then find nothing left to apply; it is released if this process dies.
  const lock = new pg.Client({ connectionString: databaseUrl });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      return await applyPending({ provider: 'postgresql', url: databaseUrl });
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await lock.end();
  }
}
