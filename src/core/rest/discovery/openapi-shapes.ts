import type { OpenAPIV3 } from 'openapi-types';
import { LINK_LIST, WORDPRESS_EMPTY_ARRAY } from './wordpress-shapes.js';
import { NAMESPACE } from './paths.js';

// The fixed parts of the OpenAPI document (`openapi.ts`): the error responses every route shares, in
// WordPress's error shape, and the shapes of the discovery documents themselves (the namespace index,
// the OpenAPI outline `/doc` answers with), declared once apart from the document built from the routes.

export const json = (schema: OpenAPIV3.SchemaObject | OpenAPIV3.ReferenceObject) => ({
  'application/json': { schema },
});
export const ref = (name: string): OpenAPIV3.ReferenceObject => ({ $ref: `#/components/schemas/${name}` });
const errorResponse = (description: string): OpenAPIV3.ResponseObject => ({
  description,
  content: json(ref('WordPressError')),
});

export const ERROR_RESPONSES: Record<string, OpenAPIV3.ResponseObject> = {
  BadRequest: errorResponse(
    'Invalid or missing parameters (`rest_invalid_param` with `data.params`, `rest_missing_callback_param`, …)',
  ),
  Unauthorized: errorResponse(
    'Authentication is required, or the credentials were refused (`rest_forbidden`, `incorrect_password`)',
  ),
  Forbidden: errorResponse('The authenticated user may not do this (`rest_forbidden`)'),
  NotFound: errorResponse(
    'No such record or page (`rest-event-not-found`, `venue-not-found`, `event-archive-page-not-found`, …)',
  ),
  Gone: errorResponse('The record is already in the trash'),
  NoRoute: errorResponse('No route matches the URL (`rest_no_route`): an invalid language segment'),
  Error: errorResponse(
    'Any other error, in the WordPress error shape (405 wrong method with `Allow`, 413 body too large, 500)',
  ),
};

/** The namespace index and `/doc` take no record: only their path can be wrong. */
export const DISCOVERY_ERRORS: OpenAPIV3.ResponsesObject = {
  '404': { $ref: '#/components/responses/NoRoute' },
  default: { $ref: '#/components/responses/Error' },
};

export const WORDPRESS_ERROR: OpenAPIV3.SchemaObject = {
  type: 'object',
  description: 'The WordPress REST error shape',
  required: ['code', 'message', 'data'],
  properties: {
    code: { type: 'string', description: 'Machine-readable error code, e.g. `rest_invalid_param`' },
    message: { type: 'string', description: 'Human-readable message' },
    data: {
      type: 'object',
      required: ['status'],
      properties: {
        status: { type: 'integer', description: 'The HTTP status' },
        params: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'Each invalid parameter and why',
        },
        details: { description: 'Per-parameter details, when given' },
      },
      additionalProperties: true,
    },
  },
};

export const NAMESPACE_INDEX: OpenAPIV3.SchemaObject = {
  type: 'object',
  description: 'WordPress namespace index: every route of the namespace, its methods and arguments',
  required: ['namespace', 'routes', '_links'],
  properties: {
    namespace: { type: 'string', example: NAMESPACE },
    routes: {
      type: 'object',
      description: 'Keyed by the route regex, in registration order',
      additionalProperties: {
        type: 'object',
        required: ['namespace', 'methods', 'endpoints'],
        properties: {
          namespace: { type: 'string' },
          methods: { type: 'array', items: { type: 'string' } },
          endpoints: {
            type: 'array',
            items: {
              type: 'object',
              required: ['methods', 'args'],
              properties: {
                methods: { type: 'array', items: { type: 'string' } },
                args: {
                  description: 'Argument name → JSON-schema keywords and `required` (`[]` when none)',
                  oneOf: [
                    {
                      type: 'object',
                      additionalProperties: {
                        type: 'object',
                        required: ['required'],
                        properties: { required: { type: 'boolean' } },
                        additionalProperties: true,
                      },
                    },
                    WORDPRESS_EMPTY_ARRAY,
                  ],
                },
              },
            },
          },
          _links: {
            type: 'object',
            description: 'Routes without parameters only',
            required: ['self'],
            properties: { self: LINK_LIST },
          },
        },
      },
    },
    _links: { type: 'object', required: ['up'], properties: { up: LINK_LIST } },
  },
};

/** The outline of an OpenAPI 3.0 document (what `/doc` answers; the specification defines the rest). */
export const OPENAPI_DOCUMENT: OpenAPIV3.SchemaObject = {
  type: 'object',
  description: 'An OpenAPI 3.0 document: https://spec.openapis.org/oas/v3.0.3',
  required: ['openapi', 'info', 'paths'],
  properties: {
    openapi: { type: 'string', example: '3.0.3' },
    info: {
      type: 'object',
      required: ['title', 'version'],
      properties: { title: { type: 'string' }, version: { type: 'string' } },
      additionalProperties: true,
    },
    components: { type: 'object', additionalProperties: { type: 'object', additionalProperties: true } },
    servers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['url'],
        properties: { url: { type: 'string' } },
        additionalProperties: true,
      },
    },
    tags: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' } },
        additionalProperties: true,
      },
    },
    paths: { type: 'object', additionalProperties: { type: 'object', additionalProperties: true } },
  },
};
