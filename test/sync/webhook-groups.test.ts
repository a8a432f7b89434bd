import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness } from '../helpers/harness.js';
import { type Users, startWithRoles } from '../helpers/users.js';
import { graphqlClient } from '../helpers/graphql.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { createLogger } from '../../src/core/ops/logger.js';
import { CsvReader } from '../../src/imports/csv.js';
import { runImport } from '../../src/imports/engine.js';
import { WebhookDispatcher } from '../../src/sync/webhook-dispatcher.js';
import { importScope } from '../imports/helpers.js';

// Grouped deliveries: a series write (hundreds of occurrences in one transaction) and an import run
// (one transaction per record) each reach an endpoint as one summary, while the change stream still
// lists every occurrence and a single occurrence's edit stays an ordinary delivery.

let h: Harness;
let users: Users;
let receiver: WebhookReceiver;
const dispatchers: WebhookDispatcher[] = [];

beforeAll(async () => {
  ({ h, users } = await startWithRoles({
    CALENDAR_WEBHOOKS_ALLOW_PRIVATE: 'true',
    CALENDAR_WEBHOOK_TIMEOUT_MS: '2000',
    CALENDAR_WEBHOOK_POLL_MS: '50',
    CALENDAR_WEBHOOK_BACKOFF_MS: '40',
    CALENDAR_WEBHOOK_MAX_BACKOFF_MS: '200',
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

const gql = graphqlClient(() => h);

async function register(events: string[]): Promise<number> {
  const result = await gql(
    `mutation ($url: String!, $events: [String!]!) {
      createWebhookEndpoint(url: $url, events: $events) { endpoint { id } }
    }`,
    { url: `${receiver.base}/hook`, events },
    users.administrator,
  );
  expect(result.errors).toBeUndefined();
  return (result.data!.createWebhookEndpoint as { endpoint: { id: number } }).endpoint.id;
}

/** A dispatcher as the server runs one: woken by this app's commits, polling for the rest. */
function startDispatcher(): void {
  const dispatcher = new WebhookDispatcher(h.db, h.config, createLogger('silent'));
  const remove = h.writes.afterCommit(() => dispatcher.kick());
  const stop = dispatcher.stop.bind(dispatcher);
  dispatcher.stop = async () => {
    remove();
    await stop();
  };
  dispatcher.start();
  dispatchers.push(dispatcher);
}

/** Waits until every endpoint took the whole log (its cursor at the last sequence). */
async function settled(ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const last = await h.db.changeLog.findFirst({ orderBy: { id: 'desc' }, select: { id: true } });
    const behind = await h.db.webhookEndpoint.count({ where: { cursor: { lt: last?.id ?? 0 } } });
    if (!behind) return;
    if (Date.now() > deadline) throw new Error('the endpoints did not take the whole log');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const delivered = () => receiver.received.filter((entry) => entry.status === 204).map((entry) => entry.json);

function post(path: string, body: object, expected = 200) {
  const admin = users.administrator;
  return h.http.post(`${API}${path}`).auth(admin.login, admin.password).send(body).expect(expected);
}

/** A daily series of `count` events; its first event's id and its events' ids (first included). */
async function dailySeries(title: string, count: number): Promise<{ first: number; ids: number[] }> {
  const first = (
    await post(
      '/events',
      {
        title,
        start_date: '2027-03-01 18:00:00',
        end_date: '2027-03-01 19:00:00',
        recurrence: [`RRULE:FREQ=DAILY;COUNT=${count}`],
      },
      201,
    )
  ).body.id as number;
  const children = await h.db.event.findMany({ where: { postParentId: first }, select: { id: true } });
  return { first, ids: [first, ...children.map((row) => row.id)].sort((a, b) => a - b) };
}

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

describe('a series write', () => {
  it('is one event.series.updated delivery: its creation, an edit of all, while the stream lists every occurrence', async () => {
    await register(['event.*']);
    startDispatcher();
    const admin = users.administrator;
    const token = (await h.http.get(`${API}/changes`).auth(admin.login, admin.password).expect(200)).body
      .next as string;

    const { first, ids } = await dailySeries('Morning swim', 260);
    expect(ids).toHaveLength(260);
    await settled();
    expect(delivered()).toHaveLength(1);
    const [created] = delivered();
    expect(created).toMatchObject({
      type: 'event.series.updated',
      data: {
        id: first,
        resource: 'event',
        group: `series:${first}`,
        counts: { created: 260, updated: 0, trashed: 0, deleted: 0 },
        rest_url: `http://calendar.test:8080${API}/events/${first}`,
      },
    });
    expect(sorted(created!.data.ids as number[])).toEqual(ids);
    expect(created!.data.last_sequence - created!.data.first_sequence).toBeGreaterThanOrEqual(259);
    expect(receiver.received[0]!.id).toBe(
      `msg_${created!.data.first_sequence}_${created!.data.last_sequence}`,
    );

    // The change stream is untouched: every occurrence, one row per change.
    const page = await h.http
      .get(`${API}/changes?since=${token}&per_page=500`)
      .auth(admin.login, admin.password)
      .expect(200);
    expect(sorted((page.body.events as Array<{ id: number }>).map((event) => event.id))).toEqual(ids);

    // Edit of the whole series (its first event): one more delivery, every event updated.
    await post(`/events/${first}`, { title: 'Evening swim' });
    await settled();
    expect(delivered()).toHaveLength(2);
    const edited = delivered()[1]!;
    expect(edited.type).toBe('event.series.updated');
    expect(edited.data.counts).toMatchObject({ created: 0, updated: 260 });
    expect(sorted(edited.data.ids as number[])).toEqual(ids);
  });

  it('on one occurrence only (scope this) stays an ordinary event.updated delivery', async () => {
    const { ids } = await dailySeries('Tea', 5);
    await register(['event.*']);
    startDispatcher();
    await post(`/events/${ids[2]}`, { title: 'Tea with cake' });
    await settled();
    expect(delivered()).toEqual([
      expect.objectContaining({
        type: 'event.updated',
        data: expect.objectContaining({ id: ids[2], operation: 'updated' }),
      }),
    ]);
    expect(receiver.received[0]!.id).toBe(`msg_${delivered()[0]!.data.sequence}`);
  });

  it('of more rows than a batch reads (1,000 occurrences) is still one delivery', async () => {
    await register(['event.created']);
    startDispatcher();
    const { ids } = await dailySeries('Daily standup', 1000);
    await settled();
    expect(delivered()).toHaveLength(1);
    expect(delivered()[0]!.data.counts.created).toBe(1000);
    expect(sorted(delivered()[0]!.data.ids as number[])).toEqual(ids);
  });

  it('goes to endpoints by the changes it covers or its own type; others skip it', async () => {
    await register(['venue.*']);
    await register(['event.series.updated']);
    await register(['event.deleted']);
    startDispatcher();
    const { first } = await dailySeries('Choir', 4);
    await settled();
    // Only the endpoint subscribed to the summary's type gets the creation; the others' cursors moved.
    expect(delivered().map((body) => [body.type, body.data.id])).toEqual([['event.series.updated', first]]);
  });

  it('whose delivery fails is sent again whole, with the same id, once the endpoint answers', async () => {
    const endpoint = await register(['*']);
    receiver.answer = (_request, index) => ({ status: index === 0 ? 500 : 204 });
    startDispatcher();
    const { ids } = await dailySeries('Retry run', 150);
    await settled();
    expect(receiver.received.map((entry) => entry.status)).toEqual([500, 204]);
    expect(receiver.received[1]!.id).toBe(receiver.received[0]!.id);
    expect(receiver.received[1]!.json).toEqual(receiver.received[0]!.json);
    expect(sorted(receiver.received[1]!.json.data.ids as number[])).toEqual(ids);
    const log = await h.db.webhookDelivery.findMany({
      where: { endpointId: endpoint },
      orderBy: { id: 'asc' },
    });
    expect(log.map((row) => [row.eventType, row.attempt, row.succeeded])).toEqual([
      ['event.series.updated', 1, false],
      ['event.series.updated', 2, true],
    ]);
  });
});

describe('an import run', () => {
  it('is one import.run.updated delivery for all its records, not one per record', async () => {
    await register(['event.created']);
    startDispatcher();
    const rows = Array.from({ length: 12 }, (_, i) => {
      const day = `2030-05-${String(i + 1).padStart(2, '0')}`;
      return `Talk ${i + 1},About ${i + 1},${day},10:00,${day},11:00`;
    });
    const csv = [
      'Event Name,Event Description,Event Start Date,Event Start Time,Event End Date,Event End Time',
      ...rows,
    ].join('\n');
    const reader = new CsvReader('talks.csv', csv, 'events', { siteTimezone: 'UTC', batchSize: 5 });
    const summary = await runImport(importScope(h), reader);
    expect(summary.created).toBe(12);
    await settled();
    expect(delivered()).toHaveLength(1);
    const [run] = delivered();
    const events = await h.db.event.findMany({
      where: { title: { startsWith: 'Talk ' } },
      select: { id: true },
    });
    expect(run).toMatchObject({
      type: 'import.run.updated',
      data: {
        id: summary.runId,
        resource: 'import_run',
        source: 'csv:events:talks.csv',
        group: `import-run:${summary.runId}`,
        counts: { event: { created: 12, updated: 0, trashed: 0, deleted: 0 } },
      },
    });
    expect(sorted(run!.data.ids.event as number[])).toEqual(sorted(events.map((row) => row.id)));
  });
});
