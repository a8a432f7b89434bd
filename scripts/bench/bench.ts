// npm run bench -- [--db sqlite|postgres] [--duration 10] [--connections 10] [--events 10000] [--warmup 2] [--mix]
//   [--series 20] [--profile DIR] [--gzip] [--peer [--peer-rounds 3]] [--rsvp] [--mix-only] [--without a,b,none]
// Seeds a throwaway database, serves it with the real app twice (response cache on, and
// CALENDAR_CACHE=off) in child processes running the compiled app (scripts/bench/server.mjs), next
// to two floors in this process: node:http sending the very bytes of the REST list from memory, and
// node:http + one prepared list query. Load comes from wrk (one thread; a Lua script sets POST bodies
// and reports), so no Node load generator competes with the servers for the second core. One run,
// one table: ratios are only meaningful within it. Two rows read as a signed-in editor, whose answers
// no cache shares (what a site's own server or an app with accounts pays). `--mix` adds the traffic
// mix (scripts/bench/mix/): thousands of distinct reads by popularity, with and without writes,
// beside the rows above. `--series P`
// seeds P % of the events as members of series (the same total) and adds a list full of one series'
// occurrences and a single occurrence beside the plain list and single rows. `--profile DIR` writes a CPU
// profile of the mix's server for each mix row's measured run into DIR (`.cpuprofile`). `--gzip` sends
// `Accept-Encoding: gzip` with every request, as browsers and mobile HTTP stacks do (the floors still
// send the plain bytes). `--peer` (PostgreSQL only) adds PostGraphile 5 over the same database
// (scripts/bench/peer/): two GraphQL requests asked of it and of the uncached server, checked to answer the
// same events, then timed in alternating rounds (ours, peer, ours, peer…), its rows in the same table.
// The servers run with the Node flags of `npm start` (package.json), and the run ends with where the
// memory of the mix's server and of the cached server with its cache full is (V8's heap, buffers, what
// each cache counts against its bound). Every run has an RSVP row (scripts/bench/rsvp.ts): confirmed
// reservations per second with every client on one ticket type of one event, checked against the
// database after the run; on PostgreSQL its clients are spread over both servers (two instances on one
// database). `--rsvp` runs that row alone. `--mix-only` runs the mix alone; `--without a,b,none` runs the
// mix again for each named cache mechanism turned off (src/core/config/cache-mechanisms.ts; none: all on).
import { type ChildProcess, execFile, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { type Config, loadConfig } from '../../src/core/config/config.js';
import { type Db, createDb } from '../../src/core/db/client.js';
import { migrateDatabase } from '../../src/core/db/migrate.js';
import { endOfDayWall, startOfDayWall } from '../../src/core/rules/dates.js';
import { defaultCounts } from '../sample-data/generate.js';
import { seedDatabase } from '../sample-data/seed.js';
import {
  type MixVariant,
  createAdministrator,
  createSignedIn,
  kilobytesPerRequest,
  printMix,
  printVariants,
  runMix,
} from './mix/run.js';
import { CACHE_MECHANISMS } from '../../src/core/config/cache-mechanisms.js';
import { type PeerInstall, PeerChild, checkSameAnswers, installPeer, peerRequests } from './peer/peer.js';
import { askChild } from './child-questions.js';
import {
  RSVP_LIMITS_OFF,
  RSVP_PATH,
  type RsvpResult,
  type RsvpType,
  prepareRsvp,
  runRsvp,
} from './rsvp.js';

const run = promisify(execFile);
const SERVER_CHILD = new URL('./server.mjs', import.meta.url).pathname;
const API = '/calendar/events/v1';
/** The servers serve /metrics (as a deployment that scrapes them does): the mix reads its cache counters. */
const METRICS_TOKEN = 'bench-metrics-token';

/**
 * How `npm start` runs the server (package.json's `start` script, `[NAME=value …] node <flags>
 * dist/src/server.js`): the server children get the same environment settings and Node flags, so the
 * bench measures the memory bounds that ship.
 */
function startCommand(): { env: Record<string, string>; flags: string[] } {
  const { scripts } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  const words = scripts.start.trim().split(/\s+/);
  const env: Record<string, string> = {};
  let assignment: RegExpExecArray | null;
  while ((assignment = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(words[0] ?? ''))) {
    env[assignment[1]!] = assignment[2]!;
    words.shift();
  }
  const [command, ...rest] = words;
  if (command !== 'node') throw new Error(`package.json's start script runs ${command}, not node`);
  const script = rest.findIndex((word) => !word.startsWith('-'));
  return { env, flags: script < 0 ? rest : rest.slice(0, script) };
}
const { env: START_ENV, flags: NODE_FLAGS } = startCommand();

interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Bytes received, headers included (what the server wrote to its sockets). */
  bytes: number;
}

/** What a row measures of the process serving it: an app server child, or the peer. */
interface MeasuredServer {
  resetSql(): Promise<number>;
  sql(): Promise<number>;
  cpuMicros(): Promise<number>;
}

interface Target {
  name: string;
  url: string;
  body?: string;
  /** HTTP Basic credentials: a signed-in viewer, whose answers no cache shares. */
  authorization?: string;
  /** The server child whose SQL statements and memory this row measures. */
  server?: MeasuredServer;
  floor?: 'memory' | 'database';
}

interface Row {
  target: Target;
  result?: LoadResult;
  sqlPerRequest?: number;
  /** CPU (user + system) of the serving process per request, ms: what a route costs, whatever the load. */
  cpuPerRequest?: number;
  problem?: string;
  /** `--peer`: ours against the peer on the same request (req/s, and CPU per request). */
  versusPeer?: { rps: number; cpu: number };
}

// The service's default list window: yesterday 00:00 to today + 24 months 23:59:59 (site zone).
const floorSql = (postgres: boolean) => {
  const q = (name: string) => (postgres ? `"${name}"` : name);
  return `
  SELECT e.*, v.id AS venue_id, v.name AS venue_name, v.address AS venue_address, v.city AS venue_city,
         v.country AS venue_country, v.zip AS venue_zip
  FROM ${q('Event')} e
  LEFT JOIN ${q('EventVenue')} ev ON ev.${q('eventId')} = e.id AND ev.position = 0
  LEFT JOIN ${q('Venue')} v ON v.id = ev.${q('venueId')}
  WHERE e.status = 'publish' AND e.${q('hideFromListings')} = ${postgres ? 'false' : '0'}
    AND e.${q('localStart')} >= ${postgres ? '$1' : '?'} AND e.${q('localEnd')} <= ${postgres ? '$2' : '?'}
  ORDER BY e.${q('localStart')}, e.id
  LIMIT 10`;
};

// Roughly the fields the REST list carries, so both APIs do comparable work.
const GRAPHQL_LIST = `query Bench($perPage: Int) { events(perPage: $perPage) {
  pageInfo { total totalPages }
  items { id title slug description excerpt status startDate endDate localStartDate localEndDate timezone timezoneAbbr
    allDay featured sticky hideFromListings showMap showMapLink website url publishedAt modifiedAt
    cost { formatted values currencySymbol currencyPosition }
    venues { id name slug address city country province state zip phone website geoLat geoLng }
    organizers { id name slug phone email website }
    categories { id name slug } tags { id name slug } } } }`;

// wrk's side: method and body from the environment; `done` prints one JSON line.
const WRK_SCRIPT = `
local body = os.getenv("BENCH_BODY")
if body ~= nil and #body > 0 then
  wrk.method = "POST"
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('BENCH {"requests":%d,"rps":%.1f,"p50":%.3f,"p99":%.3f,"non2xx":%d,"errors":%d,"bytes":%d}\\n',
    summary.requests, summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, e.status, e.connect + e.read + e.write + e.timeout, summary.bytes))
end
`;

function options() {
  const { values } = parseArgs({
    options: {
      db: { type: 'string', default: 'sqlite' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      events: { type: 'string', default: '10000' },
      warmup: { type: 'string', default: '2' },
      mix: { type: 'boolean', default: false },
      series: { type: 'string', default: '0' },
      profile: { type: 'string' },
      gzip: { type: 'boolean', default: false },
      peer: { type: 'boolean', default: false },
      'peer-rounds': { type: 'string', default: '3' },
      rsvp: { type: 'boolean', default: false },
      without: { type: 'string' },
      'mix-only': { type: 'boolean', default: false },
    },
  });
  if (values.db !== 'sqlite' && values.db !== 'postgres') throw new Error('--db must be sqlite or postgres');
  // The peer reads PostgreSQL only.
  if (values.peer && values.db !== 'postgres')
    throw new Error('--peer runs on PostgreSQL: add --db postgres');
  const numbers = Object.fromEntries(
    (['duration', 'connections', 'events', 'warmup', 'series', 'peer-rounds'] as const).map((key) => [
      key,
      Number(values[key]),
    ]),
  ) as Record<'duration' | 'connections' | 'events' | 'warmup' | 'series' | 'peer-rounds', number>;
  for (const [key, value] of Object.entries(numbers))
    if (!Number.isInteger(value) || value < 0) throw new Error(`--${key} must be a non-negative integer`);
  if (numbers.series > 100) throw new Error('--series is a percentage of the events (0 to 100)');
  if (values.profile !== undefined && !values.mix) throw new Error('--profile profiles the mix: add --mix');
  if (numbers['peer-rounds'] < 1) throw new Error('--peer-rounds must be at least 1');
  if (values.rsvp && (values.mix || values.peer || values.profile !== undefined))
    throw new Error('--rsvp runs the RSVP row alone: leave out --mix, --peer and --profile');
  if (numbers.connections < 1) throw new Error('--connections must be at least 1');
  const without = (values.without ?? '').split(',').filter(Boolean);
  for (const name of without)
    if (name !== 'none' && !(CACHE_MECHANISMS as readonly string[]).includes(name))
      throw new Error(`--without names the cache's mechanisms (${CACHE_MECHANISMS.join(', ')}) or none`);
  if ((without.length || values['mix-only']) && !values.mix)
    throw new Error('--without and --mix-only need --mix');
  const { 'peer-rounds': peerRounds, ...rest } = numbers;
  return {
    ...rest,
    peerRounds,
    db: values.db,
    mix: values.mix,
    profile: values.profile,
    gzip: values.gzip,
    peer: values.peer,
    rsvpOnly: values.rsvp,
    without,
    mixOnly: values['mix-only'],
  };
}

/** wrk's extra header arguments: with `--gzip`, every request accepts gzip-coded answers. */
let wrkHeaders: readonly string[] = [];

async function wrk(
  url: string,
  body: string | undefined,
  connections: number,
  duration: number,
  script: string,
  authorization?: string,
) {
  const headers = authorization ? [...wrkHeaders, '-H', `Authorization: ${authorization}`] : wrkHeaders;
  const { stdout } = await run(
    'wrk',
    ['-t1', `-c${connections}`, `-d${duration}s`, '--latency', ...headers, '-s', script, url],
    { env: { ...process.env, BENCH_BODY: body ?? '' }, maxBuffer: 1 << 20 },
  );
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH '));
  if (!line) throw new Error(`wrk printed no result:\n${stdout}`);
  return JSON.parse(line.slice(6)) as LoadResult;
}

async function origin(server: Server): Promise<string> {
  if (!server.listening) await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** One app server in a child process: its own event loop, memory and SQL statement count. */
class ServerChild {
  private constructor(
    private readonly child: ChildProcess,
    readonly origin: string,
  ) {}

  static async start(
    url: string,
    cache: 'on' | 'off',
    env: Record<string, string> = {},
  ): Promise<ServerChild> {
    const child = fork(SERVER_CHILD, [], {
      execArgv: NODE_FLAGS,
      env: {
        // Every client of the RSVP row is 127.0.0.1: its limits off, unless the environment says otherwise.
        ...RSVP_LIMITS_OFF,
        ...process.env,
        // As in `npm start`, whose assignments win over the environment's.
        ...START_ENV,
        DATABASE_URL: url,
        CALENDAR_CACHE: cache,
        CALENDAR_METRICS_TOKEN: METRICS_TOKEN,
        LOG_LEVEL: 'silent',
        ...env,
      },
      stdio: 'inherit',
    });
    // A child that fails to start exits instead of sending its port.
    const [port] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code]) => Promise.reject(new Error(`the server child exited (${code})`))),
    ])) as [number];
    return new ServerChild(child, `http://127.0.0.1:${port}`);
  }

  private ask(
    question:
      | 'mechanismOff'
      | 'sql'
      | 'rss'
      | 'rssNow'
      | 'reset'
      | 'cpu'
      | 'cacheBytes'
      | 'memory'
      | 'dropped'
      | 'gcReset'
      | 'gcPauseMs'
      | 'gcLongestMs'
      | 'profileStart'
      | 'profileStop',
    argument?: string,
  ): Promise<number> {
    return askChild(this.child, this.questions, question, argument);
  }

  private readonly questions = { asked: 0 };

  /** Whether the named cache mechanism is off in the child (what `--without` asked). */
  mechanismOff = async (name: string) => (await this.ask('mechanismOff', name)) === 1;
  resetSql = () => this.ask('reset');
  sql = () => this.ask('sql');
  peakRssMb = async () => (await this.ask('rss')) / 1024;
  rssMb = async () => (await this.ask('rssNow')) / 1024;
  cpuMicros = () => this.ask('cpu');
  cacheBytes = () => this.ask('cacheBytes');
  /** One figure of the child's memory, in bytes (`MEMORY` in scripts/bench/server.mjs). */
  memory = (figure: MemoryFigure) => this.ask('memory', figure);
  dropped = () => this.ask('dropped');
  gcReset = async () => void (await this.ask('gcReset'));
  gcPauses = async () => ({ totalMs: await this.ask('gcPauseMs'), longestMs: await this.ask('gcLongestMs') });
  /** A CPU profile (the inspector's sampler, as `node --cpu-prof`) from now until `profileStop`. */
  profileStart = async () => void (await this.ask('profileStart'));
  /** Writes the profile since `profileStart` to `path` (`.cpuprofile`, for DevTools or speedscope). */
  profileStop = async (path: string) => void (await this.ask('profileStop', path));
  stop = () => this.child.kill();
}

type MemoryFigure =
  | 'heapUsed'
  | 'heapTotal'
  | 'external'
  | 'arrayBuffers'
  | 'rssAnon'
  | 'rssFile'
  | 'responseCache'
  | 'records'
  | 'shapes';

/**
 * Where a server child's memory is: its peak and current RSS (anonymous memory and mapped files), V8's
 * heap (live and committed), memory outside it (buffers), and each cache's fill against its bound.
 */
async function describeMemory(server: ServerChild, what: string, config: Config): Promise<string> {
  const figures = {} as Record<MemoryFigure, number>;
  for (const figure of [
    'heapUsed',
    'heapTotal',
    'external',
    'arrayBuffers',
    'rssAnon',
    'rssFile',
    'responseCache',
    'records',
    'shapes',
  ] as const)
    figures[figure] = await server.memory(figure);
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(bytes < 10 * 2 ** 20 ? 1 : 0);
  const [peak, now] = [await server.peakRssMb(), await server.rssMb()];
  return (
    `memory of ${what} (MB): peak RSS ${peak.toFixed(0)}, RSS ${now.toFixed(0)} ` +
    `(anonymous ${mb(figures.rssAnon)}, mapped files ${mb(figures.rssFile)}); ` +
    `V8 heap used ${mb(figures.heapUsed)} of ${mb(figures.heapTotal)} committed; ` +
    `external ${mb(figures.external)} (array buffers ${mb(figures.arrayBuffers)}); ` +
    `response cache ${mb(figures.responseCache)} of ${mb(config.cache.maxBytes)} (CALENDAR_CACHE_MB), ` +
    `kept rows ${mb(figures.records)} of ${mb(config.cache.recordMaxBytes ?? 0)} (CALENDAR_RECORD_CACHE_MB), ` +
    `kept shapes ${mb(figures.shapes)} of ${mb(config.shapeCache.maxBytes)} (CALENDAR_SHAPE_CACHE_MB)`
  );
}

/** A route that fails would be measured at the speed of its error: check one response first. */
async function problemWith(target: Target): Promise<string | undefined> {
  const response = await fetch(target.url, fetchInit(target));
  const text = await response.text();
  const graphqlErrors = target.url.endsWith('/graphql') && text.includes('"errors"');
  return response.ok && !graphqlErrors ? undefined : `HTTP ${response.status}: ${text.slice(0, 200)}`;
}

const fetchInit = (target: Target): RequestInit => {
  const headers: Record<string, string> = target.authorization ? { authorization: target.authorization } : {};
  return target.body
    ? { method: 'POST', body: target.body, headers: { ...headers, 'content-type': 'application/json' } }
    : { method: 'GET', headers };
};

async function sqlPerRequest(target: Target): Promise<number | undefined> {
  if (!target.server) return undefined;
  const samples = 20;
  await target.server.resetSql();
  for (let i = 0; i < samples; i++) await (await fetch(target.url, fetchInit(target))).arrayBuffer();
  return (await target.server.sql()) / samples;
}

/** The load comes from wrk: said plainly before seeding anything when it is not installed. */
async function requireWrk(): Promise<void> {
  try {
    // `wrk -v` prints its version and exits 1; only a missing binary is an error here.
    await run('wrk', ['-v']).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw error;
    });
  } catch {
    throw new Error('wrk is not installed: `apt-get install wrk` (Debian/Ubuntu) or `brew install wrk`');
  }
}

async function main(): Promise<void> {
  const {
    duration,
    connections,
    events,
    warmup,
    db: kind,
    mix,
    series,
    profile,
    gzip,
    peer,
    peerRounds,
    rsvpOnly,
    without,
    mixOnly,
  } = options();
  if (gzip) wrkHeaders = ['-H', 'Accept-Encoding: gzip'];
  if (profile) mkdirSync(resolve(profile), { recursive: true });
  const postgres = kind === 'postgres';
  await requireWrk();
  // Before seeding: a failed install stops the run early.
  const peerInstall = peer ? await installPeer((line) => console.log(line)) : undefined;
  // The servers run the compiled app, as `npm start` does: build it first unless dist/ is current.
  await run(process.execPath, [new URL('../build/build-if-stale.mjs', import.meta.url).pathname]);
  const dir = mkdtempSync(join(tmpdir(), 'calendar-bench-'));
  const script = join(dir, 'bench.lua');
  writeFileSync(script, WRK_SCRIPT);
  const pgAdmin = 'postgresql://root@127.0.0.1:5432/postgres';
  const pgName = `bench_${process.pid}`;
  const url = postgres ? `postgresql://root@127.0.0.1:5432/${pgName}` : `file:${join(dir, 'bench.db')}`;
  if (postgres) {
    const admin = new pg.Client({ connectionString: process.env.BENCH_PG_ADMIN_URL ?? pgAdmin });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${pgName}`);
    await admin.end();
  }
  const servers: Server[] = [];
  const children: ServerChild[] = [];
  let peerChild: PeerChild | undefined;
  let floorSqlite: Database.Database | undefined;
  let floorPg: pg.Pool | undefined;
  const db = await createDb(url);
  try {
    const started = performance.now();
    await migrateDatabase(url);
    const today = new Date(new Date().setUTCHours(0, 0, 0, 0));
    await seedDatabase(db, postgres ? 'postgresql' : 'sqlite', {
      seed: 42,
      now: today,
      events,
      ...defaultCounts(events),
      seriesPercent: series,
      reset: false,
    });
    const busiest = series > 0 ? await busiestSeries(db, today) : undefined;
    await db.$disconnect();
    // Before any server starts: no server has read the event without its type.
    const rsvpType = await prepareRsvp(url);
    console.log(
      `seeded ${events} events (${kind}${series > 0 ? `, ${series} % in series` : ''}) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const config = loadConfig({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' });
    // The mix's writer: an administrator made before any server caches an answer.
    const authorization = mix ? await createAdministrator(url, config) : undefined;

    const cached = await ServerChild.start(url, 'on');
    children.push(cached);
    const serversTitle = `servers run as npm start: ${[
      ...Object.entries(START_ENV).map(([name, value]) => `${name}=${value}`),
      'node',
      ...NODE_FLAGS,
    ].join(' ')} …`;
    const load = { connections, duration, warmup, gzip };
    // SQLite: one server takes the RSVPs (one writer at a time). PostgreSQL: the cache-off server as
    // well, two instances on one database, each locking the type's row in turn.
    const rsvpServers = (uncached: ServerChild) => (postgres ? [cached, uncached] : [cached]);
    if (rsvpOnly) {
      if (postgres) children.push(await ServerChild.start(url, 'off'));
      const servers = [...children];
      const rsvp = await rsvpRow(url, rsvpType, servers, load);
      printTable([rsvp.row], `${rsvpTitle(kind, events, servers.length, load)}, ${serversTitle}`);
      console.log(rsvp.note);
      return;
    }
    const uncached = await ServerChild.start(url, 'off');
    children.push(uncached);

    // Computed per request, as the service does.
    const window = (): [string, string] => {
      const now = new Date();
      return [startOfDayWall(now, config.siteTimezone, -1), endOfDayWall(now, config.siteTimezone, 24)];
    };
    let listRows: () => Promise<Array<{ id: number }>>;
    if (postgres) {
      floorPg = new pg.Pool({ connectionString: url, max: 10 });
      const pool = floorPg;
      const text = floorSql(true);
      listRows = async () => (await pool.query({ name: 'floor', text, values: window() })).rows;
    } else {
      floorSqlite = new Database(url.slice('file:'.length), { readonly: true });
      const list = floorSqlite.prepare<[string, string], { id: number }>(floorSql(false));
      listRows = async () => list.all(...window());
    }
    const databaseFloor = createServer((_req, res) => {
      void listRows().then((rows) => {
        res
          .writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
          .end(JSON.stringify({ events: rows }));
      });
    });
    servers.push(databaseFloor.listen(0, '127.0.0.1'));
    const first = (await listRows())[0];
    if (!first) throw new Error('the seeded database has no published event in the default window');

    const listPath = `${API}/events?per_page=10`;
    const bytes = Buffer.from(await (await fetch(`${uncached.origin}${listPath}`)).arrayBuffer());
    const memoryFloor = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(bytes);
    });
    servers.push(memoryFloor.listen(0, '127.0.0.1'));

    const graphqlBody = JSON.stringify({ query: GRAPHQL_LIST, variables: { perPage: 10 } });
    const targets: Target[] = [
      {
        name: 'floor: node:http, same bytes from memory',
        url: `${await origin(memoryFloor)}/`,
        floor: 'memory',
      },
      {
        name: `floor: node:http + one ${postgres ? 'pg' : 'better-sqlite3'} query`,
        url: `${await origin(databaseFloor)}/`,
        floor: 'database',
      },
    ];
    for (const [label, server] of [
      ['cached', cached],
      ['uncached', uncached],
    ] as const) {
      targets.push(
        { name: `REST list ${label} (GET ${listPath})`, url: `${server.origin}${listPath}`, server },
        {
          name: `REST single ${label} (GET ${API}/events/${first.id})`,
          url: `${server.origin}${API}/events/${first.id}`,
          server,
        },
        {
          name: `GraphQL list ${label} (events perPage 10)`,
          url: `${server.origin}/graphql`,
          body: graphqlBody,
          server,
        },
      );
      if (busiest) {
        const occurrencesPath = `${API}/events?per_page=10&post_parent=${busiest.firstId}`;
        targets.push(
          {
            name: `REST list of occurrences ${label} (GET ${occurrencesPath})`,
            url: `${server.origin}${occurrencesPath}`,
            server,
          },
          {
            name: `REST single occurrence ${label} (GET ${API}/events/${busiest.occurrenceId})`,
            url: `${server.origin}${API}/events/${busiest.occurrenceId}`,
            server,
          },
        );
      }
    }

    // An editor reads as the site's own server does: computed on every request, whatever the cache.
    const editor = await createSignedIn(url, config, 'editor', 'bench-reader');
    targets.push(
      {
        name: `REST list signed-in, editor (GET ${listPath})`,
        url: `${cached.origin}${listPath}`,
        server: cached,
        authorization: editor,
      },
      {
        name: 'GraphQL list signed-in, editor (events perPage 10)',
        url: `${cached.origin}/graphql`,
        body: graphqlBody,
        server: cached,
        authorization: editor,
      },
    );

    const rows: Row[] = [];
    // `--mix-only`: the mix alone, without the single URLs, the peer, the RSVP row and the full cache.
    for (const target of mixOnly ? [] : targets) {
      const problem = await problemWith(target);
      if (problem) {
        rows.push({ target, problem });
        continue;
      }
      // A short unmeasured run first: JIT, query-plan caches, the database's page cache (and the
      // response cache) warm up.
      const { authorization: as } = target;
      if (warmup > 0) await wrk(target.url, target.body, connections, warmup, script, as);
      const cpuBefore = await cpuMicrosOf(target);
      const result = await wrk(target.url, target.body, connections, duration, script, as);
      const cpuPerRequest = ((await cpuMicrosOf(target)) - cpuBefore) / 1000 / result.requests;
      rows.push({ target, result, cpuPerRequest, sqlPerRequest: await sqlPerRequest(target) });
      console.log(`measured ${target.name}`);
    }
    const rss = await Promise.all(children.map((child) => child.peakRssMb()));
    let peerNotes: string[] = [];
    if (peerInstall && !mixOnly) {
      peerChild = await PeerChild.start(peerInstall, url);
      const measured = await measurePeer(uncached, peerChild, peerRequests(window(), first.id), script, {
        connections,
        duration,
        warmup,
        rounds: peerRounds,
      });
      rows.push(...measured.rows);
      peerNotes = [...describePeer(peerInstall, await peerChild.peakRssMb(), peerRounds), ...measured.notes];
      peerChild.stop();
      peerChild = undefined;
    }
    // After the reads (its writes drop the answers that show the event's tickets), before the mix.
    const rsvp = mixOnly ? undefined : await rsvpRow(url, rsvpType, rsvpServers(uncached), load);
    if (rsvp) rows.push(rsvp.row);
    // Its own cache-on server, so the rows above and the cache fill below do not share its memory.
    const mixServer = mix ? await ServerChild.start(url, 'on') : undefined;
    if (mixServer) children.push(mixServer);
    const mixed =
      mixServer &&
      (await runMix({
        url,
        dir,
        cached: mixServer,
        uncached,
        metricsToken: METRICS_TOKEN,
        ...(profile && { profileDir: resolve(profile) }),
        authorization: authorization as string,
        connections,
        duration,
        warmup,
        wrkHeaders,
      }));
    const mixMemory = mixServer && (await describeMemory(mixServer, "the mix's server at its end", config));
    // `--without a,b,none`: the mix again on a server of its own for each, the mechanism named off
    // (none: every one on, to see the machine's drift), the cache-off row left out.
    const variants: MixVariant[] = mixed ? [{ without: 'none', rows: mixed.rows }] : [];
    for (const name of without) {
      mixServer?.stop();
      const server = await ServerChild.start(
        url,
        'on',
        name === 'none' ? {} : { CALENDAR_CACHE_WITHOUT: name },
      );
      children.push(server);
      // A row of a mechanism still on would measure nothing (as every one did before this check).
      if (name !== 'none' && !(await server.mechanismOff(name)))
        throw new Error(`--without ${name}: the server child still runs it`);
      const { rows: variantRows } = await runMix({
        url,
        dir,
        cached: server,
        metricsToken: METRICS_TOKEN,
        authorization: authorization as string,
        connections,
        duration,
        warmup,
        wrkHeaders,
      });
      variants.push({ without: name, rows: variantRows });
      server.stop();
    }
    const full = mixOnly ? 0 : await fillCache(cached, config.cache.maxBytes, events, connections);
    const listTarget = targets.find((target) => target.server === cached)!;
    if (!mixOnly) await wrk(listTarget.url, listTarget.body, connections, duration, script);
    const fullRss = await cached.rssMb();
    const fullMemory = mixOnly
      ? ''
      : await describeMemory(cached, 'the cached server with its cache full', config);
    printTable(
      rows,
      `${events} events${series > 0 ? ` (${series} % in series)` : ''} on ${kind}, wrk -t1 -c${connections} -d${duration}s (after ${warmup} s warm-up)${gzip ? ', Accept-Encoding: gzip' : ''}, ` +
        `${serversTitle}, ` +
        `peak server RSS: cached ${rss[0]!.toFixed(0)} MB, uncached ${rss[1]!.toFixed(0)} MB; ` +
        `cached server with its cache full (${(full / 2 ** 20).toFixed(0)} of ` +
        `${(config.cache.maxBytes / 2 ** 20).toFixed(0)} MB) under the cached list: RSS ${fullRss.toFixed(0)} MB`,
    );
    if (rsvp) console.log(rsvp.note);
    for (const note of peerNotes) console.log(note);
    if (mixed)
      printMix(
        mixed.rows,
        rows.find((row) => row.target.server === cached)?.result,
        `Traffic mix: ${mixed.urls} distinct anonymous reads (REST and GraphQL GET), Zipf s = 1, ` +
          `wrk -t1 -c${connections} -d${duration}s (after ${warmup} s warm-up, writes running${gzip ? ', Accept-Encoding: gzip' : ''}), ${events} events on ${kind}; ` +
          `SQL and CPU per read include the writes'; RSS at the row's end, and the process's peak so far`,
      );
    console.log('');
    if (mixMemory) console.log(mixMemory);
    if (fullMemory) console.log(fullMemory);
    if (variants.length > 1)
      printVariants(
        variants,
        `The cache's mechanisms one at a time (CALENDAR_CACHE_WITHOUT=…, a server each, in this order; ` +
          `each figure's share of the mean of the rows without any off), ${events} events on ${kind}`,
      );
  } finally {
    for (const child of children) child.stop();
    peerChild?.stop();
    for (const server of servers) server.close();
    floorSqlite?.close();
    await floorPg?.end();
    if (postgres) {
      const admin = new pg.Client({ connectionString: process.env.BENCH_PG_ADMIN_URL ?? pgAdmin });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${pgName} WITH (FORCE)`);
      await admin.end();
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The published series with the most occurrences from today on (a list of them fills a page), and its
 * first such occurrence (a single read).
 */
async function busiestSeries(db: Db, today: Date): Promise<{ firstId: number; occurrenceId: number }> {
  const listed = {
    originalStart: { not: null },
    status: 'publish',
    hideFromListings: false,
    startsAt: { gte: today },
  } as const;
  const [top] = await db.event.groupBy({
    by: ['postParentId'],
    where: listed,
    _count: { id: true },
    orderBy: { _count: { id: 'desc' } },
    take: 1,
  });
  if (!top?.postParentId) throw new Error('the seeded database has no published series ahead');
  const occurrence = await db.event.findFirstOrThrow({
    where: { ...listed, postParentId: top.postParentId },
    orderBy: { startsAt: 'asc' },
    select: { id: true },
  });
  return { firstId: top.postParentId, occurrenceId: occurrence.id };
}

/** The serving process's CPU so far (µs): a server child's, or this process's for the floors. */
async function cpuMicrosOf(target: Target): Promise<number> {
  if (target.server) return target.server.cpuMicros();
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * Fills the cached server's response cache with distinct answers (list pages, then single events)
 * until it holds 95 % of its bound or runs out of them: the state the memory target is about.
 */
async function fillCache(server: ServerChild, maxBytes: number, events: number, connections: number) {
  // List pages first (the largest answers), then single events; the seed numbers events from 1.
  const paths = function* () {
    for (let page = 1; page <= Math.ceil(events / 50); page++) yield `${API}/events?per_page=50&page=${page}`;
    for (let id = 1; id <= events; id++) yield `${API}/events/${id}`;
  };
  const next = paths();
  let full = false;
  let sent = 0;
  const worker = async () => {
    for (let step = next.next(); !step.done && !full; step = next.next()) {
      // On a loaded machine a fill request has failed with ECONNRESET, the server reporting no error
      // (likely a kept-alive socket closed as it was reused), which lost the whole run: sent once more.
      const read = () => fetch(`${server.origin}${step.value}`).then((response) => response.arrayBuffer());
      await read().catch(read);
      if (++sent % 200 === 0) full = (await server.cacheBytes()) >= maxBytes * 0.95;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  return server.cacheBytes();
}

/**
 * `--peer`: each request on ours (every cache off) and on the peer, after the check that both answer
 * the same events; warmed up alike, then timed in alternating rounds so that a change of the shared
 * machine's load falls on both. A row's req/s and latencies are the median of its rounds; its CPU per
 * request is over all of them.
 */
async function measurePeer(
  ours: ServerChild,
  peer: PeerChild,
  requests: ReturnType<typeof peerRequests>,
  script: string,
  { connections, duration, warmup, rounds }: Record<'connections' | 'duration' | 'warmup' | 'rounds', number>,
): Promise<{ rows: Row[]; notes: string[] }> {
  const { total } = await checkSameAnswers(`${ours.origin}/graphql`, `${peer.origin}/graphql`, requests);
  const rows: Row[] = [];
  const notes = [
    `peer check: the same page (10 of ${total} events) and the same single event, with the same venues, ` +
      'organizers, categories and tags in the same order',
  ];
  for (const kind of ['list', 'single'] as const) {
    const what = kind === 'list' ? 'list of 10 with relations and total' : 'single event with relations';
    const pair: Target[] = [
      {
        name: `GraphQL ${what}, ours uncached`,
        url: `${ours.origin}/graphql`,
        body: requests[kind].ours,
        server: ours,
      },
      {
        name: `GraphQL ${what}, PostGraphile`,
        url: `${peer.origin}/graphql`,
        body: requests[kind].peer,
        server: peer,
      },
    ];
    if (warmup > 0)
      for (const target of pair) await wrk(target.url, target.body, connections, warmup, script);
    const results: LoadResult[][] = pair.map(() => []);
    const cpu = pair.map(() => 0);
    for (let round = 0; round < rounds; round++)
      for (const [i, target] of pair.entries()) {
        const before = await cpuMicrosOf(target);
        results[i]!.push(await wrk(target.url, target.body, connections, duration, script));
        cpu[i]! += (await cpuMicrosOf(target)) - before;
      }
    const measured: Row[] = [];
    for (const [i, target] of pair.entries()) {
      const result = combineRounds(results[i]!);
      const cpuPerRequest = cpu[i]! / 1000 / result.requests;
      measured.push({ target, result, cpuPerRequest, sqlPerRequest: await sqlPerRequest(target) });
    }
    const [oursRow, peerRow] = measured as [Row, Row];
    oursRow.versusPeer = {
      rps: oursRow.result!.rps / peerRow.result!.rps,
      cpu: oursRow.cpuPerRequest! / peerRow.cpuPerRequest!,
    };
    rows.push(oursRow, peerRow);
    const byRound = results[0]!.map((r, k) => `${r.rps.toFixed(0)} / ${results[1]![k]!.rps.toFixed(0)}`);
    notes.push(`peer ${kind}, req/s by round (ours / peer): ${byRound.join(', ')}`);
    console.log(`measured ${kind}: ours and the peer`);
  }
  return { rows, notes };
}

/** Rounds of one row as one result: the median round's rates and latencies, the sums of the counts. */
function combineRounds(results: LoadResult[]): LoadResult {
  const median = (pick: (r: LoadResult) => number) => {
    const sorted = results.map(pick).sort((a, b) => a - b);
    const middle = sorted.length >> 1;
    return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  };
  const sum = (pick: (r: LoadResult) => number) => results.reduce((total, r) => total + pick(r), 0);
  return {
    rps: median((r) => r.rps),
    p50: median((r) => r.p50),
    p99: median((r) => r.p99),
    requests: sum((r) => r.requests),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    bytes: sum((r) => r.bytes),
  };
}

function describePeer(install: PeerInstall, rssMb: number, rounds: number): string[] {
  const versions = Object.entries(install.versions).map(([name, version]) => `${name} ${version}`);
  return [
    `peer: ${versions.join(', ')} (${install.dir}); peak RSS ${rssMb.toFixed(0)} MB; ours runs on Node ${process.version}`,
    `peer rows: ${rounds} rounds each, alternating ours / peer; req/s and latencies the median round, CPU over all rounds`,
  ];
}

interface Load {
  connections: number;
  duration: number;
  warmup: number;
  gzip: boolean;
}

/** The RSVP row (scripts/bench/rsvp.ts) as a row of the table, and the line of its check. */
async function rsvpRow(
  url: string,
  type: RsvpType,
  servers: readonly ServerChild[],
  load: Load,
): Promise<{ row: Row; note: string }> {
  const result: RsvpResult = await runRsvp({ url, type, servers, ...load });
  console.log('measured RSVP');
  const { going, confirmed, lost, capacity } = result.check;
  const instances = servers.length > 1 ? `, ${servers.length} instances` : '';
  return {
    row: {
      target: { name: `RSVP, one ticket type (POST ${RSVP_PATH}${instances})`, url: servers[0]!.origin },
      result,
      cpuPerRequest: result.cpuPerRequest,
      sqlPerRequest: result.sqlPerRequest,
    },
    note:
      `RSVP row: ${load.connections} clients in this process (node:http, kept-alive sockets) ` +
      `spread over ${servers.length} server${servers.length > 1 ? 's' : ''}, every reservation on ticket type ` +
      `${type.typeId} of event ${type.eventId} (capacity ${capacity.toLocaleString('en')}, no waitlist); req/s ` +
      `are confirmed reservations; CPU and SQL summed over the servers. Check after the run (warm-up ` +
      `included): ${going} attendees going = ${confirmed} confirmations answered` +
      `${lost ? ` (${lost} answers lost, which may or may not have committed)` : ''}, none refused, ` +
      `within the capacity`,
  };
}

function rsvpTitle(kind: string, events: number, instances: number, load: Load): string {
  return (
    `RSVP under contention: ${events} events on ${kind}, ${instances} server${instances > 1 ? 's' : ''} on ` +
    `one database, ${load.connections} concurrent clients on one ticket type, ${load.duration} s ` +
    `(after ${load.warmup} s warm-up)${load.gzip ? ', Accept-Encoding: gzip' : ''}`
  );
}

function printTable(rows: Row[], title: string): void {
  const floorOf = (kind: 'memory' | 'database') =>
    rows.find((row) => row.target.floor === kind)?.result?.rps ?? Number.NaN;
  const memory = floorOf('memory');
  const database = floorOf('database');
  const versusPeer = rows.some((row) => row.versusPeer);
  const cells = (row: Row): string[] => {
    const measured = measuredCells(row);
    if (!versusPeer) return measured;
    const ratio = row.versusPeer;
    return [...measured, ratio ? `${ratio.rps.toFixed(2)}× req/s, ${ratio.cpu.toFixed(2)}× CPU` : ''];
  };
  const measuredCells = (row: Row): string[] => {
    const r = row.result;
    if (!r) return [row.target.name, '-', '-', '-', '-', '-', '-', '-', `not measured: ${row.problem}`];
    const failures = r.non2xx || r.errors ? `  (${r.non2xx} non-2xx, ${r.errors} errors)` : '';
    // `--rsvp` alone measures no floor.
    const percent = (floor: number) =>
      Number.isNaN(floor) ? '-' : `${((r.rps / floor) * 100).toFixed(1)} %`;
    return [
      row.target.name,
      r.rps.toFixed(0),
      r.p50.toFixed(2),
      r.p99.toFixed(2),
      row.sqlPerRequest === undefined ? '-' : row.sqlPerRequest.toFixed(1),
      row.cpuPerRequest === undefined ? '-' : row.cpuPerRequest.toFixed(3),
      kilobytesPerRequest(r),
      percent(memory),
      percent(database) + failures,
    ];
  };
  const table = [
    [
      'route',
      'req/s',
      'p50 ms',
      'p99 ms',
      'SQL/req',
      'CPU ms/req',
      'KB/req',
      'of memory floor',
      'of database floor',
      ...(versusPeer ? ['ours ÷ peer'] : []),
    ],
    ...rows.map(cells),
  ];
  const widths = (table[0] ?? []).map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length)));
  console.log(`\n${title}\n`);
  for (const [i, row] of table.entries()) {
    console.log(`| ${row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join(' | ')} |`);
    if (i === 0) console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  }
}

await main();
