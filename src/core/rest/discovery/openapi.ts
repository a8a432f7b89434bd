import {
  type GraphQLField,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import type { OpenAPIV3 } from 'openapi-types';
import { type HttpMethod, RECORD_VERSION_KEY, type RestRoute } from '../route-table.js';
import { type RestSchema, declareShape, declaredShape } from './json-shapes.js';
import { BOOLEAN_WORDS } from '../booleans.js';
import { SERVICE } from '../../ops/version.js';
import {
  type SofaDocument,
  type DocumentedEndpoint,
  type DocumentedPath,
  openApiPath,
  fieldOf,
  SCALAR_TYPES,
  NULL_ONLY,
  METHOD_ORDER,
  hasBody,
  sofaOperationOf,
} from './paths.js';
import {
  DISCOVERY_ERRORS,
  ERROR_RESPONSES,
  NAMESPACE_INDEX,
  OPENAPI_DOCUMENT,
  WORDPRESS_ERROR,
  json,
  ref,
} from './openapi-shapes.js';

// The OpenAPI document of the REST API (`/doc`), from the documented routes (paths.ts); its fixed error
// responses and discovery shapes are `openapi-shapes.ts`.

/**
 * The schema of a JSON field's value: the WordPress shape it declares (`jsonShape`), in the lists its
 * GraphQL type wraps it in; undefined for any other field, or a JSON field that declares none.
 */
function jsonFieldSchema(
  field: GraphQLField<unknown, unknown>,
  components: ShapeComponents,
): RestSchema | undefined {
  if (getNamedType(field.type).name !== 'JSON') return undefined;
  const declared = declaredShape(field);
  if (!declared) return undefined;
  components.add(declared.components);
  const shape = declared.schema;
  const wrap = (type: GraphQLOutputType, top: boolean): RestSchema => {
    const inner = getNullableType(type) as GraphQLOutputType;
    const schema: RestSchema = isListType(inner)
      ? { type: 'array', items: wrap(inner.ofType as GraphQLOutputType, false) }
      : shape;
    // The top level's null is the property's (not required); an item's is said here.
    return top || isNonNullType(type) ? schema : { anyOf: [schema, NULL_ONLY] };
  };
  const schema = wrap(field.type, true);
  // The field's own description, where a schema may carry one (a reference takes no siblings).
  return field.description && !('$ref' in schema) ? { ...schema, description: field.description } : schema;
}

/** The named shapes the documented JSON fields reach, in the order first reached. */
class ShapeComponents {
  readonly schemas: Record<string, OpenAPIV3.SchemaObject> = {};
  add(components: Record<string, OpenAPIV3.SchemaObject>): void {
    for (const [name, schema] of Object.entries(components)) {
      const known = this.schemas[name];
      if (known && JSON.stringify(known) !== JSON.stringify(schema))
        throw new Error(`/doc: two shapes are named ${name}`);
      this.schemas[name] = schema;
    }
  }
}

/**
 * SOFA's component schemas with GraphQL nullability made explicit (`nullable`, which SOFA leaves out)
 * and JSON fields typed by the shapes they declare; then the WordPress shapes themselves.
 */
function componentSchemas(
  sofa: SofaDocument,
  schema: GraphQLSchema,
  components: ShapeComponents,
): Record<string, RestSchema> {
  const roots = new Set([schema.getQueryType()?.name, schema.getMutationType()?.name]);
  const schemas: Record<string, RestSchema> = {};
  for (const [name, component] of Object.entries(sofa.components?.schemas ?? {})) {
    if (roots.has(name)) continue;
    const object = component as OpenAPIV3.SchemaObject;
    if (object.type !== 'object' || !object.properties) {
      schemas[name] = component;
      continue;
    }
    const type = schema.getType(name);
    const fields = isObjectType(type) ? type.getFields() : {};
    const required = new Set(object.required ?? []);
    const properties = Object.fromEntries(
      Object.entries(object.properties)
        .filter(([key]) => key !== RECORD_VERSION_KEY)
        .map(([key, sofaProperty]) => {
          const property = (fields[key] && jsonFieldSchema(fields[key], components)) ?? sofaProperty;
          if (required.has(key)) return [key, property];
          // OpenAPI 3.0's `nullable` needs a `type` beside it, so a nullable reference is spelled out.
          if ('$ref' in property) return [key, { anyOf: [{ $ref: property.$ref }, NULL_ONLY] }];
          // A combination of shapes admits null as one more branch.
          if (property.anyOf || property.allOf || property.oneOf)
            return [key, { anyOf: [property, NULL_ONLY] }];
          // A schema without a type (JSON) already admits null; `nullable` would need a type beside it.
          if (!('type' in property) || property.type === undefined) return [key, property];
          return [key, { ...property, nullable: true }];
        }),
    );
    schemas[name] = { ...object, properties };
  }
  const fixed = Object.entries({
    WordPressError: WORDPRESS_ERROR,
    NamespaceIndex: NAMESPACE_INDEX,
    OpenApiDocument: OPENAPI_DOCUMENT,
  }).map(([name, shape]) => {
    const declared = declareShape(shape);
    components.add(declared.components);
    return [name, declared.schema] as const;
  });
  const own: Record<string, RestSchema> = { ...components.schemas, ...Object.fromEntries(fixed) };
  const clash = Object.keys(own).find((name) => name in schemas);
  if (clash) throw new Error(`/doc: the schema ${clash} is both a GraphQL type and a declared shape`);
  return { ...schemas, ...own };
}

function headerSchema(field: GraphQLField<unknown, unknown>, key: string): OpenAPIV3.SchemaObject {
  const type = getNullableType(field.type as GraphQLOutputType);
  const resultField = isObjectType(type) ? type.getFields()[key] : undefined;
  const named = resultField ? getNamedType(resultField.type).name : 'String';
  return { type: (SCALAR_TYPES[named]?.type as OpenAPIV3.NonArraySchemaObjectType | undefined) ?? 'string' };
}

/** Reads are public; credentials, when sent, are checked and widen what is visible. */
const READ_SECURITY: OpenAPIV3.SecurityRequirementObject[] = [{}, { applicationPassword: [] }];

type RestDocument = NonNullable<RestRoute['document']>;

const mediaType = (document: RestDocument) => document.contentType.split(';')[0]!.trim();

/** A document route's body: the document itself, not JSON (its errors stay JSON). */
function documentContent(document: RestDocument): Record<string, OpenAPIV3.MediaTypeObject> {
  return {
    [mediaType(document)]: { schema: { type: 'string', description: `The ${mediaType(document)} document` } },
  };
}

function documentHeaders(document: RestDocument): Record<string, OpenAPIV3.HeaderObject> {
  return {
    ETag: {
      description:
        'A strong validator of the document: sent back as `If-None-Match`, it answers 304 while unchanged',
      schema: { type: 'string' },
    },
    ...(document.filenameKey
      ? {
          'Content-Disposition': {
            description: `\`${document.disposition ?? 'inline'}\`, with the file name (the result's \`${document.filenameKey}\`)`,
            schema: { type: 'string' },
          },
        }
      : {}),
  };
}

const NOT_MODIFIED: OpenAPIV3.ResponseObject = {
  description: 'Not modified: the document still has the `ETag` sent in `If-None-Match`',
};

function restOperation(
  endpoint: DocumentedEndpoint & { route: RestRoute },
  method: HttpMethod,
  schema: GraphQLSchema,
  sofa: SofaDocument,
  tag: string,
  alternates: RestRoute[],
  components: ShapeComponents,
): OpenAPIV3.OperationObject {
  const { route, args } = endpoint;
  const field = fieldOf(schema, route.operation);
  const sofaOperation = sofaOperationOf(sofa, route);
  const isMutation = route.operation.startsWith('Mutation.');
  const parameters: OpenAPIV3.ParameterObject[] = args
    .filter((arg) => arg.in !== 'body')
    .map((arg) => ({
      name: arg.name,
      in: arg.in,
      required: arg.in === 'path' || arg.arg.required,
      ...(arg.arg.description ? { description: arg.arg.description } : {}),
      schema: arg.schema,
      // Lists are accepted as `a=1,2` (documented) as well as `a[]=1&a[]=2`.
      ...(arg.arg.type === 'array' ? { style: 'form', explode: false } : {}),
    }));
  // The switch to a document route is a boolean: its answer is documented there alone, so that this
  // route's answers stay JSON only (a typed client reads them without telling the two apart).
  const words = (list: readonly string[]) => list.map((word) => `\`${word}\``).join(', ');
  for (const alternate of alternates)
    parameters.push({
      name: alternate.alsoAt!.flag,
      in: 'query',
      required: false,
      description:
        `${words(BOOLEAN_WORDS.true)} (any case): answers as \`GET ${openApiPath(alternate.path)}\` does ` +
        `with this query, a ${mediaType(alternate.document!)} document (documented there); ` +
        `${words(BOOLEAN_WORDS.false.filter(Boolean))} or empty: this route's answer; ` +
        'any other value: 400 `rest_invalid_param`',
      schema: { type: 'boolean' },
    });
  const operation: OpenAPIV3.OperationObject = {
    operationId: '',
    summary: route.description,
    ...(field.description ? { description: field.description } : {}),
    tags: [tag],
    parameters,
    responses: {},
  };
  const bodyArgs = args.filter((arg) => arg.in === 'body');
  if (hasBody(method)) {
    const body: OpenAPIV3.SchemaObject = {
      type: 'object',
      properties: Object.fromEntries(bodyArgs.map((arg) => [arg.name, arg.schema])),
      // Unknown and read-only fields are ignored, as the reference does.
      additionalProperties: true,
    };
    const required = bodyArgs.filter((arg) => arg.arg.required).map((arg) => arg.name);
    if (required.length) body.required = required;
    operation.requestBody = {
      required: required.length > 0,
      content: {
        'application/json': { schema: body },
        'application/x-www-form-urlencoded': { schema: body },
      },
    };
  }
  const status = String(route.status ?? 200);
  const sofaResponse = sofaOperation?.responses?.['200'] as OpenAPIV3.ResponseObject | undefined;
  const headers: Record<string, OpenAPIV3.HeaderObject> = {};
  for (const [header, key] of Object.entries(route.headers ?? {})) {
    headers[header] = { description: `The result's \`${key}\``, schema: headerSchema(field, key) };
  }
  if (route.locationFrom)
    headers.Location = {
      description: 'The URL of the new record',
      schema: { type: 'string', format: 'uri' },
    };
  if (route.document) Object.assign(headers, documentHeaders(route.document));
  const declared = jsonFieldSchema(field, components);
  const content = route.document
    ? documentContent(route.document)
    : declared
      ? json(declared)
      : (sofaResponse?.content ?? json({}));
  operation.responses = {
    [status]: {
      description: route.description,
      ...(Object.keys(headers).length ? { headers } : {}),
      content,
    },
    ...(route.document ? { '304': NOT_MODIFIED } : {}),
    '400': { $ref: '#/components/responses/BadRequest' },
    '401': { $ref: '#/components/responses/Unauthorized' },
    '403': { $ref: '#/components/responses/Forbidden' },
    '404': { $ref: '#/components/responses/NotFound' },
    ...(method === 'DELETE' ? { '410': { $ref: '#/components/responses/Gone' } } : {}),
    default: { $ref: '#/components/responses/Error' },
  };
  operation.security = isMutation ? [{ applicationPassword: [] }] : READ_SECURITY;
  operation.operationId =
    sofaOperation?.operationId ?? `${route.operation.split('.')[1]}_${isMutation ? 'mutation' : 'query'}`;
  return operation;
}

export function buildOpenApi(schema: GraphQLSchema, sofa: SofaDocument, documented: DocumentedPath[]) {
  const paths: OpenAPIV3.PathsObject = {};
  const tags: string[] = [];
  const operationIds = new Set<string>();
  const components = new ShapeComponents();
  const routes = documented.flatMap((entry) => entry.endpoints.flatMap((endpoint) => endpoint.route ?? []));
  for (const entry of documented) {
    // The first segment names the resource (`/events.ics` is the events' feed).
    const segment = entry.path.split('/')[1]?.replace(/\.\w+$/, '');
    const tag = segment && entry.path !== '/doc' ? segment : 'discovery';
    if (!tags.includes(tag)) tags.push(tag);
    const item: OpenAPIV3.PathItemObject = {};
    for (const endpoint of entry.endpoints) {
      for (const method of endpoint.methods) {
        const key = method.toLowerCase() as OpenAPIV3.HttpMethods;
        let operation: OpenAPIV3.OperationObject;
        if (endpoint.route) {
          operation = restOperation(
            endpoint as DocumentedEndpoint & { route: RestRoute },
            method,
            schema,
            sofa,
            tag,
            method === 'GET' ? routes.filter((route) => route.alsoAt?.path === entry.path) : [],
            components,
          );
        } else if (entry.path === '') {
          operation = {
            operationId: 'namespaceIndex',
            summary: 'The namespace index: every route, its methods and arguments',
            tags: [tag],
            parameters: endpoint.args.map((arg) => ({
              name: arg.name,
              in: 'query',
              required: false,
              description: arg.arg.description,
              schema: arg.schema,
            })),
            security: READ_SECURITY,
            responses: {
              '200': { description: 'The namespace index', content: json(ref('NamespaceIndex')) },
              ...DISCOVERY_ERRORS,
            },
          };
        } else {
          operation = {
            operationId: 'openApiDocument',
            summary: 'This document',
            tags: [tag],
            security: READ_SECURITY,
            responses: {
              '200': {
                description: 'The OpenAPI 3.0 document of this API',
                content: json(ref('OpenApiDocument')),
              },
              ...DISCOVERY_ERRORS,
            },
          };
        }
        let id = operation.operationId!;
        if (operationIds.has(id)) id = `${id}_${key}`;
        operationIds.add(id);
        item[key] = { ...operation, operationId: id };
      }
    }
    const ordered = Object.fromEntries(
      METHOD_ORDER.map((method) => method.toLowerCase())
        .filter((key) => key in item)
        .map((key) => [key, item[key as OpenAPIV3.HttpMethods]]),
    );
    paths[openApiPath(entry.path)] = ordered;
  }
  const info: OpenAPIV3.InfoObject = {
    title: 'Calendar REST API',
    version: SERVICE.version,
    description:
      'Events, venues, organizers, categories and tags, compatible with The Events Calendar REST API v1 ' +
      '(namespace `tribe/events/v1`, served here as `calendar/events/v1`). The same data is served by the ' +
      'GraphQL API at `/graphql`. Write routes authenticate with HTTP Basic and an application password. ' +
      'Every route is also served under a language segment: `/{lang}/calendar/events/v1/...`.',
  };
  return {
    info,
    components: {
      schemas: usedSchemas(componentSchemas(sofa, schema, components), paths),
      responses: ERROR_RESPONSES,
      securitySchemes: {
        applicationPassword: {
          type: 'http',
          scheme: 'basic',
          description: 'A user login and one of their application passwords',
        },
      } satisfies Record<string, OpenAPIV3.SecuritySchemeObject>,
    },
    tags: tags.map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `The \`/${name}\` routes` })),
    paths,
  };
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  discovery: 'What this API serves: the namespace index and this document',
  events: 'Events: lists, single events, their iCalendar feeds, and writes',
  venues: 'Venues, by id or slug',
  organizers: 'Organizers, by id or slug',
  categories: 'Event categories (a hierarchical taxonomy)',
  tags: 'Event tags',
  changes: 'Incremental sync: what changed since a sync token',
};

/**
 * The component schemas the paths reach, transitively. SOFA describes every root field's result,
 * also those a route sends as a document rather than JSON (the iCalendar feeds' `TecFeed`).
 */
function usedSchemas<T>(schemas: Record<string, T>, paths: OpenAPIV3.PathsObject): Record<string, T> {
  const used = new Set<string>();
  const visit = (node: unknown) => {
    for (const [, name] of JSON.stringify(node).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) {
      if (used.has(name!)) continue;
      used.add(name!);
      visit(schemas[name!]);
    }
  };
  visit([paths, ERROR_RESPONSES]);
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
}
