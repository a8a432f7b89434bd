import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../helpers/database.js';

// kill -9 of the real server in the middle of concurrent writes: after a restart on the same database,
// every write that was acknowledged (201) is there whole — its row, its category link and the category
// count — and nothing is half-written. Runs on whichever database the suite runs on.

const ADMIN = 'crash-admin';
const PASSWORD = 'crash-test-password-1234';
const WRITERS = 8;

let drop: (() => Promise<void>) | undefined;
let server: ChildProcess | undefined;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as { port: number };
  await new Promise((done) => probe.close(done));
  return port;
}

async function start(url: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      CALENDAR_ADMIN_USER: ADMIN,
      CALENDAR_ADMIN_PASSWORD: PASSWORD,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const started = Date.now();
  while (!output.includes('listening on')) {
    if (Date.now() - started > 60_000 || child.exitCode !== null) throw new Error(`no start:\n${output}`);
    await new Promise((done) => setTimeout(done, 100));
  }
  return child;
}

const auth = `Basic ${Buffer.from(`${ADMIN}:${PASSWORD}`).toString('base64')}`;

afterAll(async () => {
  if (server && server.exitCode === null) server.kill('SIGKILL');
  await drop?.();
});

describe('kill -9 during concurrent writes', () => {
  it('loses no acknowledged write and leaves none half-written', async () => {
    const database = await freshDatabase();
    drop = database.drop;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}/calendar/events/v1`;
    server = await start(database.url, port);

    const acknowledged: Array<{ id: number; title: string }> = [];
    let stop = false;
    let n = 0;
    const writer = async () => {
      while (!stop) {
        const title = `Crash ${++n}`;
        try {
          const res = await fetch(`${base}/events`, {
            method: 'POST',
            headers: { authorization: auth, 'content-type': 'application/json' },
            body: JSON.stringify({
              title,
              start_date: '2031-05-01 10:00:00',
              end_date: '2031-05-01 11:00:00',
              categories: ['Crash Course'],
            }),
          });
          if (res.status === 201) acknowledged.push({ id: ((await res.json()) as { id: number }).id, title });
        } catch {
          return; // the server is gone
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, writer);
    // Let writes flow, then kill the process without warning once a good number were acknowledged.
    const until = Date.now() + 20_000;
    while (acknowledged.length < 25 && Date.now() < until) await new Promise((done) => setTimeout(done, 50));
    server.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThanOrEqual(25);

    server = await start(database.url, port);
    const missing: number[] = [];
    for (const { id, title } of acknowledged) {
      const res = await fetch(`${base}/events/${id}`, { headers: { authorization: auth } });
      const body = (await res.json()) as { title?: string; categories?: Array<{ name: string }> };
      if (res.status !== 200 || body.title !== title || body.categories?.[0]?.name !== 'Crash Course')
        missing.push(id);
    }
    expect(missing).toEqual([]);
    // Nothing half-written: every stored event has its category, and the count matches the links.
    const list = await fetch(`${base}/categories?hide_empty=0&search=crash`, {
      headers: { authorization: auth },
    });
    const [category] = ((await list.json()) as { categories: Array<{ id: number; count: number }> })
      .categories;
    const events = await fetch(`${base}/events?start_date=2031-05-01&end_date=2031-05-02&per_page=1`, {
      headers: { authorization: auth },
    });
    const total = Number(events.headers.get('x-tec-total'));
    const linked = await fetch(
      `${base}/events?start_date=2031-05-01&end_date=2031-05-02&per_page=1&categories=${category!.id}`,
      { headers: { authorization: auth } },
    );
    expect(Number(linked.headers.get('x-tec-total'))).toBe(total);
    expect(category!.count).toBe(total);
    expect(total).toBeGreaterThanOrEqual(acknowledged.length);
    expect(total).toBeLessThanOrEqual(acknowledged.length + WRITERS);
  }, 150_000);
});
