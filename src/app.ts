import { Readable } from 'node:stream';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga } from 'graphql-yoga';
import Koa, { type Context as KoaContext } from 'koa';
import { restRoutes } from '../rest-map/routes.js';
import type { Config } from './config.js';
import { type Context, createContext } from './context.js';
import { Authenticator } from './auth/authenticate.js';
import type { Db } from './db/client.js';
import { isApiError } from './domain/errors.js';
import type { Viewer } from './domain/permissions.js';
import { exposeErrorStatusPlugin } from './graphql-errors.js';
import type { Logger } from './logger.js';
import { INTERNAL_ERROR, JSON_CONTENT_TYPE, NO_ROUTE, sendError, wordPressError } from './rest/errors.js';
import { createRestRouter } from './rest/adapter.js';
import { NAMESPACE } from './rest/discovery.js';
import { publicSchema, restSchema } from './schema/index.js';
import { WritePipeline } from './services/transactions.js';
import { SERVICE } from './version.js';

export interface AppOptions {
  db: Db;
  config: Config;
  logger: Logger;
  /** The write pipeline; by default a new one. Listeners (caches, change logs) register on it here. */
  writes?: WritePipeline;
}

function viewerOf(koa: KoaContext): Viewer | undefined {
  return koa.state.viewer as Viewer | undefined;
}

const HEALTH_TIMEOUT_MS = 2000;

/** Whether the database answers a trivial query within the time limit. */
async function databaseHealth(db: Db, logger: Logger): Promise<{ reachable: boolean; latency_ms: number }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      db.$queryRawUnsafe('SELECT 1'),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${HEALTH_TIMEOUT_MS} ms`)),
          HEALTH_TIMEOUT_MS,
        );
      }),
    ]);
    return { reachable: true, latency_ms: Math.round(performance.now() - started) };
  } catch (error) {
    logger.warn({ err: error }, 'health check: database unreachable');
    return { reachable: false, latency_ms: Math.round(performance.now() - started) };
  } finally {
    clearTimeout(timer);
  }
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

/** The whole service as a Koa app that does not listen: `server.ts` listens, tests call it in-process. */
export function buildApp({ db, config, logger, writes: pipeline }: AppOptions): Koa {
  const writes =
    pipeline ??
    new WritePipeline({
      onListenerError: (error) => logger.error({ err: error }, 'after-commit listener failed'),
    });
  const deps = { db, config, writes };
  const app = new Koa();
  app.proxy = true;

  const yoga = createYoga<{ koa: KoaContext }, Context>({
    schema: publicSchema,
    graphqlEndpoint: '/graphql',
    context: ({ koa }) => createContext(deps, { viewer: viewerOf(koa) }),
    renderGraphiQL,
    graphiql: {
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
      maxDepthPlugin({ n: config.graphqlMaxDepth }),
      costLimitPlugin({ maxCost: 20000 }),
      exposeErrorStatusPlugin(),
    ],
  });

  const rest = createRestRouter({
    schema: restSchema,
    routes: restRoutes,
    createContext: (koa, languageSegment) => createContext(deps, { languageSegment, viewer: viewerOf(koa) }),
    logger,
  });

  // Last line of defence: nothing escapes as a stack trace or an HTML page.
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      logger.error({ err: error, method: ctx.method, url: ctx.url }, 'unhandled error');
      sendError(ctx, INTERNAL_ERROR());
    }
  });

  // Operations endpoints, before the access log and authentication: probes need neither.
  app.use(async (ctx, next) => {
    if (ctx.path !== '/healthz' && ctx.path !== '/version') return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return sendError(ctx, NO_ROUTE(405), { Allow: 'GET' });
    ctx.set('Cache-Control', 'no-store');
    ctx.type = JSON_CONTENT_TYPE;
    if (ctx.path === '/version') {
      ctx.body = JSON.stringify(versionInfo(config));
      return;
    }
    const database = await databaseHealth(db, logger);
    ctx.status = database.reachable ? 200 : 503;
    ctx.body = JSON.stringify({
      status: database.reachable ? 'ok' : 'unavailable',
      database: { provider: config.databaseProvider, ...database },
    });
  });

  // Access log without the query string: it may carry an event `password`.
  app.use(async (ctx, next) => {
    const started = performance.now();
    await next();
    logger.info(
      { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) },
      'request',
    );
  });

  // Every request is anonymous or authenticated here, once, for REST and GraphQL alike.
  const authenticator = new Authenticator(db);
  app.use(async (ctx, next) => {
    try {
      ctx.state.viewer = await authenticator.viewerFor(ctx.get('authorization') || undefined);
    } catch (error) {
      if (!isApiError(error)) throw error;
      if (ctx.path !== '/graphql')
        return sendError(ctx, wordPressError(error.status, error.code, error.message));
      ctx.status = error.status;
      ctx.type = 'application/json';
      ctx.body = JSON.stringify({
        errors: [
          { message: error.message, extensions: { code: error.code, http: { status: error.status } } },
        ],
      });
      return;
    }
    await next();
  });

  app.use(async (ctx, next) => {
    if (ctx.path !== '/graphql') return next();
    const response = await yoga.handleNodeRequestAndResponse(ctx.req, ctx.res, { koa: ctx });
    ctx.status = response.status;
    response.headers.forEach((value, key) => ctx.append(key, value));
    ctx.body = response.body ? Readable.from(response.body as unknown as AsyncIterable<Uint8Array>) : null;
  });

  app.use(rest.routes());
  // Anything no route claimed gets the WordPress JSON 404, not Koa's plain-text one.
  app.use((ctx) => {
    if (ctx.body === undefined && ctx.status === 404) sendError(ctx, NO_ROUTE());
  });
  return app;
}
