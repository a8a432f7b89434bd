import Router from '@koa/router';
import type { GraphQLSchema } from 'graphql';
import type { Context as KoaContext } from 'koa';
import type { Logger } from 'pino';
import type { Context } from '../context/context.js';
import { type AnswerMeta, ResponseCache } from '../cache/response-cache.js';
import { dependsOnClock } from '../rules/dates.js';
import { type DependencyKind, mergeDependencies, recordTag } from '../cache/dependencies.js';
import { ANONYMOUS } from '../rules/permissions.js';
import { API_PREFIX } from '../rules/urls.js';
import { parseIfMatch } from '../rules/versions.js';
import { hasNul } from '../rules/texts/request-text.js';
import { ReadLog } from '../cache/read-log.js';
import { allowFor } from './allow.js';
import {
  createDiscovery,
  discoveryHeaders,
  serviceRoot,
  swaggerUiAsset,
  swaggerUiPage,
} from './discovery/discovery.js';
import { sendJson, sendResult } from './envelope.js';
import { NO_ROUTE, sendError } from '../errors/rest-errors.js';
import { type RestOperations, restOperations } from './operations.js';
import { recordsShown } from './shown/records-shown.js';
import { SHOWN_COUNTS, countsShown } from './shown/shown-counts.js';
import { totalRewrite } from './shown/shown-total.js';
import { type RowReader, rowRewrite, shownRows } from './shown/shown-rows.js';
import { type ParamValue, nulRefused, readArguments, readQuery, switchedRoute } from './params.js';
import type { HttpMethod, RestRoute } from './route-table.js';

// The one engine behind `rest-map/`: Koa matches the reference's paths (with an optional language
// segment); each request's parameters are read and checked once (`params.ts`), its route's operation
// runs through SOFA (`operations.ts`), and the route's declaration shapes the answer (`envelope.ts`)
// with its `Allow` (`allow.ts`).

/** The discovery documents show no records: no write changes them. */
const NO_DATA = { records: [], kinds: [], windows: [] };

const LANGUAGE_TAG = /^[a-z]{2,3}(?:-[a-z0-9]{2,8})*$/i;

function isLanguageTag(tag: string): boolean {
  if (!LANGUAGE_TAG.test(tag)) return false;
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

/** The request's context: made once, with the precondition an update or delete names (`If-Match`). */
type CreateRestContext = (
  koa: KoaContext,
  request: { languageSegment: string | undefined; ifMatch: ReturnType<typeof parseIfMatch>; reads?: ReadLog },
) => Context;

export function createRestRouter(options: {
  schema: GraphQLSchema;
  routes: RestRoute[];
  createContext: CreateRestContext;
  logger: Logger;
  /** Absent: nothing is shared (validators and conditional answers still apply). */
  cache?: ResponseCache;
  /** The namespace's path (default the events API's); only the events API also serves the site root. */
  prefix?: string;
}): Router {
  const { routes } = options;
  const prefix = options.prefix ?? API_PREFIX;
  const eventsApi = prefix === API_PREFIX;
  const cache = options.cache ?? new ResponseCache({ enabled: false, maxBytes: 0, siteTimezone: 'UTC' });
  const operations = restOperations(options.schema, routes, options.logger);
  const discovery = createDiscovery({
    schema: options.schema,
    routes,
    sofaDocument: operations.document,
    namespace: prefix.slice(1),
  });
  const router = new Router();

  const contextOf = (ctx: KoaContext, method: HttpMethod, reads?: ReadLog) =>
    options.createContext(ctx, {
      languageSegment: ctx.params.lang,
      // Updates and deletes apply only to the version the client names (412 otherwise).
      ifMatch: method === 'GET' ? null : parseIfMatch(ctx.get('If-Match')),
      ...(reads && { reads }),
    });
  const urlsOf = (ctx: KoaContext) => contextOf(ctx, 'GET').urls;
  /** This namespace's root, with the request's language segment (the context's `api` is the events API's). */
  const apiRootOf = (ctx: KoaContext) => `${urlsOf(ctx).api.slice(0, -API_PREFIX.length)}${prefix}`;
  /** Shared entries only for anonymous reads. */
  const cacheKey = (ctx: KoaContext, method: HttpMethod, parts: readonly unknown[]) => {
    const viewer = ctx.state.viewer;
    if (method !== 'GET' || (viewer && viewer.userId !== null)) return null;
    return cache.keyOf(ctx, parts);
  };

  /**
   * Both spellings of a path (with and without a language segment), for every method: an invalid
   * segment is no route; HEAD is GET; OPTIONS describes the route as WordPress does; any other
   * method the path does not serve is a 405 naming the ones it does.
   */
  const serve = (
    path: string,
    methods: HttpMethod[],
    handler: (ctx: KoaContext, method: HttpMethod) => unknown,
  ) => {
    const allow = methods.join(', ');
    const dispatch = async (ctx: KoaContext) => {
      const language = ctx.params.lang;
      if (language !== undefined && !isLanguageTag(language)) return sendError(ctx, NO_ROUTE());
      // `:id` is `\d+` in the reference: anything else matches no route at all.
      if (ctx.params.id !== undefined && !/^\d+$/.test(ctx.params.id)) return sendError(ctx, NO_ROUTE());
      // Nothing a database cannot store passes the boundary (path slugs and query strings included).
      if (hasNul(ctx.path) || hasNul(ctx.querystring)) return sendError(ctx, nulRefused());
      const method = (ctx.method === 'HEAD' ? 'GET' : ctx.method) as HttpMethod;
      if (ctx.method === 'OPTIONS') {
        const described = discovery.route(path, apiRootOf(ctx));
        if (described) return sendJson(ctx, described, allow);
      }
      if (!methods.includes(method)) return sendError(ctx, NO_ROUTE(405), { Allow: allow });
      // Decided before the request runs (as WordPress's permission checks), sent on its answer
      // whatever it is, errors included.
      const allowed = await allowFor(
        ctx.state.viewer ?? ANONYMOUS,
        path,
        methods,
        ctx.params,
        () => contextOf(ctx, 'GET').db,
      );
      await handler(ctx, method);
      ctx.set('Allow', allowed);
    };
    router.all(`${prefix}${path}`, dispatch);
    router.all(`/:lang${prefix}${path}`, dispatch);
  };

  serve('', ['GET'], (ctx, method) => {
    if (eventsApi) ctx.set(discoveryHeaders(urlsOf(ctx)));
    return cache.serve(ctx, cacheKey(ctx, method, ['rest', ctx.path]), async () => {
      sendJson(ctx, discovery.index({ ...urlsOf(ctx), api: apiRootOf(ctx) }), 'GET');
      return { dependencies: NO_DATA };
    });
  });
  serve('/doc', ['GET'], (ctx, method) =>
    cache.serve(ctx, cacheKey(ctx, method, ['rest', ctx.path]), async () => {
      sendJson(ctx, discovery.openApi(apiRootOf(ctx)), 'GET');
      return { dependencies: NO_DATA };
    }),
  );
  serve('/docs', ['GET'], (ctx) => {
    const page = ctx.path.replace(/\/+$/, '');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = swaggerUiPage(page, `${page.slice(0, -'/docs'.length)}/doc`);
  });
  serve('/docs/:asset', ['GET'], (ctx) => {
    const asset = swaggerUiAsset(ctx.params.asset as string);
    if (!asset) return sendError(ctx, NO_ROUTE());
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = asset.body;
  });

  // The service root, which the index's `up` link names.
  const root = async (ctx: KoaContext, next: () => Promise<unknown>) => {
    const language = ctx.params.lang;
    if (language !== undefined && !isLanguageTag(language)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return sendError(ctx, NO_ROUTE(405), { Allow: 'GET' });
    const urls = urlsOf(ctx);
    ctx.set(discoveryHeaders(urls));
    sendJson(ctx, serviceRoot(urls, language ? urls.site.slice(0, -language.length - 1) : urls.site), 'GET');
  };
  if (eventsApi) {
    router.all('/', root);
    router.all('/:lang', root);
  }

  const alternates = new Map<string, RestRoute[]>();
  for (const route of routes)
    if (route.alsoAt)
      alternates.set(route.alsoAt.path, [...(alternates.get(route.alsoAt.path) ?? []), route]);
  for (const [path, pathRoutes] of routesByPath(routes)) {
    const methods = pathRoutes.flatMap((route) => route.methods);
    const allow = methods.join(', ');
    serve(path, methods, async (ctx, method) => {
      const query = readQuery(ctx.querystring);
      const switched = switchedRoute(method === 'GET' ? (alternates.get(path) ?? []) : [], query);
      const route = switched.route ?? pathRoutes.find((candidate) => candidate.methods.includes(method))!;
      const read = await readArguments(ctx, route, operations.argumentsOf(route), query, switched.invalid);
      if ('error' in read) return sendError(ctx, read.error);
      const { variables } = read;
      const run = async (): Promise<AnswerMeta> => {
        const reads = new ReadLog();
        const context = contextOf(ctx, method, reads);
        const outcome = await operations.run(route, variables, context);
        if ('error' in outcome) {
          sendError(ctx, outcome.error);
          return {};
        }
        sendResult(ctx, route, outcome.value, outcome.json, allow);
        if (method !== 'GET') return {};
        const readRows = rowReaderOf(operations, route, context);
        return {
          version: outcome.version,
          clockSensitive: readsClock(variables, cache.siteTimezone) || reads.readsClock,
          ...(route.dependsOn &&
            dependenciesOf(
              reads,
              outcome,
              route.dependsOn.families,
              route.rendersRows
                ? { read: readRows, reader: `${route.operation}\u0000${ctx.params.lang ?? ''}` }
                : null,
            )),
          ...(route.dependsOn && route.headers && totalOf(reads, outcome.value, route.headers)),
        };
      };
      if (method !== 'GET') return run();
      const shared =
        !route.headerArguments && (variables.password === undefined || variables.password === null);
      const key = shared
        ? cacheKey(ctx, method, ['rest', route.operation, ctx.params.lang ?? '', stableJson(variables)])
        : null;
      await cache.serve(ctx, key, run);
    });
  }

  const noRoute = (ctx: KoaContext) => sendError(ctx, NO_ROUTE());
  for (const under of [prefix, `/:lang${prefix}`]) router.all(`${under}/{*rest}`, noRoute);
  return router;
}

/**
 * An event list's rows rendered again through the same route, listing just those events. Made at
 * module level so that the closure, which lives as long as the cached answer, holds the route and a
 * copy of the context alone, not the request (its Koa context, its body, its reads).
 */
function rowReaderOf(operations: RestOperations, route: RestRoute, context: Context): RowReader {
  const { reads: _answer, ...shared } = context;
  return async (events) => {
    const rows = { include: [...events], per_page: events.length };
    const rowReads = new ReadLog();
    const again = await operations.run(route, rows, { ...shared, reads: rowReads });
    // A row that now reads the minute (a ticket's sales turning today) is no row to keep.
    if ('error' in again || rowReads.readsClock) return null;
    const value = again.value as { events?: unknown };
    return Array.isArray(value.events) ? (value.events as unknown[]) : null;
  };
}

/**
 * What a REST answer depends on: what its reads logged, the records it shows and its route's families.
 * The term counts it shows in the run `shown-counts.ts` rewrites are refreshed in place when they move,
 * and an event list's rows (`shown-rows.ts`, where the route renders them) are rendered again.
 */
function dependenciesOf(
  reads: ReadLog,
  outcome: { value: unknown; json: string },
  families: DependencyKind[],
  rowReader: { read: RowReader; reader: string } | null,
): Pick<AnswerMeta, 'dependencies' | 'rewriteCounts' | 'rewriteRows'> {
  const counts = countsShown(outcome.json);
  const rewritten = new Set(counts.map((id) => recordTag('term-count', id)));
  const shown = recordsShown(outcome.value).filter((tag) => !rewritten.has(tag));
  const rows = rowReader ? reads.renderableRows(shownRows(outcome.value)) : [];
  const dependencies = mergeDependencies(reads.dependencies(shown, rows), {
    records: [],
    kinds: families,
    windows: [],
    counts,
  });
  return {
    dependencies,
    ...(counts.length && { rewriteCounts: SHOWN_COUNTS }),
    ...(rowReader &&
      rows.length && { rewriteRows: rowRewrite(rowReader.read, rowReader.reader, ROW_READER_HOLDS) }),
  };
}

/**
 * What an answer's row reader keeps alive beyond what every request shares (the schema, the database
 * client, the site's settings): its closure and a copy of the request's context, a dozen fields.
 */
const ROW_READER_HOLDS = { closure: {}, context: new Array(12).fill(0) };

/** How a list answer's total is rewritten when only who is in the list after its page changes. */
function totalOf(
  reads: ReadLog,
  value: unknown,
  headers: Record<string, string>,
): Pick<AnswerMeta, 'rewriteTotal'> {
  const shown = reads.totalShown();
  const { total, total_pages: pages } = (value ?? {}) as { total?: unknown; total_pages?: unknown };
  if (!shown || typeof total !== 'number' || typeof pages !== 'number') return {};
  return { rewriteTotal: totalRewrite(shown, { total, pages }, headers) };
}

function routesByPath(routes: readonly RestRoute[]): Map<string, RestRoute[]> {
  const byPath = new Map<string, RestRoute[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  return byPath;
}

/** Whether an argument is a date phrase naming a time of day (`now`, `+2 hours`): see `dependsOnClock`. */
function readsClock(variables: Record<string, ParamValue>, zone: string): boolean {
  const now = new Date();
  return Object.values(variables).some((value) =>
    (Array.isArray(value) ? value : [value]).some(
      (item) => typeof item === 'string' && dependsOnClock(item, zone, now),
    ),
  );
}

/** JSON with object keys sorted: the same parameters in any order give the same cache key. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(
          Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : item,
  );
}
