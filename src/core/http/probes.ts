import type { Middleware } from 'koa';
import type { Config } from '../config/config.js';
import type { Db } from '../db/client.js';
import type { Logger } from '../ops/logger.js';
import { NAMESPACE } from '../rest/discovery/discovery.js';
import { JSON_CONTENT_TYPE, NO_ROUTE, sendError } from '../errors/rest-errors.js';
import { SERVICE } from '../ops/version.js';
import { type Lifecycle, within } from '../ops/lifecycle.js';
import { loggerOf } from '../ops/request-id.js';

const READINESS_TIMEOUT_MS = 2000;
const PROBES = new Set(['/healthz', '/readyz', '/version']);

/**
 * `/healthz` (liveness: the process answers), `/readyz` (readiness: not draining, dependencies up) and
 * `/version`: unauthenticated, never cached, ahead of the access log and the rate limits.
 */
export function probes(options: {
  db: Db;
  config: Config;
  lifecycle: Lifecycle;
  logger: Logger;
}): Middleware {
  const { db, config, lifecycle, logger } = options;
  return async (ctx, next) => {
    if (!PROBES.has(ctx.path)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return sendError(ctx, NO_ROUTE(405), { Allow: 'GET' });
    ctx.set('Cache-Control', 'no-store');
    ctx.type = JSON_CONTENT_TYPE;
    if (ctx.path === '/version') {
      ctx.body = JSON.stringify(versionInfo(config));
      return;
    }
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
  };
}

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
