// The app server child of `npm run bench`: the compiled app (dist/, as `npm start` runs it, without a
// TypeScript loader holding transpiled sources in memory) on a free port. It counts SQL statements and
// answers the parent's questions over the IPC channel: `sql` (statements since `reset`), `cpu` (this
// process's user + system CPU, µs), `rss` (peak, KB), `rssNow` (KB) and `cacheBytes` (the response
// cache's fill). It serves /metrics as a deployment with CALENDAR_METRICS_TOKEN does, metrics and all.
import { once } from 'node:events';
import process from 'node:process';
import { buildApp, createResponseCache } from '../dist/src/app.js';
import { loadConfig } from '../dist/src/config.js';
import { createDb } from '../dist/src/db/client.js';
import { createLogger } from '../dist/src/logger.js';
import { Metrics } from '../dist/src/ops/metrics.js';

const config = loadConfig(process.env);
let statements = 0;
const metrics = config.metricsToken === undefined ? undefined : new Metrics();
const db = await createDb(config.databaseUrl, { onQuery: () => statements++, metrics });
const cache = createResponseCache(config, metrics);
const server = buildApp({ db, config, cache, metrics, logger: createLogger('silent') }).listen(
  0,
  '127.0.0.1',
);
await once(server, 'listening');
const answers = {
  sql: () => statements,
  reset: () => (statements = 0),
  cpu: () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  },
  rss: () => process.resourceUsage().maxRSS,
  rssNow: () => Math.round(process.memoryUsage().rss / 1024),
  cacheBytes: () => cache.bytes,
};
process.on('message', (question) => process.send?.(answers[question]?.() ?? null));
process.send?.(server.address().port);
