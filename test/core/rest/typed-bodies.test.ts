import {
  type GraphQLInputType,
  getNamedType,
  getNullableType,
  isInputObjectType,
  isScalarType,
} from 'graphql';
import type { OpenAPIV3 } from 'openapi-types';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../../../rest-map/routes.js';
import { ticketRoutes } from '../../../rest-map/tickets.js';
import { createDiscovery } from '../../../src/core/rest/discovery/discovery.js';
import { documentedBody } from '../../../src/core/rest/discovery/paths.js';
import { restOperations } from '../../../src/core/rest/operations.js';
import { restSchema } from '../../../src/schema.js';
import { API, type Harness } from '../../helpers/harness.js';
import { type Users, startWithRoles } from '../../helpers/users.js';

// The REST writes' bodies are typed in the rest sub-graph: each is an input object derived from its
// body table, never `JSON`. GraphQL still refuses nothing a WordPress client sends: unknown parameters
// are dropped at the edge, and a value its reader cannot read is named in the write's one 400.

const TICKETS = '/calendar/tickets/v1';
const mutations = Object.values(restSchema.getMutationType()!.getFields());
const writes = [...restRoutes, ...ticketRoutes].filter((route) => route.bodyArgument);

const bodyType = (type: GraphQLInputType) => getNullableType(type);

describe('the REST mutations’ arguments', () => {
  it('are never the JSON scalar', () => {
    const json = mutations.flatMap((field) =>
      field.args
        .filter((arg) => getNamedType(arg.type).name === 'JSON')
        .map((arg) => `${field.name}(${arg.name})`),
    );
    expect(mutations.length).toBeGreaterThan(10);
    expect(json).toEqual([]);
  });

  it.each(writes.map((route) => [route.operation, route] as const))(
    '%s takes its body as an input object of body scalars, declaring every documented field',
    (operation, route) => {
      const field = restSchema.getMutationType()!.getFields()[operation.split('.')[1]!]!;
      const body = field.args.find((arg) => arg.name === route.bodyArgument)!;
      const type = bodyType(body.type);
      expect(isInputObjectType(type), String(body.type)).toBe(true);
      if (!isInputObjectType(type)) return;
      const fields = Object.values(type.getFields());
      expect(
        fields.filter((input) => !isScalarType(input.type) || !input.type.name.startsWith('Body')),
      ).toEqual([]);
      expect(fields.filter((input) => !input.description)).toEqual([]);
      // Every field it takes is documented, and what it omits is a field of its type.
      expect(Object.keys(documentedBody(restSchema, route)).length).toBeGreaterThan(0);
    },
  );

  it('are described by their input types in the OpenAPI document SOFA makes', () => {
    const { document } = restOperations(restSchema, restRoutes, pino({ level: 'silent' }));
    const schema = document.components!.schemas!.TecEventBody as OpenAPIV3.SchemaObject;
    expect(schema.type).toBe('object');
    expect(schema.properties!.title).toEqual({ description: 'The event title' });
    expect(Object.keys(schema.properties!)).toEqual(
      Object.keys((restSchema.getType('TecEventBody') as { getFields(): object }).getFields()),
    );
  });

  it('are documented from their input types: a route cannot omit a parameter its type lacks', () => {
    const venues = restRoutes.find((route) => route.operation === 'Mutation.tecCreateVenue')!;
    expect(documentedBody(restSchema, venues).venue).toMatchObject({ required: true });
    expect(documentedBody(restSchema, venues).password).toBeUndefined();
    const update = restRoutes.find((route) => route.operation === 'Mutation.tecUpdateVenue')!;
    expect(documentedBody(restSchema, update)).toMatchObject({ venue: { required: false }, password: {} });
    const route = { ...venues, bodyOmits: ['password', 'capacity'] };
    const { document } = restOperations(restSchema, [route], pino({ level: 'silent' }));
    expect(() => createDiscovery({ schema: restSchema, routes: [route], sofaDocument: document })).toThrow(
      'rest-map: Mutation.tecCreateVenue omits capacity, which its body type lacks',
    );
  });
});

describe('a REST write body', () => {
  let h: Harness;
  let users: Users;

  beforeAll(async () => {
    ({ h, users } = await startWithRoles());
  });
  afterAll(() => h.close());

  const post = (path: string, body: object) =>
    h.http.post(path).auth(users.administrator.login, users.administrator.password).send(body);

  const BAD: Array<[string, Record<string, unknown>]> = [
    [
      `${API}/events`,
      { title: 'Typed', start_date: 'soonish', end_date: '2031-01-15 21:00:00', all_day: 'maybe' },
    ],
    [`${API}/venues`, { venue: ['Hall'], author: 'abc' }],
    [`${API}/organizers`, { organizer: 'Org', author: 'abc' }],
    [`${API}/categories`, { name: 12, parent: 'top' }],
    [`${API}/tags`, { name: ['tag'] }],
    [`${TICKETS}/qr`, { security_code: 12 }],
  ];

  it.each(BAD)(
    '%s: an unknown parameter is ignored, a bad known one answers the same 400',
    async (path, bad) => {
      const alone = await post(path, bad);
      expect(alone.status, JSON.stringify(alone.body)).toBe(400);
      expect(alone.body.code).toBe('rest_invalid_param');
      const withUnknown = await post(path, { ...bad, not_a_parameter: { any: 'thing' }, json_ld: [] });
      expect(withUnknown.status).toBe(400);
      // The same answer but for the request's own id.
      const answer = (body: { data: Record<string, unknown> }) => ({
        ...body,
        data: { ...body.data, request_id: null },
      });
      expect(answer(withUnknown.body)).toEqual(answer(alone.body));
    },
  );

  it('names every unreadable parameter in the one 400', async () => {
    const res = await post(`${API}/venues`, { venue: ['Hall'], author: 'abc', geo_lat: {}, unknown: 1 });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.data.params).sort()).toEqual(['author', 'geo_lat', 'venue']);
  });

  it('is written with its unknown parameters ignored', async () => {
    const res = await post(`${API}/venues`, { venue: 'Typed hall', city: 12, not_a_parameter: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ venue: 'Typed hall', city: '12' });
    expect(res.body).not.toHaveProperty('not_a_parameter');
  });
});
