import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabase } from '../../helpers/database.js';
import { type ServerProcess, startServerProcess } from '../../helpers/processes/server-process.js';
import { subscribe } from './sse.js';

// The real server process with open subscription streams: SIGTERM ends them (each client sees the
// stream complete and may subscribe elsewhere) and the process exits long before the shutdown
// deadline, instead of waiting for the streams to be cut.

const SHUTDOWN_MS = 8000;
let port: number;
let server: ServerProcess;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await freshDatabase();
  drop = database.drop;
  server = await startServerProcess({
    DATABASE_URL: database.url,
    CALENDAR_SHUTDOWN_MS: String(SHUTDOWN_MS),
  });
  port = server.port;
}, 90_000);

afterAll(async () => {
  server?.kill();
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
  server.child.kill('SIGTERM');
  await Promise.all(streams.map((stream) => stream.ended));
  for (const stream of streams) expect(stream.events.at(-1)?.event).toBe('complete');
  expect(await server.exited).toBe(0);
  expect(Date.now() - started).toBeLessThan(SHUTDOWN_MS / 2);
  expect(server.output()).not.toContain('shutdown deadline reached');
  expect(server.output()).toContain('"msg":"stopped"');
}, 30_000);
