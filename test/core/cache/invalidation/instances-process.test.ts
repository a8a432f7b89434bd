import { afterAll, beforeAll, expect, it } from 'vitest';
import { databaseProviderOf, loadConfig } from '../../../../src/core/config/config.js';
import { type Db, createDb } from '../../../../src/core/db/client.js';
import { migrateDatabase } from '../../../../src/core/db/migrate.js';
import { WritePipeline } from '../../../../src/core/db/transactions.js';
import { freshDatabase } from '../../../helpers/database.js';
import { API } from '../../../helpers/harness.js';
import { type ServerProcess, startServerProcess } from '../../../helpers/processes/server-process.js';
import { testRedisUrl } from '../../../helpers/processes/services.js';
import { type Credentials, basicAuth, createUser } from '../../../helpers/users.js';

// Two real server processes on one database, both started without CALENDAR_SITE_URL, so that each
// defaults to http://localhost:<its own port> (#50, item 9): their channels are named by the database,
// so a write on A still reaches B's cached answer, and the one that starts second names both URLs in
// a warning. They meet on the bus the server picks for the database: PostgreSQL's LISTEN/NOTIFY
// without Redis, and Redis for SQLite (which has no bus of its own).

let database: { url: string; drop: () => Promise<void> };
let db: Db;
const servers: ServerProcess[] = [];
let a: ServerProcess;
let b: ServerProcess;
let editor: Credentials;

const LIST = `${API}/events?start_date=2039-04-01&end_date=2039-04-30`;

beforeAll(async () => {
  database = await freshDatabase();
  await migrateDatabase(database.url);
  db = await createDb(database.url);
  const env = {
    DATABASE_URL: database.url,
    CALENDAR_WEBHOOKS: 'off',
    CALENDAR_IMPORT_POLL_MS: '0',
    CALENDAR_SERIES_EXTEND_MS: '0',
    ...(databaseProviderOf(database.url) === 'sqlite' && { REDIS_URL: testRedisUrl() }),
  };
  // Started together: whichever records itself second finds the other at once.
  const started = await Promise.allSettled([startServerProcess(env), startServerProcess(env)]);
  for (const each of started) if (each.status === 'fulfilled') servers.push(each.value);
  for (const each of started) if (each.status === 'rejected') throw each.reason;
  [a, b] = servers as [ServerProcess, ServerProcess];
  const config = loadConfig({ DATABASE_URL: database.url });
  editor = await createUser({ db, config, writes: new WritePipeline() }, 'editor');
}, 120_000);

afterAll(async () => {
  for (const server of servers) server.kill();
  await Promise.all(servers.map((server) => server.exited));
  await db?.$disconnect();
  await database?.drop();
});

const read = async (on: ServerProcess) => {
  const response = await fetch(`http://127.0.0.1:${on.port}${LIST}`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { events: Array<{ title: string }>; rest_url: string };
  return { cache: response.headers.get('x-cache'), body, titles: body.events.map((event) => event.title) };
};

it('a write on A reaches B’s cached answer though their site URLs differ, and one names both', async () => {
  const siteOf = (on: ServerProcess) => `http://localhost:${on.port}`;
  expect((await read(b)).body.rest_url.startsWith(`${siteOf(b)}/`)).toBe(true);

  for (let round = 1; round <= 2; round++) {
    // B's answer is cached (once B hears its channel, it shares answers).
    const until = Date.now() + 3000;
    let warm = await read(b);
    while (warm.cache !== 'hit' && Date.now() < until) {
      await new Promise((done) => setTimeout(done, 50));
      warm = await read(b);
    }
    expect(warm.cache, `round ${round}`).toBe('hit');
    expect(warm.titles).toHaveLength(round - 1);
    const title = `Across processes ${round}`;
    const written = await fetch(`http://127.0.0.1:${a.port}${API}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basicAuth(editor) },
      body: JSON.stringify({ title, start_date: '2039-04-10 10:00:00', end_date: '2039-04-10 11:00:00' }),
    });
    expect(written.status).toBe(201);
    const deadline = Date.now() + 1000;
    let seen = await read(b);
    while (!seen.titles.includes(title) && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 20));
      seen = await read(b);
    }
    expect(seen.titles, `round ${round}`).toContain(title);
  }

  // The one that started second warned as it started, naming its own URL and the other's.
  const warnings = (on: ServerProcess) =>
    on
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level === 40)
      .map((line) => line.msg);
  const named = [
    ...warnings(a).filter((msg) => msg.includes(`${siteOf(a)} here, ${siteOf(b)} on another instance`)),
    ...warnings(b).filter((msg) => msg.includes(`${siteOf(b)} here, ${siteOf(a)} on another instance`)),
  ];
  expect(named.length).toBeGreaterThanOrEqual(1);
}, 60_000);
