// npm run soak -- [--db sqlite|postgres] [--minutes 3] [--connections 20] [--events 10000]
// A few minutes of mixed traffic against the real server process (reads of every kind, GraphQL, a
// write every ~50 requests so the response cache keeps being invalidated), in 15-second rounds of wrk.
// Prints, per round, throughput, p50/p99 latency, non-2xx answers and the server's RSS, then the
// RSS growth from the first round to the last: memory that only grows is a leak to look at.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import pg from 'pg';
import { createDb } from '../../src/core/db/client.js';
import { migrateDatabase } from '../../src/core/db/migrate.js';
import { defaultCounts } from '../sample-data/generate.js';
import { seedDatabase } from '../sample-data/seed.js';

const run = promisify(execFile);
const ROUND_SECONDS = 15;
const ADMIN = 'soak-admin';
const PASSWORD = 'soak-admin-password-123';

// Rotates through representative requests; every 50th is an event create (as the administrator).
const WRK_SCRIPT = `
local api = "/calendar/events/v1"
local auth = "Basic " .. os.getenv("SOAK_AUTH")
local reads = {
  api .. "/events", api .. "/events?per_page=50", api .. "/events?page=2", api .. "/events?search=jazz",
  api .. "/events?categories=music", api .. "/events?featured=1", api .. "/events?start_date=tomorrow",
  api .. "/events/1", api .. "/events/2", api .. "/venues", api .. "/organizers", api .. "/categories",
  api .. "/tags", api .. "/events?geoloc_lat=48.85&geoloc_lng=2.35&geoloc_radius=50", api .. "/events.ics?limit=50",
}
local n = 0
request = function()
  n = n + 1
  if n % 50 == 0 then
    return wrk.format("POST", api .. "/events", { ["Content-Type"] = "application/json", ["Authorization"] = auth },
      '{"title":"Soak ' .. n .. '","start_date":"tomorrow 10am","end_date":"tomorrow 11am","categories":["soak"]}')
  end
  if n % 7 == 0 then
    return wrk.format("POST", "/graphql", { ["Content-Type"] = "application/json" },
      '{"query":"{ events(perPage: 20) { items { id title venues { name } categories { name } } } }"}')
  end
  return wrk.format("GET", reads[(n % #reads) + 1])
end
function done(summary, latency, requests)
  io.write(string.format('SOAK {"rps":%.1f,"p50":%.2f,"p99":%.2f,"non2xx":%d,"errors":%d}\\n',
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, summary.errors.status, summary.errors.connect + summary.errors.read +
    summary.errors.write + summary.errors.timeout))
end
`;

function options() {
  const { values } = parseArgs({
    options: {
      db: { type: 'string', default: 'sqlite' },
      minutes: { type: 'string', default: '3' },
      connections: { type: 'string', default: '20' },
      events: { type: 'string', default: '10000' },
    },
  });
  if (values.db !== 'sqlite' && values.db !== 'postgres') throw new Error('--db must be sqlite or postgres');
  return {
    db: values.db,
    minutes: Number(values.minutes),
    connections: Number(values.connections),
    events: Number(values.events),
  };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as { port: number };
  await new Promise((done) => probe.close(done));
  return port;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function startServer(url: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      CALENDAR_ADMIN_USER: ADMIN,
      CALENDAR_ADMIN_PASSWORD: PASSWORD,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  for (let waited = 0; waited < 60_000; waited += 200) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  child.kill('SIGKILL');
  throw new Error('the server did not become ready');
}

async function main(): Promise<void> {
  const { db: kind, minutes, connections, events } = options();
  const dir = mkdtempSync(join(tmpdir(), 'calendar-soak-'));
  const script = join(dir, 'soak.lua');
  writeFileSync(script, WRK_SCRIPT);
  const pgName = `soak_${process.pid}`;
  const url =
    kind === 'postgres' ? `postgresql://root@127.0.0.1:5432/${pgName}` : `file:${join(dir, 'soak.db')}`;
  const admin = new pg.Client({ connectionString: 'postgresql://root@127.0.0.1:5432/postgres' });
  if (kind === 'postgres') {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${pgName}`);
  }
  let server: ChildProcess | undefined;
  try {
    await migrateDatabase(url);
    const db = await createDb(url);
    await seedDatabase(db, kind === 'postgres' ? 'postgresql' : 'sqlite', {
      seed: 7,
      now: new Date(),
      events,
      ...defaultCounts(events),
      reset: false,
    });
    await db.$disconnect();
    const port = await freePort();
    server = await startServer(url, port);
    const pid = server.pid!;
    console.log(`soak: ${events} events on ${kind}, ${connections} connections, ${minutes} min`);
    console.log('round  req/s   p50 ms  p99 ms  non-2xx  RSS MB');
    const rounds = Math.max(1, Math.round((minutes * 60) / ROUND_SECONDS));
    const rss: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const { stdout } = await run(
        'wrk',
        [
          '-t1',
          `-c${connections}`,
          `-d${ROUND_SECONDS}s`,
          '--latency',
          '-s',
          script,
          `http://127.0.0.1:${port}`,
        ],
        { env: { ...process.env, SOAK_AUTH: Buffer.from(`${ADMIN}:${PASSWORD}`).toString('base64') } },
      );
      const line = stdout.split('\n').find((l) => l.startsWith('SOAK '));
      if (!line) throw new Error(`wrk printed no result:\n${stdout}`);
      const r = JSON.parse(line.slice(5)) as { rps: number; p50: number; p99: number; non2xx: number };
      rss.push(rssMb(pid));
      console.log(
        `${String(round).padStart(5)}  ${r.rps.toFixed(0).padStart(6)}  ${r.p50.toFixed(1).padStart(6)}  ` +
          `${r.p99.toFixed(1).padStart(6)}  ${String(r.non2xx).padStart(7)}  ${rss.at(-1)!.toFixed(0).padStart(6)}`,
      );
    }
    console.log(
      `RSS first → last round: ${rss[0]!.toFixed(0)} → ${rss.at(-1)!.toFixed(0)} MB (max ${Math.max(...rss).toFixed(0)})`,
    );
  } finally {
    server?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
    if (kind === 'postgres') {
      await admin.query(`DROP DATABASE IF EXISTS ${pgName} WITH (FORCE)`);
      await admin.end();
    }
  }
}

await main();
