import { createHash } from 'node:crypto';
import Router from '@koa/router';
import parseBody from 'co-body';
import {
  type DocumentNode,
  type ExecutionResult,
  type GraphQLArgument,
  type GraphQLSchema,
  execute,
} from 'graphql';
import type { Context as KoaContext } from 'koa';
import type { Logger } from 'pino';
import { parse as parseQuery } from 'qs';
import { Response as SofaResponse } from 'fets';
import { useSofa } from 'sofa-api';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Context } from '../context.js';
import { ResponseCache } from '../cache/response-cache.js';
import { ANONYMOUS, type AllowTarget, type Viewer, allowedMethods, can } from '../domain/permissions.js';
import { API_PREFIX } from '../domain/urls.js';
import { invalidParams } from '../domain/errors.js';
import { MAX_RECORD_ID } from '../domain/ids.js';
import { parseIfMatch } from '../domain/versions.js';
import type { HttpMethod, RestRoute } from '../../rest-map/types.js';
import {
  createDiscovery,
  discoveryHeaders,
  serviceRoot,
  sofaPathOf,
  swaggerUiAsset,
  swaggerUiPage,
  type SofaDocument,
} from './discovery.js';
import {
  JSON_CONTENT_TYPE,
  NO_ROUTE,
  type WordPressError,
  fromGraphQLError,
  sendError,
  wordPressError,
} from './errors.js';
import { MAX_JSON_DEPTH, hasNul, jsonTooDeep } from '../http/request-text.js';
import { type ParamValue, argumentsFromRequest, toSofaQuery } from './params.js';

// The one engine behind `rest-map/`: Koa matches the reference's paths (with an optional language
// segment), this adapter turns the WordPress-style request into GraphQL variables, SOFA runs the
// operation on the rest sub-graph, and the route's declaration shapes status, headers and envelope.

const SOFA_BASE = '/sofa';
const LANGUAGE_TAG = /^[a-z]{2,3}(?:-[a-z0-9]{2,8})*$/i;
const BODY_LIMIT = '1mb';
/** What fills a path argument's segment of the internal URL (an Int and a String alike). */
const PATH_STAND_IN = '0';

interface SofaServerContext {
  appContext: Context;
}

/** A query flag such as `?ical=1` (WordPress reads any non-empty, non-"0"/"false" value as set). */
function isSet(value: unknown): boolean {
  return typeof value === 'string' && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

function isLanguageTag(tag: string): boolean {
  if (!LANGUAGE_TAG.test(tag)) return false;
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

function argumentsOf(schema: GraphQLSchema, operation: RestRoute['operation']): readonly GraphQLArgument[] {
  const [kind, field] = operation.split('.') as ['Query' | 'Mutation', string];
  const type = kind === 'Query' ? schema.getQueryType() : schema.getMutationType();
  const definition = type?.getFields()[field];
  if (!definition) throw new Error(`rest-map: ${operation} is not a field of the rest schema`);
  return definition.args;
}

async function readBody(ctx: KoaContext, method: HttpMethod): Promise<Record<string, unknown>> {
  if (method === 'GET' || method === 'DELETE' || !ctx.request.length) return {};
  let read: { parsed: unknown; raw: string };
  try {
    read = (await parseBody(ctx.req, { limit: BODY_LIMIT, strict: false, returnRawBody: true })) as {
      parsed: unknown;
      raw: string;
    };
  } catch (error) {
    const status = (error as { status?: number }).status ?? 400;
    if (status === 413) throw wordPressError(413, 'rest_body_too_large', 'The request body is too large.');
    if (status === 415)
      throw wordPressError(415, 'rest_unsupported_media_type', 'Send the body as JSON or as a form.');
    throw wordPressError(400, 'rest_invalid_json', 'Invalid JSON body passed.');
  }
  if (ctx.is('json') && jsonTooDeep(read.raw))
    throw wordPressError(
      400,
      'rest_invalid_json',
      `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`,
    );
  if (hasNul(read.raw)) throw nulRefused();
  const body = read.parsed;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

function nulRefused() {
  return wordPressError(400, 'rest_invalid_param', 'Text may not contain NUL characters.');
}

/** A document route's body, with a strong ETag so that polling clients get 304 while nothing changed. */
function sendDocument(
  ctx: KoaContext,
  document: NonNullable<RestRoute['document']>,
  record: Record<string, unknown>,
  allow: string,
): void {
  const body = String(record[document.bodyKey] ?? '');
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  ctx.set('Allow', allow);
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'no-cache');
  const filename = document.filenameKey ? record[document.filenameKey] : undefined;
  if (typeof filename === 'string') ctx.set('Content-Disposition', `inline; filename="${filename}"`);
  const candidates = (ctx.get('If-None-Match') || '').split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  if (candidates.includes(etag) || candidates.includes('*')) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.type = document.contentType;
  ctx.body = body;
}

function shapeSuccess(ctx: KoaContext, route: RestRoute, result: unknown, allow: string): void {
  const record =
    result && typeof result === 'object' && !Array.isArray(result)
      ? (result as Record<string, unknown>)
      : null;
  if (record && route.document) return sendDocument(ctx, route.document, record, allow);
  if (record) {
    for (const [header, key] of Object.entries(route.headers ?? {})) ctx.set(header, String(record[key]));
    for (const key of route.omitWhenNull ?? []) if (record[key] === null) delete record[key];
    const location = route.locationFrom
      ?.split('.')
      .reduce<unknown>(
        (value, key) =>
          value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined,
        record,
      );
    if (typeof location === 'string') ctx.set('Location', location);
    // Single records say when they last changed (lists have no such date).
    const modified = record.modified_utc;
    if (
      (ctx.method === 'GET' || ctx.method === 'HEAD') &&
      typeof modified === 'string' &&
      !('events' in record)
    ) {
      const date = new Date(`${modified.replace(' ', 'T')}Z`);
      if (!Number.isNaN(date.getTime())) ctx.set('Last-Modified', date.toUTCString());
    }
  }
  ctx.status = route.status ?? 200;
  ctx.set('Allow', allow);
  ctx.type = JSON_CONTENT_TYPE;
  ctx.body = JSON.stringify(result);
}

export function createRestRouter(options: {
  schema: GraphQLSchema;
  routes: RestRoute[];
  createContext: (koa: KoaContext, languageSegment: string | undefined) => Context;
  logger: Logger;
  /** Absent: nothing is shared (validators and conditional answers still apply). */
  cache?: ResponseCache;
}): Router {
  const { schema, routes, logger } = options;
  const cache = options.cache ?? new ResponseCache({ enabled: false, maxBytes: 0, siteTimezone: 'UTC' });
  /** Shared entries only for anonymous reads that carry no `password`. */
  const cacheKey = (ctx: KoaContext, method: HttpMethod, parts: readonly unknown[]) => {
    const viewer = ctx.state.viewer as Viewer | undefined;
    if (method !== 'GET' || (viewer && viewer.userId !== null)) return null;
    return cache.keyOf(ctx, parts);
  };
  const operations = routes.map((route) => route.operation);
  const repeated = operations.find((operation, i) => operations.indexOf(operation) !== i);
  if (repeated)
    throw new Error(`rest-map: ${repeated} serves two routes; SOFA maps each operation to one route`);
  for (const route of routes) argumentsOf(schema, route.operation);
  const logUnexpected = (error: unknown) =>
    logger.error({ err: error }, 'unexpected error in a REST request');
  // A successful operation's result reaches the envelope as it is: SOFA would serialise it to JSON for
  // this adapter to parse back and serialise again. SOFA answers for it with `null`, unread; errors
  // still take SOFA's path (its error handler below).
  const results = new WeakMap<object, ExecutionResult>();
  // A path argument's value (a slug is data: `..` would be a dot segment the URL parser removes) never
  // travels in the internal URL, which only selects the route: it reaches the operation from here.
  const pathValues = new WeakMap<object, Record<string, ParamValue>>();
  const executeCompiled = compiledExecutor();

  const sofa = useSofa({
    schema,
    basePath: SOFA_BASE,
    depthLimit: 3,
    routes: Object.fromEntries(
      routes.map((route) => [
        route.operation,
        { method: route.methods[0], path: sofaPathOf(route.path), responseStatus: 200 },
      ]),
    ),
    // SOFA would otherwise reduce nested records that have an `id` to `{id}`.
    ignore: routes.map((route) => route.operation),
    // What SOFA writes into its OpenAPI document (`discovery.ts` extends it into `/doc`).
    customScalars: { JSON: {}, DateTime: { type: 'string', format: 'date-time' } },
    context: (serverContext: SofaServerContext) => serverContext.appContext,
    execute: ((args: Parameters<typeof execute>[0]) => {
      const settle = (result: ExecutionResult) => {
        if (result.errors) return result;
        results.set(args.contextValue as object, result);
        // SOFA answers with the root field's value: null here.
        return { data: Object.fromEntries(Object.keys(result.data ?? {}).map((field) => [field, null])) };
      };
      const fromPath = pathValues.get(args.contextValue as object);
      const result = executeCompiled(
        fromPath ? { ...args, variableValues: { ...args.variableValues, ...fromPath } } : args,
      );
      return 'then' in result ? result.then(settle) : settle(result);
    }) as typeof execute,
    errorHandler: (errors) => {
      const error = fromGraphQLError(errors[0], logUnexpected);
      return new SofaResponse(JSON.stringify(error), {
        status: error.data.status as 400,
        headers: { 'content-type': JSON_CONTENT_TYPE },
      });
    },
  });

  const discovery = createDiscovery({ schema, routes, sofaDocument: sofa.openAPIDocument as SofaDocument });
  const router = new Router();
  const byPath = new Map<string, RestRoute[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  const alternates = new Map<string, RestRoute[]>();
  for (const route of routes)
    if (route.alsoAt)
      alternates.set(route.alsoAt.path, [...(alternates.get(route.alsoAt.path) ?? []), route]);

  const urlsOf = (ctx: KoaContext) => options.createContext(ctx, ctx.params.lang as string | undefined).urls;
  const sendJson = (ctx: KoaContext, body: unknown, allow: string) => {
    ctx.status = 200;
    ctx.set('Allow', allow);
    ctx.type = JSON_CONTENT_TYPE;
    ctx.body = JSON.stringify(body);
  };
  /**
   * Both spellings of a path (with and without a language segment), for every method: an invalid
   * segment is no route; HEAD is GET; OPTIONS describes the route as WordPress does; any other
   * method the path does not serve is a 405 naming the ones it does.
   */
  /** The route's methods this viewer may use on this record (`Allow`), from the capability module. */
  const allowFor = async (ctx: KoaContext, path: string, methods: HttpMethod[]): Promise<string> => {
    const viewer = (ctx.state.viewer as Viewer | undefined) ?? ANONYMOUS;
    const target = allowTarget(path);
    // Anonymous viewers and readers may only ever GET: no record needs reading for them.
    if (target.kind === 'record' && viewer.role !== null && can(viewer, 'edit_posts')) {
      const { db } = options.createContext(ctx, ctx.params.lang as string | undefined);
      const id = Number(ctx.params.id);
      // An id past 32 bits names no record (and PostgreSQL refuses to compare an integer with it).
      if (ctx.params.id !== undefined && !(id <= MAX_RECORD_ID))
        return allowedMethods(viewer, { kind: 'record', record: null }, methods).join(', ');
      const key = ctx.params.id !== undefined ? { id } : { slug: String(ctx.params.slug) };
      const select = { status: true, authorId: true } as const;
      const record =
        target.model === 'events'
          ? await db.event.findFirst({ where: key, select })
          : target.model === 'venues'
            ? await db.venue.findFirst({ where: key, select })
            : await db.organizer.findFirst({ where: key, select });
      return allowedMethods(viewer, { kind: 'record', record }, methods).join(', ');
    }
    if (target.kind === 'served') return methods.join(', ');
    const kind = target.kind === 'record' ? 'read-only' : target.kind;
    return allowedMethods(viewer, { kind } as AllowTarget, methods).join(', ');
  };

  const serve = (
    path: string,
    methods: HttpMethod[],
    handler: (ctx: KoaContext, method: HttpMethod) => unknown,
  ) => {
    const allow = methods.join(', ');
    const dispatch = async (ctx: KoaContext) => {
      const language = ctx.params.lang as string | undefined;
      if (language !== undefined && !isLanguageTag(language)) return sendError(ctx, NO_ROUTE());
      // `:id` is `\d+` in the reference: anything else matches no route at all.
      if (ctx.params.id !== undefined && !/^\d+$/.test(ctx.params.id)) return sendError(ctx, NO_ROUTE());
      // Nothing a database cannot store passes the boundary (path slugs and query strings included).
      if (hasNul(ctx.path) || hasNul(ctx.querystring)) return sendError(ctx, nulRefused());
      const method = (ctx.method === 'HEAD' ? 'GET' : ctx.method) as HttpMethod;
      if (ctx.method === 'OPTIONS') {
        const described = discovery.route(path, urlsOf(ctx).api);
        if (described) return sendJson(ctx, described, allow);
      }
      if (!methods.includes(method)) return sendError(ctx, NO_ROUTE(405), { Allow: allow });
      // Decided before the request runs (as WordPress's permission checks), sent on its answer
      // whatever it is, errors included.
      const allowed = await allowFor(ctx, path, methods);
      await handler(ctx, method);
      ctx.set('Allow', allowed);
    };
    router.all(`${API_PREFIX}${path}`, dispatch);
    router.all(`/:lang${API_PREFIX}${path}`, dispatch);
  };

  serve('', ['GET'], (ctx, method) => {
    ctx.set(discoveryHeaders(urlsOf(ctx)));
    return cache.serve(ctx, cacheKey(ctx, method, ['rest', ctx.path]), async () =>
      sendJson(ctx, discovery.index(urlsOf(ctx)), 'GET'),
    );
  });
  serve('/doc', ['GET'], (ctx, method) =>
    cache.serve(ctx, cacheKey(ctx, method, ['rest', ctx.path]), async () =>
      sendJson(ctx, discovery.openApi(urlsOf(ctx).api), 'GET'),
    ),
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
    const language = ctx.params.lang as string | undefined;
    if (language !== undefined && !isLanguageTag(language)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return sendError(ctx, NO_ROUTE(405), { Allow: 'GET' });
    const urls = urlsOf(ctx);
    ctx.set(discoveryHeaders(urls));
    sendJson(ctx, serviceRoot(urls, language ? urls.site.slice(0, -language.length - 1) : urls.site), 'GET');
  };
  router.all('/', root);
  router.all('/:lang', root);

  for (const [path, pathRoutes] of byPath) {
    const allow = pathRoutes.flatMap((route) => route.methods).join(', ');
    serve(
      path,
      pathRoutes.flatMap((route) => route.methods),
      async (ctx, method) => {
        const language = ctx.params.lang as string | undefined;
        const query = parseQuery(ctx.querystring, { depth: 2, arrayLimit: 100 }) as Record<string, unknown>;
        const route =
          (method === 'GET' &&
            alternates.get(path)?.find((candidate) => isSet(query[candidate.alsoAt!.flag]))) ||
          pathRoutes.find((candidate) => candidate.methods.includes(method))!;

        const args = argumentsOf(schema, route.operation);
        const pathParams: Record<string, string> = { ...ctx.params };
        delete pathParams.lang;

        let body: Record<string, unknown>;
        try {
          body = await readBody(ctx, method);
        } catch (error) {
          return sendError(ctx, error as ReturnType<typeof wordPressError>);
        }
        const { variables, invalid } = argumentsFromRequest(
          args,
          { path: pathParams, query, body },
          route.bodyArgument,
        );
        // SOFA reads an empty query value as absent: the route names those an empty value makes invalid.
        for (const name of route.nonEmpty ?? []) {
          const value = variables[name];
          if (typeof value === 'string' && value.trim() === '') invalid[name] = 'Invalid parameter.';
        }
        if (Object.keys(invalid).length) {
          const error = invalidParams(invalid);
          return sendError(ctx, wordPressError(400, error.code, error.message, error.data));
        }

        const key =
          'password' in variables && variables.password !== undefined && variables.password !== null
            ? null
            : cacheKey(ctx, method, ['rest', route.operation, language ?? '', stableJson(variables)]);
        const run = async () => {
          const sofaMethod = route.methods[0];
          // The internal URL names the route with a stand-in valid for any path argument's type (ids are
          // Int); the values themselves are passed as variables (`pathValues`).
          const fromPath: Record<string, ParamValue> = {};
          const sofaPath = sofaPathOf(route.path).replace(/:(\w+)/g, (_, name: string) => {
            if (variables[name] !== undefined) fromPath[name] = variables[name];
            return PATH_STAND_IN;
          });
          const hasBody = sofaMethod !== 'GET' && sofaMethod !== 'DELETE';
          const request = new Request(
            `http://sofa${SOFA_BASE}${sofaPath}${hasBody ? '' : `?${toSofaQuery(variables)}`}`,
            hasBody
              ? {
                  method: sofaMethod,
                  body: JSON.stringify(variables),
                  headers: { 'content-type': 'application/json' },
                }
              : { method: sofaMethod },
          );
          const appContext = options.createContext(ctx, language);
          pathValues.set(appContext, fromPath);
          // Updates and deletes apply only to the version the client names (412 otherwise).
          if (method !== 'GET') appContext.ifMatch = parseIfMatch(ctx.get('If-Match'));
          const response = await sofa.fetch(request, { appContext });
          const result = results.get(appContext);
          if (!result) return sendError(ctx, (await response.json()) as WordPressError);
          const payload: unknown = result.data?.[fieldOf(route)];
          if (appContext.readVersion) ctx.state.recordVersion = appContext.readVersion;
          shapeSuccess(ctx, route, payload, allow);
        };
        if (method === 'GET') await cache.serve(ctx, key, run);
        else await run();
      },
    );
  }

  const noRoute = (ctx: KoaContext) => sendError(ctx, NO_ROUTE());
  for (const prefix of [API_PREFIX, `/:lang${API_PREFIX}`]) router.all(`${prefix}/{*rest}`, noRoute);
  return router;
}

/**
 * `execute` for SOFA's operations, each compiled once into a function (graphql-jit): a route runs
 * one fixed document, and interpreting it anew was ~10 % of an uncached list's CPU. A document the
 * compiler refuses runs through graphql-js, which then reports what is wrong with it.
 */
function compiledExecutor(): typeof execute {
  const compiled = new WeakMap<DocumentNode, CompiledQuery | null>();
  return (args) => {
    let query = compiled.get(args.document);
    if (query === undefined) {
      const made = compileQuery(args.schema, args.document, args.operationName ?? undefined);
      query = isCompiledQuery(made) ? made : null;
      compiled.set(args.document, query);
    }
    return query ? query.query(args.rootValue, args.contextValue, args.variableValues ?? {}) : execute(args);
  };
}

/** The root field a route's operation selects (`Query.tecEvents` → `tecEvents`). */
function fieldOf(route: RestRoute): string {
  return route.operation.slice(route.operation.indexOf('.') + 1);
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

/**
 * Which permission decides a path's `Allow`: collections, single posts (by id or slug), terms; any
 * other path (discovery, feeds: GET only) lists the methods it serves.
 */
function allowTarget(
  path: string,
): { kind: 'served' | 'posts' | 'terms' } | { kind: 'record'; model: 'events' | 'venues' | 'organizers' } {
  const match = /^\/(events|venues|organizers|categories|tags)(\/(?::id|by-slug\/:slug))?$/.exec(path);
  if (!match) return { kind: 'served' };
  const [, resource, single] = match as unknown as [string, string, string | undefined];
  const terms = resource === 'categories' || resource === 'tags';
  if (!single) return { kind: terms ? 'terms' : 'posts' };
  return terms
    ? { kind: 'terms' }
    : { kind: 'record', model: resource as 'events' | 'venues' | 'organizers' };
}
