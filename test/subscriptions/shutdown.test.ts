import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabase } from '../helpers/database.js';
import { subscribe } from './sse.js';

// The real server process with open subscription streams: SIGTERM ends them (each client sees the
// stream complete and may subscribe elsewhere) and the process exits long before the shutdown
// deadline, instead of waiting for the streams to be cut.

const SHUTDOWN_MS = 8000;
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
      LOG_LEVEL: 'info',
      CALENDAR_SHUTDOWN_MS: String(SHUTDOWN_MS),
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

it('SIGTERM completes open subscription streams and exits 0 without waiting for the deadline', async () => {
  const base = `http://127.0.0.1:${port}`;
  const query = 'subscription { eventChanged { id } }';
  const streams = [await subscribe(base, query), await subscribe(base, query, { method: 'GET' })];
  for (const stream of streams) expect(stream.status).toBe(200);
  // Let both streams register before the signal.
  await new Promise((done) => setTimeout(done, 300));
  const started = Date.now();
  server.kill('SIGTERM');
  await Promise.all(streams.map((stream) => stream.ended));
  for (const stream of streams) expect(stream.events.at(-1)?.event).toBe('complete');
  expect(await exited).toBe(0);
  expect(Date.now() - started).toBeLessThan(SHUTDOWN_MS / 2);
  expect(output).not.toContain('shutdown deadline reached');
  expect(output).toContain('"msg":"stopped"');
}, 30_000);
