import { Writable } from 'node:stream';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { pino } from 'pino';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/core/config/config.js';
import { type Db, createDb } from '../../../src/core/db/client.js';
import { migrateDatabase } from '../../../src/core/db/migrate.js';
import { Metrics } from '../../../src/core/ops/metrics.js';
import { API, SITE_URL } from '../../helpers/harness.js';
import { freshDatabase } from '../../helpers/database.js';
import { createEvent, createVenue } from '../../helpers/fixtures.js';

// Operators scrape /metrics (Prometheus text format) and follow a request by its id into the logs.

const TOKEN = 'scrape-token-0123456789';
const logLines: Array<Record<string, unknown>> = [];
let db: Db;
let drop: () => Promise<void>;
let http: ReturnType<typeof supertest>;

beforeAll(async () => {
  const database = await freshDatabase();
  drop = database.drop;
  await migrateDatabase(database.url);
  const metrics = new Metrics();
  db = await createDb(database.url, { metrics });
  const config = loadConfig({
    DATABASE_URL: database.url,
    CALENDAR_SITE_URL: SITE_URL,
    CALENDAR_METRICS_TOKEN: TOKEN,
  });
  const capture = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  const logger = pino({ level: 'debug' }, capture);
  http = supertest(buildApp({ db, config, logger, metrics }).callback());
});
afterAll(async () => {
  await db.$disconnect();
  await drop();
});

async function scrape() {
  const res = await http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusTextFormat(res.text);
}

function sampleValue(
  families: ReturnType<typeof parsePrometheusTextFormat>,
  name: string,
  labels: Record<string, string>,
): number {
  const family = families.find((candidate) => candidate.name === name);
  const sample = family?.metrics.find((metric) =>
    Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value),
  );
  return Number(sample?.value ?? sample?.count ?? 0);
}

describe('GET /metrics', () => {
  it('needs the bearer token', async () => {
    await http.get('/metrics').expect(401);
    await http.get('/metrics').set('Authorization', 'Bearer wrong-token-0123456789').expect(401);
  });

  it('counts requests by route template, never by raw path, and moves with traffic', async () => {
    const route = `${API}/events/:id`;
    const before = sampleValue(await scrape(), 'calendar_http_requests_total', {
      route,
      method: 'GET',
      status: '404',
    });
    await http.get(`${API}/events/123`).expect(404);
    await http.get(`${API}/events/456`).expect(404);
    const after = await scrape();
    expect(sampleValue(after, 'calendar_http_requests_total', { route, method: 'GET', status: '404' })).toBe(
      before + 2,
    );
    const routes = after
      .find((family) => family.name === 'calendar_http_requests_total')!
      .metrics.map((metric) => metric.labels?.route);
    expect(routes).not.toContain(`${API}/events/123`);
    // The parser keeps histogram buckets but not their labels: the series itself is checked in the text.
    const text = (await http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`)).text;
    expect(text).toMatch(
      new RegExp(
        `^calendar_http_request_duration_seconds_count\\{route="${route}",method="GET"\\} [1-9]`,
        'm',
      ),
    );
  });

  it('reports GraphQL operations by name with phase durations, and database operations', async () => {
    await http
      .post('/graphql')
      .send({
        query: 'query ListSome { events(perPage: 2) { pageInfo { total } } }',
        operationName: 'ListSome',
      })
      .expect(200);
    const families = await scrape();
    expect(sampleValue(families, 'graphql_envelop_request', { operationName: 'ListSome' })).toBeGreaterThan(
      0,
    );
    expect(sampleValue(families, 'calendar_sql_statements_total', {})).toBeGreaterThan(0);
    const text = (await http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`)).text;
    expect(text).toMatch(/^graphql_envelop_phase_execute_count\{[^}]*operationName="ListSome"[^}]*\} [1-9]/m);
    expect(text).toMatch(/^graphql_envelop_phase_parse_count\{[^}]*\} [1-9]/m);
    expect(text).toMatch(
      /^calendar_db_operation_duration_seconds_count\{model="Event",operation="\w+"\} [1-9]/m,
    );
    const names = families.map((family) => family.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'nodejs_eventloop_lag_seconds',
        'process_resident_memory_bytes',
        'calendar_response_cache_events_total',
        'calendar_response_cache_bytes',
        'calendar_subscriptions_open',
      ]),
    );
  });
});

describe('response cache metrics', () => {
  it('counts misses, hits and invalidations and reports the bytes held', async () => {
    const before = await scrape();
    const count = (families: typeof before, event: string) =>
      sampleValue(families, 'calendar_response_cache_events_total', { event });
    await http.get(`${API}/venues?per_page=3`).expect(200);
    await http.get(`${API}/venues?per_page=3`).expect(200);
    const after = await scrape();
    expect(count(after, 'miss')).toBe(count(before, 'miss') + 1);
    expect(count(after, 'hit')).toBe(count(before, 'hit') + 1);
    expect(sampleValue(after, 'calendar_response_cache_bytes', {})).toBeGreaterThan(0);
  });

  it('counts the event rows taken from kept records and read, and reports their bytes', async () => {
    const before = await scrape();
    const rows = (families: typeof before, result: string) =>
      sampleValue(families, 'calendar_record_cache_reads_total', { result });
    const venue = await createVenue(db, { name: 'Metric Hall' });
    for (const day of ['10', '11'])
      await createEvent(db, {
        title: `Metric ${day}`,
        start: `2031-03-${day} 10:00:00`,
        venueIds: [venue.id],
      });
    // Two lists over the same two events: the second answer is another key, its rows are kept.
    await http.get(`${API}/events?start_date=2031-03-01&end_date=2031-03-31`).expect(200);
    await http.get(`${API}/events?start_date=2031-03-01&end_date=2031-03-30`).expect(200);
    const after = await scrape();
    expect(rows(after, 'read')).toBe(rows(before, 'read') + 2);
    expect(rows(after, 'kept')).toBe(rows(before, 'kept') + 2);
    expect(sampleValue(after, 'calendar_record_cache_bytes', {})).toBeGreaterThan(0);
  });
});

describe('request ids', () => {
  it('keeps a plausible X-Request-Id and puts it on every log line of the request and in the error body', async () => {
    const res = await http.get(`${API}/events/987654`).set('X-Request-Id', 'client-trace-42').expect(404);
    expect(res.headers['x-request-id']).toBe('client-trace-42');
    expect(res.body.data).toEqual({ status: 404, request_id: 'client-trace-42' });
    const lines = logLines.filter((line) => line.reqId === 'client-trace-42');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.some((line) => line.msg === 'request' && line.status === 404)).toBe(true);
  });

  it('generates one when none (or an implausible one) is sent', async () => {
    const plain = await http.get(`${API}/events/987654`).expect(404);
    expect(plain.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const hostile = await http.get(`${API}/events/987654`).set('X-Request-Id', 'x'.repeat(500)).expect(404);
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(hostile.body.data.request_id).toBe(hostile.headers['x-request-id']);
  });

  it('comes back on GraphQL responses too', async () => {
    const res = await http
      .post('/graphql')
      .set('X-Request-Id', 'gql-trace-7')
      .send({ query: '{ event(id: 987654) { id: databaseId } }' })
      .expect(200);
    expect(res.headers['x-request-id']).toBe('gql-trace-7');
    expect(logLines.some((line) => line.reqId === 'gql-trace-7' && line.route === '/graphql')).toBe(true);
  });

  it('never logs probes at info', async () => {
    await http.get('/healthz').set('X-Request-Id', 'probe-1').expect(200);
    await http.get('/readyz').set('X-Request-Id', 'probe-2').expect(200);
    const probes = logLines.filter((line) => line.reqId === 'probe-1' || line.reqId === 'probe-2');
    expect(probes.filter((line) => Number(line.level) >= 30)).toEqual([]);
  });
});
