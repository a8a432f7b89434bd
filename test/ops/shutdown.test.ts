import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../helpers/database.js';

// The real server process: what an operator sees in its output, and how it drains on SIGTERM.

let port: number;
let server: ChildProcess;
let output = '';
let exited: Promise<number | null>;
let drop: () => Promise<void>;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port: free } = probe.address() as { port: number };
  await new Promise((done) => probe.close(done));
  return free;
}

beforeAll(async () => {
  const database = await freshDatabase();
  drop = database.drop;
  port = await freePort();
  server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'debug',
      CALENDAR_SHUTDOWN_MS: '8000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  exited = new Promise((done) => server.on('exit', (code) => done(code)));
  const started = Date.now();
  while (!output.includes('listening on')) {
    if (Date.now() - started > 60_000) throw new Error(`server did not start:\n${output}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}, 90_000);

afterAll(async () => {
  if (server.exitCode === null) server.kill('SIGKILL');
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
    const lines = output.split('\n').filter((line) => line.trim() !== '');
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
        server.kill('SIGTERM');
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
    expect(await exited).toBe(0);
    expect(output).toContain('"msg":"draining"');
    expect(output).toContain('"msg":"stopped"');
    for (const line of output.split('\n').filter((entry) => entry.trim() !== '')) {
      expect(() => JSON.parse(line), line).not.toThrow();
    }
  }, 30_000);
});
