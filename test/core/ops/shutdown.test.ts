import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../../helpers/database.js';
import { type ServerProcess, startServerProcess } from '../../helpers/processes/server-process.js';

// The real server process: what an operator sees in its output, and how it drains on SIGTERM.

let port: number;
let server: ServerProcess;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await freshDatabase();
  drop = database.drop;
  server = await startServerProcess({
    DATABASE_URL: database.url,
    LOG_LEVEL: 'debug',
    CALENDAR_SHUTDOWN_MS: '8000',
  });
  port = server.port;
}, 90_000);

afterAll(async () => {
  server?.kill();
  await drop();
});

function get(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('the server process', () => {
  it('logs a client that hangs up mid-response as a JSON line, never a stack trace', async () => {
    // Introspection is a large streamed GraphQL answer; the client goes away after the first bytes.
    const query = JSON.stringify({ query: '{ __schema { types { name fields { name description } } } }' });
    for (let i = 0; i < 5; i += 1) {
      await new Promise<void>((resolve) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/graphql',
            method: 'POST',
            headers: { 'content-type': 'application/json' },
          },
          (res) => {
            res.once('data', () => {
              req.destroy();
              resolve();
            });
          },
        );
        req.on('error', () => resolve());
        req.end(query);
      });
    }
    expect((await get('/healthz')).status).toBe(200);
    await new Promise((done) => setTimeout(done, 300));
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.trim() !== '');
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  });

  it('drains on SIGTERM: in-flight requests complete, new connections are refused, exit code 0', async () => {
    // A request in flight: its body arrives in two halves, SIGTERM in between.
    const body = JSON.stringify({ query: '{ events(perPage: 1) { pageInfo { total } } }' });
    const half = Math.floor(body.length / 2);
    let answer = '';
    let status = 0;
    const answered = new Promise<void>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/graphql',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          status = res.statusCode ?? 0;
          res.on('data', (chunk: Buffer) => (answer += chunk.toString()));
          res.on('end', () => resolve());
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, half));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(async () => {
          // The listener is closed: a new connection is refused while the old request is still open.
          await expect(get('/healthz')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
          req.end(body.slice(half));
        }, 500);
      }, 300);
    });
    await answered;
    expect(status).toBe(200);
    expect(JSON.parse(answer)).toEqual({ data: { events: { pageInfo: { total: 0 } } } });
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('"msg":"draining"');
    expect(server.output()).toContain('"msg":"stopped"');
    for (const line of server
      .output()
      .split('\n')
      .filter((entry) => entry.trim() !== '')) {
      expect(() => JSON.parse(line), line).not.toThrow();
    }
  }, 30_000);
});
