import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, API_ROOT, type Harness, SITE_URL, startHarness } from '../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../helpers/fixtures.js';

import { sample, withEventStatus } from '../../helpers/samples.js';
import { shape } from '../../helpers/shape.js';

/** Key order and JSON types, recursively for objects (arrays: first element). */
let h: Harness;
let eventId: number;
let authorId: number;

beforeAll(async () => {
  h = await startHarness();
  const admin = await h.db.user.create({ data: { login: 'admin', role: 'administrator' } });
  authorId = admin.id;
  const venue = await createVenue(h.db, { name: 'Main Hall', slug: 'main-hall', authorId });
  const organizer = await createOrganizer(h.db, { name: 'Acme Org', slug: 'acme-org', authorId });
  const music = await createTerm(h.db, 'tribe_events_cat', 'Music');
  const event = await createEvent(h.db, {
    title: 'First Event',
    start: '2031-12-01 10:00:00',
    venueIds: [venue.id],
    organizerIds: [organizer.id],
    termIds: [music.id],
    fields: { description: '<p>Hello</p>', slug: 'first-event', authorId },
  });
  eventId = event.id;
  await createEvent(h.db, {
    title: 'Soon',
    venueIds: [venue.id],
    organizerIds: [organizer.id],
    termIds: [music.id],
  });
});
afterAll(() => h.close());

describe('GET /events/{id}', () => {
  it('returns the reference event shape: same keys, order and types', async () => {
    const res = await h.http.get(`${API}/events/${eventId}`).expect(200);
    expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    const reference = withEventStatus(sample('04-event-single.json'));
    expect(shape(res.body)).toEqual(shape(reference));
  });

  it('computes the derived fields as the reference does', async () => {
    const { body } = await h.http.get(`${API}/events/${eventId}`).expect(200);
    expect(body).toMatchObject({
      id: eventId,
      author: String(authorId),
      url: `${SITE_URL}/event/first-event/`,
      rest_url: `${API_ROOT}/events/${eventId}`,
      global_id: `calendar.test?id=${eventId}`,
      start_date: '2031-12-01 10:00:00',
      start_date_details: { year: '2031', month: '12', day: '01', hour: '10', minutes: '00', seconds: '00' },
      utc_end_date: '2031-12-01 12:00:00',
      timezone: 'UTC',
      timezone_abbr: 'UTC',
      cost: '$10',
      cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: ['10'] },
      image: false,
      custom_fields: [],
    });
    expect(body.venue.venue).toBe('Main Hall');
    expect(body.venue.json_ld['@type']).toBe('Place');
    expect(body.organizer).toHaveLength(1);
    expect(body.categories[0]).toMatchObject({
      name: 'Music',
      taxonomy: 'tribe_events_cat',
      count: 2,
      id: expect.any(Number),
    });
    expect(body.json_ld.startDate).toBe('2031-12-01T10:00:00+00:00');
  });

  it('answers a missing event with 404 rest-event-not-found and a non-numeric id with rest_no_route', async () => {
    const missing = await h.http.get(`${API}/events/999999`).expect(404);
    expect(missing.body).toEqual({
      code: 'rest-event-not-found',
      message: 'Event with ID 999999 does not exist.',
      data: { status: 404, request_id: expect.any(String) },
    });
    const bad = await h.http.get(`${API}/events/abc`).expect(404);
    expect(bad.body.code).toBe('rest_no_route');
  });
});

describe('GET /events', () => {
  it('returns the reference envelope with totals in headers', async () => {
    const res = await h.http.get(`${API}/events`).expect(200);
    expect(Object.keys(res.body)).toEqual(['events', 'rest_url', 'ical_url', 'total', 'total_pages']);
    expect(res.headers['x-tec-total']).toBe('1');
    expect(res.headers['x-tec-totalpages']).toBe('1');
    expect(res.body.events[0].json_ld).toBeUndefined();
  });

  it('keeps event key order of the reference list', async () => {
    const res = await h.http.get(`${API}/events`).expect(200);
    expect(Object.keys(res.body.events[0])).toEqual(
      Object.keys(withEventStatus(sample('03-events-list.json')).events[0]),
    );
  });

  it('gives list events the JSON types of the reference list sample, without json_ld', async () => {
    const res = await h.http.get(`${API}/events`).expect(200);
    const ours = res.body.events[0];
    const reference = sample('03-events-list.json').events[0];
    for (const key of Object.keys(reference)) {
      // venue/organizer key sets depend on which fields are filled (falsy ones are dropped)
      if (key === 'venue' || key === 'organizer') {
        expect([key, Array.isArray(ours[key]), typeof ours[key]]).toEqual([
          key,
          Array.isArray(reference[key]),
          typeof reference[key],
        ]);
        continue;
      }
      if (key === 'tags') continue; // none here
      expect([key, shape(ours[key])]).toEqual([key, shape(reference[key])]);
    }
    expect(ours.venue.json_ld).toBeUndefined();
    expect(ours.organizer[0].json_ld).toBeUndefined();
  });
});
