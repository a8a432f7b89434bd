import { timingSafeEqual } from 'node:crypto';
import type { Context as KoaContext, Next } from 'koa';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { loggerOf } from './request-id.js';

const PROBES = new Set(['/healthz', '/readyz', '/version', '/metrics']);

/**
 * The route a request matched, as a template: raw paths would give every event id its own series.
 * @koa/router records the template it dispatched to; paths outside every route share one label.
 */
export function routeTemplateOf(ctx: KoaContext): string {
  const matched = (ctx as KoaContext & { _matchedRoute?: string | RegExp })._matchedRoute;
  if (typeof matched === 'string') return matched;
  if (ctx.path === '/graphql' || PROBES.has(ctx.path)) return ctx.path;
  return 'unmatched';
}

/** The access log line and the HTTP metrics of every request; probes are logged at debug only. */
export function recordRequests(logger: Logger, metrics: Metrics | undefined) {
  return async (ctx: KoaContext, next: Next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      requestDone(ctx, loggerOf(ctx, logger), metrics, started, routeTemplateOf(ctx));
    }
  };
}

/** Logs and counts one answered request (`started`: its `performance.now()`) under `route`. */
export function requestDone(
  ctx: { method: string; path: string; status: number },
  log: Logger,
  metrics: Metrics | undefined,
  started: number,
  route: string,
  bindings?: Record<string, unknown>,
): void {
  const seconds = (performance.now() - started) / 1000;
  const line = {
    ...bindings,
    method: ctx.method,
    route,
    path: ctx.path,
    status: ctx.status,
    ms: Math.round(seconds * 1000),
  };
  if (PROBES.has(ctx.path)) log.debug(line, 'request');
  else log.info(line, 'request');
  metrics?.httpRequests.inc({ route, method: ctx.method, status: String(ctx.status) });
  metrics?.httpDuration.observe({ route, method: ctx.method }, seconds);
}

function tokenMatches(header: string, token: string): boolean {
  const expected = Buffer.from(`Bearer ${token}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** `GET /metrics` in Prometheus text format; `token` (when given) must come as a bearer token. */
export function metricsEndpoint(metrics: Metrics, token?: string) {
  return async (ctx: KoaContext, next: Next) => {
    if (ctx.path !== '/metrics') return next();
    if (token !== undefined && !tokenMatches(ctx.get('authorization'), token)) {
      ctx.status = 401;
      ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
      ctx.body = { code: 'metrics_unauthorized', message: 'A valid metrics token is required.' };
      return;
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  };
}
