// `npm run bench -- --mix`: the service under a calendar's traffic instead of one hot URL (issue #29).
// Thousands of distinct anonymous reads across REST and GraphQL, picked by Zipf popularity inside wrk
// (mix.lua, from a precomputed alias table: reads.ts), while a writer in this process (writer.ts) edits events
// as an administrator through both APIs at a fixed rate. Each row says what the serving process did:
// req/s, latency, the response cache's hit ratio (its /metrics counters), SQL statements and CPU per
// request, and RSS (at each row's end, and the peak so far).

import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { aliasTable, catalogue, keepAnswered, random, readUrls } from './reads.js';
import { type WriteKind, Writer } from './writer.js';

const run = promisify(execFile);
const LUA_SCRIPT = new URL('./mix.lua', import.meta.url).pathname;

/** Enough distinct reads that a cache cannot look good by holding a handful of answers. */
const MIN_URLS = 4000;

/** What the mix needs of a server child of `npm run bench`. */
export interface MixServer {
  readonly origin: string;
  resetSql(): Promise<number>;
  sql(): Promise<number>;
  cpuMicros(): Promise<number>;
  rssMb(): Promise<number>;
  /** The process's peak RSS so far: the mix's server is its own process, so its peak through the mix. */
  peakRssMb(): Promise<number>;
  /** Answers the response cache dropped for writes so far. */
  dropped(): Promise<number>;
  /** Starts counting the garbage collector's pauses afresh. */
  gcReset(): Promise<void>;
  /** The collector's pauses since `gcReset`: their sum and the longest, in ms. */
  gcPauses(): Promise<{ totalMs: number; longestMs: number }>;
  profileStart(): Promise<void>;
  profileStop(path: string): Promise<void>;
}

export interface MixRow {
  name: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** Reads answered other than 2xx, and socket errors. */
  non2xx: number;
  errors: number;
  /** Bytes received, headers included. */
  bytes: number;
  /** Hits / (hits + refreshes + misses) of the response cache over the measured run; undefined with it off. */
  hitRatio?: number;
  /** Refreshes (answers whose term counts a write moved, rewritten in place) / the same lookups. */
  refreshRatio?: number;
  /** Answers dropped to stay within CALENDAR_CACHE_MB during the measured run. */
  evictions?: number;
  /** Answers the writes made stale during the measured run (what selective invalidation dropped). */
  dropped?: number;
  sqlPerRequest: number;
  cpuPerRequest: number;
  rssMb: number;
  peakRssMb: number;
  /** The share of the measured run the event loop spent stopped for garbage collection, and its longest stop (ms). */
  gc: { share: number; longestMs: number };
  writes?: { sent: number; failed: number; rate: number };
  /** Answers dropped per kind of write, over the writes that ran alone (none overlapping another). */
  droppedByKind?: Partial<Record<WriteKind, { writes: number; dropped: number }>>;
}

/** The response cache's hit and miss counters from the server's /metrics. */
async function cacheCounters(
  server: MixServer,
  metricsToken: string,
): Promise<{ hit: number; miss: number; refreshed: number; eviction: number; dropped: number }> {
  const response = await fetch(`${server.origin}/metrics`, {
    headers: { authorization: `Bearer ${metricsToken}` },
  });
  if (!response.ok) throw new Error(`/metrics answered HTTP ${response.status}`);
  const text = await response.text();
  const counter = (event: string) =>
    Number(
      new RegExp(`^calendar_response_cache_events_total\\{event="${event}"\\} (\\S+)$`, 'm').exec(
        text,
      )?.[1] ?? 0,
    );
  return {
    hit: counter('hit'),
    miss: counter('miss'),
    refreshed: counter('refreshed'),
    eviction: counter('eviction'),
    dropped: counter('dropped'),
  };
}

async function wrkMix(
  origin: string,
  table: string,
  connections: number,
  duration: number,
  headers: readonly string[],
) {
  const { stdout } = await run(
    'wrk',
    ['-t1', `-c${connections}`, `-d${duration}s`, '--latency', ...headers, '-s', LUA_SCRIPT, origin],
    { env: { ...process.env, BENCH_MIX_TABLE: table }, maxBuffer: 1 << 20 },
  );
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH '));
  if (!line) throw new Error(`wrk printed no result:\n${stdout}`);
  return JSON.parse(line.slice(6)) as Pick<
    MixRow,
    'requests' | 'rps' | 'p50' | 'p99' | 'non2xx' | 'errors' | 'bytes'
  >;
}

export interface MixOptions {
  url: string;
  dir: string;
  /** The cache-on server the mix is written to and read from, and the cache-off one (none: no such row). */
  cached: MixServer;
  uncached?: MixServer;
  metricsToken: string;
  authorization: string;
  connections: number;
  duration: number;
  warmup: number;
  /** wrk's extra header arguments (`-H 'Accept-Encoding: gzip'` with `--gzip`). */
  wrkHeaders: readonly string[];
  /** Where each row's CPU profile of its server is written (the measured run only); none: no profile. */
  profileDir?: string;
}

export async function runMix(options: MixOptions): Promise<{ rows: MixRow[]; urls: number }> {
  const { cached, uncached, metricsToken, connections, duration, warmup, wrkHeaders } = options;
  const c = await catalogue(options.url);
  const candidates = readUrls(c, random(42));
  const started = performance.now();
  const urls = await keepAnswered(cached.origin, candidates, wrkHeaders);
  console.log(
    `mix: ${urls.length} distinct read URLs answer (of ${candidates.length} candidates, ` +
      `each read once in ${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
  // A small seed has fewer venues, organizers and events to read: fewer URLs, said, not refused.
  if (urls.length < MIN_URLS) console.warn(`mix: fewer than ${MIN_URLS} distinct reads; seed more events`);
  const table = join(options.dir, 'mix-urls.txt');
  writeFileSync(table, aliasTable(urls));

  const rows: MixRow[] = [];
  const measure = async (name: string, server: MixServer, writesPerSecond: number) => {
    const writer =
      writesPerSecond > 0 ? new Writer(cached.origin, options.authorization, c, cached.dropped) : undefined;
    writer?.start(writesPerSecond);
    if (warmup > 0) await wrkMix(server.origin, table, connections, warmup, wrkHeaders);
    const cacheBefore = server === cached ? await cacheCounters(server, metricsToken) : undefined;
    const writesBefore = writer?.counts();
    await server.resetSql();
    const cpuBefore = await server.cpuMicros();
    await server.gcReset();
    if (options.profileDir) await server.profileStart();
    const result = await wrkMix(server.origin, table, connections, duration, wrkHeaders);
    const cpu = (await server.cpuMicros()) - cpuBefore;
    const gcPauses = await server.gcPauses();
    if (options.profileDir)
      await server.profileStop(join(options.profileDir, `${name.replace(/\W+/g, '-')}.cpuprofile`));
    const statements = await server.sql();
    const writesAfter = writer?.counts();
    await writer?.stop();
    const droppedByKind = writer?.droppedByKind;
    const cacheAfter = cacheBefore && (await cacheCounters(server, metricsToken));
    const hits = cacheAfter && cacheBefore ? cacheAfter.hit - cacheBefore.hit : 0;
    const refreshes = cacheAfter && cacheBefore ? cacheAfter.refreshed - cacheBefore.refreshed : 0;
    const lookups = cacheAfter && cacheBefore ? hits + refreshes + cacheAfter.miss - cacheBefore.miss : 0;
    rows.push({
      name,
      ...result,
      ...(cacheAfter && cacheBefore
        ? {
            hitRatio: lookups ? hits / lookups : Number.NaN,
            refreshRatio: lookups ? refreshes / lookups : Number.NaN,
            evictions: cacheAfter.eviction - cacheBefore.eviction,
            dropped: cacheAfter.dropped - cacheBefore.dropped,
          }
        : {}),
      sqlPerRequest: statements / result.requests,
      cpuPerRequest: cpu / 1000 / result.requests,
      rssMb: await server.rssMb(),
      peakRssMb: await server.peakRssMb(),
      gc: { share: gcPauses.totalMs / (duration * 1000), longestMs: gcPauses.longestMs },
      ...(writesAfter && writesBefore
        ? {
            writes: {
              sent: writesAfter.sent - writesBefore.sent,
              failed: writesAfter.failed - writesBefore.failed,
              rate: writesPerSecond,
            },
          }
        : {}),
      ...(droppedByKind && { droppedByKind }),
    });
    console.log(`measured ${name}`);
  };
  // The read-only mix twice, around the 1 write/s row (which drops little): the machine's speed drifts
  // within a run, and the targets are ratios to it, so they are taken to the mean of both.
  await measure('read-only mix', cached, 0);
  await measure('mix + 1 write/s', cached, 1);
  await measure(READ_ONLY_AGAIN, cached, 0);
  await measure('mix + 10 writes/s', cached, 10);
  if (uncached) await measure('read-only mix, CALENDAR_CACHE=off', uncached, 0);
  return { rows, urls: urls.length };
}

export const READ_ONLY_AGAIN = 'read-only mix, again';
