import Router from '@koa/router';
import parseBody from 'co-body';
import { type GraphQLArgument, type GraphQLSchema } from 'graphql';
import type { Context as KoaContext } from 'koa';
import type { Logger } from 'pino';
import { parse as parseQuery } from 'qs';
import { Response as SofaResponse } from 'fets';
import { useSofa } from 'sofa-api';
import type { Context } from '../context.js';
import { API_PREFIX } from '../domain/urls.js';
import { invalidParams } from '../domain/errors.js';
import type { HttpMethod, RestRoute } from '../../rest-map/types.js';
import { JSON_CONTENT_TYPE, NO_ROUTE, fromGraphQLError, sendError, wordPressError } from './errors.js';
import { argumentsFromRequest, toSofaQuery } from './params.js';

// The one engine behind `rest-map/`: Koa matches the reference's paths (with an optional language
// segment), this adapter turns the WordPress-style request into GraphQL variables, SOFA runs the
// operation on the rest sub-graph, and the route's declaration shapes status, headers and envelope.

const SOFA_BASE = '/sofa';
const LANGUAGE_TAG = /^[a-z]{2,3}(?:-[a-z0-9]{2,8})*$/i;
const BODY_LIMIT = '1mb';

interface SofaServerContext {
  appContext: Context;
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
  try {
    const body: unknown = await parseBody(ctx.req, { limit: BODY_LIMIT, strict: false });
    return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  } catch (error) {
    const status = (error as { status?: number }).status ?? 400;
    throw wordPressError(status === 413 ? 413 : 400, status === 413 ? 'rest_body_too_large' : 'rest_invalid_json', status === 413 ? 'The request body is too large.' : 'Invalid JSON body passed.');
  }
}

function shapeSuccess(ctx: KoaContext, route: RestRoute, result: unknown, allow: string): void {
  const record = result && typeof result === 'object' && !Array.isArray(result) ? (result as Record<string, unknown>) : null;
  if (record) {
    for (const [header, key] of Object.entries(route.headers ?? {})) ctx.set(header, String(record[key]));
    for (const key of route.omitWhenNull ?? []) if (record[key] === null) delete record[key];
    if (route.locationFrom && typeof record[route.locationFrom] === 'string') ctx.set('Location', record[route.locationFrom] as string);
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
}): Router {
  const { schema, routes, logger } = options;
  const operations = routes.map((route) => route.operation);
  const repeated = operations.find((operation, i) => operations.indexOf(operation) !== i);
  if (repeated) throw new Error(`rest-map: ${repeated} serves two routes; SOFA maps each operation to one route`);
  for (const route of routes) argumentsOf(schema, route.operation);
  const logUnexpected = (error: unknown) => logger.error({ err: error }, 'unexpected error in a REST request');

  const sofa = useSofa({
    schema,
    basePath: SOFA_BASE,
    depthLimit: 3,
    routes: Object.fromEntries(
      routes.map((route) => [route.operation, { method: route.methods[0], path: route.path, responseStatus: 200 }]),
    ),
    // SOFA would otherwise reduce nested records that have an `id` to `{id}`.
    ignore: routes.map((route) => route.operation),
    context: (serverContext: SofaServerContext) => serverContext.appContext,
    errorHandler: (errors) => {
      const error = fromGraphQLError(errors[0], logUnexpected);
      return new SofaResponse(JSON.stringify(error), { status: error.data.status as 400, headers: { 'content-type': JSON_CONTENT_TYPE } });
    },
  });

  const router = new Router();
  const byPath = new Map<string, RestRoute[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);

  for (const [path, pathRoutes] of byPath) {
    const allow = pathRoutes.flatMap((route) => route.methods).join(', ');
    const handler = async (ctx: KoaContext) => {
      const language = ctx.params.lang as string | undefined;
      if (language !== undefined && !isLanguageTag(language)) return sendError(ctx, NO_ROUTE());
      const method = ctx.method as HttpMethod;
      const route = pathRoutes.find((candidate) => candidate.methods.includes(method));
      if (!route) return sendError(ctx, NO_ROUTE(405), { Allow: allow });

      const args = argumentsOf(schema, route.operation);
      const pathParams: Record<string, string> = { ...ctx.params };
      delete pathParams.lang;
      // `:id` is `\d+` in the reference: anything else matches no route at all.
      if (pathParams.id !== undefined && !/^\d+$/.test(pathParams.id)) return sendError(ctx, NO_ROUTE());

      let body: Record<string, unknown>;
      try {
        body = await readBody(ctx, method);
      } catch (error) {
        return sendError(ctx, error as ReturnType<typeof wordPressError>);
      }
      const query = parseQuery(ctx.querystring, { depth: 2, arrayLimit: 100 }) as Record<string, unknown>;
      const { variables, invalid } = argumentsFromRequest(args, { path: pathParams, query, body }, route.bodyArgument);
      if (Object.keys(invalid).length) {
        const error = invalidParams(invalid);
        return sendError(ctx, wordPressError(400, error.code, error.message, error.data));
      }

      const sofaMethod = route.methods[0];
      const sofaPath = route.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(variables[name])));
      const hasBody = sofaMethod !== 'GET' && sofaMethod !== 'DELETE';
      const request = new Request(
        `http://sofa${SOFA_BASE}${sofaPath}${hasBody ? '' : `?${toSofaQuery(variables)}`}`,
        hasBody
          ? { method: sofaMethod, body: JSON.stringify(variables), headers: { 'content-type': 'application/json' } }
          : { method: sofaMethod },
      );
      const response = await sofa.fetch(request, { appContext: options.createContext(ctx, language) });
      const payload: unknown = await response.json();
      if (!response.ok) {
        ctx.status = response.status;
        ctx.type = JSON_CONTENT_TYPE;
        ctx.body = JSON.stringify(payload);
        return;
      }
      shapeSuccess(ctx, route, payload, allow);
    };
    router.all(`${API_PREFIX}${path}`, handler);
    router.all(`/:lang${API_PREFIX}${path}`, handler);
  }

  const noRoute = (ctx: KoaContext) => sendError(ctx, NO_ROUTE());
  for (const prefix of [API_PREFIX, `/:lang${API_PREFIX}`]) {
    router.all(prefix, noRoute);
    router.all(`${prefix}/{*rest}`, noRoute);
  }
  return router;
}
