// What the in-process cache benchmarks share (`npm run bench:refresh`, `npm run bench:miss`): the app in
// this process on a throwaway SQLite database with its response cache on, read over one keep-alive
// connection, and rounds of reads after the same preparation, timed by this process's CPU and the wall.
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { buildApp, createResponseCache } from '../../src/app.js';
import type { ResponseCache } from '../../src/core/cache/response-cache.js';
import { loadConfig } from '../../src/core/config/config.js';
import type { Db } from '../../src/core/db/client.js';
import { createLogger } from '../../src/core/ops/logger.js';
import { throwawaySqlite } from '../sample-data/throwaway.js';

const EVENTS_PATH = '/calendar/events/v1/events';

/** 60 list pages of ten events and 20 of fifty. */
export const LIST_PAGES = [
  ...Array.from({ length: 60 }, (_, i) => `${EVENTS_PATH}?page=${i + 1}`),
  ...Array.from({ length: 20 }, (_, i) => `${EVENTS_PATH}?per_page=50&page=${i + 1}`),
];

export interface CacheRig {
  db: Db;
  cache: ResponseCache;
  /** One read; its `X-Cache`. */
  read: (path: string) => Promise<string>;
  /**
   * `rounds` rounds of `prepare` then a read of every path, printed as CPU and wall time per read with
   * the tally of `X-Cache`.
   */
  measure: (label: string, paths: readonly string[], prepare: () => void) => Promise<void>;
  close: () => Promise<void>;
}

/** The rig on a database of `--events` events (3,000 by default), `--rounds` rounds (`rounds` by default). */
export async function startCacheRig(label: string, rounds: number): Promise<CacheRig> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '3000' },
      rounds: { type: 'string', default: String(rounds) },
    },
  });
  const { url, db, remove } = await throwawaySqlite(label, Number(values.events));
  const config = loadConfig({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent', CALENDAR_CACHE: 'on' });
  const cache = createResponseCache(config);
  const server = buildApp({ db, config, cache, logger: createLogger('silent') }).listen(0, '127.0.0.1');
  await new Promise((listening) => server.once('listening', listening));
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const read = (path: string) =>
    new Promise<string>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(String(res.headers['x-cache'])));
      })
        .on('error', reject)
        .end();
    });
  const roundCount = Number(values.rounds);
  const measure = async (label: string, paths: readonly string[], prepare: () => void) => {
    let cpu = 0;
    let wall = 0;
    const answers = new Map<string, number>();
    for (let round = 0; round < roundCount; round++) {
      prepare();
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
    const reads = roundCount * paths.length;
    const perRead = (micros: number) => (micros / reads).toFixed(0).padStart(5);
    console.log(
      `${label} CPU µs/read ${perRead(cpu)}  wall µs/read ${perRead(wall * 1000)}  X-Cache ${JSON.stringify(Object.fromEntries(answers))}`,
    );
  };
  const close = async () => {
    server.close();
    agent.destroy();
    await db.$disconnect();
    remove();
  };
  return { db, cache, read, measure, close };
}
