// npm run event-loop -- [--events 10000] [--venues 3000] [--runs 5]
// The longest the event loop stays blocked while serving each of the heaviest requests the limits
// still allow (in-process app, SQLite, cache off), next to the requests the limits refuse: the
// service promises no single request blocks it for more than ~100 ms. Each request is sent `runs`
// times after a warm-up, each time after a full garbage collection (so that a collection owed to
// earlier work is not counted against it); the median of the longest blocks is printed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import supertest from 'supertest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/core/config/config.js';
import { createDb } from '../../src/core/db/client.js';
import { migrateDatabase } from '../../src/core/db/migrate.js';
import { createLogger } from '../../src/core/ops/logger.js';
import { defaultCounts } from '../sample-data/generate.js';
import { seedDatabase } from '../sample-data/seed.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '10000' },
    venues: { type: 'string', default: '3000' },
    runs: { type: 'string', default: '5' },
  },
});
const events = Number(values.events);
const runs = Number(values.runs);
const collect = (globalThis as { gc?: () => void }).gc;
if (!collect) throw new Error('run with node --expose-gc (npm run event-loop does)');
const API = '/calendar/events/v1';
const FULL =
  'id title description excerpt startDate endDate website allDay url venues { id name address city } organizers { id name } categories { id name } tags { id name }';
const PARIS = 'geoloc_lat=48.85&geoloc_lng=2.35';

const cases: Array<[string, () => supertest.Test]> = [];
const dir = mkdtempSync(join(tmpdir(), 'calendar-loop-'));
const url = `file:${join(dir, 'loop.db')}`;
try {
  await migrateDatabase(url);
  const db = await createDb(url);
  await seedDatabase(db, 'sqlite', {
    seed: 3,
    now: new Date(),
    events,
    ...defaultCounts(events),
    venues: Number(values.venues),
    reset: false,
  });
  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', CALENDAR_CACHE: 'off' });
  const http = supertest(buildApp({ db, config, logger: createLogger('silent') }).callback());
  const gql = (query: string) => () => http.post('/graphql').send({ query });
  const aliases = (n: number, field: string) =>
    `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ')} }`;
  cases.push(
    ['REST list, 50 events', () => http.get(`${API}/events?per_page=50`)],
    ['REST radius search, 500 km', () => http.get(`${API}/events?${PARIS}&geoloc_radius=500`)],
    ['REST radius search, whole earth', () => http.get(`${API}/events?${PARIS}&geoloc_radius=20000`)],
    [
      'REST search, 20 words',
      () => http.get(`${API}/events?search=${encodeURIComponent('a b c d e f g h i j k l m n o p q r s t')}`),
    ],
    ['iCalendar feed, 500 events (default)', () => http.get(`${API}/events.ics`)],
    ['iCalendar feed, 5,000 events (largest)', () => http.get(`${API}/events.ics?limit=5000`)],
    ['iCalendar feed, whole-earth radius', () => http.get(`${API}/events.ics?${PARIS}&geoloc_radius=20000`)],
    ['GraphQL, one full 50-event page', gql(`{ events(perPage: 50) { items { ${FULL} } } }`)],
    [
      'GraphQL, 3 aliased whole-earth radius searches',
      gql(aliases(3, 'events(filter: { near: { lat: 48.85, lng: 2.35, radius: 20000 } }) { items { id } }')),
    ],
    ['GraphQL, 3 aliased full 50-event pages', gql(aliases(3, `events(perPage: 50) { items { ${FULL} } }`))],
    [
      'GraphQL, 1,000 aliased radius searches (refused)',
      gql(aliases(1000, 'events(filter: { near: { lat: 48.85, lng: 2.35 } }) { items { id } }')),
    ],
    [
      'GraphQL, 300 aliased 50-event pages (refused)',
      gql(aliases(300, `events(perPage: 50) { items { ${FULL} } }`)),
    ],
  );
  console.log(
    `${events} events, ${values.venues} venues (SQLite), cache off; longest event-loop block per request, median of ${runs} (ms)`,
  );
  for (const [name, send] of cases) {
    await send(); // warm
    const blocks: number[] = [];
    let status = 0;
    let took = 0;
    for (let run = 0; run < runs; run++) {
      collect();
      const histogram = monitorEventLoopDelay({ resolution: 1 });
      histogram.enable();
      const started = performance.now();
      const res = await send();
      took = performance.now() - started;
      status = res.status;
      await new Promise((done) => setTimeout(done, 5));
      histogram.disable();
      blocks.push(histogram.max / 1e6);
    }
    const median = blocks.sort((a, b) => a - b)[Math.floor(blocks.length / 2)]!;
    console.log(
      `${name.padEnd(50)} status ${status}  total ${took.toFixed(0).padStart(5)} ms  longest block ${median.toFixed(0).padStart(4)} ms`,
    );
  }
  await db.$disconnect();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
