// npm run bench:refresh -- [--events 3000] [--rounds 15]
// What a count refresh costs against a hit, without the traffic mix around it: the app in this process
// on a throwaway SQLite database, 80 list pages (60 of ten events, 20 of fifty) read twice so that each
// is stored and aliased, then rounds of "every category's count moved" (the invalidation a create or a
// trash in those categories sends) followed by a read of every page, and as many rounds of plain hits.
// Reported: CPU of this process (the client's share included, the same in both rows) and wall time per
// read. Compare the two rows of one run, or runs of two checkouts back to back.
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { buildApp, createResponseCache } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { throwawaySqlite } from './sample-data/throwaway.js';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '3000' }, rounds: { type: 'string', default: '15' } },
});
const events = Number(values.events);
const rounds = Number(values.rounds);
const { url, db, remove } = await throwawaySqlite('refresh', events);
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
const pages = [
  ...Array.from({ length: 60 }, (_, i) => `${API}?page=${i + 1}`),
  ...Array.from({ length: 20 }, (_, i) => `${API}?per_page=50&page=${i + 1}`),
];
for (const page of pages) for (let i = 0; i < 2; i++) await read(page);
const categories = await db.term.findMany({ where: { taxonomy: 'tribe_events_cat' }, select: { id: true } });
const countsMoved = {
  records: categories.map(({ id }) => `term-count:${id}`),
  kinds: ['term-counts' as const],
  events: [],
};

async function measure(label: string, beforeEachRound: () => void): Promise<void> {
  let cpu = 0;
  let wall = 0;
  const answers = new Map<string, number>();
  for (let round = 0; round < rounds; round++) {
    beforeEachRound();
    const cpuStart = process.cpuUsage();
    const wallStart = performance.now();
    for (const page of pages) {
      const answer = await read(page);
      answers.set(answer, (answers.get(answer) ?? 0) + 1);
    }
    const used = process.cpuUsage(cpuStart);
    cpu += used.user + used.system;
    wall += performance.now() - wallStart;
  }
  const reads = rounds * pages.length;
  const perRead = (micros: number) => (micros / reads).toFixed(0).padStart(5);
  console.log(
    `${label} CPU µs/read ${perRead(cpu)}  wall µs/read ${perRead(wall * 1000)}  X-Cache ${JSON.stringify(Object.fromEntries(answers))}`,
  );
}

// Twice each: the first pair warms the code paths.
for (let pass = 0; pass < 2; pass++) {
  await measure('refresh', () => cache.invalidate(countsMoved));
  await measure('hit    ', () => undefined);
}
server.close();
agent.destroy();
await db.$disconnect();
remove();
