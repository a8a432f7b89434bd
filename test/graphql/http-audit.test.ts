import { type Server, createServer } from 'node:http';
import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';

// The GraphQL over HTTP specification, as graphql-http's server audit checks it: every MUST, SHOULD
// and MAY it tests, for application/graphql-response+json and application/json alike — among them
// 4xx for documents that do not parse or validate and variables that do not coerce when the client
// accepts application/graphql-response+json, and no mutation over GET.

let h: Harness;
let server: Server;
let url = '';

beforeAll(async () => {
  h = await startHarness();
  server = createServer(h.app.callback());
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/graphql`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
  await h.close();
});

describe('graphql-http server audit', () => {
  const audits = serverAudits({ url: () => url });
  it.each(audits.map((audit) => [audit.name, audit] as const))('%s', async (_name, audit) => {
    const result = await audit.fn();
    expect(result.status === 'ok' ? 'ok' : `${result.status}: ${result.reason}`).toBe('ok');
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
