import {
  type DefinitionNode,
  type FieldNode,
  Kind,
  type OperationDefinitionNode,
  getIntrospectionQuery,
  parse,
  print,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, startHarness } from '../helpers/harness.js';
import { createEvent, createVenue } from '../helpers/fixtures.js';
import { createUser } from '../helpers/users.js';

// One request cannot stall the service (#13 part 4): aliases, depth, cost (page sizes, radius and
// search filters, inline or in variables), mutations per request, long strings and long id lists
// are refused up front with a coded 400; a request past its deadline stops.

let h: Harness;
let editor: [string, string];
let contributor: [string, string];

beforeAll(async () => {
  h = await startHarness();
  const e = await createUser(h, 'editor');
  editor = [e.login, e.password];
  const c = await createUser(h, 'contributor');
  contributor = [c.login, c.password];
  const venue = await createVenue(h.db, { geoLat: 48.85, geoLng: 2.35 });
  for (let i = 0; i < 60; i++) await createEvent(h.db, { title: `Abuse ${i}`, venueIds: [venue.id] });
});

afterAll(async () => {
  await h?.close();
});

const gql = (query: string, variables?: object, as?: [string, string]) => {
  const request = h.http.post('/graphql').send({ query, variables });
  if (as) request.auth(...as);
  return request;
};
const FULL_EVENT =
  'id title description excerpt startDate endDate cost { __typename } website allDay featured url venues { id name address city } organizers { id name } categories { id name } tags { id name }';

describe('GraphQL', () => {
  it.each([
    [
      '1,000 aliased radius searches',
      `{ ${Array.from({ length: 1000 }, (_, i) => `a${i}: events(filter: { near: { lat: 48.85, lng: 2.35, radius: 100 } }) { items { id } }`).join(' ')} }`,
      'query_too_large',
    ],
    [
      '300 aliased 50-event pages',
      `{ ${Array.from({ length: 300 }, (_, i) => `p${i}: events(perPage: 50) { items { ${FULL_EVENT} } }`).join(' ')} }`,
      'query_too_large',
    ],
    [
      '31 aliases',
      `{ ${Array.from({ length: 31 }, (_, i) => `v${i}: viewer { login }`).join(' ')} }`,
      'too_many_aliases',
    ],
    [
      '25 aliased radius searches (under the alias limit, over the cost)',
      `{ ${Array.from({ length: 25 }, (_, i) => `a${i}: events(filter: { near: { lat: 48.85, lng: 2.35 } }) { items { id } }`).join(' ')} }`,
      'query_too_costly',
    ],
    [
      '20 aliased full 50-event pages',
      `{ ${Array.from({ length: 20 }, (_, i) => `p${i}: events(perPage: 50) { items { ${FULL_EVENT} } }`).join(' ')} }`,
      'query_too_costly',
    ],
    [
      'a query 11 levels deep',
      '{ events { items { postParent { postParent { postParent { postParent { postParent { postParent { postParent { postParent { id: databaseId } } } } } } } } } } }',
      'query_too_deep',
    ],
  ])('refuses %s with a coded error before running it', async (_name, query, code) => {
    const started = performance.now();
    const res = await gql(query);
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions).toEqual({ code, http: { status: 400 } });
    expect(res.body.errors[0].message).not.toMatch(/Syntax Error/);
    // Refused, not run: far from the tens of seconds the queries would take.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('charges a filter passed in variables like one written inline', async () => {
    const query = `query($f: EventFilter) { ${Array.from({ length: 25 }, (_, i) => `a${i}: events(filter: $f) { items { id } }`).join(' ')} }`;
    const near = await gql(query, { f: { near: { lat: 48.85, lng: 2.35 } } });
    expect(near.body.errors[0].extensions.code).toBe('query_too_costly');
    const plain = await gql(query, { f: { featured: false } });
    expect(plain.body.errors).toBeUndefined();
    expect(plain.body.data.a0.items.length).toBeGreaterThan(0);
  });

  it('lets an ordinary full page through', async () => {
    const res = await gql(`{ events(perPage: 50) { pageInfo { total } items { ${FULL_EVENT} } } }`);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.events.items).toHaveLength(50);
  });

  it('runs at most 10 mutations per request; more are refused and none runs', async () => {
    const mutations = (n: number) =>
      `mutation { ${Array.from({ length: n }, (_, i) => `m${i}: createTag(input: { name: "abuse-${n}-${i}" }) { id }`).join(' ')} }`;
    const refused = await gql(mutations(11), undefined, editor);
    expect(refused.body.errors[0].extensions).toEqual({ code: 'too_many_mutations', http: { status: 400 } });
    expect(await h.db.term.count({ where: { name: { startsWith: 'abuse-11-' } } })).toBe(0);
    const allowed = await gql(mutations(10), undefined, editor);
    expect(allowed.body.errors).toBeUndefined();
    expect(await h.db.term.count({ where: { name: { startsWith: 'abuse-10-' } } })).toBe(10);
  });

  it('counts mutations spread through fragments', async () => {
    const fields = (n: number, prefix: string) =>
      Array.from({ length: n }, (_, i) => `m${i}: createTag(input: { name: "${prefix}-${i}" }) { id }`).join(
        ' ',
      );
    for (const [name, query] of [
      ['named', `mutation { ...M } fragment M on Mutation { ${fields(11, 'frag-named')} }`],
      ['inline', `mutation { ... on Mutation { ${fields(11, 'frag-inline')} } }`],
    ] as const) {
      const res = await gql(query, undefined, editor);
      expect(res.body.errors[0].extensions, name).toEqual({
        code: 'too_many_mutations',
        http: { status: 400 },
      });
    }
    expect(await h.db.term.count({ where: { name: { startsWith: 'frag-' } } })).toBe(0);
  });

  it('measures each fragment once: a fragment spread 2^30 times is refused at once', async () => {
    const fragments = Array.from(
      { length: 30 },
      (_, i) => `fragment A${i} on Query { viewer { login } ${i < 29 ? `...A${i + 1} ...A${i + 1}` : ''} }`,
    ).join(' ');
    const started = performance.now();
    const res = await gql(`{ ...A0 } ${fragments}`);
    expect(res.body.errors[0].extensions).toEqual({ code: 'query_too_costly', http: { status: 400 } });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('charges introspection: the standard query passes, two of them in one request do not', async () => {
    const standard = await gql(getIntrospectionQuery());
    expect(standard.body.errors).toBeUndefined();
    expect(standard.body.data.__schema.queryType.name).toBe('Query');
    // The same introspection twice, under two aliases.
    const document = parse(getIntrospectionQuery());
    const [operation, ...fragments] = document.definitions as [OperationDefinitionNode, ...DefinitionNode[]];
    const schemaField = operation.selectionSet.selections[0] as FieldNode;
    const aliased = (value: string): FieldNode => ({ ...schemaField, alias: { kind: Kind.NAME, value } });
    const twice = print({
      ...document,
      definitions: [
        {
          ...operation,
          selectionSet: { ...operation.selectionSet, selections: [aliased('a'), aliased('b')] },
        },
        ...fragments,
      ],
    });
    const res = await gql(twice);
    expect(res.body.errors[0].extensions).toEqual({ code: 'query_too_costly', http: { status: 400 } });
  });

  it('refuses a document of more than 2,000 tokens before validating it, without "Syntax Error"', async () => {
    const res = await gql(`{ ${Array.from({ length: 700 }, () => 'viewer { login }').join(' ')} }`);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions).toEqual({ code: 'query_too_large', http: { status: 400 } });
    expect(res.body.errors[0].message).not.toMatch(/Syntax Error/);
  });

  it('refuses batched operations', async () => {
    const res = await h.http
      .post('/graphql')
      .send([{ query: '{ viewer { login } }' }, { query: '{ viewer { login } }' }]);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toEqual(expect.any(String));
    expect(res.body.data).toBeUndefined();
  });

  it('stops a request past its deadline', async () => {
    const slow = await startHarness({ GRAPHQL_TIMEOUT_MS: '1' });
    try {
      for (let i = 0; i < 30; i++) await createEvent(slow.db, { title: `Slow ${i}` });
      const res = await slow.http.post('/graphql').send({
        query: `{ a: events(perPage: 50) { items { ${FULL_EVENT} } } b: events(perPage: 50, page: 1) { items { id: databaseId title } } }`,
      });
      const codes = (res.body.errors as Array<{ extensions: { code: string } }>).map(
        (e) => e.extensions.code,
      );
      expect(codes).toContain('request_timeout');
    } finally {
      await slow.close();
    }
  });
});

describe('long strings and long lists (REST and GraphQL)', () => {
  const longSearch = 'x'.repeat(900_000).replace(/x{10}/g, 'xxxxxxxxx ');
  it('refuses a 900,000-character search with a 400 naming it', async () => {
    for (const path of ['/events', '/venues', '/organizers', '/categories', '/tags']) {
      const get = await h.http.get(`${API}${path}?search=${'y'.repeat(201)}`);
      expect(get.status, path).toBe(400);
      expect(get.body.data.params).toHaveProperty('search');
    }
    const gqlRes = await gql(
      'query($s: String) { events(filter: { search: $s }) { items { id: databaseId } } }',
      {
        s: longSearch,
      },
    );
    expect(gqlRes.body.errors[0].extensions.code).toBe('rest_invalid_param');
  });

  it('refuses more than 100 values in an id or slug filter with a 400, never a 5xx', async () => {
    const ids = Array.from({ length: 1000 }, (_, i) => i + 1).join(',');
    for (const param of ['include', 'categories', 'tags', 'venue', 'organizer']) {
      const res = await h.http.get(`${API}/events?${param}=${ids}`);
      expect(res.status, param).toBe(400);
      expect(Object.keys(res.body.data.params), param).toContain(param);
    }
    for (const path of ['/categories', '/tags']) {
      const res = await h.http.get(`${API}${path}?include=${ids}`);
      expect(res.status, path).toBe(400);
    }
    const gqlRes = await gql(`{ events(filter: { include: [${ids}] }) { items { id: databaseId } } }`);
    expect(gqlRes.body.errors[0].extensions.code).toBe('rest_invalid_param');
  });

  it('an event write naming 40,000 new categories is a 400 at once; 100 unknown names from a contributor a 403 without locks', async () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => `never-${i}`);
    const body = (n: number) => ({
      title: 'Flood',
      start_date: 'tomorrow 10am',
      end_date: 'tomorrow 11am',
      categories: names(n),
    });
    const started = performance.now();
    for (const who of [contributor, editor]) {
      const res = await h.http
        .post(`${API}/events`)
        .auth(...who)
        .send(body(40_000))
        .expect(400);
      expect(res.body.data.params).toEqual({ categories: 'At most 100 values.' });
    }
    const res = await h.http
      .post(`${API}/events`)
      .auth(...contributor)
      .send(body(100))
      .expect(403);
    expect(res.body.code).toBe('rest_cannot_create_term');
    expect(performance.now() - started).toBeLessThan(5000);
    expect(await h.db.term.count({ where: { name: { startsWith: 'never-' } } })).toBe(0);
  });
});
