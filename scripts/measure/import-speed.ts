// npm run bench:import -- [--db sqlite|postgres] [--events 10000] [--source ics|csv|tec|all]
// Import speed (#26): records per second for a calendar of `--events` events read from a local source —
// an iCalendar file and a TEC-columns CSV written here, or a seeded instance of this service served on a
// local port and read through its TEC REST API (paged at 50, as from a The Events Calendar site). Each
// source is imported twice into a fresh database through the same write pipeline as the CLI's (change
// log and all): the first run creates everything, the second finds every record unchanged. Absolute
// figures depend on the machine and its load; compare sources and runs within one table.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/core/config/config.js';
import { type Db, createDb } from '../../src/core/db/client.js';
import { migrateDatabase } from '../../src/core/db/migrate.js';
import type { Viewer } from '../../src/core/rules/permissions.js';
import { createLogger } from '../../src/core/ops/logger.js';
import { runImport } from '../../src/imports/engine.js';
import { type ImportType, readerFor } from '../../src/imports/sources.js';
import { recordChanges } from '../../src/sync/change-log.js';
import { WritePipeline } from '../../src/core/db/transactions.js';
import { defaultCounts } from '../sample-data/generate.js';
import { seedDatabase } from '../sample-data/seed.js';

const PG_ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgresql://root@127.0.0.1:5432/postgres';
const IMPORTER: Viewer = { userId: null, login: 'importer', role: 'administrator' };

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    events: { type: 'string', default: '10000' },
    source: { type: 'string', default: 'all' },
  },
});
const postgres = args.db === 'postgres';
const events = Number(args.events);
const sources = (args.source === 'all' ? ['ics', 'csv', 'tec'] : [args.source]) as ImportType[];
const work = mkdtempSync(join(tmpdir(), 'calendar-import-speed-'));

interface Database {
  url: string;
  drop: () => Promise<void>;
}

/** A fresh, migrated database: a file in the work folder, or a database on the local server. */
async function freshDatabase(name: string): Promise<Database> {
  if (!postgres) return { url: `file:${join(work, `${name}.db`)}`, drop: async () => {} };
  const database = `import_speed_${name}_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = new URL(PG_ADMIN);
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_ADMIN });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await client.end();
    },
  };
}

const pad = (n: number) => String(n).padStart(2, '0');
const VENUES = 50;
const ORGANIZERS = 20;
const CATEGORIES = ['Music', 'Theatre', 'Talks', 'Family', 'Sport', 'Markets', 'Film', 'Dance'];

/** The i-th event's local start and end in Europe/Paris: one a day at varying hours, 2027 onward. */
function slot(i: number): { day: string; start: string; end: string } {
  const date = new Date(Date.UTC(2027, 0, 1) + Math.floor(i / 8) * 86_400_000);
  const day = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  const hour = 9 + (i % 8) * 1;
  return { day, start: `${pad(hour)}:00`, end: `${pad(hour + 1)}:30` };
}

function icsFeed(count: number): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//import-speed//EN'];
  for (let i = 0; i < count; i++) {
    const { day, start, end } = slot(i);
    const compact = (time: string) => `${day.replaceAll('-', '')}T${time.replace(':', '')}00`;
    lines.push(
      'BEGIN:VEVENT',
      `UID:speed-${i}@example.org`,
      'DTSTAMP:20261101T000000Z',
      `DTSTART;TZID=Europe/Paris:${compact(start)}`,
      `DTEND;TZID=Europe/Paris:${compact(end)}`,
      `SUMMARY:Event number ${i}`,
      `DESCRIPTION:The description of event ${i}\\, with some words to carry.`,
      `LOCATION:Venue ${i % VENUES}`,
      `ORGANIZER;CN=Organizer ${i % ORGANIZERS}:mailto:organizer${i % ORGANIZERS}@example.org`,
      `CATEGORIES:${CATEGORIES[i % CATEGORIES.length]}`,
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR');
  return `${lines.join('\r\n')}\r\n`;
}

function csvFile(count: number): string {
  const rows = [
    'Event Name,Event Description,Event Start Date,Event Start Time,Event End Date,Event End Time,Event Time Zone,Event Venue Name,Event Organizer Name(s) or ID(s),Event Cost,Event Category,Event Tags',
  ];
  for (let i = 0; i < count; i++) {
    const { day, start, end } = slot(i);
    rows.push(
      [
        `Event number ${i}`,
        `"The description of event ${i}, with some words to carry."`,
        day,
        start,
        day,
        end,
        'Europe/Paris',
        `Venue ${i % VENUES}`,
        `Organizer ${i % ORGANIZERS}`,
        String(i % 30),
        CATEGORIES[i % CATEGORIES.length],
        `tag${i % 12}`,
      ].join(','),
    );
  }
  return `${rows.join('\n')}\n`;
}

/** A seeded instance of this service on a local port: the TEC source. */
async function tecSource(
  config: Config,
): Promise<{ root: string; close: () => Promise<void>; database: Database }> {
  const database = await freshDatabase('source');
  await migrateDatabase(database.url);
  const db = await createDb(database.url);
  await seedDatabase(db, postgres ? 'postgresql' : 'sqlite', {
    seed: 7,
    now: new Date(new Date().setUTCHours(0, 0, 0, 0)),
    events,
    ...defaultCounts(events),
    reset: false,
  });
  const app = buildApp({
    db,
    config: { ...config, databaseUrl: database.url },
    logger: createLogger('error'),
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    root: `http://127.0.0.1:${port}/calendar/events/v1`,
    database,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await db.$disconnect();
    },
  };
}

interface Row {
  source: string;
  run: string;
  records: number;
  seconds: number;
  created: number;
  unchanged: number;
  failed: number;
}

async function importTwice(type: ImportType, location: string, text: string, config: Config): Promise<Row[]> {
  const database = await freshDatabase(`into_${type}`);
  await migrateDatabase(database.url);
  const db: Db = await createDb(database.url);
  const writes = new WritePipeline();
  recordChanges(writes, { databaseProvider: postgres ? 'postgresql' : 'sqlite' });
  const scope = { db, config: { ...config, databaseUrl: database.url }, writes, viewer: IMPORTER };
  const rows: Row[] = [];
  try {
    for (const run of ['first (creates)', 'second (unchanged)']) {
      const reader = readerFor({ type, location }, config, text);
      const started = performance.now();
      const summary = await runImport(scope, reader, {});
      const seconds = (performance.now() - started) / 1000;
      rows.push({
        source: type,
        run,
        records: summary.records,
        seconds,
        created: summary.created,
        unchanged: summary.unchanged,
        failed: summary.failed,
      });
    }
  } finally {
    await db.$disconnect();
    await database.drop();
  }
  return rows;
}

const config = loadConfig({ ...process.env, CALENDAR_CACHE: 'off', CALENDAR_SITE_TIMEZONE: 'Europe/Paris' });
const rows: Row[] = [];
try {
  for (const type of sources) {
    if (type === 'tec') {
      const source = await tecSource(config);
      try {
        rows.push(...(await importTwice('tec', source.root, '', config)));
      } finally {
        await source.close();
        await source.database.drop();
      }
    } else {
      const text = type === 'ics' ? icsFeed(events) : csvFile(events);
      const file = join(work, `source.${type}`);
      writeFileSync(file, text);
      rows.push(...(await importTwice(type, file, text, config)));
    }
    console.error(`imported ${type}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

console.log(`\n${events} events from local sources into ${postgres ? 'PostgreSQL' : 'SQLite'}\n`);
console.log('| source | run | records | seconds | records/s | created | unchanged | failed |');
console.log('|---|---|---|---|---|---|---|---|');
for (const row of rows)
  console.log(
    `| ${row.source} | ${row.run} | ${row.records} | ${row.seconds.toFixed(1)} | ${Math.round(row.records / row.seconds)} | ${row.created} | ${row.unchanged} | ${row.failed} |`,
  );
