import ICAL from 'ical.js';
import nodeIcal, { type VEvent } from 'node-ical';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../helpers/fixtures.js';
import { basicAuth, createUser } from '../../helpers/users.js';

// iCalendar feeds: every feed is parsed by two independent parsers (Mozilla's ical.js and node-ical)
// and compared with the JSON list of the same query. The events live in March–April 2033.

let h: Harness;
const WINDOW = 'start_date=2033-03-01&end_date=2033-04-30';
const HOST = 'calendar.test';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary response paths
type Body = any;

interface Parsed {
  uid: string;
  summary: string;
  start: number;
  end: number;
  allDay: boolean;
  startDate: string;
  endDate: string;
  description: string | null;
  location: string | null;
  status: string | null;
  sequence: number;
}

/** Both parsers' reading of a feed, by UID; the test fails if they disagree. */
function parseBoth(text: string): Map<string, Parsed> {
  const root = new ICAL.Component(ICAL.parse(text) as unknown[]);
  for (const zone of root.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  const mozilla = new Map<string, Parsed>();
  for (const component of root.getAllSubcomponents('vevent')) {
    const event = new ICAL.Event(component);
    mozilla.set(event.uid, {
      uid: event.uid,
      summary: event.summary,
      start: event.startDate.toJSDate().getTime(),
      end: event.endDate.toJSDate().getTime(),
      allDay: event.startDate.isDate,
      startDate: event.startDate.toString().slice(0, 10),
      endDate: event.endDate.toString().slice(0, 10),
      description: (component.getFirstPropertyValue('description') as string | null) ?? null,
      location: (component.getFirstPropertyValue('location') as string | null) ?? null,
      status: (component.getFirstPropertyValue('status') as string | null) ?? null,
      sequence: event.sequence,
    });
  }
  const node = nodeIcal.sync.parseICS(text);
  const nodeEvents = Object.values(node).filter((item) => item?.type === 'VEVENT') as VEvent[];
  expect(nodeEvents.map((event) => event.uid).sort()).toEqual([...mozilla.keys()].sort());
  for (const event of nodeEvents) {
    const m = mozilla.get(event.uid)!;
    expect(event.summary, event.uid).toBe(m.summary);
    expect(event.status ?? null, `${event.uid} status`).toBe(m.status);
    expect(Number(event.sequence), `${event.uid} sequence`).toBe(m.sequence);
    if (m.allDay) {
      expect(event.datetype).toBe('date');
    } else {
      expect(event.start.getTime(), `${event.uid} start`).toBe(m.start);
      expect(event.end!.getTime(), `${event.uid} end`).toBe(m.end);
    }
  }
  return mozilla;
}

const uidOf = (id: number) => `${id}@${HOST}`;
const utc = (wall: string) => Date.parse(`${wall.replace(' ', 'T')}Z`);

let ids: Record<
  'dst' | 'summer' | 'winter' | 'allDay' | 'multiDay' | 'protected' | 'draft' | 'canceled' | 'postponed',
  number
>;

beforeAll(async () => {
  h = await startHarness();
  const venue = await createVenue(h.db, { name: 'Hall', city: 'Berlin', geoLat: 52.52, geoLng: 13.405 });
  const organizer = await createOrganizer(h.db, { name: 'Ada', email: 'ada@example.com' });
  const category = await createTerm(h.db, 'tribe_events_cat', 'Concerts');
  const day = (n: number) => ((n * 24 * 3600 - 1) / 3600) as number;
  ids = {
    // Crosses the start of US daylight time (2033-03-13 02:00 → 03:00).
    dst: (
      await createEvent(h.db, {
        title: 'Across DST',
        start: '2033-03-13 01:30:00',
        hours: 2,
        timezone: 'America/New_York',
        venueIds: [venue.id],
        organizerIds: [organizer.id],
        termIds: [category.id],
      })
    ).id,
    summer: (
      await createEvent(h.db, {
        title: 'Berlin summer time',
        start: '2033-04-02 18:00:00',
        timezone: 'Europe/Berlin',
      })
    ).id,
    winter: (
      await createEvent(h.db, {
        title: 'Berlin winter time',
        start: '2033-03-20 18:00:00',
        timezone: 'Europe/Berlin',
      })
    ).id,
    allDay: (
      await createEvent(h.db, {
        title: 'Three whole days',
        start: '2033-04-10 00:00:00',
        hours: day(3),
        timezone: 'Europe/Berlin',
        fields: { allDay: true },
      })
    ).id,
    multiDay: (await createEvent(h.db, { title: 'Long weekend', start: '2033-04-15 20:00:00', hours: 50 }))
      .id,
    protected: (
      await createEvent(h.db, {
        title: 'Members only',
        start: '2033-04-20 10:00:00',
        venueIds: [venue.id],
        fields: { password: 'secret' },
      })
    ).id,
    draft: (await createEvent(h.db, { title: 'Unfinished', start: '2033-04-21 10:00:00', status: 'draft' }))
      .id,
    canceled: (
      await createEvent(h.db, {
        title: 'Called off',
        start: '2033-04-22 10:00:00',
        fields: { eventStatus: 'canceled', eventStatusReason: 'Storm' },
      })
    ).id,
    postponed: (
      await createEvent(h.db, {
        title: 'Put off',
        start: '2033-04-23 10:00:00',
        fields: { eventStatus: 'postponed' },
      })
    ).id,
  };
});
afterAll(() => h.close());

async function feed(path: string, auth?: { login: string; password: string }) {
  const request = h.http
    .get(`${API}${path}`)
    .buffer(true)
    .parse((res, done) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(null, text));
    });
  if (auth) request.auth(auth.login, auth.password);
  return request as unknown as Promise<{ status: number; headers: Record<string, string>; body: string }>;
}

describe('GET /events.ics', () => {
  it('holds what the JSON list of the same query holds, with the same times (across DST)', async () => {
    const json = await h.http.get(`${API}/events?${WINDOW}&per_page=50`);
    const res = await feed(`/events.ics?${WINDOW}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('inline; filename="events.ics"');
    const parsed = parseBoth(res.body);
    const listed: Body[] = json.body.events;
    expect([...parsed.keys()].sort()).toEqual(listed.map((e) => uidOf(e.id)).sort());
    expect(parsed.has(uidOf(ids.draft))).toBe(false);
    for (const event of listed) {
      const entry = parsed.get(uidOf(event.id))!;
      expect(entry.summary).toBe(event.title);
      if (event.all_day) continue;
      expect(entry.start, event.title).toBe(utc(event.utc_start_date));
      expect(entry.end, event.title).toBe(utc(event.utc_end_date));
    }
    // New York: 01:30 EST is 06:30Z; two hours later it is 04:30 EDT (08:30Z).
    expect(parsed.get(uidOf(ids.dst))!.start).toBe(Date.UTC(2033, 2, 13, 6, 30));
    expect(parsed.get(uidOf(ids.dst))!.end).toBe(Date.UTC(2033, 2, 13, 8, 30));
    expect(parsed.get(uidOf(ids.winter))!.start).toBe(Date.UTC(2033, 2, 20, 17));
    expect(parsed.get(uidOf(ids.summer))!.start).toBe(Date.UTC(2033, 3, 2, 16));
  });

  it('writes all-day events as dates with an exclusive end', async () => {
    const parsed = parseBoth((await feed(`/events.ics?${WINDOW}`)).body);
    const entry = parsed.get(uidOf(ids.allDay))!;
    expect(entry).toMatchObject({ allDay: true, startDate: '2033-04-10', endDate: '2033-04-13' });
    const long = parsed.get(uidOf(ids.multiDay))!;
    expect(long.end - long.start).toBe(50 * 3600_000);
  });

  it('writes a VTIMEZONE with DST rules for every zone used, CRLF line endings and folded lines', async () => {
    const { body } = await feed(`/events.ics?${WINDOW}`);
    const zones = [...body.matchAll(/^TZID:(.+)\r$/gm)].map((m) => m[1]);
    expect(zones).toEqual(expect.arrayContaining(['America/New_York', 'Europe/Berlin']));
    expect(body).toMatch(/BEGIN:DAYLIGHT\r\n/);
    expect(body).toMatch(/DTSTART;TZID=America\/New_York:20330313T013000\r\n/);
    expect(body.replace(/\r\n/g, '')).not.toMatch(/\n/);
    for (const line of body.split('\r\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(body).toMatch(/X-WR-TIMEZONE:UTC\r\n/);
  });

  it('carries the content fields from the event, its venue, organizer and categories', async () => {
    const { body } = await feed(`/events.ics?${WINDOW}`);
    const root = new ICAL.Component(ICAL.parse(body) as unknown[]);
    const vevent = root
      .getAllSubcomponents('vevent')
      .find((c) => c.getFirstPropertyValue('uid') === uidOf(ids.dst))!;
    expect(vevent.getFirstPropertyValue('description')).toBe('Across DST description');
    expect(vevent.getFirstPropertyValue('x-alt-desc')).toBe('<p>Across DST description</p>');
    expect(vevent.getFirstPropertyValue('location')).toContain('Hall');
    expect(vevent.getFirstPropertyValue('geo')).toEqual([52.52, 13.405]);
    const organizer = vevent.getFirstProperty('organizer')!;
    expect(organizer.getFirstValue()).toBe('mailto:ada@example.com');
    expect(organizer.getParameter('cn')).toBe('Ada');
    expect(vevent.getFirstPropertyValue('categories')).toBe('Concerts');
    expect(vevent.getFirstPropertyValue('url')).toMatch(/\/event\/across-dst-\d+\/$/);
    for (const name of ['dtstamp', 'created', 'last-modified', 'sequence'])
      expect(vevent.getFirstPropertyValue(name), name).not.toBeNull();
  });

  it('withholds the content of a password-protected event as the list does, and shows it with the password', async () => {
    const anonymous = parseBoth((await feed(`/events.ics?${WINDOW}`)).body).get(uidOf(ids.protected))!;
    expect(anonymous.summary).toBe('Members only');
    expect(anonymous.description).toBeNull();
    expect(anonymous.location).toBeNull();
    const unlocked = parseBoth((await feed(`/events.ics?${WINDOW}&password=secret`)).body).get(
      uidOf(ids.protected),
    )!;
    expect(unlocked.description).toBe('Members only description');
    expect(unlocked.location).toContain('Hall');
  });

  it('shows drafts only to viewers who may read them, like the list', async () => {
    const editor = await createUser(h, 'editor');
    const res = await feed(`/events.ics?${WINDOW}&status=draft`, editor);
    expect([...parseBoth(res.body).keys()]).toEqual([uidOf(ids.draft)]);
    expect((await feed(`/events.ics?${WINDOW}&status=draft`)).status).toBe(400);
  });

  it('bounds the feed with limit, in list order', async () => {
    const json = await h.http.get(`${API}/events?${WINDOW}&per_page=3`);
    const parsed = parseBoth((await feed(`/events.ics?${WINDOW}&limit=3`)).body);
    expect([...parsed.keys()]).toEqual(json.body.events.map((e: Body) => uidOf(e.id)));
    for (const bad of ['0', '-1', '5001', 'x'])
      expect((await feed(`/events.ics?limit=${bad}`)).status).toBe(400);
  });

  it('answers 304 to If-None-Match while the feed is unchanged, 200 after an edit', async () => {
    const first = await feed(`/events.ics?${WINDOW}`);
    const etag = first.headers.etag!;
    // The gzip-coded representation (superagent accepts gzip).
    expect(etag).toMatch(/^"[\w-]+\.gz"$/);
    const again = await h.http.get(`${API}/events.ics?${WINDOW}`).set('If-None-Match', etag);
    expect(again.status).toBe(304);
    await h.db.event.update({ where: { id: ids.multiDay }, data: { title: 'Longer weekend' } });
    const changed = await h.http.get(`${API}/events.ics?${WINDOW}`).set('If-None-Match', etag);
    expect(changed.status).toBe(200);
  });

  it('is the reference’s ?ical=1 form of the list route', async () => {
    const direct = await feed(`/events.ics?${WINDOW}`);
    const flagged = await feed(`/events?${WINDOW}&ical=1`);
    expect(flagged.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect([...parseBoth(flagged.body).keys()]).toEqual([...parseBoth(direct.body).keys()]);
  });

  it('reads `ical` as a boolean: true words switch, false words do not, anything else is a 400', async () => {
    const event = await h.db.event.findUniqueOrThrow({ where: { id: ids.dst } });
    const routes = ['/events', `/events/${event.id}`, `/events/by-slug/${event.slug}`];
    for (const path of routes) {
      for (const on of ['1', 'true', 'TRUE', 'yes', 'On', ' 1 ']) {
        const res = await h.http.get(`${API}${path}?ical=${encodeURIComponent(on)}`);
        expect([res.status, res.type], `${path} ical=${on}`).toEqual([200, 'text/calendar']);
      }
      for (const off of ['0', 'false', 'No', 'off', '']) {
        const res = await h.http.get(`${API}${path}?ical=${off}`);
        expect([res.status, res.type], `${path} ical=${off}`).toEqual([200, 'application/json']);
      }
      for (const bad of ['YUseD>=].3', '2', 'maybe']) {
        const res = await h.http.get(`${API}${path}?ical=${encodeURIComponent(bad)}`).expect(400);
        expect(res.body).toMatchObject({
          code: 'rest_invalid_param',
          message: 'Invalid parameter(s): ical',
          data: { status: 400, params: { ical: 'Invalid parameter.' } },
        });
      }
      // Twice is no boolean either; and it is named beside the route's other bad parameters.
      expect((await h.http.get(`${API}${path}?ical=1&ical=0`).expect(400)).body.data.params).toEqual({
        ical: 'Invalid parameter.',
      });
    }
    const both = await h.http.get(`${API}/events?ical=x&per_page=abc`).expect(400);
    expect(Object.keys(both.body.data.params).sort()).toEqual(['ical', 'per_page']);
  });

  it('is advertised as a webcal:// link on the JSON list and in GraphQL', async () => {
    const json = await h.http.get(`${API}/events?${WINDOW}&per_page=5&page=2`);
    expect(json.body.ical_url).toMatch(
      /^webcal:\/\/calendar\.test:8080\/calendar\/events\/v1\/events\.ics\?/,
    );
    expect(json.body.ical_url).not.toMatch(/page=/);
    const httpUrl = json.body.ical_url.replace(/^webcal:\/\/[^/]+/, '');
    const followed = parseBoth((await feed(httpUrl.slice(API.length))).body);
    const all = parseBoth((await feed(`/events.ics?${WINDOW}`)).body);
    expect([...followed.keys()]).toEqual([...all.keys()]);

    const gql = await h.http.post('/graphql').send({
      query: `{ events(filter: { startDate: "2033-03-01", endDate: "2033-04-30" }) { icsUrl items { id: databaseId icsUrl } } }`,
    });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.events.icsUrl).toMatch(/^webcal:\/\/.*\/events\.ics\?.*start_date=2033-03-01/);
    const first = gql.body.data.events.items[0];
    expect(first.icsUrl).toBe(`webcal://calendar.test:8080${API}/events/${first.id}.ics`);
  });
});

describe('event status and SEQUENCE', () => {
  it('writes STATUS:CANCELLED for a canceled event only (both parsers)', async () => {
    const parsed = parseBoth((await feed(`/events.ics?${WINDOW}`)).body);
    expect(parsed.get(uidOf(ids.canceled))!.status).toBe('CANCELLED');
    // RFC 5545 has no "postponed": no STATUS is claimed for it, nor for scheduled events.
    expect(parsed.get(uidOf(ids.postponed))!.status).toBeNull();
    expect(parsed.get(uidOf(ids.summer))!.status).toBeNull();
    const single = parseBoth((await feed(`/events/${ids.canceled}.ics`)).body);
    expect(single.get(uidOf(ids.canceled))!.status).toBe('CANCELLED');
  });

  it('grows SEQUENCE by one per update: REST, GraphQL, relinks, trash and restore', async () => {
    const editor = await createUser(h, 'editor');
    const venue = await createVenue(h.db, { name: 'Annex' });
    const tag = await createTerm(h.db, 'post_tag', 'Revisions');
    const created = await h.http
      .post(`${API}/events`)
      .auth(editor.login, editor.password)
      .send({ title: 'Revised', start_date: '2033-04-25 10:00:00', end_date: '2033-04-25 11:00:00' })
      .expect(201);
    const id: number = created.body.id;
    const sequence = async () => {
      const res = await feed(`/events/${id}.ics`, editor);
      expect(res.status).toBe(200);
      return parseBoth(res.body).get(uidOf(id))!.sequence;
    };
    const rest = (body: object) =>
      h.http.post(`${API}/events/${id}`).auth(editor.login, editor.password).send(body).expect(200);

    expect(await sequence()).toBe(0);
    await rest({ title: 'Revised once' });
    expect(await sequence()).toBe(1);
    const gql = await h.http
      .post('/graphql')
      .set('Authorization', basicAuth(editor))
      .send({
        query: `mutation { updateEvent(id: ${id}, input: { eventStatus: canceled }) { id: databaseId } }`,
      });
    expect(gql.body.errors).toBeUndefined();
    expect(await sequence()).toBe(2);
    await rest({ venue: venue.id });
    expect(await sequence()).toBe(3);
    await rest({ tags: [tag.id] });
    expect(await sequence()).toBe(4);
    await h.http.delete(`${API}/events/${id}`).auth(editor.login, editor.password).expect(200);
    expect((await h.db.event.findUniqueOrThrow({ where: { id } })).revision).toBe(5);
    await rest({ status: 'publish' });
    expect(await sequence()).toBe(6);
    const parsed = parseBoth((await feed(`/events/${id}.ics`)).body).get(uidOf(id))!;
    expect(parsed).toMatchObject({ sequence: 6, status: 'CANCELLED', summary: 'Revised once' });
  });

  it('leaves SEQUENCE alone on a refused update', async () => {
    const editor = await createUser(h, 'editor');
    const before = (await h.db.event.findUniqueOrThrow({ where: { id: ids.summer } })).revision;
    await h.http
      .post(`${API}/events/${ids.summer}`)
      .auth(editor.login, editor.password)
      .send({ event_status: 'gone', title: 'Never' })
      .expect(400);
    expect((await h.db.event.findUniqueOrThrow({ where: { id: ids.summer } })).revision).toBe(before);
  });
});

describe('GET /events/<id>.ics and /events/by-slug/<slug>.ics', () => {
  it('serves one event by id and by slug, and through ?ical=1', async () => {
    const event = await h.db.event.findUniqueOrThrow({ where: { id: ids.dst } });
    for (const path of [
      `/events/${event.id}.ics`,
      `/events/by-slug/${event.slug}.ics`,
      `/events/${event.id}?ical=1`,
      `/events/by-slug/${event.slug}?ical=1`,
    ]) {
      const res = await feed(path);
      expect(res.status, path).toBe(200);
      expect(res.headers['content-disposition']).toBe(`inline; filename="${event.slug}.ics"`);
      expect([...parseBoth(res.body).keys()]).toEqual([uidOf(event.id)]);
    }
  });

  it('refuses what the JSON single-event route refuses', async () => {
    expect((await feed(`/events/${ids.draft}.ics`)).status).toBe(
      (await h.http.get(`${API}/events/${ids.draft}`)).status,
    );
    expect((await feed(`/events/999999.ics`)).status).toBe(404);
    expect((await feed(`/events/${ids.protected}.ics`)).status).toBe(403);
    expect((await feed(`/events/${ids.protected}.ics?password=secret`)).status).toBe(200);
  });
});
