// npm run bench:write -- [--events 10000] [--writes 300]
// What one editor's write costs the server by itself, apart from what it does to cached answers: the
// app in this process on a throwaway SQLite database, an administrator's title edits sent one at a
// time over REST (`POST /events/:id`, which answers with the event) and over GraphQL (`updateEvent`,
// selecting its id), after a warm-up. Reported per write: CPU of this process (the client's share
// included, the same for both APIs) and the SQL statements sent. The response cache is on and empty,
// so judging what the writes change costs next to nothing here; the mix (`npm run bench -- --mix`)
// measures the rest.
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { buildApp, createResponseCache } from '../../src/app.js';
import { loadConfig } from '../../src/core/config/config.js';
import { createLogger } from '../../src/core/ops/logger.js';
import { throwawaySqlite } from '../sample-data/throwaway.js';
import { createAdministrator } from '../bench/mix/writer.js';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '10000' }, writes: { type: 'string', default: '300' } },
});
const events = Number(values.events);
const writes = Number(values.writes);
let statements = 0;
const { url, db, remove } = await throwawaySqlite('write', events, { onQuery: () => statements++ });
const config = loadConfig({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent', CALENDAR_CACHE: 'on' });
const authorization = await createAdministrator(url, config);
const cache = createResponseCache(config);
const server = buildApp({ db, config, cache, logger: createLogger('silent') }).listen(0, '127.0.0.1');
await new Promise((listening) => server.once('listening', listening));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const headers = { authorization, 'content-type': 'application/json' };
const ids = (
  await db.event.findMany({
    where: { status: 'publish', postParentId: null },
    select: { id: true },
    take: 500,
  })
).map((event) => event.id);

const UPDATE = `mutation BenchUpdate($id: Int!, $input: UpdateEventInput!) { updateEvent(id: $id, input: $input) { databaseId } }`;
const send = {
  async rest(id: number, title: string) {
    const response = await fetch(`${origin}/calendar/events/v1/events/${id}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ title }),
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`REST: HTTP ${response.status}`);
  },
  async graphql(id: number, title: string) {
    const response = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query: UPDATE, variables: { id, input: { title } } }),
    });
    const answer = (await response.json()) as { errors?: unknown };
    if (!response.ok || answer.errors) throw new Error(`GraphQL: HTTP ${response.status}`);
  },
};

async function measure(api: keyof typeof send, count: number): Promise<{ cpu: number; sql: number }> {
  statements = 0;
  const start = process.cpuUsage();
  for (let i = 0; i < count; i++) await send[api](ids[i % ids.length]!, `Edited ${api} ${i}`);
  const used = process.cpuUsage(start);
  return { cpu: (used.user + used.system) / 1000 / count, sql: statements / count };
}

// A warm-up of each, then each measured twice, alternating.
for (const api of ['rest', 'graphql'] as const) await measure(api, 50);
for (let pass = 0; pass < 2; pass++)
  for (const api of ['rest', 'graphql'] as const) {
    const { cpu, sql } = await measure(api, writes);
    console.log(`${api.padEnd(7)} CPU ms/write ${cpu.toFixed(2).padStart(6)}  SQL/write ${sql.toFixed(1)}`);
  }
server.close();
await db.$disconnect();
remove();
