// npm run seed -- --events 10000 [--venues N --organizers N --seed 42 --now 2026-11-22 --reset | --if-empty]
// Fills DATABASE_URL (default: the server's SQLite file) with sample data: generate.ts and seed.ts beside it make the rows.
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { announceInvalidation } from '../../src/core/cache/invalidation-channel.js';
import { databaseProviderOf } from '../../src/core/config/config.js';
import { createLogger } from '../../src/core/ops/logger.js';
import { type Db, createDb } from '../../src/core/db/client.js';
import { migrateDatabase } from '../../src/core/db/migrate.js';
import { calendarNamespace } from '../../src/core/db/calendar-identity.js';
import { defaultCounts } from './generate.js';
import { seedDatabase } from './seed.js';

function usage(message: string): never {
  console.error(message);
  console.error(
    'usage: npm run seed -- --events N [--venues N] [--organizers N] [--seed N] [--now DATE] [--reset | --if-empty]',
  );
  process.exit(2);
}

function parseCli() {
  try {
    return parseArgs({
      options: {
        events: { type: 'string', default: '1000' },
        venues: { type: 'string' },
        organizers: { type: 'string' },
        seed: { type: 'string', default: '42' },
        // Dates are relative to `now`; today's UTC midnight by default, so same-day runs are identical.
        now: { type: 'string' },
        reset: { type: 'boolean', default: false },
        // For `npm run demo`: seed a fresh database, leave one that already has events alone.
        'if-empty': { type: 'boolean', default: false },
      },
    }).values;
  } catch (error) {
    return usage((error as Error).message);
  }
}

function count(name: string, value: string | undefined, fallback: number): number {
  const n = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(n) || n < 0) usage(`--${name} must be a non-negative integer, got ${value}`);
  return n;
}

const args = parseCli();
const url = process.env.DATABASE_URL || 'file:./data/calendar.db';
const provider = databaseProviderOf(url);
const events = count('events', args.events, 1000);
const defaults = defaultCounts(events);
const venues = count('venues', args.venues, defaults.venues);
const organizers = count('organizers', args.organizers, defaults.organizers);
const seed = count('seed', args.seed, 42);
const now = args.now ? new Date(args.now) : new Date(new Date().setUTCHours(0, 0, 0, 0));
if (Number.isNaN(now.getTime())) usage(`--now must be a date, got ${args.now}`);
if (args.reset && args['if-empty']) usage('--reset and --if-empty exclude each other');

const started = performance.now();
let db: Db | undefined;
const bar = process.stderr.isTTY
  ? new cliProgress.SingleBar(
      { format: 'seeding {bar} {percentage}% | {value}/{total} events | {duration}s', hideCursor: true },
      cliProgress.Presets.shades_classic,
    )
  : undefined;
try {
  await migrateDatabase(url);
  db = await createDb(url);
  const existing = args['if-empty'] ? await db.event.count() : 0;
  if (existing) {
    console.log(`database already has ${existing} events: not seeded`);
  } else {
    bar?.start(events, 0);
    const counts = await seedDatabase(db, provider, {
      seed,
      now,
      events,
      venues,
      organizers,
      reset: args.reset,
      onProgress: (written) => bar?.update(written),
    });
    bar?.stop();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const links = counts.eventVenues + counts.eventOrganizers + counts.eventTerms;
    console.log(
      `seeded ${provider}: ${counts.events} events, ${counts.venues} venues, ${counts.organizers} organizers, ` +
        `${counts.terms} new terms, ${links} links in ${seconds} s`,
    );
    // Running servers did not see these writes: their caches start again (where a channel exists), on
    // the channel of the calendar this database holds.
    const namespace = await calendarNamespace(db);
    await announceInvalidation(
      { redisUrl: process.env.REDIS_URL, databaseUrl: url, databaseProvider: provider, namespace },
      createLogger('warn', 'stderr'),
    );
  }
} catch (error) {
  bar?.stop();
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await db?.$disconnect();
}
