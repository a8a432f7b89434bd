import { Readable } from 'node:stream';
import type { Context as KoaContext, Middleware } from 'koa';
import type { ResponseCache } from '../cache/response-cache.js';
import { ReadLog } from '../services/read-log.js';
import { sendGraphqlError } from './errors.js';
import type { PersistedDocuments } from './persisted.js';
import { graphqlReadKey } from './read-key.js';
import { GRAPHQL_PATH, type GraphqlYoga } from './yoga.js';

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
      const response = await execute(yoga, ctx, read.body, reads);
      ctx.status = response.status;
      response.headers.forEach((value, key) => {
        if (key !== 'content-length') ctx.set(key, value);
      });
      ctx.body = Buffer.from(await response.arrayBuffer());
      return {
        clockSensitive: read.clockSensitive,
        ...(reads && { dependencies: reads.dependencies(), hasErrors: reads.hasErrors }),
      };
    });
  };
}

/** Runs the request through yoga with the body already read (a stream can be read only once). */
function execute(
  yoga: GraphqlYoga,
  ctx: KoaContext,
  body: string | undefined,
  reads?: ReadLog,
): Response | Promise<Response> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.headers))
    if (typeof value === 'string') headers.set(name, value);
  return yoga.fetch(
    `http://graphql${ctx.url}`,
    { method: ctx.method, headers, ...(body !== undefined ? { body } : {}) },
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
