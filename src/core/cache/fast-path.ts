import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import parseBody from 'co-body';
import type { Context as KoaContext, Middleware, Next } from 'koa';
import { acceptsGzip } from './content-coding.js';
import type { Logger } from '../ops/logger.js';
import { requestDone, routeTemplateOf } from '../ops/http-metrics.js';
import type { Metrics } from '../ops/metrics.js';
import { ACCEPTABLE_ID, REQUEST_ID_HEADER, assignRequestId } from '../ops/request-id.js';
import type { AliasHit, ResponseCache } from './response-cache.js';

// The cache-hit fast path, the app's first middleware: an anonymous read whose exact spelling (raw
// URL, `Accept`, site-zone day, and for a GraphQL POST its body) the normal path has already answered
// from a shared entry is answered from that entry at once — no routing, authentication, context,
// SOFA or yoga. The lookup is an alias of the normalised key, recorded by the normal path only when
// its final answer was the shared entry itself, and checked against that very entry on every use:
// an invalidation (which clears aliases with the entries), an eviction or a new day all send the
// request back to the normal path. Request id, CORS, `Vary`, `If-None-Match`, the access log and
// the metrics are what the normal path gives a hit.

const GRAPHQL_PATH = '/graphql';
/** A GraphQL body the normal path reads (the limit of any GraphQL POST). */
const GRAPHQL_BODY_LIMIT = '1mb';
/** Larger GraphQL bodies are not aliased (they still use the normal path's cache). */
const MAX_ALIASED_BODY = 16 * 1024;
const PASSWORD = /password/i;

/**
 * The text of a GraphQL POST body, read once per request: the fast path may have read it already
 * (its error, too, is kept for the normal path to answer).
 */
export function graphqlBodyText(ctx: KoaContext): Promise<string> {
  let read = (ctx.state.graphqlBody ?? (ctx.req as PrereadRequest)[PREREAD]) as Promise<string> | undefined;
  if (!read) {
    read = (parseBody.text(ctx.req, { limit: GRAPHQL_BODY_LIMIT }) as Promise<string | undefined>).then(
      (text) => text ?? '',
    );
    ctx.state.graphqlBody = read;
  }
  return read;
}

/**
 * A request that registers an automatic persisted query (its text and its hash together, the hash in
 * `extensions.persistedQuery` or as `documentId`) must reach the normal path every time: answered
 * from an alias, it would not register the hash again after the bounded store dropped it, and the
 * client's next hash-only request would fail.
 */
const REGISTERS_IN_URL = /[?&]query=/;
const REGISTERS_IN_BODY = /"query"\s*:/;
const registersDocument = (text: string, sendsQuery: RegExp) =>
  (text.includes('persistedQuery') || text.includes('documentId')) && sendsQuery.test(text);

/** A request that may only ever be answered from a shared entry: anonymous, no password anywhere. */
function shareable(req: IncomingMessage): boolean {
  const headers = req.headers;
  if (headers.authorization !== undefined || headers.cookie !== undefined) return false;
  const url = req.url ?? '';
  if (PASSWORD.test(url) || registersDocument(url, REGISTERS_IN_URL)) return false;
  // Escapes could spell any of those; the normal path decides on the decoded text.
  if (url.includes('%')) {
    try {
      const decoded = decodeURIComponent(url);
      if (PASSWORD.test(decoded) || registersDocument(decoded, REGISTERS_IN_URL)) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** The alias key of a request, or null when it may not take the fast path. */
async function aliasKeyOf(ctx: KoaContext, cache: ResponseCache): Promise<string | null> {
  const method = ctx.method;
  if (method === 'GET' || method === 'HEAD') {
    if (!shareable(ctx.req)) return null;
    return getAliasKey(cache, ctx.req);
  }
  if (method !== 'POST' || ctx.path !== GRAPHQL_PATH || !shareable(ctx.req)) return null;
  const headers = ctx.req.headers;
  const length = Number(headers['content-length']);
  if (
    !(length <= MAX_ALIASED_BODY) ||
    headers['content-encoding'] !== undefined ||
    headers['transfer-encoding'] !== undefined ||
    !ctx.is('application/json')
  )
    return null;
  let body: string;
  try {
    body = await graphqlBodyText(ctx);
  } catch {
    return null;
  }
  // An escape could spell `password`; the normal path decides on the decoded text.
  if (PASSWORD.test(body) || body.includes('\\u') || registersDocument(body, REGISTERS_IN_BODY)) return null;
  return postAliasKey(cache, ctx.req, body);
}

/** Whether an alias's answer is the gzip-coded representation: part of its key. */
const codingOf = (req: IncomingMessage) => (acceptsGzip(req.headers['accept-encoding']) ? 'gzip' : '');

/** The alias key of a GraphQL POST: its exact spelling (the raw path and the middleware agree). */
function postAliasKey(cache: ResponseCache, req: IncomingMessage, body: string): string {
  return `${cache.today()}\nP\n${req.headers.accept ?? ''}\n${codingOf(req)}\n${req.url ?? ''}\n${body}`;
}

/** The alias key of a GET or HEAD (they share entries). */
function getAliasKey(cache: ResponseCache, req: IncomingMessage): string {
  return `${cache.today()}\nG\n${req.headers.accept ?? ''}\n${codingOf(req)}\n${req.url ?? ''}`;
}

/** Set on a request the raw path looked up in vain: the middleware records under that key. */
const LOOKED_UP = Symbol('cache alias looked up');
/** A GraphQL POST body the raw path read off the stream: the normal path reads it from here. */
const PREREAD = Symbol('graphql body read');
type PrereadRequest = IncomingMessage & { [LOOKED_UP]?: string; [PREREAD]?: Promise<string> };

const JSON_UTF8 = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i;

/** The whole body of a small request, as UTF-8 text. */
function readSmallBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
    req.on('aborted', () => reject(Object.assign(new Error('request aborted'), { status: 400 })));
  });
}

/**
 * Before Koa: the plainest hits (an anonymous GET or HEAD, or a small GraphQL JSON POST, with no
 * validators to compare and no CORS origin to answer) are written straight to the socket, with what
 * the middleware below would give them (request id, `X-Cache`, the access log line and metrics). True
 * when it answered; a promise of it for a POST, whose body is read first.
 */
export function rawCacheHits(options: {
  cache: ResponseCache;
  logger: Logger;
  metrics?: Metrics;
  corsOrigins: readonly string[];
}): (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean> {
  const { cache, logger, metrics } = options;
  const cors = options.corsOrigins.length > 0;
  const log = logger.isLevelEnabled('info');
  if (!cache.enabled) return () => false;
  return (req, res) => {
    const method = req.method;
    const headers = req.headers;
    if (
      headers['if-none-match'] !== undefined ||
      headers['if-modified-since'] !== undefined ||
      (cors && headers.origin !== undefined) ||
      !shareable(req)
    )
      return false;
    if (method === 'POST') {
      const length = Number(headers['content-length']);
      const aliasable =
        (req.url === GRAPHQL_PATH || req.url?.startsWith(`${GRAPHQL_PATH}?`)) &&
        length <= MAX_ALIASED_BODY &&
        headers['content-encoding'] === undefined &&
        headers['transfer-encoding'] === undefined &&
        JSON_UTF8.test(headers['content-type'] ?? '');
      return aliasable ? rawPost(req, res) : false;
    }
    if (method !== 'GET' && method !== 'HEAD') return false;
    const started = performance.now();
    return answer(req, res, getAliasKey(cache, req), started);
  };

  /**
   * Answers from the alias's entry (true), or marks the request looked up for the middleware; a
   * promise of it when the entry is refreshed first.
   */
  function answer(
    req: IncomingMessage,
    res: ServerResponse,
    aliasKey: string,
    started: number,
  ): boolean | Promise<boolean> {
    const found = cache.lookupAlias(aliasKey, res);
    if (found instanceof Promise) return found.then((hit) => send(req, res, aliasKey, started, hit));
    return send(req, res, aliasKey, started, found);
  }

  function send(
    req: IncomingMessage,
    res: ServerResponse,
    aliasKey: string,
    started: number,
    hit: AliasHit | undefined,
  ): boolean {
    const method = req.method ?? 'GET';
    const headers = req.headers;
    if (!hit) {
      (req as PrereadRequest)[LOOKED_UP] = aliasKey;
      return false;
    }
    const sent = headers['x-request-id'];
    const reqId = typeof sent === 'string' && ACCEPTABLE_ID.test(sent) ? sent : randomUUID();
    const out: Record<string, string | number> = {};
    for (const [name, value] of hit.alias.headers) out[name] = value;
    if (hit.alias.vary.length) out.vary = hit.alias.vary.join(', ');
    out['x-cache'] = hit.as;
    out[REQUEST_ID_HEADER] = reqId;
    out['content-length'] = hit.body.length;
    // After the server's other `request` listeners (a draining server adds `Connection: close`), as
    // Koa answers.
    queueMicrotask(() => {
      res.writeHead(200, out);
      if (method === 'HEAD') res.end();
      else res.end(hit.body);
      if (!log && !metrics) return;
      const url = req.url ?? '';
      const query = url.indexOf('?');
      const exchange = { method, path: query < 0 ? url : url.slice(0, query), status: 200 };
      requestDone(exchange, logger, metrics, started, hit.alias.route, { reqId });
    });
    return true;
  }

  /**
   * An anonymous GraphQL JSON POST: its small body is read here (and handed on to the normal path
   * when the alias is missing), so a hit never builds Koa's context either.
   */
  async function rawPost(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const started = performance.now();
    const preread = readSmallBody(req);
    (req as PrereadRequest)[PREREAD] = preread;
    let body: string;
    try {
      body = await preread;
    } catch {
      return false;
    }
    if (PASSWORD.test(body) || body.includes('\\u') || registersDocument(body, REGISTERS_IN_BODY))
      return false;
    return answer(req, res, postAliasKey(cache, req, body), started);
  }
}

export function cacheFastPath(options: {
  cache: ResponseCache;
  logger: Logger;
  metrics?: Metrics;
  /** The app's CORS policy: a fast answer gets the headers any other answer gets. */
  cors: Middleware;
}): Middleware {
  const { cache, logger, metrics, cors } = options;
  if (!cache.enabled) return (_ctx, next) => next();
  return async (ctx: KoaContext, next: Next) => {
    const started = performance.now();
    const lookedUp = (ctx.req as IncomingMessage & { [LOOKED_UP]?: string })[LOOKED_UP];
    const aliasKey = lookedUp ?? (await aliasKeyOf(ctx, cache));
    const hit =
      aliasKey !== null && lookedUp === undefined ? await cache.lookupAlias(aliasKey, ctx.res) : undefined;
    if (!hit) {
      await next();
      if (aliasKey !== null) cache.recordAlias(aliasKey, ctx, routeTemplateOf(ctx));
      return;
    }
    const reqId = assignRequestId(ctx);
    await cors(ctx, async () => {
      ctx.status = 200;
      for (const [name, value] of hit.alias.headers) ctx.set(name, value);
      for (const field of hit.alias.vary) ctx.vary(field);
      ctx.set('X-Cache', hit.as);
      ctx.body = hit.body;
      if (ctx.fresh) {
        ctx.status = 304;
        ctx.body = null;
      }
    });
    requestDone(ctx, logger, metrics, started, hit.alias.route, { reqId });
  };
}
