import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { API, type Harness, startHarness } from '../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../helpers/fixtures.js';
import { type Users, withRoles } from '../helpers/users.js';

// A seeded random mix of reads and writes across both APIs: every read of the app with a cache
// answers exactly what the app without one answers on the same data at the same moment.

let h: Harness;
let cached: ReturnType<typeof supertest>;
let uncached: ReturnType<typeof supertest>;
let users: Users;

beforeAll(async () => {
  h = await startHarness({ CALENDAR_CACHE: 'on' });
  cached = h.http;
  // One instance's view of the data without a cache, writing through the same pipeline.
  uncached = supertest(
    buildApp({
      db: h.db,
      config: { ...h.config, cache: { enabled: false, maxBytes: 0 } },
      writes: h.writes,
      logger: createLogger('silent'),
    }).callback(),
  );
  users = await withRoles(h);
  const venue = await createVenue(h.db);
  const organizer = await createOrganizer(h.db);
  const term = await createTerm(h.db, 'tribe_events_cat');
  for (let i = 0; i < 12; i++)
    await createEvent(h.db, { venueIds: [venue.id], organizerIds: [organizer.id], termIds: [term.id] });
});
afterAll(() => h.close());

/** mulberry32: a small seeded generator, so that a failure replays. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const READS = [
  `${API}/events`,
  `${API}/events?per_page=5&page=2`,
  `${API}/events?categories=1`,
  `${API}/venues`,
  `${API}/organizers`,
  `${API}/categories`,
  `${API}/events/{event}`,
  `${API}/venues/{venue}`,
  'gql:{ events(perPage: 20) { pageInfo { total } items { id title venues { name } organizers { name } } } }',
  'gql:{ venues { items { id name } } organizers { items { id name } } categories { items { id name count } } }',
  'gql:query($id: Int!) { event(id: $id) { id title status } }',
];

describe('cache on and cache off answer the same', () => {
  it('300 seeded operations', async () => {
    const next = random(20261122);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const ids = async (path: string) =>
      (
        (
          await uncached
            .get(`${API}/${path}?per_page=50&status=publish,draft,pending,private`)
            .auth(users.administrator.login, users.administrator.password)
        ).body[path] as Array<{ id: number }>
      ).map((r) => r.id);
    let eventIds = await ids('events');
    let venueIds = await ids('venues');
    let n = 0;
    for (let step = 0; step < 300; step++) {
      if (next() < 0.2) {
        // A write, through either app and either API.
        const via = next() < 0.5 ? cached : uncached;
        const title = `Interleaved ${++n}`;
        const kind = pick([
          'update-event',
          'trash-event',
          'create-event',
          'update-venue',
          'create-venue',
        ] as const);
        const event = pick(eventIds);
        const venue = pick(venueIds);
        const day = new Date(Date.now() + (1 + (n % 5)) * 86400_000).toISOString().slice(0, 10);
        if (next() < 0.5) {
          const res =
            kind === 'update-event'
              ? await via
                  .post(`${API}/events/${event}`)
                  .auth(users.administrator.login, users.administrator.password)
                  .send({ title })
              : kind === 'trash-event'
                ? await via
                    .delete(`${API}/events/${event}`)
                    .auth(users.administrator.login, users.administrator.password)
                : kind === 'create-event'
                  ? await via
                      .post(`${API}/events`)
                      .auth(users.administrator.login, users.administrator.password)
                      .send({
                        title,
                        start_date: `${day} 09:00:00`,
                        end_date: `${day} 10:00:00`,
                        venue: venue,
                      })
                  : kind === 'update-venue'
                    ? await via
                        .post(`${API}/venues/${venue}`)
                        .auth(users.administrator.login, users.administrator.password)
                        .send({ venue: title })
                    : await via
                        .post(`${API}/venues`)
                        .auth(users.administrator.login, users.administrator.password)
                        .send({ venue: title });
          expect(res.status, `${kind} ${res.text}`).toBeLessThan(500);
        } else {
          const query =
            kind === 'update-event'
              ? `mutation { updateEvent(id: ${event}, input: { title: "${title}" }) { id: databaseId } }`
              : kind === 'trash-event'
                ? `mutation { deleteEvent(id: ${event}) { id: databaseId } }`
                : kind === 'create-event'
                  ? `mutation { createEvent(input: { title: "${title}", startDate: "${day} 09:00:00", endDate: "${day} 10:00:00" }) { id: databaseId } }`
                  : kind === 'update-venue'
                    ? `mutation { updateVenue(id: ${venue}, input: { name: "${title}" }) { id: databaseId } }`
                    : `mutation { createVenue(input: { name: "${title}" }) { id: databaseId } }`;
          const res = await via
            .post('/graphql')
            .auth(users.administrator.login, users.administrator.password)
            .send({ query });
          expect(res.status).toBeLessThan(500);
        }
        eventIds = await ids('events');
        venueIds = await ids('venues');
        continue;
      }
      const read = pick(READS)
        .replace('{event}', String(pick(eventIds)))
        .replace('{venue}', String(pick(venueIds)));
      const variables = read.includes('$id') ? { id: pick(eventIds) } : {};
      const [a, b] = await Promise.all(
        [cached, uncached].map((http) =>
          // The same request id on both: error bodies name it, and the answers are compared byte for byte.
          read.startsWith('gql:')
            ? http
                .post('/graphql')
                .set('X-Request-Id', `step-${step}`)
                .send({ query: read.slice(4), variables })
            : http.get(read).set('X-Request-Id', `step-${step}`),
        ),
      );
      expect({ status: a!.status, body: a!.text }, `${step}: ${read}`).toEqual({
        status: b!.status,
        body: b!.text,
      });
    }
  }, 240_000);
});
