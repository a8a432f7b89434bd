// npm run bench:scaling -- [--db sqlite|postgres|both] [--events 10000,100000] [--runs 15] [--explain] [--reuse]
// How an uncached list's cost grows with the calendar (#29, item 4): the same REST lists timed one
// request at a time, response cache off, on databases seeded with each number of events; the table
// gives each list's median at every size and the ratio of the largest to the smallest. `--explain`
// prints the plan of every list statement (EXPLAIN QUERY PLAN on SQLite, EXPLAIN ANALYZE on
// PostgreSQL) at the largest size, as Prisma sent it (its query log). The sizes are asked in turn in
// each round, so a busy machine slows them alike. `--reuse` keeps the seeded
// databases for the next run (pending migrations are applied to them) instead of dropping them.
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { createUser } from '../../src/users/users.js';
import { loadConfig } from '../../src/core/config/config.js';
import { type Db, createDb } from '../../src/core/db/client.js';
import { migrateDatabase } from '../../src/core/db/migrate.js';
import { createLogger } from '../../src/core/ops/logger.js';
import { WritePipeline } from '../../src/core/db/transactions.js';
import { defaultCounts } from '../sample-data/generate.js';
import { seedDatabase } from '../sample-data/seed.js';

const API = '/calendar/events/v1';
const PG_ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgresql://root@127.0.0.1:5432/postgres';

type Kind = 'sqlite' | 'postgres';

/** One list as a client asks for it; `admin` lists are asked with an administrator's password. */
interface ListCase {
  name: string;
  path: string;
  admin?: boolean;
}

// Every case names records that exist at every size: the seed's first venue and organizer (the
// busiest: ~600 and ~800 events at 10,000), its hundredth, its categories and tags, and words of its
// titles.
const CASES: ListCase[] = [
  { name: 'default window', path: '/events' },
  { name: 'page 50 of it', path: '/events?page=50' },
  { name: 'per_page=50', path: '/events?per_page=50' },
  { name: 'category', path: '/events?categories=music' },
  { name: 'tag', path: '/events?tags=free' },
  { name: 'venue', path: '/events?venue=1' },
  { name: 'organizer', path: '/events?organizer=1' },
  // The seed's hundredth venue and organizer hold a few dozen events at 10,000.
  { name: 'venue, one of many', path: '/events?venue=100' },
  { name: 'organizer, one of many', path: '/events?organizer=100' },
  { name: 'featured', path: '/events?featured=true' },
  { name: 'event_status', path: '/events?event_status=canceled,postponed' },
  { name: 'status (admin)', path: '/events?status=draft,pending', admin: true },
  { name: 'search, a title word', path: '/events?search=jazz' },
  { name: 'search, two words', path: '/events?search=pottery%20workshop' },
  { name: 'search, rare', path: '/events?search=zzyzx' },
  { name: 'search, 2 characters', path: '/events?search=yo' },
  { name: 'category + search', path: '/events?categories=music&search=concert' },
];

function options() {
  const { values } = parseArgs({
    options: {
      db: { type: 'string', default: 'both' },
      events: { type: 'string', default: '10000,100000' },
      runs: { type: 'string', default: '15' },
      explain: { type: 'boolean', default: false },
      reuse: { type: 'boolean', default: false },
    },
  });
  const kinds: Kind[] =
    values.db === 'both' ? ['sqlite', 'postgres'] : values.db === 'sqlite' ? ['sqlite'] : ['postgres'];
  if (!['both', 'sqlite', 'postgres'].includes(values.db)) throw new Error('--db: sqlite, postgres or both');
  const sizes = values.events.split(',').map(Number);
  const runs = Number(values.runs);
  if (!sizes.every((n) => Number.isInteger(n) && n > 0) || !Number.isInteger(runs) || runs < 1)
    throw new Error('--events takes positive integers (comma-separated), --runs a positive integer');
  return { kinds, sizes, runs, explain: values.explain, reuse: values.reuse };
}

async function pgAdmin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_ADMIN });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

interface Target {
  url: string;
  /** Drops the database unless it is kept for the next run. */
  drop: () => Promise<void>;
}

/** A database of `events` events: kept ones live under the tmp dir (SQLite) or by name (PostgreSQL). */
async function database(kind: Kind, events: number, reuse: boolean): Promise<Target> {
  if (kind === 'sqlite') {
    const dir = reuse
      ? join(tmpdir(), 'calendar-list-scaling')
      : mkdtempSync(join(tmpdir(), 'calendar-list-scaling-'));
    mkdirSync(dir, { recursive: true });
    return {
      url: `file:${join(dir, `events-${events}.db`)}`,
      drop: async () => {
        if (!reuse) rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = reuse ? `list_scaling_${events}` : `list_scaling_${events}_${process.pid}`;
  if (reuse) await pgAdmin(`CREATE DATABASE ${name}`).catch(() => undefined);
  else await pgAdmin(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      if (!reuse) await pgAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** Migrates, seeds an empty database, and has the planner's statistics current (as autovacuum would). */
async function prepare(kind: Kind, url: string, events: number): Promise<void> {
  const started = performance.now();
  await migrateDatabase(url);
  const db = await createDb(url);
  try {
    if ((await db.event.count()) === 0) {
      const today = new Date(new Date().setUTCHours(0, 0, 0, 0));
      await seedDatabase(db, kind === 'postgres' ? 'postgresql' : 'sqlite', {
        seed: 42,
        now: today,
        events,
        ...defaultCounts(events),
        reset: false,
      });
      console.log(
        `seeded ${events} events (${kind}) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    }
  } finally {
    await db.$disconnect();
  }
  // SQLite is left as the service leaves it (no ANALYZE); PostgreSQL's autovacuum would have analyzed a
  // table this size, and index-only scans need its visibility map.
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('VACUUM ANALYZE');
    await client.end();
  }
}

/** A statement as Prisma sent it: its text and bound values (the query log's `params`, JSON). */
interface Statement {
  sql: string;
  params: unknown[];
}

interface Measured {
  medians: Map<string, number>;
  /** Each case's statements on "Event" (one request's worth), for `--explain`. */
  statements: Map<string, Statement[]>;
  /** Each case's total (X-TEC-Total), to see the lists compare like with like. */
  totals: Map<string, string>;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The app in-process on one database, response cache off, and a way to ask it for a list. */
async function startApp(url: string) {
  let capture: Statement[] | null = null;
  const db: Db = await createDb(url, { onQuery: () => undefined });
  (db as unknown as { $on(event: 'query', cb: (e: { query: string; params: string }) => void): void }).$on(
    'query',
    (e) => capture?.push({ sql: e.query, params: JSON.parse(e.params) as unknown[] }),
  );
  const config = loadConfig({
    DATABASE_URL: url,
    CALENDAR_SITE_URL: 'http://calendar.test',
    LOG_LEVEL: 'silent',
    CALENDAR_CACHE: 'off',
  });
  config.cache.enabled = false;
  const writes = new WritePipeline();
  const server: Server = buildApp({ db, config, writes, logger: createLogger('silent') }).listen(
    0,
    '127.0.0.1',
  );
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const login = `scaling-admin-${Date.now()}`;
  const { password } = await createUser({ db, config, writes }, { login, role: 'administrator' });
  const authorization = `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
  /** One request; its X-TEC-Total. */
  const ask = async (list: ListCase): Promise<string> => {
    const response = await fetch(`${origin}${API}${list.path}`, {
      headers: list.admin ? { authorization } : {},
    });
    const body = await response.arrayBuffer();
    if (!response.ok)
      throw new Error(`${list.path}: HTTP ${response.status} ${Buffer.from(body).toString().slice(0, 200)}`);
    return response.headers.get('x-tec-total') ?? '?';
  };
  /** One request's statements on "Event", and its total. */
  const record = async (list: ListCase): Promise<{ total: string; statements: Statement[] }> => {
    capture = [];
    const total = await ask(list);
    const statements = capture.filter((s) => /FROM [`"](main|public)[`"]\.[`"]Event[`"]/.test(s.sql));
    capture = null;
    return { total, statements };
  };
  const close = async () => {
    server.close();
    await db.$disconnect();
  };
  return { ask, record, close };
}

/**
 * Every size's app is asked in turn within each round, so whatever else loads the machine weighs on
 * every size alike and the ratios stay comparable even when the absolute times do not.
 */
async function measure(urls: string[], runs: number): Promise<Measured[]> {
  const apps = [];
  for (const url of urls) apps.push(await startApp(url));
  const results: Measured[] = urls.map(() => ({
    medians: new Map(),
    statements: new Map(),
    totals: new Map(),
  }));
  try {
    for (const list of CASES) {
      const times: number[][] = urls.map(() => []);
      for (const [i, app] of apps.entries()) {
        // Unmeasured first requests: JIT, statement caches, the database's page cache.
        for (let n = 0; n < 3; n++) await app.ask(list);
        const { total, statements } = await app.record(list);
        results[i]!.totals.set(list.name, total);
        results[i]!.statements.set(list.name, statements);
      }
      for (let run = 0; run < runs; run++) {
        for (const [i, app] of apps.entries()) {
          const started = performance.now();
          await app.ask(list);
          times[i]!.push(performance.now() - started);
        }
      }
      for (const [i, result] of results.entries()) result.medians.set(list.name, median(times[i]!));
    }
  } finally {
    for (const app of apps) await app.close();
  }
  return results;
}

/** A statement as a reader wants it: no schema prefixes, a long column list as `…`. */
function readable(sql: string): string {
  return sql
    .replace(/[`"](main|public)[`"]\./g, '')
    .replace(/^SELECT (.*?) FROM/, (all, columns: string) =>
      columns.split(',').length > 3 ? 'SELECT … FROM' : all,
    );
}

/** The plan of each list statement, as the database would run it with the values Prisma bound. */
async function explain(kind: Kind, url: string, statements: Map<string, Statement[]>): Promise<void> {
  const sqlite = kind === 'sqlite' ? new Database(url.slice('file:'.length), { readonly: true }) : null;
  const client = kind === 'postgres' ? new pg.Client({ connectionString: url }) : null;
  await client?.connect();
  try {
    for (const [name, list] of statements) {
      console.log(`\n### ${name} (${kind})`);
      for (const { sql, params } of list) {
        console.log(`\n${readable(sql)}\n-- ${JSON.stringify(params)}`);
        if (sqlite) {
          const values = params.map((p) => (typeof p === 'boolean' ? Number(p) : p));
          const plan = sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...values) as Array<{
            id: number;
            parent: number;
            detail: string;
          }>;
          const depth = new Map<number, number>([[0, 0]]);
          for (const row of plan) {
            const level = (depth.get(row.parent) ?? 0) + 1;
            depth.set(row.id, level);
            console.log(`${'  '.repeat(level)}${row.detail}`);
          }
        } else if (client) {
          const { rows } = await client.query<{ 'QUERY PLAN': string }>(
            `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`,
            params,
          );
          for (const row of rows) console.log(`  ${row['QUERY PLAN']}`);
        }
      }
    }
  } finally {
    sqlite?.close();
    await client?.end();
  }
}

function printTable(kind: Kind, sizes: number[], results: Measured[]): void {
  const largest = results.at(-1)!;
  const smallest = results[0]!;
  const header = [
    'list',
    ...sizes.map((n) => `${n.toLocaleString('en')} events, ms`),
    ...(sizes.length > 1 ? ['ratio'] : []),
    'total at each size',
  ];
  const rows = CASES.map(({ name }) => {
    const cells = [name, ...results.map((r) => r.medians.get(name)!.toFixed(1))];
    if (sizes.length > 1)
      cells.push(`${(largest.medians.get(name)! / smallest.medians.get(name)!).toFixed(2)}×`);
    cells.push(results.map((r) => r.totals.get(name)).join(' / '));
    return cells;
  });
  const table = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  console.log(`\n${kind}: uncached REST lists, median ms of one request at a time\n`);
  for (const [i, row] of table.entries()) {
    console.log(`| ${row.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ')} |`);
    if (i === 0) console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  }
}

async function main(): Promise<void> {
  const { kinds, sizes, runs, explain: withPlans, reuse } = options();
  for (const kind of kinds) {
    const targets: Target[] = [];
    try {
      for (const events of sizes) {
        const target = await database(kind, events, reuse);
        targets.push(target);
        await prepare(kind, target.url, events);
      }
      const results = await measure(
        targets.map((target) => target.url),
        runs,
      );
      if (withPlans) await explain(kind, targets.at(-1)!.url, results.at(-1)!.statements);
      printTable(kind, sizes, results);
    } finally {
      for (const target of targets) await target.drop();
    }
  }
}

await main();
