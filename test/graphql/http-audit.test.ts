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
