import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
} from 'graphql';
import type { OpenAPIV3 } from 'openapi-types';
import type { HttpMethod, RestField, RestFieldType, RestRoute } from '../route-table.js';
import { API_PREFIX } from '../../rules/urls.js';
import { documentationOf } from '../body-fields.js';
import { SERVICE } from '../../ops/version.js';

// How the REST API describes itself, generated from the rest-map and the rest GraphQL schema (never a
// hand-kept copy): WordPress' namespace index, the OpenAPI document (SOFA's, extended with what the
// adapter adds: WordPress parameters, flat bodies, statuses, headers, errors) and a local Swagger UI.

// This file: the documented routes and WordPress' namespace index.

export const NAMESPACE = API_PREFIX.slice(1);

/** One route argument as WordPress lists it: JSON-schema keywords plus `required`. */
type IndexArg = Omit<RestField, 'description' | 'required'> & {
  description?: string;
  required: boolean;
};

interface IndexEndpoint {
  methods: HttpMethod[];
  /** WordPress serialises an empty argument list as `[]`. */
  args: Record<string, IndexArg> | [];
}

interface IndexRoute {
  namespace: string;
  methods: HttpMethod[];
  endpoints: IndexEndpoint[];
  _links?: { self: Array<{ href: string }> };
}

interface NamespaceIndex {
  namespace: string;
  routes: Record<string, IndexRoute>;
  _links: { up: Array<{ href: string }> };
}

/** What `useSofa` generated for its routes (the fets router's `openAPIDocument`). */
export type SofaDocument = Partial<OpenAPIV3.Document>;

type Location = 'path' | 'query' | 'body' | 'header';

interface DocumentedArg {
  name: string;
  in: Location;
  arg: IndexArg;
  /** The OpenAPI schema (SOFA's for GraphQL arguments). */
  schema: OpenAPIV3.SchemaObject | OpenAPIV3.ReferenceObject;
}

export interface DocumentedEndpoint {
  methods: HttpMethod[];
  args: DocumentedArg[];
  /** Absent for the discovery endpoints, which are not GraphQL operations. */
  route?: RestRoute;
}

export interface DocumentedPath {
  /** In the rest-map's form: `''`, `/doc`, `/events/:id`. */
  path: string;
  endpoints: DocumentedEndpoint[];
}

/** `GET /`: where everything is (WordPress' `/wp-json/` lists its namespaces the same way). */
interface ServiceRoot {
  name: string;
  description: string;
  version: string;
  url: string;
  namespaces: string[];
  _links: Record<string, Array<{ href: string }>>;
}

export function serviceRoot(urls: { site: string; api: string }, origin: string): ServiceRoot {
  const link = (href: string) => [{ href }];
  return {
    name: SERVICE.name,
    description: 'Events calendar: GraphQL, and a REST API compatible with The Events Calendar REST API v1',
    version: SERVICE.version,
    url: urls.site,
    namespaces: [NAMESPACE],
    _links: {
      [NAMESPACE]: link(urls.api),
      openapi: link(`${urls.api}/doc`),
      'swagger-ui': link(`${urls.api}/docs`),
      graphql: link(`${origin}/graphql`),
      health: link(`${origin}/healthz`),
      version: link(`${origin}/version`),
    },
  };
}

/**
 * The headers TEC sends on the site's pages to announce its API (its REST `Headers__Base`): clients
 * find the API from any page of the site by these. The root ends with a slash, as `rest_url()` gives it.
 */
export function discoveryHeaders(urls: { site: string; api: string }): Record<string, string> {
  return { 'X-TEC-API-VERSION': 'v1', 'X-TEC-API-ROOT': `${urls.api}/`, 'X-TEC-API-ORIGIN': urls.site };
}

export interface Discovery {
  /** `GET {prefix}`: every route, its methods and arguments. */
  index(urls: { site: string; api: string }): NamespaceIndex;
  /** One route's entry of the index (WordPress answers `OPTIONS` with it); `path` in the rest-map's form. */
  route(path: string, apiRoot: string): IndexRoute | undefined;
  /** `GET {prefix}/doc`: OpenAPI 3.0, `servers[0].url` the API root the request used. */
  openApi(apiRoot: string): OpenAPIV3.Document;
}

/** `:id` is `\d+` in the reference; any other parameter is a path segment. */
export function routeRegex(path: string): string {
  return path.replace(/:(\w+)/g, (_, name: string) =>
    name === 'id' ? `(?P<id>\\d+)` : `(?P<${name}>[^/]+)`,
  );
}

export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}') || '/';

export function fieldOf(
  schema: GraphQLSchema,
  operation: RestRoute['operation'],
): GraphQLField<unknown, unknown> {
  const [kind, name] = operation.split('.') as ['Query' | 'Mutation', string];
  const field = (kind === 'Query' ? schema.getQueryType() : schema.getMutationType())?.getFields()[name];
  if (!field) throw new Error(`rest-map: ${operation} is not a field of the rest schema`);
  return field;
}

export const SCALAR_TYPES: Record<string, Pick<IndexArg, 'type' | 'format'>> = {
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  String: { type: 'string' },
  ID: { type: 'string' },
  DateTime: { type: 'string', format: 'date-time' },
};

function jsonType(type: GraphQLInputType): Pick<IndexArg, 'type' | 'items' | 'format' | 'enum'> {
  const nullable = getNullableType(type) as GraphQLInputType;
  if (isListType(nullable)) {
    const inner = jsonType(nullable.ofType as GraphQLInputType).type;
    return { type: 'array', ...(typeof inner === 'string' ? { items: { type: inner } } : {}) };
  }
  if (isEnumType(nullable)) return { type: 'string', enum: nullable.getValues().map((value) => value.name) };
  if (isInputObjectType(nullable)) return { type: 'object' };
  return SCALAR_TYPES[nullable.name] ?? {};
}

function indexArg(arg: GraphQLArgument): IndexArg {
  const entry: IndexArg = {
    ...jsonType(arg.type),
    required: isNonNullType(arg.type) && arg.defaultValue === undefined,
  };
  if (arg.description) entry.description = arg.description;
  if (arg.defaultValue !== undefined) entry.default = arg.defaultValue;
  // Key order as WordPress prints them: keywords, description, default, required.
  const { required, ...keywords } = entry;
  return { ...keywords, required };
}

/**
 * `null` alone, in OpenAPI 3.0 (which has no `null` type, and ignores a `nullable` without a `type`
 * beside it): the branch that lets a list of types or a reference admit null.
 */
export const NULL_ONLY: OpenAPIV3.SchemaObject = { type: 'object', nullable: true, enum: [null] };

function typeSchema(type: RestFieldType, items: IndexArg['items']): OpenAPIV3.SchemaObject {
  if (type === 'array') return { type: 'array', items: items ? itemsSchema(items.type) : {} };
  // A body field's object (inline venue fields…) has keys: never an empty object to a client.
  if (type === 'object') return { type, additionalProperties: true };
  return { type };
}

/** A list's items: one type, or any of several (ids, names and objects alike). */
function itemsSchema(type: RestFieldType | RestFieldType[]): OpenAPIV3.SchemaObject {
  return Array.isArray(type)
    ? { anyOf: type.map((one) => typeSchema(one, undefined)) }
    : typeSchema(type, undefined);
}

function schemaOfArg(arg: IndexArg): OpenAPIV3.SchemaObject {
  const { type, items, format, enum: values, description } = arg;
  // A `null` default is WordPress' "not sent": null is accepted, so the schema admits it.
  const nullable = arg.default === null;
  const schema: OpenAPIV3.SchemaObject = Array.isArray(type)
    ? // Any of the types, as JSON Schema reads a list of types (WordPress' form).
      { anyOf: [...type.map((one) => typeSchema(one, items)), ...(nullable ? [NULL_ONLY] : [])] }
    : type
      ? { ...typeSchema(type, items), ...(nullable ? { nullable } : {}) }
      : {};
  if (format && !Array.isArray(type)) schema.format = format;
  if (values) schema.enum = values;
  if (description) schema.description = description;
  if (arg.default !== undefined) schema.default = arg.default;
  return schema;
}

export const METHOD_ORDER: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
export const hasBody = (method: HttpMethod) => method === 'POST' || method === 'PUT' || method === 'PATCH';

function discoveryPaths(): DocumentedPath[] {
  const text = (description: string, value: string): DocumentedArg['arg'] => ({
    type: 'string',
    description,
    default: value,
    required: false,
  });
  const indexArgs = [
    { name: 'namespace', arg: text('The namespace to describe', NAMESPACE) },
    { name: 'context', arg: text('Scope under which the request is made', 'view') },
  ].map((entry): DocumentedArg => ({ ...entry, in: 'query', schema: schemaOfArg(entry.arg) }));
  return [
    { path: '', endpoints: [{ methods: ['GET'], args: indexArgs }] },
    { path: '/doc', endpoints: [{ methods: ['GET'], args: [] }] },
  ];
}

/** The routes of the rest-map, grouped by path in declaration order, with their documented arguments. */
export function documentedPaths(
  schema: GraphQLSchema,
  routes: RestRoute[],
  sofa: SofaDocument,
): DocumentedPath[] {
  const paths = discoveryPaths();
  for (const route of routes) {
    const field = fieldOf(schema, route.operation);
    const sofaOperation = sofaOperationOf(sofa, route);
    const sofaParameters = new Map(
      ((sofaOperation?.parameters ?? []) as OpenAPIV3.ParameterObject[]).map((parameter) => [
        parameter.name,
        parameter.schema,
      ]),
    );
    const pathNames = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]);
    const documented = field.args
      .filter((arg) => arg.name !== route.bodyArgument)
      .map((arg): DocumentedArg => {
        const entry = indexArg(arg);
        const sofaSchema = sofaParameters.get(arg.name);
        const header = route.headerArguments?.[arg.name];
        const where: Location = header
          ? 'header'
          : pathNames.includes(arg.name)
            ? 'path'
            : hasBody(route.methods[0])
              ? 'body'
              : 'query';
        return {
          name: header ?? arg.name,
          in: where,
          arg: entry,
          schema: sofaSchema ? withDefault(sofaSchema, entry.default) : schemaOfArg(entry),
        };
      })
      .sort((a, b) => Number(b.in === 'path') - Number(a.in === 'path'));
    for (const [name, bodyField] of Object.entries(documentedBody(schema, route))) {
      if (documented.some((arg) => arg.name === name)) continue;
      const { required = false, ...keywords } = bodyField;
      const entry: IndexArg = { ...keywords, required };
      documented.push({ name, in: 'body', arg: entry, schema: schemaOfArg(entry) });
    }
    const endpoint: DocumentedEndpoint = { methods: [...route.methods], args: documented, route };
    const existing = paths.find((candidate) => candidate.path === route.path);
    if (existing) existing.endpoints.push(endpoint);
    else paths.push({ path: route.path, endpoints: [endpoint] });
  }
  return paths;
}

/**
 * The flat body a route takes, as its input type documents it (`documentationOf`), but for the fields
 * the route omits; an update requires none. Empty for a route without a body or with an untyped one.
 */
export function documentedBody(schema: GraphQLSchema, route: RestRoute): Record<string, RestField> {
  if (!route.bodyArgument) return {};
  const field = fieldOf(schema, route.operation);
  const body = field.args.find((arg) => arg.name === route.bodyArgument);
  const type = body && getNullableType(body.type);
  if (!type) throw new Error(`rest-map: ${route.operation} has no argument ${route.bodyArgument}`);
  // A body of a scalar (JSON) has no fields to document (the rest schema types every body).
  if (!isInputObjectType(type)) return {};
  const fields = type.getFields();
  const unknown = (route.bodyOmits ?? []).filter((name) => !(name in fields));
  if (unknown.length)
    throw new Error(`rest-map: ${route.operation} omits ${unknown}, which its body type lacks`);
  const documented: Record<string, RestField> = {};
  for (const input of Object.values(fields)) {
    if (route.bodyOmits?.includes(input.name)) continue;
    const doc = documentationOf(input);
    if (!doc) throw new Error(`rest-map: ${route.operation}'s body field ${input.name} is undocumented`);
    documented[input.name] = route.bodyOptional ? { ...doc, required: false } : doc;
  }
  return documented;
}

/** SOFA's schema of an argument, with its GraphQL default (a reference takes no siblings in OpenAPI 3.0). */
function withDefault(
  schema: OpenAPIV3.SchemaObject | OpenAPIV3.ReferenceObject,
  value: unknown,
): OpenAPIV3.SchemaObject | OpenAPIV3.ReferenceObject {
  if ('$ref' in schema)
    return value === undefined ? { $ref: schema.$ref } : { allOf: [{ $ref: schema.$ref }], default: value };
  return value === undefined ? schema : { ...schema, default: value };
}

/**
 * The path SOFA serves a route under: a file-like suffix (`/events/:id.ics`) moves to a leading
 * segment (`/_ics/events/:id`), since SOFA's router would read it as part of the parameter.
 */
export function sofaPathOf(path: string): string {
  const suffix = /\.(\w+)$/.exec(path);
  return suffix ? `/_${suffix[1]}${path.slice(0, -suffix[0].length)}` : path;
}

export function sofaOperationOf(sofa: SofaDocument, route: RestRoute): OpenAPIV3.OperationObject | undefined {
  const item = sofa.paths?.[openApiPath(sofaPathOf(route.path))];
  return item?.[route.methods[0].toLowerCase() as OpenAPIV3.HttpMethods];
}

export function indexRoute(documented: DocumentedPath, apiRoot: string, namespace: string): IndexRoute {
  const entry: IndexRoute = {
    namespace,
    methods: [...new Set(documented.endpoints.flatMap((endpoint) => endpoint.methods))],
    endpoints: documented.endpoints.map((endpoint) => ({
      methods: endpoint.methods,
      // WordPress lists request parameters here: a header is no parameter (`/doc` describes it).
      args: endpoint.args.some((arg) => arg.in !== 'header')
        ? Object.fromEntries(
            endpoint.args.filter((arg) => arg.in !== 'header').map((arg) => [arg.name, arg.arg]),
          )
        : [],
    })),
  };
  if (!documented.path.includes(':')) entry._links = { self: [{ href: `${apiRoot}${documented.path}` }] };
  return entry;
}
