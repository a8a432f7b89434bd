import Koa from 'koa';
import { restRoutes } from '../rest-map/routes.js';
import { ticketRoutes } from '../rest-map/tickets.js';
import { Authenticator } from './users/authenticate.js';
import { authenticateRequests } from './users/authenticate-requests.js';
import { viewerOf } from './core/http/state.js';
import { LoginLimits, type SharedCounts } from './users/login-limits.js';
import { cacheFastPath, rawCacheHits } from './core/cache/fast-path.js';
import { ResponseCache } from './core/cache/response-cache.js';
import { ShapeCache } from './core/cache/shape-cache.js';
import type { Config } from './core/config/config.js';
import { createContext } from './core/context/context.js';
import type { Db } from './core/db/client.js';
import { graphqlRoute } from './core/graphql/http.js';
import { PersistedDocuments } from './core/graphql/persisted.js';
import { GRAPHQL_PATH, createGraphqlYoga } from './core/graphql/yoga.js';
import { answerAheadOfKoa } from './core/http/ahead-of-koa.js';
import { believeProxies } from './core/config/client-address.js';
import { corsPolicy, routeMethods } from './core/http/cors.js';
import { crossSiteWrites } from './core/http/cross-site.js';
import { embedRoutes, ownDocuments } from './core/http/embed.js';
import { answerUnhandledErrors, logResponseFailures } from './core/http/failures.js';
import type { Logger } from './core/ops/logger.js';
import { metricsEndpoint, recordRequests } from './core/ops/http-metrics.js';
import { Lifecycle } from './core/ops/lifecycle.js';
import type { Metrics } from './core/ops/metrics.js';
import { probes } from './core/http/probes.js';
import { requestIds } from './core/ops/request-id.js';
import { createRestRouter } from './core/rest/router.js';
import { NO_ROUTE, sendError } from './core/errors/rest-errors.js';
import { wordPressGlobals } from './core/rest/wordpress-globals.js';
import { publicSchema, restSchema } from './schema.js';
import { FILTER_PRICES } from './events/model/filter-catalog.js';
import { ChangeFeed } from './sync/change-feed.js';
import { recordChanges } from './sync/change-log.js';
import { termCounts } from './terms/term-counts.js';
import { WritePipeline } from './core/db/transactions.js';
import { writeEffectOf } from './core/db/write-effects.js';
import { TICKETS_PREFIX } from './tickets/rest/shapes.js';
import { RsvpLimits, useRsvpLimits } from './tickets/reservations/limits.js';

interface AppOptions {
  db: Db;
  config: Config;
  logger: Logger;
  /** The write pipeline; by default a new one. Listeners (caches, change logs) register on it here. */
  writes?: WritePipeline;
  /** The response cache; by default a new one configured by `config.cache`. */
  cache?: ResponseCache;
  /** Kept REST shapes; by default a new one bounded by `config.shapeCache` (none at 0 bytes). */
  shapes?: ShapeCache;
  /** Prometheus metrics; without them `/metrics` is not served and nothing is measured. */
  metrics?: Metrics;
  /** Draining state and readiness checks shared with the process that listens (`server.ts`). */
  lifecycle?: Lifecycle;
  /**
   * Shared state of the instances (login failure counts): their Redis and the calendar's namespace in
   * it; without it each instance counts alone.
   */
  shared?: SharedCounts;
  /** The failed-login counts and known sign-ins; by default new ones, in `shared` when given. */
  loginLimits?: LoginLimits;
  /** Committed changes for GraphQL subscriptions; by default in this process only (no Redis). */
  changes?: ChangeFeed;
}

/** The response cache as configured, its hits, misses and invalidations counted in the metrics. */
export function createResponseCache(config: Config, metrics?: Metrics): ResponseCache {
  return new ResponseCache({
    ...config.cache,
    siteTimezone: config.siteTimezone,
    onEvent: metrics && ((event) => metrics.cacheEvents.inc({ event })),
    onRecords:
      metrics &&
      ((kept, read) => {
        if (kept) metrics.recordReads.inc({ result: 'kept' }, kept);
        if (read) metrics.recordReads.inc({ result: 'read' }, read);
      }),
  });
}

/** The whole service as a Koa app that does not listen: `server.ts` listens, tests call it in-process. */
export function buildApp({
  db,
  config,
  logger,
  writes: pipeline,
  cache: givenCache,
  shapes: givenShapes,
  metrics,
  lifecycle = new Lifecycle(),
  shared,
  loginLimits = new LoginLimits(shared),
  changes: givenChanges,
}: AppOptions): Koa {
  const writes =
    pipeline ??
    new WritePipeline({
      onListenerError: (error) => logger.error({ err: error }, 'after-commit listener failed'),
    });
  const cache = givenCache ?? createResponseCache(config, metrics);
  metrics?.observeCacheSize(() => cache.bytes);
  metrics?.observeRecordBytes(() => cache.recordBytes);
  // The one invalidation path of REST and GraphQL: a committed write drops what it changed, before its
  // response is sent.
  writes.afterCommit((committed) => cache.invalidate(writeEffectOf(committed)));
  cache.readCountsWith((terms) => termCounts(db, terms));
  // The same notification feeds the subscriptions; a draining instance ends their streams.
  const changes = givenChanges ?? new ChangeFeed({ ...config.subscriptions, logger });
  writes.afterCommit((committed) => changes.publish(committed));
  lifecycle.onDrain(() => changes.endAll());
  metrics?.observeSubscriptions(() => changes.size);
  // The change stream (sync tokens, webhooks): appended inside each write's transaction, last.
  recordChanges(writes, config);
  // Reservation attempts per client and per e-mail, counted with the login limits' store.
  useRsvpLimits(writes, new RsvpLimits(config.rsvpLimits, shared));

  // Kept event shapes: keyed by every input, so no write invalidates them (src/core/cache/shape-cache.ts).
  const shapes =
    givenShapes ?? (config.shapeCache.maxBytes > 0 ? new ShapeCache(config.shapeCache) : undefined);
  const deps = {
    db,
    config,
    writes,
    changes,
    // Rows kept by id and version, where the cache keeps them (otherwise a read is one statement less).
    ...(cache.keepsRecords && { keepRecords: cache.keepRecords.bind(cache) }),
    ...(shapes && { shapes }),
  };
  // Trusted documents only, or any document plus automatic persisted queries (src/core/graphql/persisted.ts);
  // either way the calendar this app serves runs its documents by id from its first request.
  const persisted = new PersistedDocuments({
    trusted: config.trustedDocuments?.documents,
    own: ownDocuments(logger),
  });
  const yoga = createGraphqlYoga({
    schema: publicSchema,
    filterPrices: FILTER_PRICES,
    deps,
    config,
    logger,
    metrics,
    persisted,
  });
  const rest = createRestRouter({
    schema: restSchema,
    routes: restRoutes,
    createContext: (koa, request) => createContext(deps, { ...request, viewer: viewerOf(koa) }),
    logger,
    cache,
  });
  // The tickets namespace: the same engine over its own table; no response cache for it yet.
  const tickets = createRestRouter({
    schema: restSchema,
    routes: ticketRoutes,
    // The client address: reservations are limited per client (tickets/reservations/limits.ts).
    createContext: (koa, request) =>
      createContext(deps, { ...request, viewer: viewerOf(koa), address: koa.ip }),
    logger,
    prefix: TICKETS_PREFIX,
  });
  // Each namespace answers a preflight with the methods of its own routes.
  const eventMethods = routeMethods(restRoutes);
  const ticketMethods = routeMethods(ticketRoutes, TICKETS_PREFIX);
  const cors = corsPolicy(config.corsOrigins, (path) =>
    path.includes(`${TICKETS_PREFIX}/`) ? ticketMethods(path) : eventMethods(path),
  );

  const app = new Koa();
  // The client address (login limits, subscriptions per client): the socket's peer, or what the
  // proxies listed in CALENDAR_TRUSTED_PROXIES say they saw (src/core/config/client-address.ts).
  believeProxies(app, config.trustedProxies, (peer) =>
    logger.warn(
      { peer },
      'a request came with X-Forwarded-For from a peer CALENDAR_TRUSTED_PROXIES does not list: ' +
        'its clients all count as that peer (list the proxy if it is yours)',
    ),
  );
  logResponseFailures(app, logger);
  // First: an anonymous read the cache already answered under this exact spelling skips the rest;
  // the plainest of them even before Koa (src/core/cache/fast-path.ts).
  app.use(cacheFastPath({ cache, logger, metrics, cors }));
  answerAheadOfKoa(app, rawCacheHits({ cache, logger, metrics, corsOrigins: config.corsOrigins }));
  app.use(requestIds(logger));
  app.use(answerUnhandledErrors(logger));
  // Operations endpoints, before the access log, rate limits and authentication: probes need none.
  if (metrics && config.metricsToken) app.use(metricsEndpoint(metrics, config.metricsToken));
  app.use(probes({ db, config, lifecycle, logger }));
  // Access log (and metrics) without the query string: it may carry an event `password`.
  app.use(recordRequests(logger, metrics));
  // The embeddable calendar's script and page (src/core/http/embed.ts): public, before CORS and logins.
  app.use(embedRoutes(config, logger));
  // Before authentication: a preflight carries no credentials, and errors need the CORS headers too.
  app.use(cors);
  // Then another site's forms, before their credentials are checked (src/core/http/cross-site.ts).
  app.use(crossSiteWrites(config));
  app.use(authenticateRequests(new Authenticator(db, loginLimits), GRAPHQL_PATH));
  app.use(graphqlRoute({ yoga, cache, persisted }));
  app.use(wordPressGlobals());
  app.use(rest.routes());
  app.use(tickets.routes());
  // Anything no route claimed gets the WordPress JSON 404, not Koa's plain-text one.
  app.use((ctx) => {
    if (ctx.body === undefined && ctx.status === 404) sendError(ctx, NO_ROUTE());
  });
  return app;
}
