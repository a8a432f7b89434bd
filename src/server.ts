import { WebhookDispatcher } from './sync/webhook-dispatcher.js';
import { createServer, type Server } from 'node:http';
import Koa from 'koa';
import { bootstrapAdministrator } from './users/users.js';
import { ConfigError, type Config, loadConfig } from './core/config/config.js';
import { turnOffMechanisms } from './core/config/cache-mechanisms.js';
import { buildApp, createResponseCache } from './app.js';
import { shareInvalidations } from './core/cache/invalidation-channel.js';
import { createDb } from './core/db/client.js';
import { migrateDatabase } from './core/db/migrate.js';
import { createLogger } from './core/ops/logger.js';
import { metricsEndpoint } from './core/ops/http-metrics.js';
import { joinCalendar } from './core/db/calendar-identity.js';
import { busAddressOf, connectInstanceBus } from './core/ops/instance-bus.js';
import { printWelcome } from './users/welcome.js';
import { Lifecycle } from './core/ops/lifecycle.js';
import { Metrics } from './core/ops/metrics.js';
import { connectRedis } from './core/ops/redis.js';
import { ChangeFeed } from './sync/change-feed.js';
import { WritePipeline } from './core/db/transactions.js';
import { SeriesHorizonJob } from './events/series/series-horizon.js';
import { markExcludedStarts } from './events/series/excluded-starts.js';
import { ImportScheduler } from './imports/subscriptions.js';
import { ListCountsCompaction } from './core/db/queries/list-counts.js';

// A configuration mistake is the operator's to fix: its message alone, never a stack trace.
function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
const config = configOrExit();
turnOffMechanisms(config.cacheWithout);
const logger = createLogger(config.logLevel);
const lifecycle = new Lifecycle();
const metricsOn = config.metricsToken !== undefined || config.metricsPort !== undefined;
const metrics = metricsOn ? new Metrics() : undefined;

const { applied } = await migrateDatabase(config.databaseUrl);
if (applied.length) logger.info({ applied }, 'database migrated');
const db = await createDb(config.databaseUrl, { metrics });
// Series written before their first event could be marked as excluded from its own set.
const marked = await markExcludedStarts(db);
if (marked) logger.info({ marked }, 'first events whose series exclude their start marked as unlisted');
lifecycle.onClose('database', () => db.$disconnect());
// The database names the calendar (its bus channels, its Redis keys), whatever CALENDAR_SITE_URL says;
// another running instance that serves under another site URL is named in a warning.
const { namespace, leave } = await joinCalendar(db, config.siteUrl, logger);
lifecycle.onClose('instance record', leave);
const writes = new WritePipeline({
  onListenerError: (error) => logger.error({ err: error }, 'after-commit listener failed'),
});
const bootstrap = await bootstrapAdministrator(
  { db, config, writes },
  logger,
  config.adminUser,
  config.adminPassword,
);
let redis: ReturnType<typeof connectRedis> | undefined;
if (config.redisUrl) {
  redis = connectRedis(config.redisUrl, logger);
  const shared = redis;
  lifecycle.addReadinessCheck('redis', async () => void (await shared.ping()));
  lifecycle.onClose('redis', async () => void (await shared.quit()));
}

// Instances behind one balancer hear each other's writes on one bus: Redis when configured, else
// PostgreSQL's LISTEN/NOTIFY; an embedded SQLite database has one instance and needs none. Registered
// before the subscriptions, so closed after them (closers run in reverse).
const bus = connectInstanceBus(busAddressOf({ ...config, namespace }), logger);
if (bus) lifecycle.onClose('instance bus', () => bus.close());
const cache = createResponseCache(config, metrics);
if (cache.enabled && bus) shareInvalidations(cache, bus);
// GraphQL subscriptions hear every instance's writes on the same bus.
const changes = new ChangeFeed({ ...config.subscriptions, logger, bus });
lifecycle.onClose('subscriptions', () => changes.close());

// Webhooks: this instance delivers the change log to the endpoints (claims keep instances apart); its
// own committed writes wake it at once, other instances' within CALENDAR_WEBHOOK_POLL_MS.
if (config.webhooks.enabled) {
  const dispatcher = new WebhookDispatcher(db, config, logger);
  writes.afterCommit(() => dispatcher.kick());
  dispatcher.start();
  lifecycle.onClose('webhook deliveries', () => dispatcher.stop());
}

// Series: every instance extends the running series to the moving horizon now and then (each series
// under its first event's row lock, so instances never create a slot twice).
const seriesHorizon = new SeriesHorizonJob({ db, config, writes }, logger);
seriesHorizon.start();
lifecycle.onClose('series horizon', () => seriesHorizon.stop());

// Subscribed import sources: every instance looks for due ones (CALENDAR_IMPORT_POLL_MS, 0: never) and
// reads a source only once it has claimed it, so one instance reads each at a time.
const importScheduler = new ImportScheduler({ db, config, writes }, logger);
importScheduler.start();
lifecycle.onClose('import sources', () => importScheduler.stop());

// The list counts' deltas (PostgreSQL): folded once a minute, so a total sums about a row a bucket.
const listCounts = new ListCountsCompaction(db, config.databaseProvider, (error) =>
  logger.warn({ err: error }, 'list counts not folded'),
);
listCounts.start();
lifecycle.onClose('list counts', () => listCounts.stop());

const shared = redis && { redis, namespace };
const server = buildApp({ db, config, logger, writes, metrics, lifecycle, cache, shared, changes }).listen(
  config.port,
  config.host,
  () => {
    logger.info(
      { port: config.port, provider: config.databaseProvider, namespace },
      `listening on http://${config.host}:${config.port}`,
    );
    if (process.stdout.isTTY) void welcome();
  },
);

/** The closing lines of `npm run demo` on a terminal: the service's pages and how to log in. */
async function welcome(): Promise<void> {
  try {
    printWelcome(process.stdout, {
      host: config.host,
      port: config.port,
      graphiql: !config.trustedDocuments,
      bootstrap,
      adminLogin: config.adminUser,
      administrators: await db.user.count({ where: { role: 'administrator' } }),
      customDatabase: process.env.DATABASE_URL !== undefined,
    });
  } catch (error) {
    logger.warn({ err: error }, 'could not print the welcome lines');
  }
}

// Scrapes on a private listener need no token; the public port serves /metrics only with one.
let metricsServer: Server | undefined;
if (metrics && config.metricsPort !== undefined) {
  const scrape = new Koa();
  scrape.use(metricsEndpoint(metrics));
  metricsServer = createServer(scrape.callback()).listen(config.metricsPort, config.metricsHost);
  lifecycle.onClose(
    'metrics listener',
    () => new Promise<void>((done) => metricsServer!.close(() => done())),
  );
}

/**
 * Drains, then exits 0: `/readyz` turns 503 at once, the listener stops accepting, idle keep-alive
 * connections close, in-flight requests get `CALENDAR_SHUTDOWN_MS` to finish (then their sockets
 * are cut), and only then are Redis and the database closed and the logs flushed.
 */
let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal, deadline_ms: config.shutdownMs }, 'draining');
  lifecycle.beginDraining();
  const closed = new Promise<void>((done) => server.close(() => done()));
  server.closeIdleConnections();
  // Responses still being written ask their clients to close the connection afterwards.
  server.on('request', (_req, res) => res.setHeader('Connection', 'close'));
  const deadline = setTimeout(() => {
    logger.warn('shutdown deadline reached; closing the remaining connections');
    server.closeAllConnections();
  }, config.shutdownMs);
  await closed;
  clearTimeout(deadline);
  await lifecycle.close((name, error) => logger.error({ err: error, resource: name }, 'close failed'));
  logger.info('stopped');
  logger.flush();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
