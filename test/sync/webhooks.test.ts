import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness } from '../helpers/harness.js';
import { type Credentials, type Users, startWithRoles } from '../helpers/users.js';
import { createLogger } from '../../src/core/ops/logger.js';
import { WebhookDispatcher, post } from '../../src/sync/webhook-dispatcher.js';
import {
  MAX_WEBHOOK_DESCRIPTION_LENGTH,
  MAX_WEBHOOK_URL_LENGTH,
  checkWebhookUrl,
  isPrivateAddress,
} from '../../src/sync/webhooks.js';
import { graphqlClient } from '../helpers/graphql.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

// Webhooks against a local receiver: Standard Webhooks signatures, retries with backoff after 500s
// and timeouts, order, the failure counter that disables an endpoint, and nothing lost when the
// dispatcher is down between a commit and its delivery (the change log is the outbox).

let h: Harness;
let users: Users;
let receiver: WebhookReceiver;
const dispatchers: WebhookDispatcher[] = [];

beforeAll(async () => {
  ({ h, users } = await startWithRoles({
    CALENDAR_WEBHOOKS_ALLOW_PRIVATE: 'true',
    CALENDAR_WEBHOOK_TIMEOUT_MS: '300',
    CALENDAR_WEBHOOK_POLL_MS: '50',
    CALENDAR_WEBHOOK_BACKOFF_MS: '40',
    CALENDAR_WEBHOOK_MAX_BACKOFF_MS: '200',
    CALENDAR_WEBHOOK_MAX_FAILURES: '4',
  }));
  receiver = await WebhookReceiver.start();
});
afterEach(async () => {
  await Promise.all(dispatchers.splice(0).map((dispatcher) => dispatcher.stop()));
  receiver.reset();
  await h.db.webhookEndpoint.deleteMany();
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
const client = graphqlClient(() => h);
/** GraphQL as the administrator, unless told otherwise. */
const gql = (query: string, variables: Record<string, unknown> = {}, as: Credentials = users.administrator) =>
  client(query, variables, as);

async function register(path: string, events: string[]): Promise<{ id: number; secret: string }> {
  const result = await gql(
    `mutation ($url: String!, $events: [String!]!) {
      createWebhookEndpoint(url: $url, events: $events) { endpoint { id } secret }
    }`,
    { url: `${receiver.base}${path}`, events },
  );
  expect(result.errors).toBeUndefined();
  const created = result.data!.createWebhookEndpoint as { endpoint: { id: number }; secret: string };
  return { id: created.endpoint.id, secret: created.secret };
}

/** A dispatcher as the server runs one: woken by this app's commits, polling for the rest. */
function startDispatcher(): WebhookDispatcher {
  const dispatcher = new WebhookDispatcher(h.db, h.config, createLogger('silent'));
  const remove = h.writes.afterCommit(() => dispatcher.kick());
  const stop = dispatcher.stop.bind(dispatcher);
  dispatcher.stop = async () => {
    remove();
    await stop();
  };
  dispatcher.start();
  dispatchers.push(dispatcher);
  return dispatcher;
}

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function createVenue(name: string): Promise<number> {
  const res = await h.http
    .post(`${API}/venues`)
    .auth(users.editor.login, users.editor.password)
    .send({ venue: name });
  expect(res.status).toBe(201);
  return res.body.id as number;
}

const updateVenue = (id: number, name: string) =>
  h.http
    .post(`${API}/venues/${id}`)
    .auth(users.editor.login, users.editor.password)
    .send({ venue: name })
    .expect(200);

const payloads = () =>
  receiver.received
    .filter((entry) => entry.answered === 204)
    .map((entry) => JSON.parse(entry.body) as Record<string, any>);

describe('webhook deliveries', () => {
  it('are signed as Standard Webhooks: the library verifies them with the endpoint secret', async () => {
    const { secret } = await register('/hook', ['venue.created']);
    startDispatcher();
    const id = await createVenue('Signed Hall');
    await until(() => receiver.received.length === 1, 'the delivery');
    const [entry] = receiver.received;
    const headers = entry!.headers as Record<string, string>;
    const verified = new Webhook(secret).verify(entry!.body, headers) as Record<string, any>;
    expect(verified).toMatchObject({
      type: 'venue.created',
      data: {
        id,
        resource: 'venue',
        operation: 'created',
        rest_url: `http://calendar.test:8080${API}/venues/${id}`,
      },
    });
    expect(headers['webhook-id']).toBe(`msg_${verified.data.sequence}`);
    // A changed body or another secret fails.
    expect(() => new Webhook(secret).verify(entry!.body.replace('"venue"', '"event"'), headers)).toThrow();
    expect(() =>
      new Webhook(`whsec_${Buffer.from('another secret!!').toString('base64')}`).verify(entry!.body, headers),
    ).toThrow();
  });

  it('only the subscribed event types are sent', async () => {
    await register('/updates', ['venue.updated']);
    startDispatcher();
    const id = await createVenue('Quiet Hall');
    await updateVenue(id, 'Loud Hall');
    await until(() => receiver.received.length === 1, 'the update');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(payloads().map((p) => p.type)).toEqual(['venue.updated']);
  });

  it('are retried with backoff after 500s and timeouts, in order, with a delivery log', async () => {
    const { id: endpointId } = await register('/flaky', ['venue.*']);
    // First attempt 500, second times out (the client gives up at 300 ms), third and later succeed.
    receiver.answer = (_entry, index) =>
      index === 0 ? { status: 500 } : index === 1 ? { status: 204, delayMs: 600 } : { status: 204 };
    startDispatcher();
    const venue = await createVenue('Flaky Hall');
    await updateVenue(venue, 'Flaky Hall 2');
    await updateVenue(venue, 'Flaky Hall 3');
    await until(() => payloads().length >= 3 + 1, 'every change delivered');
    // The first change was tried three times before anything after it was sent.
    const ids = receiver.received.map((entry) => entry.headers['webhook-id']);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[1]).toBe(ids[2]);
    const delivered = payloads().filter(
      (p, i, all) => all.findIndex((q) => q.data.sequence === p.data.sequence) === i,
    );
    expect(delivered.map((p) => p.type)).toEqual(['venue.created', 'venue.updated', 'venue.updated']);
    const sequences = delivered.map((p) => p.data.sequence as number);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);

    const log = await gql(
      `query ($id: Int!) { webhookDeliveries(endpointId: $id) { sequence attempt succeeded status error } }`,
      { id: endpointId },
    );
    const attempts = [...(log.data!.webhookDeliveries as Array<Record<string, any>>)].reverse();
    expect(attempts.slice(0, 3).map((a) => [a.attempt, a.succeeded, a.status])).toEqual([
      [1, false, 500],
      [2, false, null],
      [3, true, 204],
    ]);
    expect(attempts[1]!.error).toMatch(/no answer within 300 ms/);
    const [endpoint] = (await gql('{ webhookEndpoints { id failures enabled } }')).data!.webhookEndpoints;
    expect(endpoint).toEqual({ id: endpointId, failures: 0, enabled: true });
  });

  it('a dead endpoint is disabled after CALENDAR_WEBHOOK_MAX_FAILURES consecutive failures', async () => {
    const { id } = await register('/dead', ['*']);
    receiver.answer = () => ({ status: 503 });
    startDispatcher();
    await createVenue('Dead Hall');
    await until(
      async () => !(await h.db.webhookEndpoint.findUniqueOrThrow({ where: { id } })).enabled,
      'disabled',
    );
    const endpoint = await h.db.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect(endpoint.failures).toBe(4);
    expect(endpoint.disabledReason).toMatch(/4 consecutive failed deliveries \(last: answered 503\)/);
    expect(receiver.received).toHaveLength(4);
    // Enabled again, it starts over where it stopped: the same change.
    receiver.answer = () => ({ status: 204 });
    await gql(`mutation { setWebhookEndpointEnabled(id: ${id}, enabled: true) { enabled } }`);
    startDispatcher();
    await until(() => payloads().length === 1, 'the redelivery');
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
  });

  it('nothing is lost when no dispatcher runs between the commit and the delivery', async () => {
    await register('/outbox', ['venue.*']);
    const first = startDispatcher();
    const id = await createVenue('Outbox Hall');
    await until(() => payloads().length === 1, 'the first delivery');
    // The process "stops": writes commit meanwhile, nobody delivers them.
    await first.stop();
    await updateVenue(id, 'Outbox Hall 2');
    await updateVenue(id, 'Outbox Hall 3');
    await h.http
      .delete(`${API}/venues/${id}?force=true`)
      .auth(users.editor.login, users.editor.password)
      .expect(200);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(payloads()).toHaveLength(1);
    // A new one (after a restart) delivers every change it missed, in order.
    startDispatcher();
    await until(() => payloads().length === 4, 'the missed deliveries');
    expect(payloads().map((p) => p.type)).toEqual([
      'venue.created',
      'venue.updated',
      'venue.updated',
      'venue.deleted',
    ]);
  });

  it('two dispatchers (two instances) deliver each change once while both are up', async () => {
    await register('/pair', ['venue.*']);
    startDispatcher();
    startDispatcher();
    const id = await createVenue('Pair Hall');
    for (let i = 0; i < 5; i++) await updateVenue(id, `Pair Hall ${i}`);
    await until(() => payloads().length >= 6, 'six deliveries');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const sequences = payloads().map((p) => p.data.sequence as number);
    expect(sequences).toHaveLength(6);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
  });
});

describe('webhook administration', () => {
  it('is for administrators only', async () => {
    const result = await gql(
      `mutation { createWebhookEndpoint(url: "https://example.com/hook", events: ["*"]) { secret } }`,
      {},
      users.editor,
    );
    expect(result.errors?.[0]?.extensions.code).toBe('rest_forbidden');
    expect((await gql('{ webhookEndpoints { id } }', {}, users.editor)).errors?.[0]?.extensions.code).toBe(
      'rest_forbidden',
    );
  });

  it('refuses unknown event types and non-http URLs', async () => {
    const unknown = await gql(
      `mutation { createWebhookEndpoint(url: "https://example.com/hook", events: ["event.exploded"]) { secret } }`,
    );
    expect(unknown.errors?.[0]?.extensions.code).toBe('rest_invalid_param');
    const ftp = await gql(
      `mutation { createWebhookEndpoint(url: "ftp://example.com/", events: ["*"]) { secret } }`,
    );
    expect(ftp.errors?.[0]?.extensions.code).toBe('rest_invalid_param');
  });

  it('refuses an overlong URL or description, storing nothing', async () => {
    const before = await h.db.webhookEndpoint.count();
    const longUrl = `https://example.com/${'a'.repeat(MAX_WEBHOOK_URL_LENGTH)}`;
    const url = await gql(
      `mutation ($url: String!) { createWebhookEndpoint(url: $url, events: ["*"]) { secret } }`,
      { url: longUrl },
    );
    expect(url.errors?.[0]?.extensions).toMatchObject({
      code: 'rest_invalid_param',
      data: { params: { url: `At most ${MAX_WEBHOOK_URL_LENGTH} characters.` } },
    });
    const description = await gql(
      `mutation ($d: String) { createWebhookEndpoint(url: "https://example.com/hook", events: ["*"], description: $d) { secret } }`,
      { d: 'x'.repeat(MAX_WEBHOOK_DESCRIPTION_LENGTH + 1) },
    );
    expect(description.errors?.[0]?.extensions.code).toBe('rest_invalid_param');
    expect(await h.db.webhookEndpoint.count()).toBe(before);
  });
});

/** Why `checkWebhookUrl` refuses a URL (its `url` parameter reason), or null when it accepts it. */
function refusal(url: string): string | null {
  try {
    checkWebhookUrl(url, false);
    return null;
  } catch (error) {
    return String((error as { data: { params: { url: string } } }).data.params.url);
  }
}

describe('calendar webhooks (CLI)', () => {
  const CLI = new URL('../../bin/calendar.js', import.meta.url).pathname;
  const calendar = async (...args: string[]) => {
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'webhooks', ...args], {
        env: { ...process.env, DATABASE_URL: h.config.databaseUrl },
      });
      return { stdout, code: 0 };
    } catch (error) {
      const failed = error as { stdout: string; stderr: string; code: number };
      return { stdout: failed.stdout + failed.stderr, code: failed.code };
    }
  };

  it('adds an endpoint (printing its secret), lists it, shows its deliveries, refuses loopback', async () => {
    const added = await calendar(
      'add',
      'https://hooks.example.com/cal',
      '--events',
      'event.created,event.updated',
    );
    expect(added.code).toBe(0);
    const secret = added.stdout.trim().split('\n').at(-1)!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const endpoint = await h.db.webhookEndpoint.findFirstOrThrow({
      where: { url: 'https://hooks.example.com/cal' },
    });
    expect(endpoint).toMatchObject({ secret, events: 'event.created,event.updated', enabled: true });
    expect((await calendar('list')).stdout).toContain('https://hooks.example.com/cal');
    expect((await calendar('deliveries', String(endpoint.id))).stdout).toContain('No deliveries yet.');
    const loopback = await calendar('add', 'http://127.0.0.1:8080/', '--events', '*');
    expect(loopback.code).toBe(1);
    expect(loopback.stdout).toContain('calendar: Invalid parameter(s): url (url: Private, loopback');
  }, 60_000);
});

describe('SSRF', () => {
  it('private, loopback and link-local targets are refused unless allowed', async () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
    ])
      expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'])
      expect(isPrivateAddress(address), address).toBe(false);
    expect(refusal('http://127.0.0.1:9/hook')).toMatch(/Private/);
    expect(refusal('http://[::1]/hook')).toMatch(/Private/);
    expect(refusal('http://localhost/hook')).toMatch(/Private/);
    expect(refusal('http://user:pw@example.com/')).toMatch(/Credentials/);
    expect(checkWebhookUrl('http://127.0.0.1:9/hook', true)).toBe('http://127.0.0.1:9/hook');
    // A name resolving to a private address is refused when connecting (DNS rebinding included).
    const refused = await post(`http://localhost:${new URL(receiver.base).port}/x`, {}, '{}', {
      timeoutMs: 1000,
      allowPrivate: false,
    });
    expect(refused.status).toBeNull();
    expect(refused.error).toMatch(/EPRIVATE/);
    expect(receiver.received).toHaveLength(0);
  });
});
