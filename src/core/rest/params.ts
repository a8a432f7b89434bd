import {
  type GraphQLArgument,
  type GraphQLInputType,
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  GraphQLString,
  getNullableType,
  isInputObjectType,
  isListType,
} from 'graphql';
import type { Context as KoaContext } from 'koa';
import parseBody from 'co-body';
import { parse as parseQuery } from 'qs';
import { invalidParams } from '../errors/errors.js';
import { MAX_RECORD_ID } from '../rules/ids.js';
import { MAX_JSON_DEPTH, hasNul, jsonTooDeep } from '../rules/texts/request-text.js';
import { readBoolean } from './booleans.js';
import { type WordPressError, wordPressError } from '../errors/rest-errors.js';
import type { HttpMethod, RestRoute } from './route-table.js';

// A REST request's parameters, read once and checked once at the edge: WordPress clients send
// `1`/`0`/`yes` booleans, comma lists and `a[]=` arrays, normalised here by the GraphQL type of the
// argument they feed; the operation runs with these very values.

const BODY_LIMIT = '1mb';

export type ParamValue = string | number | boolean | null | ParamValue[] | { [key: string]: unknown };

const INVALID = Symbol('invalid');

function normalizeScalar(value: unknown, type: GraphQLInputType): ParamValue | typeof INVALID {
  if (Array.isArray(value) || (value !== null && typeof value === 'object')) {
    return isInputObjectType(type) ? (value as { [key: string]: unknown }) : INVALID;
  }
  const text = typeof value === 'string' ? value.trim() : String(value);
  // GraphQL's Int is 32-bit: a larger number is a bad parameter here, not an error inside SOFA.
  if (type === GraphQLInt)
    return /^[-+]?\d+$/.test(text) && Math.abs(Number(text)) <= MAX_RECORD_ID ? Number(text) : INVALID;
  if (type === GraphQLFloat) return text !== '' && Number.isFinite(Number(text)) ? Number(text) : INVALID;
  if (type === GraphQLBoolean) {
    return readBoolean(text) ?? INVALID;
  }
  if (type === GraphQLString) return typeof value === 'string' ? value : text;
  return text;
}

function normalize(value: unknown, type: GraphQLInputType): ParamValue | typeof INVALID {
  const inner = getNullableType(type) as GraphQLInputType;
  if (isListType(inner)) {
    const items = Array.isArray(value)
      ? value
      : typeof value === 'string'
        ? value
            .split(',')
            .map((item) => item.trim())
            .filter((item) => item !== '')
        : [value];
    const normalized = items.map((item) => normalize(item, inner.ofType));
    return normalized.includes(INVALID) ? INVALID : (normalized as ParamValue[]);
  }
  return normalizeScalar(value, inner);
}

/**
 * The body's parameters its input type declares: WordPress ignores the others, where an input object
 * would refuse them (the type is the body table's, `core/graphql/schema/rest-bodies.ts`).
 */
function knownFields(body: Record<string, unknown>, type: GraphQLInputType): { [key: string]: unknown } {
  const inner = getNullableType(type);
  if (!isInputObjectType(inner)) return body;
  const fields = inner.getFields();
  return Object.fromEntries(Object.entries(body).filter(([key]) => Object.hasOwn(fields, key)));
}

/**
 * Picks each argument from the raw request (path > body > query, as WordPress) and normalises it.
 * Returns the variables and, per bad parameter, WordPress' reason.
 */
function argumentsFromRequest(
  args: readonly GraphQLArgument[],
  sources: {
    path: Record<string, string>;
    query: Record<string, unknown>;
    body: Record<string, unknown>;
    /** The route's header arguments' values: those arguments are read from nowhere else. */
    headers?: Record<string, string | undefined>;
  },
  bodyArgument?: string,
): { variables: Record<string, ParamValue>; invalid: Record<string, string> } {
  const variables: Record<string, ParamValue> = {};
  const invalid: Record<string, string> = {};
  for (const arg of args) {
    if (arg.name === bodyArgument) {
      variables[arg.name] = knownFields(sources.body, arg.type);
      continue;
    }
    const raw =
      sources.headers && arg.name in sources.headers
        ? sources.headers[arg.name]
        : (sources.path[arg.name] ?? sources.body[arg.name] ?? sources.query[arg.name]);
    if (raw === undefined) continue;
    const value = normalize(raw, arg.type);
    if (value === INVALID) invalid[arg.name] = 'Invalid parameter.';
    else variables[arg.name] = value;
  }
  return { variables, invalid };
}

/**
 * The route a GET's query switches to among `routes` (`?ical=1`: each route's `alsoAt.flag`, a
 * boolean read as every REST boolean is), if any, and the switches whose value is no boolean: bad
 * parameters (400 naming them), which leave the request on its own route.
 */
export function switchedRoute(
  routes: readonly RestRoute[],
  query: Record<string, unknown>,
): { route: RestRoute | undefined; invalid: Record<string, string> } {
  const invalid: Record<string, string> = {};
  let route: RestRoute | undefined;
  for (const candidate of routes) {
    const { flag } = candidate.alsoAt!;
    if (query[flag] === undefined) continue;
    const on = readBoolean(query[flag]);
    if (on === undefined) invalid[flag] = 'Invalid parameter.';
    else if (on) route ??= candidate;
  }
  return { route: Object.keys(invalid).length ? undefined : route, invalid };
}

/** The query string as WordPress reads it: `a[]=` arrays and `a[b]=` objects, two levels deep. */
export function readQuery(querystring: string): Record<string, unknown> {
  return parseQuery(querystring, { depth: 2, arrayLimit: 100 }) as Record<string, unknown>;
}

export function nulRefused(): WordPressError {
  return wordPressError(400, 'rest_invalid_param', 'Text may not contain NUL characters.');
}

/** The flat body of a write (JSON or a form); nothing for reads and deletes. */
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

/**
 * A REST request's arguments for its route's operation, read once (path, body, query) and checked
 * once under their REST names: the variables the operation runs with, or the 400 to answer (naming
 * the `refused` parameters the edge already read, too).
 */
export async function readArguments(
  ctx: KoaContext,
  route: RestRoute,
  args: readonly GraphQLArgument[],
  query: Record<string, unknown>,
  refused: Record<string, string> = {},
): Promise<{ variables: Record<string, ParamValue> } | { error: WordPressError }> {
  let body: Record<string, unknown>;
  try {
    body = await readBody(ctx, route.methods[0]);
  } catch (error) {
    return { error: error as WordPressError };
  }
  const path: Record<string, string> = { ...ctx.params };
  delete path.lang;
  const headers = Object.fromEntries(
    Object.entries(route.headerArguments ?? {}).map(([arg, header]) => [arg, ctx.get(header) || undefined]),
  );
  const read = argumentsFromRequest(args, { path, query, body, headers }, route.bodyArgument);
  const { variables } = read;
  const invalid = { ...refused, ...read.invalid };
  for (const name of route.nonEmpty ?? []) {
    const value = variables[name];
    if (typeof value === 'string' && value.trim() === '') invalid[name] = 'Invalid parameter.';
  }
  if (Object.keys(invalid).length) {
    const error = invalidParams(invalid);
    return { error: wordPressError(400, error.code, error.message, error.data) };
  }
  return { variables };
}
