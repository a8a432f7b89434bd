import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../helpers/database.js';
import { type ServerProcess, startServerProcess } from '../helpers/processes/server-process.js';

// kill -9 of the real server after writes were acknowledged and while the first delivery was in flight
// (the receiver never answered it): after a restart on the same database every acknowledged write
// reaches the endpoint, signed, in order — the change log is the outbox, and the dead instance's claim
// on the endpoint runs out. Runs on whichever database the suite uses.

const ADMIN = 'hook-admin';
const PASSWORD = 'hook-crash-password-1234';
const WRITES = 10;
const auth = `Basic ${Buffer.from(`${ADMIN}:${PASSWORD}`).toString('base64')}`;

let drop: (() => Promise<void>) | undefined;
let server: ServerProcess | undefined;
let receiver: Server | undefined;

/** The server on this database (on a free port), delivering webhooks to loopback at once, retrying fast. */
const start = (url: string) =>
  startServerProcess({
    DATABASE_URL: url,
    CALENDAR_ADMIN_USER: ADMIN,
    CALENDAR_ADMIN_PASSWORD: PASSWORD,
    CALENDAR_WEBHOOKS: 'on',
    CALENDAR_WEBHOOKS_ALLOW_PRIVATE: 'true',
    CALENDAR_WEBHOOK_POLL_MS: '50',
    CALENDAR_WEBHOOK_TIMEOUT_MS: '1000',
    CALENDAR_WEBHOOK_BACKOFF_MS: '50',
    CALENDAR_WEBHOOK_MAX_BACKOFF_MS: '200',
    CALENDAR_WEBHOOK_MAX_FAILURES: '1000',
  });

afterAll(async () => {
  server?.kill();
  receiver?.closeAllConnections();
  await new Promise((done) => (receiver ? receiver.close(done) : done(undefined)));
  await drop?.();
});

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
describe('kill -9 between commit and delivery', () => {
  it('delivers every acknowledged write after the restart, signed and in order', async () => {
    const database = await freshDatabase();
    drop = database.drop;
    // The receiver listens before anything else starts: a port only probed free could be taken by
    // an outgoing connection's ephemeral port before the receiver binds it. It takes the first
    // attempts and never answers them: nothing is delivered.
    const received: Array<{ body: string; headers: IncomingHttpHeaders }> = [];
    let answering = false;
    let inFlight = 0;
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        if (!answering) {
          inFlight++;
          return;
        }
        received.push({ body, headers: req.headers });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((done) => receiver!.listen(0, '127.0.0.1', done));
    const hookPort = (receiver.address() as AddressInfo).port;
    server = await start(database.url);
    const graphql = `http://127.0.0.1:${server.port}/graphql`;
    const api = `http://127.0.0.1:${server.port}/calendar/events/v1`;

    const registered = await fetch(graphql, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `mutation ($url: String!) {
          createWebhookEndpoint(url: $url, events: ["event.created"]) { secret }
        }`,
        variables: { url: `http://127.0.0.1:${hookPort}/hook` },
      }),
    });
    const { data, errors } = (await registered.json()) as { data?: any; errors?: unknown };
    expect(errors).toBeUndefined();
    const secret = data.createWebhookEndpoint.secret as string;

    const acknowledged: number[] = [];
    for (let n = 1; n <= WRITES; n++) {
      const res = await fetch(`${api}/events`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          title: `Outbox ${n}`,
          start_date: '2031-06-01 10:00:00',
          end_date: '2031-06-01 11:00:00',
        }),
      });
      expect(res.status).toBe(201);
      acknowledged.push(((await res.json()) as { id: number }).id);
    }
    const waitingFrom = Date.now();
    while (inFlight === 0 && Date.now() - waitingFrom < 10_000)
      await new Promise((done) => setTimeout(done, 10));
    expect(inFlight).toBeGreaterThan(0);
    server.kill();
    await server.exited;
    receiver.closeAllConnections();
    answering = true;

    // The restart takes a port of its own: the old one may have gone to another process meanwhile.
    server = await start(database.url);
    const delivered = () =>
      received.map(
        ({ body, headers }) =>
          new Webhook(secret).verify(body, headers as Record<string, string>) as { type: string; data: any },
      );
    // A delivery attempt in flight at the kill left its claim: it runs out after 2 × 1 s + 5 s.
    const deadline = Date.now() + 20_000;
    while (new Set(delivered().map((event) => event.data.id)).size < WRITES && Date.now() < deadline)
      await new Promise((done) => setTimeout(done, 50));

    const events = delivered();
    expect(events.every((event) => event.type === 'event.created')).toBe(true);
    // At least once: every acknowledged write, first deliveries in commit order.
    const firsts = [...new Set(events.map((event) => event.data.id as number))];
    expect(firsts).toEqual(acknowledged);
  }, 120_000);
});
