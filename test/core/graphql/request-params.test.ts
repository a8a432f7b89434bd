import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkGraphqlParams, graphqlSearchParams } from '../../../src/core/graphql/params.js';
import { type Harness, startHarness } from '../../helpers/harness.js';

// A GraphQL request's parameters are read and checked by one set of rules (src/core/graphql/params.ts),
// for yoga and for the response cache alike: a query string that is not JSON is a 400, never a 500,
// and a request the uncached path refuses is refused with the cache on and warm too — never answered
// from the entry of the same query sent with valid parameters.

let cached: Harness;
let uncached: Harness;

beforeAll(async () => {
  cached = await startHarness({ CALENDAR_CACHE: 'on' });
  uncached = await startHarness();
});
afterAll(async () => {
  await cached.close();
  await uncached.close();
});

const QUERY = '{__typename}';

/** A 400 `BAD_REQUEST` that names the parameter, not an answer from the cache. */
function expectRefused(
  res: { status: number; headers: Record<string, string>; body: unknown },
  name: string,
) {
  expect(res.status).toBe(400);
  expect(res.headers['x-cache']).toBeUndefined();
  const { errors, data } = res.body as {
    errors: Array<{ message: string; extensions: { code: string } }>;
    data?: unknown;
  };
  expect(data).toBeUndefined();
  expect(errors).toHaveLength(1);
  expect(errors[0]!.extensions.code).toBe('BAD_REQUEST');
  expect(errors[0]!.message).toContain(`"${name}"`);
}

describe('GET /graphql with a parameter that is not JSON', () => {
  it.each([
    ['the cache on', () => cached],
    ['the cache off', () => uncached],
  ])('is a 400 BAD_REQUEST with %s, before and after the valid query is cached', async (_name, harness) => {
    const { http } = harness();
    const url = `/graphql?query=${encodeURIComponent(QUERY)}`;
    for (const round of [1, 2]) {
      for (const [name, value] of [
        ['extensions', 'string'],
        ['variables', 'string'],
        ['extensions', '1'],
        ['variables', '%5B%5D'],
      ] as const)
        for (const accept of ['application/json', 'application/graphql-response+json'])
          expectRefused(await http.get(`${url}&${name}=${value}`).set('Accept', accept), name);
      // Warm the cache with the valid query (then hit it), and try the refusals again.
      const valid = await http.get(url).set('Accept', 'application/json');
      expect(valid.status).toBe(200);
      expect(valid.body).toEqual({ data: { __typename: 'Query' } });
      if (harness() === cached) expect(valid.headers['x-cache']).toBe(round === 1 ? 'miss' : 'hit');
    }
  });

  it('reads the parameters as yoga does: the first of repeated names, an empty value as absent', async () => {
    const { http } = cached;
    const first = await http
      .get(`/graphql?query=${encodeURIComponent(QUERY)}&variables=%7B%7D&variables=nope&extensions=`)
      .set('Accept', 'application/json');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ data: { __typename: 'Query' } });
    // The first value is the one that counts, for the key too: not shared with the valid spelling.
    const bad = await http
      .get(`/graphql?query=${encodeURIComponent(QUERY)}&variables=nope&variables=%7B%7D`)
      .set('Accept', 'application/json');
    expectRefused(bad, 'variables');
  });
});

describe('POST /graphql with a parameter of the wrong type', () => {
  // Not the GET tests' document: GET and POST of one query share an entry.
  const POST_QUERY = '{ viaPost: __typename }';
  const invalid: Array<[string, Record<string, unknown>]> = [
    ['extensions', { extensions: 'string' }],
    ['extensions', { extensions: ['array'] }],
    ['variables', { variables: 'null' }],
    ['variables', { variables: '{}' }],
    ['variables', { variables: 0 }],
    ['operationName', { operationName: 5 }],
    ['operationName', { operationName: { obj: 'ect' } }],
    ['documentId', { documentId: false }],
    ['unknown', { unknown: 1 }],
  ];
  const post = (harness: Harness, extra: Record<string, unknown> = {}) =>
    harness.http
      .post('/graphql')
      .set('Accept', 'application/json')
      .send({ query: POST_QUERY, ...extra });

  it('is refused with the cache on before and after the same query is cached, twice each', async () => {
    for (const [name, extra] of invalid) expectRefused(await post(cached, extra), name);
    const miss = await post(cached);
    expect(miss.status).toBe(200);
    expect(miss.headers['x-cache']).toBe('miss');
    const hit = await post(cached);
    expect(hit.headers['x-cache']).toBe('hit');
    // Once through the normal path, once more where the cache-hit fast path would answer.
    for (let round = 0; round < 2; round++)
      for (const [name, extra] of invalid) expectRefused(await post(cached, extra), name);
    // The valid query is still served from the cache.
    expect((await post(cached)).headers['x-cache']).toBe('hit');
  });

  it('is refused every time with the cache off', async () => {
    for (const round of [1, 2]) {
      for (const [name, extra] of invalid) expectRefused(await post(uncached, extra), name);
      expect((await post(uncached)).status, `round ${round}`).toBe(200);
    }
  });

  it('null parameters are absent, with the cache on or off', async () => {
    for (const harness of [cached, uncached]) {
      const res = await post(harness, {
        variables: null,
        operationName: null,
        extensions: null,
        documentId: null,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { viaPost: 'Query' } });
    }
  });
});

describe('the shared rules', () => {
  it('checkGraphqlParams refuses what yoga refuses, and the types yoga leaves to chance', () => {
    expect(
      checkGraphqlParams({ query: QUERY, variables: { a: 1 }, extensions: {}, operationName: 'Q' }),
    ).toBeNull();
    expect(checkGraphqlParams({ documentId: 'sha256:00', extensions: { persistedQuery: {} } })).toBeNull();
    expect(checkGraphqlParams({ query: QUERY, other: null })).toBeNull();
    expect(checkGraphqlParams([{ query: QUERY }])?.message).toBe(
      'Expected params to be an object but given array.',
    );
    expect(checkGraphqlParams(null)?.message).toBe('Expected params to be an object but given null.');
    expect(checkGraphqlParams({ query: 1 })?.message).toBe(
      'Expected "query" param to be empty or a string, but given number.',
    );
    expect(checkGraphqlParams({ query: QUERY, extensions: 'x' })?.message).toBe(
      'Expected "extensions" param to be empty or an object, but given string.',
    );
    expect(checkGraphqlParams({ query: QUERY, qeury: QUERY })?.message).toBe(
      'Unexpected parameter "qeury" in the request body.',
    );
  });

  it('graphqlSearchParams parses the JSON parameters of a query string and checks them', () => {
    expect(
      graphqlSearchParams('query=%7Bx%7D&variables=%7B%22a%22%3A1%7D&operationName=&documentId=sha256%3A1'),
    ).toEqual({
      params: {
        query: '{x}',
        variables: { a: 1 },
        operationName: undefined,
        extensions: undefined,
        documentId: 'sha256:1',
      },
    });
    expect(graphqlSearchParams('query=x&extensions=string')).toEqual({
      error: {
        message: 'Expected "extensions" param to be empty or an object, but given text that is not JSON.',
      },
    });
    expect(graphqlSearchParams('query=x&variables=true')).toEqual({
      error: { message: 'Expected "variables" param to be empty or an object, but given boolean.' },
    });
  });
});
