// npm run bench -- [--duration 10 --connections 10 --events 10000 --warmup 2]
// Seeds a throwaway SQLite database, serves it with the real app and with a bare node:http floor
// (one prepared better-sqlite3 query + JSON.stringify), and loads both with autocannon from a child
// process, so the load generator does not run on the servers' event loop.
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/client.js';
import { migrateDatabase } from '../src/db/migrate.js';
import { endOfDayWall, startOfDayWall } from '../src/domain/dates.js';
import { createLogger } from '../src/logger.js';
import { defaultCounts } from '../src/sample-data/generate.js';
import { seedDatabase } from '../src/sample-data/seed.js';

interface Target {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
}

interface LoadRequest extends Omit<Target, 'name'> {
  duration: number;
  connections: number;
}

interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

interface Row {
  name: string;
  result?: LoadResult;
  problem?: string;
}

const CHILD_FLAG = '--load-child';

// The service's default list window: yesterday 00:00 to today + 24 months 23:59:59 (site zone).
const FLOOR_SQL = `
  SELECT e.*, v.id AS venue_id, v.name AS venue_name, v.address AS venue_address, v.city AS venue_city,
         v.country AS venue_country, v.zip AS venue_zip, v.geoLat AS venue_geoLat, v.geoLng AS venue_geoLng
  FROM Event e
  LEFT JOIN EventVenue ev ON ev.eventId = e.id AND ev.position = 0
  LEFT JOIN Venue v ON v.id = ev.venueId
  WHERE e.status = 'publish' AND e.hideFromListings = 0 AND e.localStart >= ? AND e.localEnd <= ?
  ORDER BY e.localStart, e.id
  LIMIT 10`;

// Roughly the fields the REST list carries, so both APIs do comparable work.
const GRAPHQL_LIST = `query Bench($perPage: Int) { events(perPage: $perPage) {
  pageInfo { total totalPages }
  items { id title slug description excerpt status startDate endDate localStartDate localEndDate timezone timezoneAbbr
    allDay featured sticky hideFromListings showMap showMapLink website url publishedAt modifiedAt
    cost { formatted values currencySymbol currencyPosition }
    venues { id name slug address city country province state zip phone website geoLat geoLng }
    organizers { id name slug phone email website }
    categories { id name slug } tags { id name slug } } } }`;

function options(): { duration: number; connections: number; events: number; warmup: number } {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      events: { type: 'string', default: '10000' },
      warmup: { type: 'string', default: '2' },
    },
  });
  const parsed = Object.fromEntries(Object.entries(values).map(([key, value]) => [key, Number(value)]));
  for (const [key, value] of Object.entries(parsed)) {
    if (!Number.isInteger(value) || value < 0) throw new Error(`--${key} must be a non-negative integer`);
  }
  return parsed as ReturnType<typeof options>;
}

function load(child: ChildProcess, request: LoadRequest): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null): void => reject(new Error(`load generator exited with ${code}`));
    child.once('exit', exited);
    child.once('message', (result) => {
      child.off('exit', exited);
      resolve(result as LoadResult);
    });
    child.send(request);
  });
}

async function origin(server: Server): Promise<string> {
  if (!server.listening) await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A route that fails would be measured at the speed of its error: check one response first. */
async function problemWith(target: Target): Promise<string | undefined> {
  const response = await fetch(target.url, {
    method: target.method,
    body: target.body,
    headers: target.headers,
  });
  const text = await response.text();
  const graphqlErrors = target.url.endsWith('/graphql') && text.includes('"errors"');
  return response.ok && !graphqlErrors ? undefined : `HTTP ${response.status}: ${text.slice(0, 200)}`;
}

async function main(): Promise<void> {
  const { duration, connections, events, warmup } = options();
  const dir = mkdtempSync(join(tmpdir(), 'calendar-bench-'));
  const file = join(dir, 'bench.db');
  const url = `file:${file}`;
  const child = fork(process.argv[1] as string, [CHILD_FLAG], {
    execArgv: process.execArgv,
    stdio: 'inherit',
  });
  const db = await createDb(url);
  const servers: Server[] = [];
  let floorDb: Database.Database | undefined;
  try {
    const started = performance.now();
    await migrateDatabase(url);
    const today = new Date(new Date().setUTCHours(0, 0, 0, 0));
    await seedDatabase(db, 'sqlite', {
      seed: 42,
      now: today,
      events,
      ...defaultCounts(events),
      reset: false,
    });
    console.log(`seeded ${events} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const config = loadConfig({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' });
    const appServer = buildApp({ db, config, logger: createLogger('silent') }).listen(0, '127.0.0.1');
    servers.push(appServer);
    const app = await origin(appServer);

    floorDb = new Database(file, { readonly: true });
    const list = floorDb.prepare<[string, string], { id: number }>(FLOOR_SQL);
    // Computed per request, as the service does.
    const window = (): [string, string] => {
      const now = new Date();
      return [startOfDayWall(now, config.siteTimezone, -1), endOfDayWall(now, config.siteTimezone, 24)];
    };
    const floorServer = createServer((_req, res) => {
      const body = JSON.stringify({ events: list.all(...window()) });
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body);
    });
    servers.push(floorServer.listen(0, '127.0.0.1'));
    const floor = await origin(floorServer);
    const first = list.get(...window());
    if (!first) throw new Error('the seeded database has no published event in the default window');

    const graphqlBody = JSON.stringify({ query: GRAPHQL_LIST, variables: { perPage: 10 } });
    const targets: Target[] = [
      { name: 'floor: node:http + better-sqlite3', url: `${floor}/events`, method: 'GET' },
      {
        name: 'GET /calendar/events/v1/events?per_page=10',
        url: `${app}/calendar/events/v1/events?per_page=10`,
        method: 'GET',
      },
      {
        name: `GET /calendar/events/v1/events/${first.id}`,
        url: `${app}/calendar/events/v1/events/${first.id}`,
        method: 'GET',
      },
      {
        name: 'POST /graphql events(perPage: 10)',
        url: `${app}/graphql`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: graphqlBody,
      },
    ];

    const rows: Row[] = [];
    for (const { name, ...target } of targets) {
      const problem = await problemWith({ name, ...target });
      if (problem) {
        rows.push({ name, problem });
        continue;
      }
      // A short unmeasured run first: JIT, Prisma's query-plan cache and SQLite's page cache warm up.
      if (warmup > 0) await load(child, { ...target, connections, duration: warmup });
      rows.push({ name, result: await load(child, { ...target, connections, duration }) });
      console.log(`measured ${name}`);
    }
    printTable(
      rows,
      `${events} events, autocannon -c ${connections} -d ${duration} (after ${warmup} s warm-up)`,
    );
  } finally {
    child.kill();
    for (const server of servers) server.close();
    floorDb?.close();
    await db.$disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

function printTable(rows: Row[], title: string): void {
  const floorRps = rows[0]?.result?.rps ?? Number.NaN;
  const cells = (row: Row): string[] => {
    const r = row.result;
    if (!r) return [row.name, '-', '-', '-', `not measured: ${row.problem}`];
    const failures = r.non2xx || r.errors ? `  (${r.non2xx} non-2xx, ${r.errors} errors)` : '';
    return [
      row.name,
      r.rps.toFixed(0),
      String(r.p50),
      String(r.p99),
      (r.rps / floorRps).toFixed(3) + failures,
    ];
  };
  const table = [['route', 'req/s', 'p50 ms', 'p99 ms', 'ratio to floor'], ...rows.map(cells)];
  const widths = (table[0] ?? []).map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length)));
  console.log(`\n${title}\n`);
  for (const [i, row] of table.entries()) {
    console.log(`| ${row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join(' | ')} |`);
    if (i === 0) console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  }
}

if (process.argv[2] === CHILD_FLAG) {
  // The load generator. autocannon ships no types; this is the part of its API used here.
  type Autocannon = (request: LoadRequest) => Promise<{
    requests: { average: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
  }>;
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  process.on('message', (request: LoadRequest) => {
    void autocannon(request).then(({ requests, latency, non2xx, errors }) => {
      const result: LoadResult = {
        rps: requests.average,
        p50: latency.p50,
        p99: latency.p99,
        non2xx,
        errors,
      };
      process.send?.(result);
    });
  });
} else {
  await main();
}
