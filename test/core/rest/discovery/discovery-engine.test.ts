import { Validator } from '@seriousme/openapi-schema-validator';
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
} from 'graphql';
import { JSONResolver } from 'graphql-scalars';
import Koa from 'koa';
import type { OpenAPIV3 } from 'openapi-types';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import type { RestRoute } from '../../../../src/core/rest/route-table.js';
import type { Context } from '../../../../src/core/context/context.js';
import { siteUrls } from '../../../../src/core/rules/urls.js';
import { createLogger } from '../../../../src/core/ops/logger.js';
import { createRestRouter } from '../../../../src/core/rest/router.js';
import { documentedAs } from '../../../../src/core/rest/body-fields.js';
import { API } from '../../../helpers/harness.js';

// The index and /doc are generated, not written: a throw-away schema and route table come out
// described exactly as declared (argument types, descriptions, defaults, bodies, statuses, headers).

const Thing = new GraphQLObjectType({
  name: 'Thing',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLInt), description: 'The thing ID' },
    label: { type: GraphQLString },
    rest_url: { type: new GraphQLNonNull(GraphQLString) },
  },
});
const Things = new GraphQLObjectType({
  name: 'ThingList',
  fields: {
    things: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Thing))) },
    total: { type: new GraphQLNonNull(GraphQLInt) },
  },
});
const ThingText = new GraphQLObjectType({
  name: 'ThingText',
  fields: {
    text: { type: new GraphQLNonNull(GraphQLString) },
    name: { type: new GraphQLNonNull(GraphQLString) },
  },
});
const Order = new GraphQLEnumType({ name: 'ThingOrder', values: { asc: {}, desc: {} } });
const thing = { id: 1, label: null, rest_url: 'http://x/things/1' };
// A flat body: each field carries the documentation the index and /doc print.
const ThingBody = new GraphQLInputObjectType({
  name: 'ThingBody',
  fields: {
    label: {
      type: JSONResolver,
      extensions: documentedAs({ type: 'string', description: 'The label', required: true }),
    },
    flags: {
      type: JSONResolver,
      extensions: documentedAs({
        type: 'array',
        items: { type: 'integer' },
        description: 'Flags',
        default: null,
      }),
    },
    owner: {
      type: JSONResolver,
      extensions: documentedAs({ type: ['integer', 'object'], description: 'An owner ID or owner fields' }),
    },
    parent: {
      type: JSONResolver,
      extensions: documentedAs({
        type: ['integer', 'string'],
        description: 'A parent ID or slug',
        default: null,
      }),
    },
  },
});

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      things: {
        type: new GraphQLNonNull(Things),
        description: 'Every thing.',
        args: {
          page: { type: GraphQLInt, description: 'The archive page to return', defaultValue: 1 },
          include: { type: new GraphQLList(new GraphQLNonNull(GraphQLInt)), description: 'Only these IDs' },
          order: { type: Order, description: 'Sort order', defaultValue: 'asc' },
          hide_empty: { type: GraphQLBoolean, description: 'Hide empty things' },
        },
        resolve: () => ({ things: [thing], total: 1 }),
      },
      thing: {
        type: new GraphQLNonNull(Thing),
        args: { id: { type: new GraphQLNonNull(GraphQLInt), description: 'the thing ID' } },
        resolve: () => thing,
      },
      thingText: {
        type: new GraphQLNonNull(ThingText),
        args: { id: { type: new GraphQLNonNull(GraphQLInt), description: 'the thing ID' } },
        resolve: () => ({ text: 'Thing 1', name: 'thing-1.txt' }),
      },
    },
  }),
  mutation: new GraphQLObjectType({
    name: 'Mutation',
    fields: {
      createThing: {
        type: new GraphQLNonNull(Thing),
        args: { input: { type: ThingBody } },
        resolve: () => thing,
      },
      updateThing: {
        type: new GraphQLNonNull(Thing),
        args: {
          id: { type: new GraphQLNonNull(GraphQLInt) },
          password: { type: GraphQLString, description: 'The thing password' },
          input: { type: ThingBody },
        },
        resolve: () => thing,
      },
    },
  }),
});

const routes: RestRoute[] = [
  {
    methods: ['GET'],
    path: '/things',
    operation: 'Query.things',
    headers: { 'X-Total': 'total' },
    description: 'List things',
  },
  {
    methods: ['POST'],
    path: '/things',
    operation: 'Mutation.createThing',
    status: 201,
    bodyArgument: 'input',
    locationFrom: 'rest_url',
    description: 'Create a thing',
  },
  {
    methods: ['GET'],
    path: '/things/:id.txt',
    operation: 'Query.thingText',
    document: { contentType: 'text/plain; charset=utf-8', bodyKey: 'text', filenameKey: 'name' },
    alsoAt: { path: '/things/:id', flag: 'raw' },
    description: 'One thing as text',
  },
  { methods: ['GET'], path: '/things/:id', operation: 'Query.thing', description: 'One thing' },
  {
    methods: ['POST', 'PUT', 'PATCH'],
    path: '/things/:id',
    operation: 'Mutation.updateThing',
    bodyArgument: 'input',
    bodyOptional: true,
    bodyOmits: ['flags', 'owner', 'parent'],
    description: 'Update a thing',
  },
];

const SITE = 'http://things.test:9000';
const app = new Koa();
app.use(
  createRestRouter({
    schema,
    routes,
    createContext: (_koa, { languageSegment }) => ({ urls: siteUrls(SITE, languageSegment) }) as Context,
    logger: createLogger('silent'),
  }).routes(),
);
const http = supertest(app.callback());

describe('the namespace index of any route table', () => {
  it('lists the declared routes, merged by path, with arguments from the schema and the body fields', async () => {
    const { body } = await http.get(API).expect(200);
    expect(Object.keys(body.routes)).toEqual([
      API,
      `${API}/doc`,
      `${API}/things`,
      `${API}/things/(?P<id>\\d+).txt`,
      `${API}/things/(?P<id>\\d+)`,
    ]);
    expect(body.routes[`${API}/things`]).toEqual({
      namespace: 'calendar/events/v1',
      methods: ['GET', 'POST'],
      endpoints: [
        {
          methods: ['GET'],
          args: {
            page: { type: 'integer', description: 'The archive page to return', default: 1, required: false },
            include: {
              type: 'array',
              items: { type: 'integer' },
              description: 'Only these IDs',
              required: false,
            },
            order: {
              type: 'string',
              enum: ['asc', 'desc'],
              description: 'Sort order',
              default: 'asc',
              required: false,
            },
            hide_empty: { type: 'boolean', description: 'Hide empty things', required: false },
          },
        },
        {
          methods: ['POST'],
          args: {
            label: { type: 'string', description: 'The label', required: true },
            flags: {
              type: 'array',
              items: { type: 'integer' },
              description: 'Flags',
              default: null,
              required: false,
            },
            owner: {
              type: ['integer', 'object'],
              description: 'An owner ID or owner fields',
              required: false,
            },
            parent: {
              type: ['integer', 'string'],
              description: 'A parent ID or slug',
              default: null,
              required: false,
            },
          },
        },
      ],
      _links: { self: [{ href: `${SITE}${API}/things` }] },
    });
    expect(body.routes[`${API}/things/(?P<id>\\d+)`]).toEqual({
      namespace: 'calendar/events/v1',
      methods: ['GET', 'POST', 'PUT', 'PATCH'],
      endpoints: [
        { methods: ['GET'], args: { id: { type: 'integer', description: 'the thing ID', required: true } } },
        {
          methods: ['POST', 'PUT', 'PATCH'],
          args: {
            id: { type: 'integer', required: true },
            password: { type: 'string', description: 'The thing password', required: false },
            label: { type: 'string', description: 'The label', required: false },
          },
        },
      ],
    });
  });
});

describe('the OpenAPI document of any route table', () => {
  const documentOf = async (path = `${API}/doc`) =>
    (await http.get(path).expect(200)).body as OpenAPIV3.Document;

  it('is valid and rooted at the site the request used', async () => {
    const doc = await documentOf(`/de-CH${API}/doc`);
    expect((await new Validator().validate(structuredClone(doc) as never)).valid).toBe(true);
    expect(doc.servers).toEqual([{ url: `${SITE}/de-CH${API}/`, description: expect.any(String) }]);
    expect(Object.keys(doc.paths)).toEqual(['/', '/doc', '/things', '/things/{id}.txt', '/things/{id}']);
    expect(Object.keys(doc.paths['/things/{id}']!)).toEqual(['get', 'post', 'put', 'patch']);
  });

  it('takes response schemas from SOFA, with nullability and the WordPress error shape added', async () => {
    const doc = await documentOf();
    const schemas = doc.components!.schemas! as Record<string, OpenAPIV3.SchemaObject>;
    expect(schemas.Query).toBeUndefined();
    expect(schemas.Thing!.required).toEqual(['id', 'rest_url']);
    expect(schemas.Thing!.properties!.label).toEqual({ type: 'string', nullable: true });
    expect(schemas.Thing!.properties!.id).toMatchObject({ type: 'integer', description: 'The thing ID' });
    expect(schemas.WordPressError!.required).toEqual(['code', 'message', 'data']);
    const list = doc.paths['/things']!.get!;
    expect(list.summary).toBe('List things');
    expect(list.description).toBe('Every thing.');
    expect(list.responses['200']).toMatchObject({
      headers: { 'X-Total': { schema: { type: 'integer' } } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingList' } } },
    });
    expect(list.responses['404']).toEqual({ $ref: '#/components/responses/NotFound' });
    expect(doc.components!.responses!.NotFound).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/WordPressError' } } },
    });
  });

  it('documents WordPress query parameters: defaults, enums, comma lists', async () => {
    const parameters = (await documentOf()).paths['/things']!.get!.parameters as OpenAPIV3.ParameterObject[];
    expect(parameters.map((p) => p.name)).toEqual(['page', 'include', 'order', 'hide_empty']);
    expect(parameters[0]).toMatchObject({
      in: 'query',
      required: false,
      description: 'The archive page to return',
      schema: { type: 'integer', default: 1 },
    });
    expect(parameters[1]).toMatchObject({
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'integer' } },
    });
    expect(parameters[2]).toMatchObject({
      schema: { allOf: [{ $ref: '#/components/schemas/ThingOrder' }], default: 'asc' },
    });
    expect((await documentOf()).components!.schemas!.ThingOrder).toMatchObject({
      type: 'string',
      enum: ['asc', 'desc'],
    });
  });

  it('documents flat bodies (JSON and form), creation statuses, Location and authentication', async () => {
    const doc = await documentOf();
    const create = doc.paths['/things']!.post!;
    expect(create.parameters).toEqual([]);
    const body = (create.requestBody as OpenAPIV3.RequestBodyObject).content['application/json']!
      .schema as OpenAPIV3.SchemaObject;
    expect(body.required).toEqual(['label']);
    expect(body.properties).toEqual({
      label: { type: 'string', description: 'The label' },
      flags: {
        type: 'array',
        items: { type: 'integer' },
        description: 'Flags',
        default: null,
        nullable: true,
      },
      owner: {
        anyOf: [{ type: 'integer' }, { type: 'object', additionalProperties: true }],
        description: 'An owner ID or owner fields',
      },
      // null admitted beside the types (OpenAPI 3.0 ignores a `nullable` without a `type`).
      parent: {
        anyOf: [{ type: 'integer' }, { type: 'string' }, { type: 'object', nullable: true, enum: [null] }],
        description: 'A parent ID or slug',
        default: null,
      },
    });
    expect(
      (create.requestBody as OpenAPIV3.RequestBodyObject).content['application/x-www-form-urlencoded']!
        .schema,
    ).toEqual(body);
    expect(Object.keys(create.responses)).toEqual(['201', '400', '401', '403', '404', 'default']);
    expect((create.responses['201'] as OpenAPIV3.ResponseObject).headers!.Location).toBeDefined();
    expect(create.security).toEqual([{ applicationPassword: [] }]);
    expect(doc.paths['/things']!.get!.security).toEqual([{}, { applicationPassword: [] }]);

    const update = doc.paths['/things/{id}']!;
    const ids = ['post', 'put', 'patch'].map(
      (method) => update[method as OpenAPIV3.HttpMethods]!.operationId,
    );
    expect(new Set(ids).size).toBe(3);
    const updateBody = (update.put!.requestBody as OpenAPIV3.RequestBodyObject).content['application/json']!
      .schema as OpenAPIV3.SchemaObject;
    expect(Object.keys(updateBody.properties!)).toEqual(['password', 'label']);
    expect(updateBody.required).toBeUndefined();
    expect((update.put!.parameters as OpenAPIV3.ParameterObject[]).map((p) => [p.name, p.in])).toEqual([
      ['id', 'path'],
    ]);
  });

  it('documents a document route as what it answers: the document, its headers, its errors as JSON', async () => {
    const doc = await documentOf();
    const text = doc.paths['/things/{id}.txt']!.get!;
    const ok = text.responses['200'] as OpenAPIV3.ResponseObject;
    expect(ok.content).toEqual({
      'text/plain': { schema: { type: 'string', description: 'The text/plain document' } },
    });
    expect(Object.keys(ok.headers!)).toEqual(['ETag', 'Content-Disposition']);
    expect(text.responses['304']).toMatchObject({ description: expect.any(String) });
    expect(text.responses['304']).not.toHaveProperty('content');
    expect(text.responses['404']).toEqual({ $ref: '#/components/responses/NotFound' });
    // The result type SOFA described is never answered as JSON: not a component.
    expect(doc.components!.schemas).not.toHaveProperty('ThingText');
    expect(doc.components!.schemas).toHaveProperty('Thing');
    // The flag that reaches it from another route: a boolean parameter there, while that route's
    // answer stays JSON only (a typed client reads it without telling two media types apart).
    const one = doc.paths['/things/{id}']!.get!;
    expect((one.parameters as OpenAPIV3.ParameterObject[]).map((p) => [p.name, p.in])).toEqual([
      ['id', 'path'],
      ['raw', 'query'],
    ]);
    const raw = (one.parameters as OpenAPIV3.ParameterObject[]).find((p) => p.name === 'raw')!;
    expect(raw.schema).toEqual({ type: 'boolean' });
    expect(Object.keys((one.responses['200'] as OpenAPIV3.ResponseObject).content!)).toEqual([
      'application/json',
    ]);
    // As the route answers.
    for (const path of [`${API}/things/1.txt`, `${API}/things/1?raw=1`]) {
      const res = await http.get(path).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain\b/);
      expect(res.headers['content-disposition']).toBe('inline; filename="thing-1.txt"');
      expect(res.headers.etag).toMatch(/^"/);
    }
  });
});
