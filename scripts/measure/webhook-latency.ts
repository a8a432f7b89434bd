// npx tsx scripts/measure/webhook-latency.ts [--writes 200] [--gap-ms 20]   (DATABASE_URL: PostgreSQL, else a temporary SQLite file)
// Webhook delivery latency: the service (listening on a real port) with its dispatcher, a local receiver
// registered for venue.created, and `--writes` venue creations one after the other over HTTP. For each
// write, the time from its response to the receipt of its signed delivery (verified with the
// `standardwebhooks` library); prints p50, p95 and max in milliseconds. A negative figure is a delivery
// that arrived before the write's own response did.
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { buildApp } from '../../src/app.js';
import { createUser } from '../../src/users/users.js';
import { databaseProviderOf, loadConfig } from '../../src/core/config/config.js';
import { createDb } from '../../src/core/db/client.js';
import { migrateDatabase } from '../../src/core/db/migrate.js';
import { createLogger } from '../../src/core/ops/logger.js';
import { WebhookDispatcher } from '../../src/sync/webhook-dispatcher.js';
import { addWebhookEndpoint } from '../../src/sync/webhooks.js';
import { WritePipeline } from '../../src/core/db/transactions.js';

const { values } = parseArgs({
  options: { writes: { type: 'string', default: '200' }, 'gap-ms': { type: 'string', default: '20' } },
});
const writes = Number(values.writes);
const gapMs = Number(values['gap-ms']);

const given = process.env.DATABASE_URL;
const postgres = given !== undefined && databaseProviderOf(given) === 'postgresql';
const dir = postgres ? null : mkdtempSync(join(tmpdir(), 'webhook-latency-'));
const databaseUrl = postgres ? given! : `file:${join(dir!, 'latency.db')}`;
await migrateDatabase(databaseUrl);
const db = await createDb(databaseUrl);
const config = loadConfig({
  DATABASE_URL: databaseUrl,
  LOG_LEVEL: 'silent',
  CALENDAR_WEBHOOKS_ALLOW_PRIVATE: 'true',
});
const logger = createLogger('silent');
const pipeline = new WritePipeline();
const app = buildApp({ db, config, logger, writes: pipeline });
const dispatcher = new WebhookDispatcher(db, config, logger);
pipeline.afterCommit(() => dispatcher.kick());

const listen = (server: Server) =>
  new Promise<number>((done) =>
    server.listen(0, '127.0.0.1', () => done((server.address() as AddressInfo).port)),
  );

const received = new Map<number, number>();
const waiting = new Map<number, () => void>();
let secret = '';
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    const at = performance.now();
    const payload = new Webhook(secret).verify(body, req.headers as Record<string, string>) as {
      data: { id: number };
    };
    received.set(payload.data.id, at);
    waiting.get(payload.data.id)?.();
    res.writeHead(204).end();
  });
});
const receiverPort = await listen(receiver);
const service = createServer(app.callback());
const servicePort = await listen(service);

const login = `latency-${Date.now()}`;
const admin = await createUser({ db, config, writes: pipeline }, { login, role: 'administrator' });
({ secret } = await addWebhookEndpoint(
  { db, config, writes: pipeline, viewer: { userId: admin.user.id, login, role: 'administrator' } },
  { url: `http://127.0.0.1:${receiverPort}/hook`, events: ['venue.created'] },
));
dispatcher.start();

const authorization = `Basic ${Buffer.from(`${login}:${admin.password}`).toString('base64')}`;
const latencies: number[] = [];
for (let i = 0; i < writes; i++) {
  const response = await fetch(`http://127.0.0.1:${servicePort}/calendar/events/v1/venues`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify({ venue: `Latency hall ${login} ${i}` }),
  });
  const answered = performance.now();
  const { id } = (await response.json()) as { id: number };
  if (response.status !== 201) throw new Error(`write ${i} answered ${response.status}`);
  if (!received.has(id)) await new Promise<void>((done) => waiting.set(id, done));
  latencies.push(received.get(id)! - answered);
  await new Promise((resolve) => setTimeout(resolve, gapMs));
}

latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
console.log(
  `webhook delivery latency over ${writes} writes (${postgres ? 'PostgreSQL' : 'SQLite'}), write response → receipt: ` +
    `p50 ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms`,
);

await dispatcher.stop();
service.close();
receiver.close();
await db.$disconnect();
if (dir) rmSync(dir, { recursive: true, force: true });
