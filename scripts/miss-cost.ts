// npm run bench:miss -- [--events 3000] [--rounds 10]
// What an answer the cache dropped costs to compute again, with the event rows it shows kept
// (`ResponseCache.keepRecords`) and without: the app in this process on a throwaway SQLite database,
// 60 list pages of ten events and 20 of fifty, each stored once; then rounds of "every event
// list changed" (what a write whose events cannot be placed sends: answers and totals go, rows stay)
// followed by a read of every path, and as many rounds of "everything changed" (rows go too). Reported:
// CPU of this process (the client's share included, the same in both rows) and wall time per read.
// Compare the two rows of one run.
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { buildApp, createResponseCache } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { EVERYTHING, type WriteEffect } from '../src/domain/dependencies.js';
import { createLogger } from '../src/logger.js';
import { throwawaySqlite } from './sample-data/throwaway.js';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '3000' }, rounds: { type: 'string', default: '10' } },
});
const events = Number(values.events);
const rounds = Number(values.rounds);
const { url, db, remove } = await throwawaySqlite('miss', events);
const config = loadConfig({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent', CALENDAR_CACHE: 'on' });
const cache = createResponseCache(config);
const server = buildApp({ db, config, cache, logger: createLogger('silent') }).listen(0, '127.0.0.1');
await new Promise((listening) => server.once('listening', listening));
const { port } = server.address() as AddressInfo;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One read; its `X-Cache`. */
const read = (path: string) =>
  new Promise<string>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.headers['x-cache'])));
    })
      .on('error', reject)
      .end();
  });

const API = '/calendar/events/v1/events';
const paths = [
  ...Array.from({ length: 60 }, (_, i) => `${API}?page=${i + 1}`),
  ...Array.from({ length: 20 }, (_, i) => `${API}?per_page=50&page=${i + 1}`),
];
for (const path of paths) await read(path);
/** Every event list and every event changed, as far as answers can tell; no record named. */
const listsChanged: WriteEffect = { records: [], kinds: ['events'], events: 'unknown' };

async function measure(label: string, effect: WriteEffect): Promise<void> {
  let cpu = 0;
  let wall = 0;
  const answers = new Map<string, number>();
  for (let round = 0; round < rounds; round++) {
    cache.invalidate(effect);
    const cpuStart = process.cpuUsage();
    const wallStart = performance.now();
    for (const path of paths) {
      const answer = await read(path);
      answers.set(answer, (answers.get(answer) ?? 0) + 1);
    }
    const used = process.cpuUsage(cpuStart);
    cpu += used.user + used.system;
    wall += performance.now() - wallStart;
  }
  const reads = rounds * paths.length;
  const perRead = (micros: number) => (micros / reads).toFixed(0).padStart(5);
  console.log(
    `${label} CPU µs/read ${perRead(cpu)}  wall µs/read ${perRead(wall * 1000)}  X-Cache ${JSON.stringify(Object.fromEntries(answers))}`,
  );
}

// Twice each: the first pair warms the code paths.
for (let pass = 0; pass < 2; pass++) {
  await measure('miss, rows kept', listsChanged);
  await measure('miss, rows read', EVERYTHING);
}
server.close();
agent.destroy();
await db.$disconnect();
remove();
