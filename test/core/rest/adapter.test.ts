import Koa from 'koa';
import {
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLBoolean,
  GraphQLSchema,
  GraphQLString,
} from 'graphql';
import { JSONResolver } from 'graphql-scalars';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestRoute } from '../../../src/core/rest/route-table.js';
import type { Context } from '../../../src/core/context/context.js';
import { ApiError } from '../../../src/core/errors/errors.js';
import { createLogger } from '../../../src/core/ops/logger.js';
import { createRestRouter } from '../../../src/core/rest/router.js';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent } from '../../helpers/fixtures.js';

// The generic engine, driven by a throw-away schema and route table: what the rest-map promises
// (query normalisation, bodies, statuses, headers, errors) holds for any route.

/** The operations the echo route ran: the document SOFA built for the route, once. */
const operationsRun = new Set<unknown>();

const Echo = new GraphQLObjectType({
  name: 'Echo',
  fields: {
    args: { type: JSONResolver },
    total: { type: GraphQLInt },
    next: { type: GraphQLString },
    location: { type: GraphQLString },
  },
});

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      echo: {
        type: Echo,
        args: {
          id: { type: GraphQLInt },
          flag: { type: GraphQLBoolean },
          ids: { type: new GraphQLList(new GraphQLNonNull(GraphQLInt)) },
          words: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) },
          fail: { type: GraphQLString },
        },
        resolve: (_root, args: Record<string, unknown>, _context, info) => {
          operationsRun.add(info.operation);
          if (args.fail === 'api') throw new ApiError(409, 'some-conflict', 'Conflict', { detail: 'x' });
          if (args.fail === 'crash') throw new Error('SQLITE_BUSY: internal detail that must not leak');
          return { args, total: 7, next: null };
        },
      },
    },
  }),
  mutation: new GraphQLObjectType({
    name: 'Mutation',
    fields: {
      store: {
        type: Echo,
        args: { input: { type: JSONResolver } },
        resolve: (_root, args: Record<string, unknown>) => ({
          args,
          total: 1,
          location: 'http://x/things/1',
        }),
      },
      update: {
        type: Echo,
        args: { id: { type: new GraphQLNonNull(GraphQLInt) }, input: { type: JSONResolver } },
        resolve: (_root, args: Record<string, unknown>) => ({ args }),
      },
    },
  }),
});

const routes: RestRoute[] = [
  {
    methods: ['GET'],
    path: '/echo',
    operation: 'Query.echo',
    headers: { 'X-Total': 'total' },
    omitWhenNull: ['next'],
    description: 'echo',
  },
  {
    methods: ['POST'],
    path: '/echo',
    operation: 'Mutation.store',
    status: 201,
    bodyArgument: 'input',
    locationFrom: 'location',
    description: 'store',
  },
  {
    methods: ['POST', 'PUT', 'PATCH'],
    path: '/echo/:id',
    operation: 'Mutation.update',
    bodyArgument: 'input',
    description: 'update',
  },
];

const logged: unknown[] = [];
const app = new Koa();
const router = createRestRouter({
  schema,
  routes,
  createContext: () => ({}) as Context,
  logger: Object.assign(createLogger('silent'), {
    error: (...args: unknown[]) => logged.push(args),
  }) as never,
});
app.use(router.routes());
const http = supertest(app.callback());

describe('execution', () => {
  // The adapter compiles each route's document once (graphql-jit), keyed by the document object:
  // that holds only while SOFA hands every request of a route the document it built for it.
  it("runs every request of a route through the route's one document", async () => {
    operationsRun.clear();
    for (const query of ['id=1', 'id=2&flag=1', 'ids=3,4&words=a'])
      await http.get(`${API}/echo?${query}`).expect(200);
    expect(operationsRun.size).toBe(1);
  });
});

describe('query parameters', () => {
  it('accepts WordPress booleans, comma lists and a[] arrays', async () => {
    const res = await http.get(`${API}/echo?flag=1&ids=3,4&words[]=a&words[]=b&id=+5`).expect(200);
    expect(res.body.args).toEqual({ flag: true, ids: [3, 4], words: ['a', 'b'], id: 5 });
    const no = await http.get(`${API}/echo?flag=no&ids=7`).expect(200);
    expect(no.body.args).toEqual({ flag: false, ids: [7] });
  });

  it('refuses integers beyond 32 bits as bad parameters, in the query and in the path', async () => {
    const res = await http.get(`${API}/echo?id=99999999999`).expect(400);
    expect(res.body.data.params).toEqual({ id: 'Invalid parameter.' });
    const path = await http.post(`${API}/echo/99999999999`).send({}).expect(400);
    expect(path.body.data.params).toEqual({ id: 'Invalid parameter.' });
  });

  it('names every bad parameter in one rest_invalid_param', async () => {
    const res = await http.get(`${API}/echo?flag=maybe&ids=1,x&id=foo`).expect(400);
    expect(res.body).toEqual({
      code: 'rest_invalid_param',
      message: 'Invalid parameter(s): id, flag, ids',
      data: {
        status: 400,
        params: { id: 'Invalid parameter.', flag: 'Invalid parameter.', ids: 'Invalid parameter.' },
        details: [],
      },
    });
  });
});

describe('responses', () => {
  it('sets declared headers, drops declared null keys, and says which methods are allowed', async () => {
    const res = await http.get(`${API}/echo`).expect(200);
    expect(res.headers['x-total']).toBe('7');
    expect(res.headers.allow).toBe('GET, POST');
    expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(res.body).not.toHaveProperty('next');
  });

  it('turns an ApiError into the WordPress error shape', async () => {
    const res = await http.get(`${API}/echo?fail=api`).expect(409);
    expect(res.body).toEqual({
      code: 'some-conflict',
      message: 'Conflict',
      data: { status: 409, detail: 'x' },
    });
  });

  it('hides unexpected failures behind a logged 500', async () => {
    const res = await http.get(`${API}/echo?fail=crash`).expect(500);
    expect(res.body.code).toBe('internal_server_error');
    expect(JSON.stringify(res.body)).not.toMatch(/SQLITE|stack/);
    expect(logged).toHaveLength(1);
  });
});

describe('bodies', () => {
  it('maps a flat JSON body onto the body argument, with status and Location', async () => {
    const res = await http
      .post(`${API}/echo`)
      .send({ title: 'A', venue: { id: 3 } })
      .expect(201);
    expect(res.body.args).toEqual({ input: { title: 'A', venue: { id: 3 } } });
    expect(res.headers.location).toBe('http://x/things/1');
  });

  it('accepts form-encoded bodies', async () => {
    const res = await http.post(`${API}/echo`).type('form').send('title=B&all_day=1').expect(201);
    expect(res.body.args.input).toEqual({ title: 'B', all_day: '1' });
  });

  it('serves PUT and PATCH like POST on update routes, with the path id', async () => {
    for (const method of ['put', 'patch', 'post'] as const) {
      const res = await http[method](`${API}/echo/12`).send({ title: 'C' }).expect(200);
      expect(res.body.args).toEqual({ id: 12, input: { title: 'C' } });
    }
  });

  it('answers malformed JSON with 400 rest_invalid_json', async () => {
    const res = await http
      .post(`${API}/echo`)
      .set('content-type', 'application/json')
      .send('{"title": ')
      .expect(400);
    expect(res.body.code).toBe('rest_invalid_json');
  });
});

describe('routing', () => {
  it('refuses a route table that maps one operation twice (SOFA keeps one route per operation)', () => {
    expect(() =>
      createRestRouter({
        schema,
        routes: [routes[0]!, { ...routes[0]!, path: '/other' }],
        createContext: () => ({}) as Context,
        logger: createLogger('silent'),
      }),
    ).toThrow(/Query\.echo/);
  });

  it('answers a wrong method on a known path with 405 and Allow', async () => {
    const res = await http.delete(`${API}/echo`).expect(405);
    expect(res.headers.allow).toBe('GET, POST');
    expect(res.body.code).toBe('rest_no_route');
  });

  it('answers unknown paths and non-numeric ids with 404 rest_no_route', async () => {
    expect((await http.get(`${API}/nothing`).expect(404)).body).toEqual({
      code: 'rest_no_route',
      message: 'No route was found matching the URL and request method.',
      data: { status: 404 },
    });
    await http.post(`${API}/echo/abc`).send({}).expect(404);
  });

  it('serves the same routes under a language segment and refuses an invalid one', async () => {
    await http.get(`/fr${API}/echo`).expect(200);
    await http.get(`/pt-BR${API}/echo`).expect(200);
    expect((await http.get(`/not_a_language${API}/echo`).expect(404)).body.code).toBe('rest_no_route');
  });
});

describe('the real event routes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    for (let i = 0; i < 3; i++) await createEvent(h.db);
  });
  afterAll(() => h.close());

  it('keep the language segment in every URL', async () => {
    const res = await h.http.get(`/fr${API}/events?per_page=1`).expect(200);
    expect(res.body.rest_url).toMatch(
      /^http:\/\/calendar\.test:8080\/fr\/calendar\/events\/v1\/events\/\?page=1&per_page=1&/,
    );
    expect(res.body.next_rest_url).toMatch(/\/fr\/calendar\/events\/v1\/events\/\?per_page=1&.*&page=2$/);
    expect(res.body.events[0].url).toMatch(/^http:\/\/calendar\.test:8080\/fr\/event\//);
    expect(res.body.events[0].rest_url).toMatch(/\/fr\/calendar\/events\/v1\/events\/\d+$/);
  });

  it('page, clamp and refuse as the reference', async () => {
    const second = await h.http.get(`${API}/events?per_page=1&page=2`).expect(200);
    expect(second.body.previous_rest_url).not.toMatch(/[?&]page=/);
    expect(second.body.next_rest_url).toMatch(/page=3$/);
    expect((await h.http.get(`${API}/events?per_page=100`).expect(200)).body.rest_url).toMatch(/per_page=50/);
    expect((await h.http.get(`${API}/events?page=4&per_page=1`).expect(404)).body.code).toBe(
      'event-archive-page-not-found',
    );
    for (const bad of ['page=0', 'page=-1', 'page=foo', 'per_page=0', 'per_page=foo']) {
      expect((await h.http.get(`${API}/events?${bad}`).expect(400)).body.code).toBe('rest_invalid_param');
    }
  });

  it('returns an empty archive as 200 with zero totals', async () => {
    const res = await h.http.get(`${API}/events?start_date=2040-01-01`).expect(200);
    expect(res.body).toMatchObject({ events: [], total: 0, total_pages: 0 });
    expect(res.headers['x-tec-total']).toBe('0');
    expect(res.body).not.toHaveProperty('next_rest_url');
  });
});

describe('outside the API', () => {
  it('answers unknown top-level paths with the JSON 404 too', async () => {
    const h = await startHarness();
    try {
      const res = await h.http.get('/favicon.ico').expect(404);
      expect(res.body.code).toBe('rest_no_route');
      expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    } finally {
      await h.close();
    }
  });
});
