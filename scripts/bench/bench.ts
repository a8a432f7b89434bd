// npm run bench -- [--db sqlite|postgres] [--duration 10] [--connections 10] [--events 10000] [--warmup 2] [--mix]
//   [--series 20] [--profile DIR] [--gzip] [--peer [--peer-rounds 3]] [--rsvp] [--mix-only] [--without a,b,none]
// Seeds a throwaway database, serves it with the real app twice (response cache on, and
// CALENDAR_CACHE=off) in child processes running the compiled app (server.mjs), next
// to two floors in this process: node:http sending the very bytes of the REST list from memory, and
// node:http + one prepared list query. Load comes from wrk (one thread; a Lua script sets POST bodies
// and reports), so no Node load generator competes with the servers for the second core. One run,
// one table: ratios are only meaningful within it. Two rows read as a signed-in editor, whose answers
// no cache shares (what a site's own server or an app with accounts pays). `--mix` adds the traffic
// mix (mix/): thousands of distinct reads by popularity, with and without writes,
// beside the rows above. `--series P`
// seeds P % of the events as members of series (the same total) and adds a list full of one series'
// occurrences and a single occurrence beside the plain list and single rows. `--profile DIR` writes a CPU
// profile of the mix's server for each mix row's measured run into DIR (`.cpuprofile`). `--gzip` sends
// `Accept-Encoding: gzip` with every request, as browsers and mobile HTTP stacks do (the floors still
// send the plain bytes). `--peer` (PostgreSQL only) adds PostGraphile 5 over the same database
// (peer/): two GraphQL requests asked of it and of the uncached server, checked to answer the
// same events, then timed in alternating rounds (ours, peer, ours, peer…), its rows in the same table.
// The servers run with the Node flags of `npm start` (package.json), and the run ends with where the
// memory of the mix's server and of the cached server with its cache full is (V8's heap, buffers, what
// each cache counts against its bound). Every run has an RSVP row (rsvp.ts): confirmed
// reservations per second with every client on one ticket type of one event, checked against the
// database after the run; on PostgreSQL its clients are spread over both servers (two instances on one
// database). `--rsvp` runs that row alone. `--mix-only` runs the mix alone; `--without a,b,none` runs the
// mix again for each named cache mechanism turned off (src/core/config/cache-mechanisms.ts; none: all on).

import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { loadConfig } from '../../src/core/config/config.js';
import { type Db, createDb } from '../../src/core/db/client.js';
import { migrateDatabase } from '../../src/core/db/migrate.js';
import { endOfDayWall, startOfDayWall } from '../../src/core/rules/dates.js';
import { defaultCounts } from '../sample-data/generate.js';
import { seedDatabase } from '../sample-data/seed.js';
import { runMix } from './mix/run.js';
import { type MixVariant, printMix, printVariants } from './mix/table.js';
import { createAdministrator, createSignedIn } from './mix/writer.js';
import { options } from './options.js';
import { PeerChild, installPeer, peerRequests } from './peer/peer.js';
import { describePeer, measurePeer } from './peer-rows.js';
import { type Row, type Target, cpuMicrosOf, printTable, problemWith, sqlPerRequest } from './rows.js';
import { prepareRsvp } from './rsvp.js';
import { rsvpRow, rsvpTitle } from './rsvp-row.js';
import { METRICS_TOKEN, NODE_FLAGS, START_ENV, ServerChild, describeMemory } from './server-child.js';
import { WRK_SCRIPT, acceptGzip, requireWrk, wrk, wrkHeaders } from './wrk.js';

const run = promisify(execFile);
const API = '/calendar/events/v1';

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

async function origin(server: Server): Promise<string> {
  if (!server.listening) await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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
  if (gzip) acceptGzip();
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

await main();
