import type Koa from 'koa';
import supertest from 'supertest';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/core/config/config.js';
import { type Db, createDb } from '../../src/core/db/client.js';
import { migrateDatabase } from '../../src/core/db/migrate.js';
import { type Logger, createLogger } from '../../src/core/ops/logger.js';
import { WritePipeline } from '../../src/core/db/transactions.js';
import { freshDatabase } from './database.js';

export const SITE_URL = 'http://calendar.test:8080';
export const API = '/calendar/events/v1';
export const API_ROOT = `${SITE_URL}${API}`;

export interface Harness {
  db: Db;
  config: Config;
  http: ReturnType<typeof supertest>;
  /** The Koa app itself, for tests that need a real port (`app.listen(0)`). */
  app: Koa;
  /** The app's write pipeline (tests register listeners on it). */
  writes: WritePipeline;
  /** Every SQL statement since the last `queries.length = 0`. */
  queries: string[];
  close(): Promise<void>;
}

/** The app in-process (no port) on a database of its own, migrated. */
export async function startHarness(env: Record<string, string> = {}, logger?: Logger): Promise<Harness> {
  const database = await freshDatabase();
  await migrateDatabase(database.url);
  const queries: string[] = [];
  const db = await createDb(database.url, { onQuery: (sql) => queries.push(sql) });
  const config = loadConfig({
    DATABASE_URL: database.url,
    CALENDAR_SITE_URL: SITE_URL,
    CALENDAR_TIMEZONE: 'UTC',
    LOG_LEVEL: 'silent',
    // Fixtures write to the database directly, past the write pipeline that invalidates the response
    // cache: tests of the cache turn it on themselves.
    CALENDAR_CACHE: 'off',
    // Every test client is the loopback address: tests of the reservation limits turn them on themselves.
    CALENDAR_RSVP_PER_ADDRESS: '0',
    CALENDAR_RSVP_PER_EMAIL: '0',
    ...env,
  });
  const writes = new WritePipeline();
  const app = buildApp({
    db,
    config,
    writes,
    logger: logger ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
  });
  return {
    db,
    config,
    writes,
    http: supertest(app.callback()),
    app,
    queries,
    close: async () => {
      await db.$disconnect();
      await database.drop();
    },
  };
}
