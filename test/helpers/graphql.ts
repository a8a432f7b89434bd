import { expect } from 'vitest';
import type { Harness } from './harness.js';
import { type Credentials, basicAuth } from './users.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
export interface GqlError {
  message: string;
  path?: Array<string | number>;
  extensions: Record<string, any>;
}

export interface GqlResult {
  data?: Record<string, any> | null;
  errors?: GqlError[];
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** Where a GraphQL request goes: the in-process app of a harness, or the base URL of a listening one. */
export type GqlTarget = Pick<Harness, 'http'> | string;

export interface GqlOptions {
  /** The HTTP status every answer must have (e.g. 200: a field error is no request error). */
  status?: number;
}

type Caller = Pick<Credentials, 'login' | 'password'>;

/**
 * A `gql(query, variables, as)` function: POSTs `{query, variables}` as JSON to `/graphql` of
 * `target` (a function when the harness is made in `beforeAll`), with HTTP Basic for `as`, and
 * returns the response body. Every answer must be JSON; `status` checks its HTTP status too.
 */
export function graphqlClient(target: GqlTarget | (() => GqlTarget), options: GqlOptions = {}) {
  return async function gql(
    query: string,
    variables: Record<string, unknown> = {},
    as?: Caller,
  ): Promise<GqlResult> {
    const to = typeof target === 'function' ? target() : target;
    if (typeof to === 'string') {
      const response = await fetch(`${to}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(as ? { authorization: basicAuth(as) } : {}) },
        body: JSON.stringify({ query, variables }),
      });
      expect(response.headers.get('content-type')).toMatch(/json/);
      if (options.status !== undefined) expect(response.status).toBe(options.status);
      return (await response.json()) as GqlResult;
    }
    const request = to.http.post('/graphql');
    if (as) request.set('Authorization', basicAuth(as));
    const sent = request.send({ query, variables }).expect('content-type', /json/);
    if (options.status !== undefined) sent.expect(options.status);
    return (await sent).body as GqlResult;
  };
}

/** The `data` of an answer that must have no errors. */
export function dataOf(result: GqlResult) {
  expect(result.errors).toBeUndefined();
  return result.data!;
}
