import { type Server, createServer } from 'node:http';
import { type AuditResult, serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../helpers/harness.js';

// The GraphQL over HTTP specification, as graphql-http's server audit checks it: every MUST, SHOULD
// and MAY it tests, for application/graphql-response+json and application/json alike — among them
// 4xx for documents that do not parse or validate and variables that do not coerce when the client
// accepts application/graphql-response+json, and no mutation over GET — with the response cache off
// and on.

let h: Harness;
let server: Server;
let url = '';
// The same, with the response cache on (and its cache-hit fast path before Koa).
let cachedHarness: Harness;
let cachedServer: Server;
let cachedUrl = '';

async function listen(harness: Harness): Promise<[Server, string]> {
  const listening = createServer(harness.app.callback());
  await new Promise<void>((done) => listening.listen(0, '127.0.0.1', done));
  return [listening, `http://127.0.0.1:${(listening.address() as { port: number }).port}/graphql`];
}

async function stop(listening: Server): Promise<void> {
  listening.closeAllConnections();
  await new Promise((done) => listening.close(done));
}

beforeAll(async () => {
  h = await startHarness();
  [server, url] = await listen(h);
  cachedHarness = await startHarness({ CALENDAR_CACHE: 'on' });
  [cachedServer, cachedUrl] = await listen(cachedHarness);
});
afterAll(async () => {
  await stop(server);
  await h.close();
  await stop(cachedServer);
  await cachedHarness.close();
});

const outcome = (result: AuditResult) =>
  result.status === 'ok' ? 'ok' : `${result.status}: ${result.reason}`;

describe('graphql-http server audit', () => {
  const audits = serverAudits({ url: () => url });
  it.each(audits.map((audit) => [audit.name, audit] as const))('%s', async (_name, audit) => {
    expect(outcome(await audit.fn())).toBe('ok');
  });
});

// With the cache on and warm: every answer the audit's valid requests get is already stored (and
// aliased for the fast path), so each invalid request (a string `extensions`, a map `operationName`,
// …) meets the entry of the same query sent validly, and must still be refused.
describe('graphql-http server audit, the response cache on and warm', () => {
  const audits = serverAudits({ url: () => cachedUrl });

  beforeAll(async () => {
    for (const audit of audits) await audit.fn();
    const warm = await fetch(cachedUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(warm.headers.get('x-cache')).toBe('hit');
  });

  it('holds every audit, MAY included', () => {
    const levels = new Set(audits.map((audit) => audit.name.split(' ')[0]));
    expect([...levels].sort()).toEqual(['MAY', 'MUST', 'SHOULD']);
    expect(audits.map((audit) => audit.id)).toEqual(expect.arrayContaining(['58B0', '6C00', '4760', '3E3A']));
  });

  it('passes every audit', async () => {
    const results: Array<[string, string]> = [];
    for (const audit of audits) results.push([`${audit.id} ${audit.name}`, outcome(await audit.fn())]);
    expect(results).toHaveLength(audits.length);
    expect(results.filter(([, result]) => result !== 'ok')).toEqual([]);
  });
});

describe('request errors', () => {
  const MODERN = 'application/graphql-response+json';
  const post = (body: object, accept?: string) => {
    const request = h.http.post('/graphql');
    if (accept) request.set('Accept', accept);
    return request.send(body);
  };

  it.each([
    ['a document that does not parse', { query: '{' }, 'GRAPHQL_PARSE_FAILED', 200],
    ['a document that does not validate', { query: '{ nope }' }, 'GRAPHQL_VALIDATION_FAILED', 200],
    [
      'a variable that does not coerce',
      { query: 'query($id: Int!) { event(id: $id) { id: databaseId } }', variables: { id: 'x' } },
      'BAD_USER_INPUT',
      400,
    ],
  ])(
    '%s: 400 with its code (legacy application/json clients: as the spec says)',
    async (_name, body, code, legacyStatus) => {
      const modern = await post(body, MODERN);
      expect(modern.status).toBe(400);
      expect(modern.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
      expect(modern.body.data).toBeUndefined();
      expect(modern.body.errors[0].extensions.code).toBe(code);
      const legacy = await post(body, 'application/json');
      expect(legacy.status).toBe(legacyStatus);
      expect(legacy.body.errors[0].extensions.code).toBe(code);
    },
  );

  it('a failed login is a GraphQL error response in the negotiated media type', async () => {
    const wrong = `Basic ${Buffer.from('nobody:not-a-password-at-all').toString('base64')}`;
    const modern = await h.http
      .post('/graphql')
      .set('Authorization', wrong)
      .set('Accept', MODERN)
      .send({ query: '{ viewer { login } }' });
    expect(modern.status).toBe(401);
    expect(modern.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
    expect(modern.body.errors[0].extensions).toMatchObject({ code: 'incorrect_password' });
    const legacy = await h.http
      .post('/graphql')
      .set('Authorization', wrong)
      .send({ query: '{ viewer { login } }' });
    expect(legacy.status).toBe(401);
    expect(legacy.headers['content-type']).toMatch(/^application\/json/);
  });

  it('a body that is not JSON is refused in the negotiated media type', async () => {
    const res = await h.http
      .post('/graphql')
      .set('Content-Type', 'text/plain')
      .set('Accept', MODERN)
      .send('{ viewer { login } }');
    expect(res.status).toBe(415);
    expect(res.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
    expect(res.body.errors[0].extensions.code).toBe('unsupported_media_type');
  });
});
