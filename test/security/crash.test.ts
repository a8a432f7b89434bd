import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../helpers/database.js';
import { type ServerProcess, startServerProcess } from '../helpers/processes/server-process.js';

// kill -9 of the real server in the middle of concurrent writes: after a restart on the same database,
// every write that was acknowledged (201) is there whole — its row, its category link and the category
// count — and nothing is half-written. Runs on whichever database the suite runs on.

const ADMIN = 'crash-admin';
const PASSWORD = 'crash-test-password-1234';
const WRITERS = 8;

let drop: (() => Promise<void>) | undefined;
let server: ServerProcess | undefined;

/** The server on this database (on a free port), with the administrator the test writes as. */
const start = (url: string) =>
  startServerProcess({ DATABASE_URL: url, CALENDAR_ADMIN_USER: ADMIN, CALENDAR_ADMIN_PASSWORD: PASSWORD });

const auth = `Basic ${Buffer.from(`${ADMIN}:${PASSWORD}`).toString('base64')}`;

afterAll(async () => {
  server?.kill();
  await drop?.();
});

describe('kill -9 during concurrent writes', () => {
  it('loses no acknowledged write and leaves none half-written', async () => {
    const database = await freshDatabase();
    drop = database.drop;
    server = await start(database.url);
    const base = `http://127.0.0.1:${server.port}/calendar/events/v1`;

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
    server.kill();
    await server.exited;
    stop = true;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThanOrEqual(25);

    // A port of its own after the restart: the old one may have gone to another process meanwhile.
    server = await start(database.url);
    const restarted = `http://127.0.0.1:${server.port}/calendar/events/v1`;
    const missing: number[] = [];
    for (const { id, title } of acknowledged) {
      const res = await fetch(`${restarted}/events/${id}`, { headers: { authorization: auth } });
      const body = (await res.json()) as { title?: string; categories?: Array<{ name: string }> };
      if (res.status !== 200 || body.title !== title || body.categories?.[0]?.name !== 'Crash Course')
        missing.push(id);
    }
    expect(missing).toEqual([]);
    // Nothing half-written: every stored event has its category, and the count matches the links.
    const list = await fetch(`${restarted}/categories?hide_empty=0&search=crash`, {
      headers: { authorization: auth },
    });
    const [category] = ((await list.json()) as { categories: Array<{ id: number; count: number }> })
      .categories;
    const events = await fetch(`${restarted}/events?start_date=2031-05-01&end_date=2031-05-02&per_page=1`, {
      headers: { authorization: auth },
    });
    const total = Number(events.headers.get('x-tec-total'));
    const linked = await fetch(
      `${restarted}/events?start_date=2031-05-01&end_date=2031-05-02&per_page=1&categories=${category!.id}`,
      { headers: { authorization: auth } },
    );
    expect(Number(linked.headers.get('x-tec-total'))).toBe(total);
    expect(category!.count).toBe(total);
    expect(total).toBeGreaterThanOrEqual(acknowledged.length);
    expect(total).toBeLessThanOrEqual(acknowledged.length + WRITERS);
  }, 150_000);
});
