// npm run db:migrate — applies pending migrations to DATABASE_URL (default: the SQLite file the server uses).
import { migrateDatabase } from '../../src/core/db/migrate.js';

const url = process.env.DATABASE_URL || 'file:./data/calendar.db';
const started = performance.now();
try {
  const { applied } = await migrateDatabase(url);
  const ms = Math.round(performance.now() - started);
  console.log(
    applied.length
      ? `applied ${applied.length} migration(s) in ${ms} ms:\n  ${applied.join('\n  ')}`
      : `database is up to date (${ms} ms)`,
  );
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
