// The app server child of `npm run bench`: the compiled app (dist/, as `npm start` runs it, with the
// Node flags of its `start` script, without a TypeScript loader holding transpiled sources in memory)
// on a free port. It counts SQL statements and answers the parent's questions over the IPC channel:
// `sql` (statements since `reset`), `cpu` (this process's user + system CPU, µs), `rss` (peak, KB),
// `rssNow` (KB), `mechanismOff` (1 when the named mechanism is off), `cacheBytes` (the response
// cache's fill), `memory` (one figure of `MEMORY`, bytes), `dropped` (answers writes dropped), `gcPauseMs`/`gcLongestMs` (the garbage collector's pauses since
// `gcReset`) and `profileStart`/`profileStop` (a CPU profile).
// It serves /metrics as a deployment with CALENDAR_METRICS_TOKEN does, metrics and all.
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { PerformanceObserver } from 'node:perf_hooks';
import process from 'node:process';
import { getHeapSpaceStatistics } from 'node:v8';
import { buildApp, createResponseCache } from '../../dist/src/app.js';
import { ShapeCache } from '../../dist/src/core/cache/shape-cache.js';
import { loadConfig } from '../../dist/src/core/config/config.js';
import { mechanismOn, turnOffMechanisms } from '../../dist/src/core/config/cache-mechanisms.js';
import { createDb } from '../../dist/src/core/db/client.js';
import { createLogger } from '../../dist/src/core/ops/logger.js';
import { Metrics } from '../../dist/src/core/ops/metrics.js';

const config = loadConfig(process.env);
// As src/server.ts does: `--without` names a mechanism in CALENDAR_CACHE_WITHOUT, which only this turns off.
turnOffMechanisms(config.cacheWithout);
let statements = 0;
const metrics = config.metricsToken === undefined ? undefined : new Metrics();
const db = await createDb(config.databaseUrl, { onQuery: () => statements++, metrics });
const cache = createResponseCache(config, metrics);
// Made here, as buildApp would make it, so that its fill can be read.
const shapes = config.shapeCache.maxBytes > 0 ? new ShapeCache(config.shapeCache) : undefined;
const server = buildApp({ db, config, cache, shapes, metrics, logger: createLogger('silent') }).listen(
  0,
  '127.0.0.1',
);
await once(server, 'listening');
// Every collection stops the event loop for its duration: their sum and the longest bound a row's p99.
let gcPauses = { total: 0, longest: 0 };
new PerformanceObserver((list) => {
  for (const { duration } of list.getEntries()) {
    gcPauses.total += duration;
    gcPauses.longest = Math.max(gcPauses.longest, duration);
  }
}).observe({ entryTypes: ['gc'] });
/** Kilobytes of one line of /proc/self/status (`RssAnon`, `RssFile`): 0 where there is none. */
const statusKb = (field) => {
  try {
    const line = readFileSync('/proc/self/status', 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return line ? Number(line[1]) : 0;
  } catch {
    return 0;
  }
};
/** Bytes V8 committed for its heap spaces whose names match `pattern`. */
const heapSpaces = (pattern) =>
  getHeapSpaceStatistics()
    .filter((space) => pattern.test(space.space_name))
    .reduce((sum, space) => sum + space.physical_space_size, 0);
/** What `memory` answers, in bytes: where the process's memory is, and what each cache counts. */
const MEMORY = {
  heapUsed: () => process.memoryUsage().heapUsed,
  heapTotal: () => process.memoryUsage().heapTotal,
  external: () => process.memoryUsage().external,
  arrayBuffers: () => process.memoryUsage().arrayBuffers,
  rssAnon: () => statusKb('RssAnon') * 1024,
  /** V8's code spaces and its large-object space, committed: what the heap's total holds besides objects. */
  heapCode: () => heapSpaces(/code/),
  heapLargeObjects: () => heapSpaces(/^large_object_space$/),
  heapNew: () => heapSpaces(/^new_space$/),
  rssFile: () => statusKb('RssFile') * 1024,
  responseCache: () => cache.bytes,
  records: () => cache.recordBytes,
  shapes: () => shapes?.bytes ?? 0,
};
const answers = {
  /** 1 when the named cache mechanism is off in this process (the parent checks its `--without`). */
  mechanismOff: (name) => (mechanismOn(name) ? 0 : 1),
  sql: () => statements,
  reset: () => (statements = 0),
  gcReset: () => {
    gcPauses = { total: 0, longest: 0 };
    return 0;
  },
  gcPauseMs: () => gcPauses.total,
  gcLongestMs: () => gcPauses.longest,
  cpu: () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  },
  rss: () => process.resourceUsage().maxRSS,
  rssNow: () => Math.round(process.memoryUsage().rss / 1024),
  cacheBytes: () => cache.bytes,
  memory: (figure) => MEMORY[figure]?.() ?? null,
  // Answers the writes dropped so far: read around single writes, cheaper than rendering /metrics.
  dropped: async () =>
    (await metrics?.cacheEvents.get())?.values.find((value) => value.labels.event === 'dropped')?.value ?? 0,
  profileStart: async () => {
    profiler ??= new Session();
    profiler.connect();
    await post('Profiler.enable');
    await post('Profiler.start');
    return 0;
  },
  profileStop: async (path) => {
    const { profile } = await post('Profiler.stop');
    writeFileSync(path, JSON.stringify(profile));
    profiler.disconnect();
    return 0;
  },
};
let profiler;
const post = (method) =>
  new Promise((resolve, reject) =>
    profiler.post(method, (error, result) => (error ? reject(error) : resolve(result))),
  );
process.on('message', async ([id, question, argument]) => {
  process.send?.([id, (await answers[question]?.(argument)) ?? null]);
});
process.send?.(server.address().port);
