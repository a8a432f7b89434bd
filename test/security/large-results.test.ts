import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventSchedule } from '../../src/core/rules/dates.js';
import { API, type Harness, startHarness } from '../helpers/harness.js';
import { createUser } from '../helpers/users.js';

// Answers that hold more rows than SQLite binds in one statement (999) are still answers, never a
// 500 (#13 part 4): a radius holding 1,200 venues, feeds of 1,200 events. Requests whose lists
// would grow a statement with what they send are refused with a 400 naming the parameter.

const MANY = 1200;
let h: Harness;
let editor: [string, string];

beforeAll(async () => {
  h = await startHarness();
  const e = await createUser(h, 'editor');
  editor = [e.login, e.password];
  const start = DateTime.utc().plus({ days: 2 }).set({ hour: 10, minute: 0, second: 0, millisecond: 0 });
  const schedule = eventSchedule(start.toJSDate(), start.plus({ hours: 1 }).toJSDate(), 'UTC');
  // Venues spread within ~40 km of Paris, one event each.
  await h.db.venue.createMany({
    data: Array.from({ length: MANY }, (_, i) => ({
      name: `Near ${i}`,
      slug: `near-${i}`,
      geoLat: 48.85 + ((i % 40) - 20) / 100,
      geoLng: 2.35 + (Math.floor(i / 40) - 15) / 100,
    })),
  });
  await h.db.event.createMany({
    data: Array.from({ length: MANY }, (_, i) => ({ title: `Many ${i}`, slug: `many-${i}`, ...schedule })),
  });
  const venues = await h.db.venue.findMany({ select: { id: true }, orderBy: { id: 'asc' } });
  const events = await h.db.event.findMany({ select: { id: true }, orderBy: { id: 'asc' } });
  await h.db.eventVenue.createMany({
    data: events.map((event, i) => ({ eventId: event.id, venueId: venues[i]!.id })),
  });
}, 60_000);

afterAll(async () => {
  await h?.close();
});

/** Great-circle distance, computed independently of the service. */
function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const a =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 +
    Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.sqrt(a));
}

const near = 'geoloc_lat=48.85&geoloc_lng=2.35&geoloc_radius=100';

describe(`${MANY} venues within a radius`, () => {
  it('lists the nearest first on REST, with the total', async () => {
    const res = await h.http.get(`${API}/events?${near}&per_page=50`).expect(200);
    expect(res.headers['x-tec-total']).toBe(String(MANY));
    expect(res.body.events).toHaveLength(50);
    expect(res.body.events[0].venue.venue).toBe('Near 620');
  });

  it('leaves out the venues of the bounding box outside the circle', async () => {
    // 20 km from the centre: the box's corners (~28 km) hold venues the circle does not.
    const res = await h.http.get(`${API}/events?geoloc_lat=48.85&geoloc_lng=2.35&geoloc_radius=20`);
    expect(res.status).toBe(200);
    const venues = await h.db.venue.findMany({ select: { geoLat: true, geoLng: true } });
    const within = venues.filter((v) => distanceKm(48.85, 2.35, v.geoLat!, v.geoLng!) <= 20).length;
    expect(within).toBeGreaterThan(0);
    expect(within).toBeLessThan(MANY);
    expect(Number(res.headers['x-tec-total'])).toBe(within);
  });

  it('answers GraphQL', async () => {
    const res = await h.http
      .post('/graphql')
      .send({
        query:
          '{ events(perPage: 5, filter: { near: { lat: 48.85, lng: 2.35, radius: 100 } }) { pageInfo { total } items { id: databaseId } } }',
      })
      .expect(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.events.pageInfo.total).toBe(MANY);
  });

  it(`serves a feed of ${MANY} events, nearest first, and of the plain list`, async () => {
    for (const query of [`${near}&limit=${MANY}`, `limit=${MANY}`]) {
      const res = await h.http.get(`${API}/events.ics?${query}`).expect(200);
      expect(res.text.match(/BEGIN:VEVENT/g), query).toHaveLength(MANY);
    }
  });
});

describe('list sizes', () => {
  const statuses = (n: number) => Array.from({ length: n }, () => 'publish').join(',');

  it('refuses more than 100 statuses on events, venues and organizers', async () => {
    for (const path of ['/events', '/venues', '/organizers']) {
      const res = await h.http.get(`${API}${path}?status=${statuses(101)}`).auth(...editor);
      expect(res.status, path).toBe(400);
      expect(res.body.data.params, path).toEqual({ status: 'At most 100 values.' });
      await h.http
        .get(`${API}${path}?status=${statuses(100)}`)
        .auth(...editor)
        .expect(200);
    }
  });
});
