import { Readable } from 'node:stream';
import { type GraphQLParams, processRegularResult } from 'graphql-yoga';
import type { Context as KoaContext, Middleware } from 'koa';
import type { ResponseCache } from '../cache/response-cache.js';
import { ReadLog } from '../cache/read-log.js';
import { sendGraphqlError } from './errors.js';
import type { PersistedDocuments } from './persisted.js';
import type { GraphqlParams } from './params.js';
import { graphqlReadKey } from './read-key.js';
import { GRAPHQL_PATH, type GraphqlServerContext, type GraphqlYoga } from './yoga.js';

/**
 * The GraphQL endpoint: a query's answer is buffered and shared through the response cache when its
 * read key allows it, a subscription is streamed (SSE), anything else is yoga's own.
 */
export function graphqlRoute(options: {
  yoga: GraphqlYoga;
  cache: ResponseCache;
  persisted: PersistedDocuments;
}): Middleware {
  const { yoga, cache } = options;
  const readOf = graphqlReadKey(cache, options.persisted);
  return async (ctx, next) => {
    if (ctx.path !== GRAPHQL_PATH) return next();
    const read = await readOf(ctx);
    if (read === null) return handOver(yoga, ctx);
    if ('error' in read) return sendGraphqlError(ctx, read.error);
    if (read.subscription) return stream(yoga, ctx, read.body);
    await cache.serve(ctx, read.key, async () => {
      // Only an answer that may be shared logs what it read (`reads.ts`).
      const reads = read.key !== null ? new ReadLog() : undefined;
      const mediaType = jsonMediaType(ctx.get('accept'));
      const response =
        (read.params && mediaType && (await runQuery(yoga, ctx, read.params, mediaType, reads))) ||
        (await execute(yoga, ctx, read.body, reads));
      ctx.status = response.status;
      response.headers.forEach((value, key) => {
        if (key !== 'content-length') ctx.set(key, value);
      });
      ctx.body = Buffer.from(await response.arrayBuffer());
      return {
        clockSensitive: read.clockSensitive || reads?.readsClock === true,
        ...(reads && { dependencies: reads.dependencies(), hasErrors: reads.hasErrors }),
      };
    });
  };
}

/**
 * Runs a query whose parameters are read and checked through yoga's GraphQL pipeline (its parameter
 * hooks, envelop's parse, validate and execute with every plugin, its result hooks and JSON
 * serialisation) without its HTTP adapter: the request was read once already, and building a Fetch
 * request from it, parsing it again and reading the Fetch response back into Koa was ~15 % of an
 * uncached single event's CPU (docs/internals/performance.md). What the adapter adds (body limits,
 * CORS, the method and media-type checks) the route has applied before.
 */
async function runQuery(
  yoga: GraphqlYoga,
  ctx: KoaContext,
  params: GraphqlParams,
  mediaType: JsonMediaType,
  reads?: ReadLog,
): Promise<Response | null> {
  const request = new yoga.fetchAPI.Request(`http://graphql${ctx.url}`, {
    method: ctx.method,
    headers: requestHeaders(ctx),
  });
  // No plugin of this server reads the adapter's `waitUntil`, the one thing it would add here.
  const serverContext = { koa: ctx, ...(reads && { reads }), request } as GraphqlServerContext &
    Parameters<GraphqlYoga['getResultForParams']>[1];
  let result;
  try {
    result = await yoga.getResultForParams({ params: params as GraphQLParams, request }, serverContext);
  } catch {
    // A parameter hook refused the request (a persisted document's rule) before anything ran: yoga's
    // adapter turns that into its answer (`execute` below), as for any request it reads itself.
    return null;
  }
  // A query always has a result: an error is one too.
  return processRegularResult(result!, yoga.fetchAPI, mediaType);
}

type JsonMediaType = 'application/json' | 'application/graphql-response+json';

/**
 * The JSON media type yoga answers a query in for this `Accept`, by its rule (its result processors:
 * the first utf-8 type listed that JSON satisfies, `application/json` where a wildcard allows both);
 * null when it would answer otherwise (a stream, or 406), which yoga then does itself.
 */
function jsonMediaType(accept: string): JsonMediaType | null {
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [type = '', ...params] = entry.split(';');
    if ((params.find((param) => param.includes('charset=')) ?? 'charset=utf-8') !== 'charset=utf-8') continue;
    const [pre, suffix] = type.split('/');
    const satisfies = (candidate: JsonMediaType) => {
      const [candidatePre, candidateSuffix] = candidate.split('/');
      return (pre === '*' || pre === candidatePre) && (suffix === '*' || suffix === candidateSuffix);
    };
    if (satisfies('application/json')) return 'application/json';
    if (satisfies('application/graphql-response+json')) return 'application/graphql-response+json';
  }
  return null;
}

function requestHeaders(ctx: KoaContext): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.headers))
    if (typeof value === 'string') headers.set(name, value);
  return headers;
}

/** Runs the request through yoga with the body already read (a stream can be read only once). */
function execute(
  yoga: GraphqlYoga,
  ctx: KoaContext,
  body: string | undefined,
  reads?: ReadLog,
): Response | Promise<Response> {
  return yoga.fetch(
    `http://graphql${ctx.url}`,
    { method: ctx.method, headers: requestHeaders(ctx), ...(body !== undefined ? { body } : {}) },
    { koa: ctx, ...(reads && { reads }) },
  );
}

/** What the service does not read itself goes to yoga as it arrived. */
async function handOver(yoga: GraphqlYoga, ctx: KoaContext): Promise<void> {
  const response = await yoga.handleNodeRequestAndResponse(ctx.req, ctx.res, { koa: ctx });
  ctx.status = response.status;
  response.headers.forEach((value, key) => ctx.append(key, value));
  ctx.body = response.body ? Readable.from(response.body as unknown as AsyncIterable<Uint8Array>) : null;
}

/** A subscription: a stream (SSE), never buffered, never cached. */
async function stream(yoga: GraphqlYoga, ctx: KoaContext, body: string | undefined): Promise<void> {
  // Only as a stream: yoga would run the subscription before refusing another media type, and never
  // end it.
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
  const response = await execute(yoga, ctx, body);
  ctx.status = response.status;
  response.headers.forEach((value, key) => {
    if (key !== 'content-length' && key !== 'connection') ctx.set(key, value);
  });
  ctx.set('Cache-Control', 'no-store');
  // A stream has its connection to itself: closing it when the stream ends (a draining instance ends
  // them all) lets the listener close without waiting for idle keep-alive sockets.
  ctx.set('Connection', 'close');
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    ctx.body = Readable.from(response.body as unknown as AsyncIterable<Uint8Array>);
    return;
  }
  // Anything else (a refusal) is answered whole.
  ctx.body = Buffer.from(await response.arrayBuffer());
}
