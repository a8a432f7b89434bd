import { Readable } from 'node:stream';
import { type DocumentNode, getOperationAST } from 'graphql';
import { LRUCache } from 'lru-cache';
import { usePrometheus } from '@graphql-yoga/plugin-prometheus';
import { createYoga } from 'graphql-yoga';
import Koa, { type Context as KoaContext } from 'koa';
import { restRoutes } from '../rest-map/routes.js';
import type { Config } from './config.js';
import { type Context, createContext } from './context.js';
import type { Redis } from 'ioredis';
import { Authenticator } from './auth/authenticate.js';
import { LoginLimits } from './auth/login-limits.js';
import type { Db } from './db/client.js';
import { isApiError } from './domain/errors.js';
import type { Viewer } from './domain/permissions.js';
import { exposeErrorStatusPlugin } from './graphql-errors.js';
import { DEFAULT_GRAPHQL_LIMITS, graphqlLimitsPlugin, parseDocument } from './graphql-limits.js';
import {
  type GraphqlParams,
  checkGraphqlParams,
  graphqlParamsPlugin,
  graphqlSearchParams,
} from './graphql-params.js';
import { PersistedDocuments } from './graphql-persisted.js';
import type { Logger } from './logger.js';
import { Lifecycle, within } from './ops/lifecycle.js';
import type { Metrics } from './ops/metrics.js';
import { metricsEndpoint, recordRequests } from './ops/http-metrics.js';
import { loggerOf, requestIds } from './ops/request-id.js';
import { INTERNAL_ERROR, JSON_CONTENT_TYPE, NO_ROUTE, sendError, wordPressError } from './rest/errors.js';
import { createRestRouter } from './rest/adapter.js';
import { wordPressGlobals } from './rest/wordpress-globals.js';
import { corsPolicy, routeMethods } from './http/cors.js';
import { crossSiteWrites } from './http/cross-site.js';
import { MAX_JSON_DEPTH, hasNul, jsonTooDeep } from './http/request-text.js';
import { NAMESPACE } from './rest/discovery.js';
import { publicSchema, restSchema } from './schema/index.js';
import { ChangeFeed } from './services/change-feed.js';
import { WritePipeline } from './services/transactions.js';
import { recordChanges } from './services/change-log.js';
import { ResponseCache } from './cache/response-cache.js';
import { cacheFastPath, graphqlBodyText, rawCacheHits } from './cache/fast-path.js';
import { SERVICE } from './version.js';

export interface AppOptions {
  db: Db;
  config: Config;
  logger: Logger;
  /** The write pipeline; by default a new one. Listeners (caches, change logs) register on it here. */
  writes?: WritePipeline;
  /** The response cache; by default a new one configured by `config.cache`. */
  cache?: ResponseCache;
  /** Prometheus metrics; without them `/metrics` is not served and nothing is measured. */
  metrics?: Metrics;
  /** Draining state and readiness checks shared with the process that listens (`server.ts`). */
  lifecycle?: Lifecycle;
  /** Shared state of the instances (login failure counts); without it each instance counts alone. */
  redis?: Redis;
  /** Committed changes for GraphQL subscriptions; by default in this process only (no Redis). */
  changes?: ChangeFeed;
}

function viewerOf(koa: KoaContext): Viewer | undefined {
  return koa.state.viewer as Viewer | undefined;
}

const READINESS_TIMEOUT_MS = 2000;

/** Each dependency the instance needs, asked in parallel with a time limit: `ok` or `unavailable`. */
async function readiness(
  db: Db,
  lifecycle: Lifecycle,
  logger: Logger,
): Promise<{ ready: boolean; checks: Record<string, string> }> {
  const checks: Array<[string, () => Promise<unknown>]> = [
    ['database', () => db.$queryRawUnsafe('SELECT 1')],
    ...lifecycle.readinessChecks(),
  ];
  const results = await Promise.all(
    checks.map(async ([name, check]) => {
      try {
        await within(check(), READINESS_TIMEOUT_MS, name);
        return [name, 'ok'] as const;
      } catch (error) {
        // The detail goes to the log only: probes are unauthenticated.
        logger.warn({ err: error, check: name }, 'readiness check failed');
        return [name, 'unavailable'] as const;
      }
    }),
  );
  return {
    ready: !lifecycle.isDraining && results.every(([, state]) => state === 'ok'),
    checks: Object.fromEntries(results),
  };
}

function versionInfo(config: Config) {
  return {
    name: SERVICE.name,
    version: SERVICE.version,
    rest: { namespace: NAMESPACE, openapi: `/${NAMESPACE}/doc` },
    graphql: '/graphql',
    database: config.databaseProvider,
    node: process.version,
  };
}

/** The response cache as configured, its hits, misses and invalidations counted in the metrics. */
export function createResponseCache(config: Config, metrics?: Metrics): ResponseCache {
  return new ResponseCache({
    ...config.cache,
    siteTimezone: config.siteTimezone,
    onEvent: metrics && ((event) => metrics.cacheEvents.inc({ event })),
  });
}

/** The whole service as a Koa app that does not listen: `server.ts` listens, tests call it in-process. */
export function buildApp({
  db,
  config,
  logger,
  writes: pipeline,
  cache: givenCache,
  metrics,
  lifecycle = new Lifecycle(),
  redis,
  changes: givenChanges,
}: AppOptions): Koa {
  const writes =
    pipeline ??
    new WritePipeline({
      onListenerError: (error) => logger.error({ err: error }, 'after-commit listener failed'),
    });
  const cache = givenCache ?? createResponseCache(config, metrics);
  metrics?.observeCacheSize(() => cache.bytes);
  // The one invalidation path of REST and GraphQL: a committed write, before its response is sent.
  writes.afterCommit(() => cache.invalidate());
  // The same notification feeds the subscriptions; a draining instance ends their streams.
  const changes = givenChanges ?? new ChangeFeed({ ...config.subscriptions, logger });
  writes.afterCommit((committed) => changes.publish(committed));
  lifecycle.onDrain(() => changes.endAll());
  metrics?.observeSubscriptions(() => changes.size);
  // The change stream (sync tokens, webhooks): appended inside each write's transaction, last.
  recordChanges(writes, config);
  const deps = { db, config, writes, changes, keep: cache.keep.bind(cache) };
  // Trusted documents only, or any document plus automatic persisted queries (src/graphql-persisted.ts).
  const persisted = new PersistedDocuments({ trusted: config.trustedDocuments?.documents });
  const app = new Koa();
  // The client address (login limits, logs) is the rightmost X-Forwarded-For entries our proxies added;
  // entries left of them are whatever the client sent.
  app.proxy = config.trustedProxies > 0;
  app.maxIpsCount = config.trustedProxies;
  // Koa prints errors it sees after a response started (a client that hung up mid-stream) as plain
  // text on stderr; with a listener they become JSON log lines, aborted requests at debug.
  app.on('error', (error: NodeJS.ErrnoException, ctx?: KoaContext) => {
    const log = ctx ? loggerOf(ctx, logger) : logger;
    if (isAbort(error)) log.debug({ code: error.code }, 'client closed the connection');
    else log.error({ err: error }, 'response failed');
  });

  const yoga = createYoga<{ koa: KoaContext }, Context>({
    schema: publicSchema,
    graphqlEndpoint: '/graphql',
    // CORS is the app's one policy (src/http/cors.ts); yoga's own would reflect any origin.
    cors: false,
    context: ({ koa }) => createContext(deps, { viewer: viewerOf(koa), address: koa.ip }),
    // GraphiQL's page carries its whole bundle (~40 MB of memory once loaded): loaded by the first
    // browser that asks for it, never by a server that only answers API calls.
    renderGraphiQL: async (options) =>
      (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options),
    // Where only trusted documents run, GraphiQL could run none of its own.
    graphiql: !persisted.trustedOnly && {
      title: 'Calendar GraphQL',
      defaultQuery:
        '{ events(perPage: 5) { pageInfo { total } items { id title startDate venues { name } } } }',
    },
    logging: {
      debug: (...args) => logger.debug(args.join(' ')),
      info: (...args) => logger.info(args.join(' ')),
      warn: (...args) => logger.warn(args.join(' ')),
      error: (...args) => logger.error(args.join(' ')),
    },
    plugins: [
      // First: the parameters are checked before any plugin reads them, by the rules the cache keys by.
      graphqlParamsPlugin(),
      ...(metrics ? [usePrometheus({ registry: metrics.registry, endpoint: false })] : []),
      persisted.plugin(),
      graphqlLimitsPlugin({
        ...DEFAULT_GRAPHQL_LIMITS,
        maxDepth: config.graphqlMaxDepth,
        timeoutMs: config.graphqlTimeoutMs,
      }),
      exposeErrorStatusPlugin(),
    ],
  });

  const rest = createRestRouter({
    schema: restSchema,
    routes: restRoutes,
    createContext: (koa, languageSegment) => createContext(deps, { languageSegment, viewer: viewerOf(koa) }),
    logger,
    cache,
  });
  const graphqlRead = graphqlReadKey(cache, persisted);
  const cors = corsPolicy(config.corsOrigins, routeMethods(restRoutes));

  // First: an anonymous read the cache already answered under this exact spelling skips the rest.
  app.use(cacheFastPath({ cache, logger, metrics, cors }));
  // Even before Koa, the plainest of them (src/cache/fast-path.ts).
  const rawHits = rawCacheHits({ cache, logger, metrics, corsOrigins: config.corsOrigins });
  const koaCallback = app.callback.bind(app);
  app.callback = () => {
    const handle = koaCallback();
    return (req, res) => {
      const answered = rawHits(...([req, res] as Parameters<typeof rawHits>));
      if (answered === true) return Promise.resolve();
      if (answered === false) return handle(req, res);
      return answered.then((done) => (done ? undefined : handle(req, res)));
    };
  };
  app.use(requestIds(logger));

  // Last line of defence: nothing escapes as a stack trace or an HTML page.
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      loggerOf(ctx, logger).error({ err: error, method: ctx.method, path: ctx.path }, 'unhandled error');
      sendError(ctx, INTERNAL_ERROR());
    }
  });

  // Operations endpoints, before the access log, rate limits and authentication: probes need none.
  if (metrics && config.metricsToken) app.use(metricsEndpoint(metrics, config.metricsToken));
  app.use(async (ctx, next) => {
    if (ctx.path !== '/healthz' && ctx.path !== '/readyz' && ctx.path !== '/version') return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return sendError(ctx, NO_ROUTE(405), { Allow: 'GET' });
    ctx.set('Cache-Control', 'no-store');
    ctx.type = JSON_CONTENT_TYPE;
    if (ctx.path === '/version') {
      ctx.body = JSON.stringify(versionInfo(config));
      return;
    }
    // Liveness: the process answers. Readiness: it may take traffic (not draining, dependencies up).
    if (ctx.path === '/healthz') {
      ctx.body = JSON.stringify({ status: 'ok' });
      return;
    }
    const { ready, checks } = await readiness(db, lifecycle, loggerOf(ctx, logger));
    ctx.status = ready ? 200 : 503;
    ctx.body = JSON.stringify({
      status: ready ? 'ready' : lifecycle.isDraining ? 'draining' : 'unavailable',
      checks,
    });
  });

  // Access log (and metrics) without the query string: it may carry an event `password`.
  app.use(recordRequests(logger, metrics));

  // Before authentication: a preflight carries no credentials, and errors need the CORS headers too.
  app.use(cors);
  // Then another site's forms, before their credentials are checked (src/http/cross-site.ts).
  app.use(crossSiteWrites(config));

  // Every request is anonymous or authenticated here, once, for REST and GraphQL alike.
  const authenticator = new Authenticator(db, new LoginLimits(redis));
  app.use(async (ctx, next) => {
    try {
      ctx.state.viewer = await authenticator.viewerFor(ctx.get('authorization') || undefined, ctx.ip);
    } catch (error) {
      if (!isApiError(error)) throw error;
      const retryAfter = error.data.retry_after;
      if (typeof retryAfter === 'number') ctx.set('Retry-After', String(retryAfter));
      if (ctx.path !== '/graphql')
        return sendError(ctx, wordPressError(error.status, error.code, error.message));
      return sendGraphqlError(ctx, error);
    }
    await next();
  });

  app.use(async (ctx, next) => {
    if (ctx.path !== '/graphql') return next();
    const read = await graphqlRead(ctx);
    if (read && 'error' in read) return sendGraphqlError(ctx, read.error);
    if (read?.subscription) {
      // Only as a stream: yoga would run the subscription before refusing another media type, and
      // never end it.
      if (!/text\/event-stream/i.test(ctx.get('accept'))) {
        ctx.status = 406;
        ctx.type = 'application/json';
        ctx.body = JSON.stringify({
          errors: [
            {
              message: 'Subscriptions are served as Server-Sent Events: send Accept: text/event-stream.',
              extensions: { code: 'not_acceptable', http: { status: 406 } },
            },
          ],
        });
        return;
      }
      // A subscription: a stream (SSE), never buffered, never cached.
      const response = await yoga.fetch(
        `http://graphql${ctx.url}`,
        {
          method: ctx.method,
          headers: requestHeaders(ctx),
          ...(read.body !== undefined ? { body: read.body } : {}),
        },
        { koa: ctx },
      );
      ctx.status = response.status;
      response.headers.forEach((value, key) => {
        if (key !== 'content-length' && key !== 'connection') ctx.set(key, value);
      });
      ctx.set('Cache-Control', 'no-store');
      // A stream has its connection to itself: closing it when the stream ends (a draining instance
      // ends them all) lets the listener close without waiting for idle keep-alive sockets.
      ctx.set('Connection', 'close');
      if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
        ctx.body = Readable.from(response.body as unknown as AsyncIterable<Uint8Array>);
        return;
      }
      // Anything else (a refusal) is answered whole.
      ctx.body = Buffer.from(await response.arrayBuffer());
      return;
    }
    if (!read) {
      const response = await yoga.handleNodeRequestAndResponse(ctx.req, ctx.res, { koa: ctx });
      ctx.status = response.status;
      response.headers.forEach((value, key) => ctx.append(key, value));
      ctx.body = response.body ? Readable.from(response.body as unknown as AsyncIterable<Uint8Array>) : null;
      return;
    }
    // A query: its answer is buffered, validated, and shared when `read.key` allows it.
    await cache.serve(ctx, read.key, async () => {
      const response = await yoga.fetch(
        `http://graphql${ctx.url}`,
        {
          method: ctx.method,
          headers: requestHeaders(ctx),
          ...(read.body !== undefined ? { body: read.body } : {}),
        },
        { koa: ctx },
      );
      ctx.status = response.status;
      response.headers.forEach((value, key) => {
        if (key !== 'content-length') ctx.set(key, value);
      });
      ctx.body = Buffer.from(await response.arrayBuffer());
    });
  });

  app.use(wordPressGlobals());
  app.use(rest.routes());
  // Anything no route claimed gets the WordPress JSON 404, not Koa's plain-text one.
  app.use((ctx) => {
    if (ctx.body === undefined && ctx.status === 404) sendError(ctx, NO_ROUTE());
  });
  return app;
}

function requestHeaders(ctx: KoaContext): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.headers))
    if (typeof value === 'string') headers.set(name, value);
  return headers;
}

/**
 * A GraphQL error response of our own (authentication, the request body) in the media type the
 * client negotiated, as yoga answers its own: `application/graphql-response+json` when accepted,
 * `application/json` for legacy clients (and those that send no Accept), so a client trusts the body.
 */
function sendGraphqlError(ctx: KoaContext, error: { status: number; code: string; message: string }): void {
  const modern =
    ctx.get('accept') !== '' && ctx.accepts(GRAPHQL_RESPONSE, 'application/json') === GRAPHQL_RESPONSE;
  ctx.status = error.status;
  ctx.type = modern ? `${GRAPHQL_RESPONSE}; charset=utf-8` : 'application/json; charset=utf-8';
  ctx.body = JSON.stringify({
    errors: [{ message: error.message, extensions: { code: error.code, http: { status: error.status } } }],
  });
}

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

interface GraphqlBodyError {
  status: 400 | 413 | 415;
  code: string;
  message: string;
}

const BODY_ERRORS = {
  mediaType: {
    status: 415,
    code: 'unsupported_media_type',
    message: 'Send GraphQL requests as GET or as a POST of Content-Type application/json.',
  },
  tooLarge: { status: 413, code: 'body_too_large', message: 'The request body is too large.' },
  unreadable: { status: 400, code: 'invalid_body', message: 'The request body could not be read.' },
  tooDeep: {
    status: 400,
    code: 'invalid_body',
    message: `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`,
  },
  nul: { status: 400, code: 'invalid_body', message: 'Text may not contain NUL characters.' },
} as const satisfies Record<string, GraphqlBodyError>;

/**
 * Recognises a GraphQL query (never a mutation) sent as GET or as a JSON POST: its body (already read)
 * and its cache key, null when the answer must not be shared (an authenticated viewer, a `password`
 * anywhere in the operation). Anything else (mutations, other encodings) is left to yoga untouched.
 */
function graphqlReadKey(cache: ResponseCache, persisted: PersistedDocuments) {
  // Parsed once per distinct document (false: not GraphQL), as yoga's own parse cache does.
  const documents = new LRUCache<string, DocumentNode | false>({ max: 1000 });
  const documentOf = (text: string): DocumentNode | null => {
    let document = documents.get(text);
    if (document === undefined) {
      try {
        document = parseDocument(text, DEFAULT_GRAPHQL_LIMITS.maxTokens);
      } catch {
        document = false;
      }
      documents.set(text, document);
    }
    return document || null;
  };
  return async (
    ctx: KoaContext,
  ): Promise<
    { key: string | null; body?: string; subscription?: true } | { error: GraphqlBodyError } | null
  > => {
    let params: GraphqlParams;
    let body: string | undefined;
    if (ctx.method === 'GET') {
      if (hasNul(ctx.querystring)) return { error: BODY_ERRORS.nul };
      // Read as yoga reads it (src/graphql-params.ts); parameters it refuses are never keyed.
      const read = graphqlSearchParams(ctx.querystring);
      if ('error' in read) return null;
      params = read.params;
    } else if (ctx.method === 'POST') {
      // Only JSON: a form or text/plain POST is what a browser sends cross-site without a preflight
      // (a CSRF vector for mutations), and the GraphQL-over-HTTP spec asks for JSON anyway.
      if (!ctx.is('application/json')) return { error: BODY_ERRORS.mediaType };
      try {
        body = await graphqlBodyText(ctx);
      } catch (error) {
        return {
          error:
            (error as { status?: number }).status === 413 ? BODY_ERRORS.tooLarge : BODY_ERRORS.unreadable,
        };
      }
      if (jsonTooDeep(body)) return { error: BODY_ERRORS.tooDeep };
      if (hasNul(body)) return { error: BODY_ERRORS.nul };
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        // yoga gives the GraphQL-over-HTTP error for a body it cannot parse.
        return { key: null, body };
      }
      // Parameters yoga refuses (the same rules) are never keyed: no cached answer for them.
      if (checkGraphqlParams(parsed) !== null) return { key: null, body };
      params = parsed as GraphqlParams;
    } else return null;
    // A persisted document's id stands for its text: same text, same key, whichever way it came.
    const { text, shareable } = persisted.resolve(params);
    const document = text !== undefined ? documentOf(text) : null;
    const operation = document && getOperationAST(document, params.operationName ?? undefined);
    if (operation?.operation === 'subscription') return { key: null, body, subscription: true };
    if (!operation || operation.operation !== 'query') return body !== undefined ? { key: null, body } : null;
    const viewer = viewerOf(ctx);
    const variables = JSON.stringify(params.variables ?? null);
    const shared =
      shareable &&
      (!viewer || viewer.userId === null) &&
      !/password/i.test(String(text)) &&
      !/password/i.test(variables);
    return {
      key: shared ? cache.keyOf(ctx, ['graphql', text, variables, params.operationName ?? null]) : null,
      body,
    };
  };
}

const ABORT_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

function isAbort(error: NodeJS.ErrnoException): boolean {
  return error.code !== undefined && ABORT_CODES.has(error.code);
}
