import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, API_ROOT, type Harness, SITE_URL } from '../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../helpers/fixtures.js';
import { type Credentials, type Users, startWithRoles } from '../../helpers/users.js';

// POST /events, POST|PUT|PATCH /events/{id} and /events/by-slug/{slug}, DELETE of both (docs/reference.md
// §S2.1, §S4.2, §3.2, §4.1, §6; D3, D4, D9, D14, D17): EventInsertionCest, EventUpdateCest,
// EventDeletionCest, the event rows of AuthorizationCest and the reference's expectations 10–14 (§9).

import { sample, withEventStatus } from '../../helpers/samples.js';
import { shape } from '../../helpers/shape.js';

/** Key order and JSON types, recursively for objects (arrays: first element). */
type Method = 'post' | 'put' | 'patch';
let h: Harness;
let users: Users;

const REQUIRED = { title: 'An event', start_date: '2031-01-15 18:00:00', end_date: '2031-01-15 21:00:00' };

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

const create = (body: object, as?: Credentials) => {
  const request = h.http.post(`${API}/events`);
  if (as) request.auth(as.login, as.password);
  return request.send(body);
};

const update = (path: string | number, body: object, as?: Credentials, method: Method = 'post') => {
  const request = h.http[method](`${API}/events/${path}`);
  if (as) request.auth(as.login, as.password);
  return request.send(body);
};

const remove = (path: string | number, as?: Credentials) => {
  const request = h.http.delete(`${API}/events/${path}`);
  if (as) request.auth(as.login, as.password);
  return request;
};

const stored = (id: number) =>
  h.db.event.findUniqueOrThrow({
    where: { id },
    include: {
      venues: { orderBy: { position: 'asc' } },
      organizers: { orderBy: { position: 'asc' } },
      terms: { orderBy: { position: 'asc' } },
    },
  });

describe('POST /events', () => {
  it('refuses anonymous callers with 401, as sample 12', async () => {
    const res = await create(REQUIRED).expect(401);
    expect(res.body).toEqual(sample('12-event-create-anon.json'));
  });

  it('refuses subscribers with 403', async () => {
    const res = await create(REQUIRED, users.subscriber).expect(403);
    expect(res.body).toMatchObject({
      code: 'rest_forbidden',
      data: { status: 403, request_id: expect.any(String) },
    });
  });

  it('creates an event: 201, Location, the reference shape (sample 13) and no json_ld', async () => {
    const venue = await createVenue(h.db, { name: 'Main Hall', authorId: users.administrator.id });
    const organizer = await createOrganizer(h.db, { name: 'Acme Org', authorId: users.administrator.id });
    const music = await createTerm(h.db, 'tribe_events_cat', 'Music');
    const outdoor = await createTerm(h.db, 'post_tag', 'outdoor');
    const res = await create(
      {
        title: 'Sample Created Event',
        description: 'Created by capture-samples',
        start_date: '2027-01-15 18:00:00',
        end_date: '2027-01-15 21:00:00',
        cost: '15',
        venue: venue.id,
        organizer: organizer.id,
        categories: [music.id],
        tags: [outdoor.id],
      },
      users.administrator,
    ).expect(201);
    const id = res.body.id as number;
    expect(res.headers.location).toBe(`${API_ROOT}/events/${id}`);
    expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(shape(res.body)).toEqual(shape(withEventStatus(sample('13-event-create-201.json'))));
    expect(res.body).not.toHaveProperty('json_ld');
    expect(res.body).toMatchObject({
      id,
      author: String(users.administrator.id),
      status: 'publish',
      url: `${SITE_URL}/event/sample-created-event/`,
      rest_url: `${API_ROOT}/events/${id}`,
      title: 'Sample Created Event',
      description: '<p>Created by capture-samples</p>',
      excerpt: '',
      slug: 'sample-created-event',
      image: false,
      all_day: false,
      start_date: '2027-01-15 18:00:00',
      end_date: '2027-01-15 21:00:00',
      utc_start_date: '2027-01-15 18:00:00',
      timezone: 'UTC',
      timezone_abbr: 'UTC',
      cost: '$15',
      cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: ['15'] },
      website: `${SITE_URL}/event/sample-created-event/`,
      show_map: false,
      show_map_link: false,
      hide_from_listings: false,
      sticky: false,
      featured: false,
      categories: [{ id: music.id, name: 'Music', count: 1 }],
      tags: [{ id: outdoor.id, name: 'outdoor', count: 1 }],
      venue: { id: venue.id, venue: 'Main Hall' },
      organizer: [{ id: organizer.id, organizer: 'Acme Org' }],
    });
    const read = await h.http.get(`${API}/events/${id}`).expect(200);
    expect(read.body).toMatchObject({ title: 'Sample Created Event', cost: '$15' });
  });

  it('accepts form-encoded bodies (strings everywhere)', async () => {
    const res = await h.http
      .post(`${API}/events`)
      .auth(users.administrator.login, users.administrator.password)
      .type('form')
      .send({
        ...REQUIRED,
        title: 'Form Event',
        all_day: '1',
        featured: 'yes',
        sticky: 'no',
        'cost[0]': '5$',
        'cost[1]': '10$',
      })
      .expect(201);
    expect(res.body).toMatchObject({
      title: 'Form Event',
      all_day: true,
      featured: true,
      sticky: false,
      cost: '5$ – 10$',
    });
  });

  it('names missing required fields (400 rest_missing_callback_param, as sample 10)', async () => {
    const res = await create(
      { start_date: REQUIRED.start_date, end_date: REQUIRED.end_date },
      users.administrator,
    ).expect(400);
    expect(res.body).toEqual(sample('10-event-create-400-no-title.json'));
    const all = await create({}, users.administrator).expect(400);
    expect(all.body.data.params).toEqual(['title', 'start_date', 'end_date']);
  });

  it.each([
    ['title', ''],
    ['start_date', ''],
    ['start_date', 'not a strtotime parsable string'],
    ['end_date', ''],
    ['end_date', 'before my birthday'],
    ['author', 23_000],
    ['author', ''],
    ['website', 'foo'],
    ['status', 'kinda_thinking_about_it'],
    ['timezone', 'Not/AZone'],
    ['all_day', 'maybe'],
    ['cost', 'Donation'],
    ['post_parent', 99_999],
  ])('refuses %s = %j with 400 rest_invalid_param naming it', async (param, value) => {
    const res = await create({ ...REQUIRED, [param]: value }, users.administrator).expect(400);
    expect(res.body).toMatchObject({
      code: 'rest_invalid_param',
      message: `Invalid parameter(s): ${param}`,
      data: { status: 400, request_id: expect.any(String) },
    });
    expect(Object.keys(res.body.data.params)).toEqual([param]);
  });

  it('answers a bad date exactly as sample 11 to a caller who may create; anonymous callers get 401 first (D22)', async () => {
    const res = await create({ ...REQUIRED, start_date: '' }, users.administrator).expect(400);
    expect(res.body).toEqual(sample('11-event-create-400-bad-date.json'));
    const anonymous = await create({ ...REQUIRED, start_date: '' }).expect(401);
    expect(anonymous.body.code).toBe('rest_forbidden');
  });

  it('reads natural-language dates in the site zone', async () => {
    for (const [start, end] of [
      ['tomorrow 9am', 'tomorrow 11am'],
      ['next wednesday 4pm', 'next wednesday 5pm'],
    ]) {
      const res = await create(
        { title: 'Phrase', start_date: start, end_date: end },
        users.administrator,
      ).expect(201);
      const expected = DateTime.now().setZone('UTC');
      expect(res.body.start_date).toMatch(/^\d{4}-\d{2}-\d{2} (09|16):00:00$/);
      expect(res.body.start_date > expected.toFormat('yyyy-MM-dd HH:mm:ss')).toBe(true);
      expect(res.body.utc_start_date).toBe(res.body.start_date);
    }
  });

  it('reads dates in an explicit timezone and stores the UTC instants', async () => {
    const res = await create(
      {
        ...REQUIRED,
        timezone: 'America/New_York',
        start_date: '2031-01-15 09:00:00',
        end_date: '2031-07-15 09:00:00',
      },
      users.administrator,
    ).expect(201);
    expect(res.body).toMatchObject({
      timezone: 'America/New_York',
      timezone_abbr: 'EST',
      start_date: '2031-01-15 09:00:00',
      utc_start_date: '2031-01-15 14:00:00',
      end_date: '2031-07-15 09:00:00',
      utc_end_date: '2031-07-15 13:00:00',
    });
    const offset = await create(
      { ...REQUIRED, timezone: 'UTC+2', start_date: '2031-05-01T10:00:00+00:00' },
      users.administrator,
    ).expect(201);
    expect(offset.body).toMatchObject({
      timezone: 'UTC+2',
      start_date: '2031-05-01 12:00:00',
      utc_start_date: '2031-05-01 10:00:00',
    });
  });

  it('sets the author (an existing user; only editors may name someone else)', async () => {
    const byAdmin = await create({ ...REQUIRED, author: users.author.id }, users.administrator).expect(201);
    expect(byAdmin.body.author).toBe(String(users.author.id));
    await create({ ...REQUIRED, author: users.administrator.id }, users.contributor).expect(403);
    const own = await create({ ...REQUIRED, author: users.contributor.id }, users.contributor).expect(201);
    expect(own.body.author).toBe(String(users.contributor.id));
  });

  it('sets the publication date from date or date_utc, and schedules future events', async () => {
    const dated = await create(
      { ...REQUIRED, date: '2026-01-01 10:00:00', timezone: 'Europe/Paris' },
      users.administrator,
    ).expect(201);
    expect(dated.body).toMatchObject({
      date: '2026-01-01 09:00:00',
      date_utc: '2026-01-01 09:00:00',
      status: 'publish',
    });
    const utc = await create({ ...REQUIRED, date_utc: '2026-02-01 10:00:00' }, users.administrator).expect(
      201,
    );
    expect(utc.body.date_utc).toBe('2026-02-01 10:00:00');
    const future = await create(
      { ...REQUIRED, status: 'future', date: '+2 weeks' },
      users.administrator,
    ).expect(201);
    expect(future.body.status).toBe('future');
    const due = await create(
      { ...REQUIRED, status: 'future', date: '2020-01-01' },
      users.administrator,
    ).expect(201);
    expect(due.body.status).toBe('publish');
  });

  it('ignores read-only and unknown fields', async () => {
    const res = await create(
      {
        ...REQUIRED,
        id: 4242,
        url: 'http://x',
        rest_url: 'http://x',
        utc_start_date: '2000-01-01 00:00:00',
        start_date_details: {},
        timezone_abbr: 'XYZ',
        cost_details: { values: [99] },
        json_ld: {},
        whatever: 1,
      },
      users.administrator,
    ).expect(201);
    expect(res.body.id).not.toBe(4242);
    expect(res.body).toMatchObject({
      utc_start_date: '2031-01-15 18:00:00',
      timezone_abbr: 'UTC',
      cost_details: { values: [] },
    });
  });

  it('stretches all-day events over whole days, several days too', async () => {
    const one = await create({ ...REQUIRED, all_day: true }, users.administrator).expect(201);
    expect(one.body).toMatchObject({
      all_day: true,
      start_date: '2031-01-15 00:00:00',
      end_date: '2031-01-15 23:59:59',
    });
    const multi = await create(
      { ...REQUIRED, all_day: 'true', end_date: '2031-01-17 10:00:00' },
      users.administrator,
    ).expect(201);
    expect(multi.body).toMatchObject({
      start_date: '2031-01-15 00:00:00',
      end_date: '2031-01-17 23:59:59',
      utc_end_date: '2031-01-17 23:59:59',
    });
  });

  it('turns an end before the start into the start, in local and UTC alike (D14)', async () => {
    const res = await create(
      { ...REQUIRED, timezone: 'Europe/Paris', end_date: '2031-01-14 10:00:00' },
      users.administrator,
    ).expect(201);
    expect(res.body).toMatchObject({
      start_date: '2031-01-15 18:00:00',
      end_date: '2031-01-15 18:00:00',
      utc_start_date: '2031-01-15 17:00:00',
      utc_end_date: '2031-01-15 17:00:00',
    });
  });

  it('takes an image by media id or http(s) URL (a URL needs the upload capability)', async () => {
    const media = await h.db.media.create({
      data: { url: 'https://cdn.example/poster.jpg', mimeType: 'image/jpeg', width: 800, height: 600 },
    });
    const byId = await create({ ...REQUIRED, image: media.id }, users.administrator).expect(201);
    expect(byId.body.image).toMatchObject({
      id: media.id,
      url: 'https://cdn.example/poster.jpg',
      extension: 'jpg',
    });
    const byUrl = await create({ ...REQUIRED, image: 'https://cdn.example/new.png' }, users.author).expect(
      201,
    );
    expect(byUrl.body.image).toMatchObject({ url: 'https://cdn.example/new.png' });
    expect(await h.db.media.count({ where: { url: 'https://cdn.example/new.png' } })).toBe(1);
    for (const bad of [99_999, 'ftp://cdn.example/x.png', 'not an image']) {
      const res = await create({ ...REQUIRED, image: bad }, users.administrator).expect(400);
      expect(res.body.data.params).toEqual({ image: 'Invalid parameter.' });
    }
    const unauthorized = await create(
      { ...REQUIRED, image: 'https://cdn.example/other.png' },
      users.contributor,
    ).expect(400);
    expect(unauthorized.body.data.params).toHaveProperty('image');
  });

  it('parses costs as string or array, with the currency symbol and position (item 13)', async () => {
    const postfix = await create({ ...REQUIRED, cost: '20$' }, users.administrator).expect(201);
    expect(postfix.body).toMatchObject({
      cost: '20$',
      cost_details: { currency_symbol: '$', currency_position: 'postfix', values: ['20'] },
    });
    const range = await create({ ...REQUIRED, cost: ['0$', '20$', '30$'] }, users.administrator).expect(201);
    expect(range.body).toMatchObject({ cost: 'Free – 30$', cost_details: { values: ['0', '20', '30'] } });
    const prefix = await create({ ...REQUIRED, cost: '€ 12 - 18' }, users.administrator).expect(201);
    expect(prefix.body).toMatchObject({
      cost: '€12 – €18',
      cost_details: { currency_symbol: '€', currency_position: 'prefix' },
    });
  });

  it('falls back to the permalink when the website is empty', async () => {
    const res = await create(
      { ...REQUIRED, title: 'Site Event', website: 'https://tickets.example/e' },
      users.administrator,
    ).expect(201);
    expect(res.body.website).toBe('https://tickets.example/e');
    const empty = await create({ ...REQUIRED, title: 'No Site', website: '' }, users.administrator).expect(
      201,
    );
    expect(empty.body.website).toBe(`${SITE_URL}/event/no-site/`);
  });

  it('sets the presentation flags for every role that may create', async () => {
    for (const as of [users.administrator, users.editor, users.author, users.contributor]) {
      const res = await create(
        {
          ...REQUIRED,
          show_map: true,
          show_map_link: 'true',
          hide_from_listings: 1,
          sticky: 'yes',
          featured: 'on',
        },
        as,
      ).expect(201);
      expect(res.body).toMatchObject({
        show_map: true,
        show_map_link: true,
        hide_from_listings: true,
        sticky: true,
        featured: true,
      });
    }
  });

  it('scales the status back for contributors (item 11)', async () => {
    const published = await create({ ...REQUIRED, status: 'publish' }, users.contributor).expect(201);
    expect(published.body.status).toBe('pending');
    const none = await create(REQUIRED, users.contributor).expect(201);
    expect(none.body.status).toBe('draft');
    const draft = await create({ ...REQUIRED, status: 'draft' }, users.contributor).expect(201);
    expect(draft.body.status).toBe('draft');
    const byAuthor = await create(REQUIRED, users.author).expect(201);
    expect(byAuthor.body.status).toBe('publish');
    const privately = await create({ ...REQUIRED, status: 'private' }, users.editor).expect(201);
    expect(privately.body.status).toBe('private');
  });

  it('hides hide_from_listings events from lists but serves them by id', async () => {
    const res = await create(
      {
        ...REQUIRED,
        title: 'Unlisted',
        start_date: 'tomorrow 9am',
        end_date: 'tomorrow 10am',
        hide_from_listings: true,
      },
      users.administrator,
    ).expect(201);
    const list = await h.http.get(`${API}/events`).query({ per_page: 50 }).expect(200);
    expect(list.body.events.map((event: { id: number }) => event.id)).not.toContain(res.body.id);
    await h.http.get(`${API}/events/${res.body.id}`).expect(200);
  });

  it('makes slugs unique among events (-2, -3)', async () => {
    const first = await create({ ...REQUIRED, title: 'Twin Title' }, users.administrator).expect(201);
    const second = await create({ ...REQUIRED, title: 'Twin Title' }, users.administrator).expect(201);
    const explicit = await create(
      { ...REQUIRED, title: 'Other', slug: 'twin-title' },
      users.administrator,
    ).expect(201);
    expect([first.body.slug, second.body.slug, explicit.body.slug]).toEqual([
      'twin-title',
      'twin-title-2',
      'twin-title-3',
    ]);
  });

  it('links a parent event', async () => {
    const parent = await create({ ...REQUIRED, title: 'Parent' }, users.administrator).expect(201);
    const child = await create(
      { ...REQUIRED, title: 'Child', post_parent: parent.body.id },
      users.administrator,
    ).expect(201);
    expect((await stored(child.body.id)).postParentId).toBe(parent.body.id);
    const list = await h.http
      .get(`${API}/events`)
      .query({ post_parent: parent.body.id, start_date: '2031-01-01', end_date: '2031-12-31' })
      .expect(200);
    expect(list.body.events.map((event: { id: number }) => event.id)).toEqual([child.body.id]);
  });

  describe('venues and organizers', () => {
    it('links a venue by id or {id}; unknown ids are 400s', async () => {
      const venue = await createVenue(h.db);
      const byId = await create({ ...REQUIRED, venue: venue.id }, users.administrator).expect(201);
      expect(byId.body.venue).toMatchObject({ id: venue.id, venue: venue.name });
      const byObject = await create({ ...REQUIRED, venue: { id: venue.id } }, users.administrator).expect(
        201,
      );
      expect(byObject.body.venue.id).toBe(venue.id);
      const unknown = await create({ ...REQUIRED, venue: 99_999 }, users.administrator).expect(400);
      expect(unknown.body).toMatchObject({
        code: 'rest_invalid_param',
        data: { params: { venue: 'Invalid parameter.' } },
      });
      const organizer = await createOrganizer(h.db);
      const notAVenue = await create({ ...REQUIRED, venue: { id: 99_999 } }, users.administrator).expect(400);
      // As WordPress answers a failed validate_callback (#14): rest_invalid_param naming `venue`.
      expect(notAVenue.body).toMatchObject({
        code: 'rest_invalid_param',
        message: 'Invalid parameter(s): venue',
        data: { params: { venue: 'Invalid parameter.' }, details: [] },
      });
      const organizerAsVenue = await create(
        { ...REQUIRED, venue: { id: organizer.id + 10_000 } },
        users.administrator,
      ).expect(400);
      expect(organizerAsVenue.body.code).toBe('rest_invalid_param');
    });

    it.each([
      ['White House', 'Washington', 'United States', { state: 'DC' }],
      ['Buckingham Palace', 'London', 'United Kingdom', { province: 'Greater London' }],
      ['Colosseo', 'Roma', 'Italia', { stateprovince: 'RM' }],
      ['Opera House', 'Sydney', 'Australia', { state: 'NSW', zip: '2000' }],
    ])(
      'creates an inline venue (%s) with the submitted fields (item 12)',
      async (name, city, country, extra) => {
        const res = await create(
          {
            ...REQUIRED,
            venue: { venue: name, address: '1 Main St', city, country, phone: '+1 555', ...extra },
          },
          users.administrator,
        ).expect(201);
        expect(res.body.venue).toMatchObject({
          venue: name,
          address: '1 Main St',
          city,
          country,
          phone: '+1 555',
          ...extra,
        });
        const venue = await h.db.venue.findUniqueOrThrow({ where: { id: res.body.venue.id } });
        expect(venue.name).toBe(name);
      },
    );

    it('reuses an existing venue with the same name (any case) instead of creating one', async () => {
      const first = await create(
        { ...REQUIRED, venue: { venue: 'Dedupe Hall', city: 'Rome' } },
        users.administrator,
      ).expect(201);
      const second = await create(
        { ...REQUIRED, venue: { venue: 'dedupe hall' } },
        users.administrator,
      ).expect(201);
      expect(second.body.venue.id).toBe(first.body.venue.id);
      expect(await h.db.venue.count({ where: { name: 'Dedupe Hall' } })).toBe(1);
    });

    it('links organizers by id, comma list, array, {id} and inline objects, in order (item 12)', async () => {
      const x = await createOrganizer(h.db);
      const y = await createOrganizer(h.db);
      const mixed = await create(
        {
          ...REQUIRED,
          organizer: [
            { organizer: 'Organizer A' },
            { id: x.id },
            { id: y.id },
            { organizer: 'Organizer C', email: 'c@example.com' },
          ],
        },
        users.administrator,
      ).expect(201);
      expect(mixed.body.organizer.map((o: { organizer: string }) => o.organizer)).toEqual([
        'Organizer A',
        x.name,
        y.name,
        'Organizer C',
      ]);
      expect(mixed.body.organizer[3]).toMatchObject({ email: 'c@example.com' });
      const list = await create({ ...REQUIRED, organizer: `${y.id},${x.id}` }, users.administrator).expect(
        201,
      );
      expect(list.body.organizer.map((o: { id: number }) => o.id)).toEqual([y.id, x.id]);
      const single = await create({ ...REQUIRED, organizer: x.id }, users.administrator).expect(201);
      expect(single.body.organizer.map((o: { id: number }) => o.id)).toEqual([x.id]);
      const bare = await create(
        { ...REQUIRED, organizer: { organizer: 'Lonely Organizer' } },
        users.administrator,
      ).expect(201);
      expect(bare.body.organizer).toMatchObject([{ organizer: 'Lonely Organizer' }]);
      const notAnOrganizer = await create(
        { ...REQUIRED, organizer: [{ id: x.id }, { id: 99_999 }] },
        users.administrator,
      ).expect(400);
      expect(notAnOrganizer.body).toMatchObject({
        code: 'rest_invalid_param',
        message: 'Invalid parameter(s): organizer',
      });
    });

    it('names a bad inline venue or organizer, with the reason in details', async () => {
      const res = await create(
        { ...REQUIRED, venue: { venue: 'Bad Site Hall', website: 'nope' } },
        users.administrator,
      ).expect(400);
      expect(res.body).toMatchObject({
        code: 'rest_invalid_param',
        data: {
          params: { venue: 'Invalid parameter.' },
          details: {
            venue: { code: 'could-not-create-venue', data: { cause: { code: 'rest_invalid_param' } } },
          },
        },
      });
      // The reason names the venue's own REST parameters.
      const unreadable = await create(
        { ...REQUIRED, venue: { venue: 'Flag Hall', geo_lat: 'north' } },
        users.administrator,
      ).expect(400);
      expect(unreadable.body.data.details.venue.data.cause).toMatchObject({
        code: 'rest_invalid_param',
        message: 'Invalid parameter(s): geo_lat',
        params: { geo_lat: 'Invalid parameter.' },
      });
      const nameless = await create(
        { ...REQUIRED, organizer: [{ email: 'x@example.com' }] },
        users.administrator,
      ).expect(400);
      expect(nameless.body.data.details.organizer.code).toBe('could-not-create-organizer');
    });

    it('changes nothing when the third inline organizer is invalid', async () => {
      const before = {
        events: await h.db.event.count(),
        organizers: await h.db.organizer.count(),
        venues: await h.db.venue.count(),
      };
      await create(
        {
          ...REQUIRED,
          title: 'Atomic',
          venue: { venue: 'Atomic Venue' },
          organizer: [
            { organizer: 'Atomic A' },
            { organizer: 'Atomic B' },
            { organizer: 'Atomic C', website: 'bad' },
          ],
        },
        users.administrator,
      ).expect(400);
      expect({
        events: await h.db.event.count(),
        organizers: await h.db.organizer.count(),
        venues: await h.db.venue.count(),
      }).toEqual(before);
    });
  });

  describe('categories and tags', () => {
    it('creates unknown category names; "" gives none (item 13)', async () => {
      const res = await create({ ...REQUIRED, categories: 'cat1,cat2' }, users.administrator).expect(201);
      expect(
        res.body.categories.map((c: { name: string; slug: string; count: number }) => [
          c.name,
          c.slug,
          c.count,
        ]),
      ).toEqual([
        ['cat1', 'cat1', 1],
        ['cat2', 'cat2', 1],
      ]);
      const empty = await create({ ...REQUIRED, categories: '' }, users.administrator).expect(201);
      expect(empty.body.categories).toEqual([]);
    });

    it('mixes ids and names (any case), comma lists, arrays and {id}/{name} objects (D3, sample 30 no longer a 500)', async () => {
      const rock = await createTerm(h.db, 'tribe_events_cat', 'Rock');
      const indoor = await createTerm(h.db, 'post_tag', 'Indoor');
      const res = await create(
        {
          ...REQUIRED,
          categories: [rock.id, 'rock', 'New Genre'],
          tags: [{ name: 'indoor' }, { name: 'Brand New' }, { id: indoor.id }],
        },
        users.administrator,
      ).expect(201);
      // By name, as wp_get_object_terms returns them (#14).
      expect(res.body.categories.map((c: { name: string }) => c.name)).toEqual(['New Genre', 'Rock']);
      expect(res.body.tags.map((t: { name: string }) => t.name)).toEqual(['Brand New', 'Indoor']);
      expect(res.body.tags[1].id).toBe(indoor.id);
      const tagObjects = await create(
        { ...REQUIRED, tags: [{ name: 'indoor' }] },
        users.administrator,
      ).expect(201);
      expect(tagObjects.body.tags).toMatchObject([{ id: indoor.id }]);
    });

    it('refuses unknown ids and malformed entries with 400', async () => {
      const unknown = await create({ ...REQUIRED, categories: [99_999] }, users.administrator).expect(400);
      expect(unknown.body.data.params).toEqual({ categories: 'Invalid parameter.' });
      const tag = await createTerm(h.db, 'post_tag', 'Only A Tag');
      const wrongTaxonomy = await create({ ...REQUIRED, categories: [tag.id] }, users.administrator).expect(
        400,
      );
      expect(wrongTaxonomy.body.data.params).toHaveProperty('categories');
      const malformed = await create({ ...REQUIRED, tags: [{ slug: 'x' }] }, users.administrator).expect(400);
      expect(malformed.body.data.params).toHaveProperty('tags');
    });

    it('lets only editors create terms by name (D8); known names work for everyone', async () => {
      await createTerm(h.db, 'post_tag', 'Known Tag');
      const known = await create({ ...REQUIRED, tags: 'known tag' }, users.contributor).expect(201);
      expect(known.body.tags.map((t: { name: string }) => t.name)).toEqual(['Known Tag']);
      const res = await create({ ...REQUIRED, tags: 'Invented By Author' }, users.author).expect(403);
      expect(res.body).toMatchObject({
        code: 'rest_cannot_create_term',
        data: { status: 403, request_id: expect.any(String) },
      });
      expect(await h.db.term.count({ where: { name: 'Invented By Author' } })).toBe(0);
    });
  });
});

describe('odd input', () => {
  const odd: unknown[] = [
    [],
    'just a string',
    { title: ['a'], start_date: { year: 2031 }, end_date: [1, 2] },
    { ...REQUIRED, start_date: 1e300, end_date: -1 },
    { ...REQUIRED, start_date: 'x'.repeat(10_000) },
    { ...REQUIRED, timezone: ['UTC'], all_day: { yes: true }, cost: { amount: 5 }, website: 12 },
    { ...REQUIRED, venue: [[1]], organizer: [{ id: 'x' }], categories: [[]], tags: { name: {} } },
    {
      ...REQUIRED,
      venue: { id: -4 },
      organizer: '9'.repeat(30),
      categories: ['9'.repeat(30)],
      post_parent: 1.5,
    },
    { ...REQUIRED, slug: '——', author: { id: 1 }, status: ['publish'], image: { url: 'x' }, password: 7 },
    { ...REQUIRED, date: 'yesterday', date_utc: 'garbage', excerpt: null, description: false },
    {
      ...REQUIRED,
      author: 99_999_999_999,
      venue: 99_999_999_999,
      organizer: [{ id: 99_999_999_999 }],
      post_parent: 99_999_999_999,
    },
    { ...REQUIRED, categories: [99_999_999_999], tags: '99999999999', image: '99999999999' },
  ];

  it.each(odd.map((body, i) => [i, body]))('never answers a 500 (body %i)', async (_i, body) => {
    const res = await h.http
      .post(`${API}/events`)
      .auth(users.administrator.login, users.administrator.password)
      .send(body as object);
    expect(res.status).toBeLessThan(500);
    const event = await createEvent(h.db, { fields: { authorId: users.administrator.id } });
    const updated = await update(event.id, body as object, users.administrator, 'patch');
    expect(updated.status).toBeLessThan(500);
  });

  it('answers malformed JSON with 400', async () => {
    const res = await h.http
      .post(`${API}/events`)
      .auth(users.administrator.login, users.administrator.password)
      .set('content-type', 'application/json')
      .send('{"title": ');
    expect(res.status).toBe(400);
  });
});

describe('POST|PUT|PATCH /events/{id} and /events/by-slug/{slug}', () => {
  it('answers 404 rest-event-not-found for an unknown id, 400 naming slug for an unknown slug', async () => {
    const res = await update(99_999, { title: 'x' }, users.administrator).expect(404);
    expect(res.body).toEqual({
      code: 'rest-event-not-found',
      message: 'Event with ID 99999 does not exist.',
      data: { status: 404, request_id: expect.any(String) },
    });
    const bySlug = await update('by-slug/no-such-event', { title: 'x' }, users.administrator).expect(400);
    expect(bySlug.body.data.params).toEqual({ slug: 'Invalid parameter.' });
  });

  it.each(['post', 'put', 'patch'] as const)(
    'updates with %s (200) and writes only the fields sent',
    async (method) => {
      const event = await create(
        {
          ...REQUIRED,
          title: `Keep ${method}`,
          cost: '$9',
          website: 'https://keep.example',
          featured: true,
          excerpt: 'Kept',
        },
        users.administrator,
      ).expect(201);
      const res = await update(
        event.body.id,
        { title: `Changed ${method}` },
        users.administrator,
        method,
      ).expect(200);
      expect(res.body).not.toHaveProperty('json_ld');
      expect(res.body).toMatchObject({
        title: `Changed ${method}`,
        slug: `keep-${method}`,
        cost: '$9',
        website: 'https://keep.example',
        featured: true,
        excerpt: '<p>Kept</p>',
        start_date: REQUIRED.start_date,
      });
    },
  );

  it('renames by slug, and refuses a password there', async () => {
    await create({ ...REQUIRED, title: 'Old Name' }, users.administrator).expect(201);
    const res = await update(
      'by-slug/old-name',
      { slug: 'new-name', title: 'New Name' },
      users.administrator,
      'patch',
    ).expect(200);
    expect(res.body).toMatchObject({
      slug: 'new-name',
      title: 'New Name',
      url: `${SITE_URL}/event/new-name/`,
    });
    await h.http.get(`${API}/events/by-slug/new-name`).expect(200);
    const password = await update('by-slug/new-name', { password: 'secret' }, users.administrator).expect(
      400,
    );
    expect(password.body.data.params).toHaveProperty('password');
  });

  it('sets and removes a password by id', async () => {
    const event = await create(REQUIRED, users.administrator).expect(201);
    await update(event.body.id, { password: 'secret' }, users.administrator).expect(200);
    await h.http.get(`${API}/events/${event.body.id}`).expect(403);
    await h.http.get(`${API}/events/${event.body.id}`).query({ password: 'secret' }).expect(200);
    await update(event.body.id, { password: '' }, users.administrator).expect(200);
    await h.http.get(`${API}/events/${event.body.id}`).expect(200);
  });

  it('re-reads the wall-clock when only the timezone changes (D10), keeps the zone otherwise (D11)', async () => {
    const event = await create({ ...REQUIRED, timezone: 'America/New_York' }, users.administrator).expect(
      201,
    );
    const zone = await update(event.body.id, { timezone: 'Europe/Paris' }, users.administrator).expect(200);
    expect(zone.body).toMatchObject({
      timezone: 'Europe/Paris',
      timezone_abbr: 'CET',
      start_date: '2031-01-15 18:00:00',
      utc_start_date: '2031-01-15 17:00:00',
    });
    const dates = await update(
      event.body.id,
      { start_date: '2031-01-16 10:00:00', end_date: '2031-01-16 12:00:00' },
      users.administrator,
    ).expect(200);
    expect(dates.body).toMatchObject({
      timezone: 'Europe/Paris',
      start_date: '2031-01-16 10:00:00',
      utc_start_date: '2031-01-16 09:00:00',
    });
  });

  it('applies a lone start or end date (D12), clamping the end (D14)', async () => {
    const event = await create(REQUIRED, users.administrator).expect(201);
    const start = await update(
      event.body.id,
      { start_date: '2031-01-15 19:00:00' },
      users.administrator,
    ).expect(200);
    expect(start.body).toMatchObject({ start_date: '2031-01-15 19:00:00', end_date: '2031-01-15 21:00:00' });
    const late = await update(
      event.body.id,
      { start_date: '2031-01-15 23:00:00' },
      users.administrator,
    ).expect(200);
    expect(late.body).toMatchObject({
      start_date: '2031-01-15 23:00:00',
      end_date: '2031-01-15 23:00:00',
      utc_end_date: '2031-01-15 23:00:00',
    });
    const end = await update(event.body.id, { end_date: '2031-01-16 01:00:00' }, users.administrator).expect(
      200,
    );
    expect(end.body).toMatchObject({ start_date: '2031-01-15 23:00:00', end_date: '2031-01-16 01:00:00' });
  });

  it.each(['', 0, [], null])('removes the venue and organizers with %j (D9)', async (empty) => {
    const venue = await createVenue(h.db);
    const organizer = await createOrganizer(h.db);
    const event = await create(
      { ...REQUIRED, venue: venue.id, organizer: [organizer.id] },
      users.administrator,
    ).expect(201);
    const res = await update(event.body.id, { venue: empty, organizer: empty }, users.administrator).expect(
      200,
    );
    expect(res.body).toMatchObject({ venue: [], organizer: [] });
  });

  it('replaces categories and tags, and clears them with "" or []', async () => {
    const event = await create(
      { ...REQUIRED, categories: 'Alpha Cat', tags: 'Alpha Tag' },
      users.administrator,
    ).expect(201);
    const replaced = await update(event.body.id, { categories: 'Beta Cat' }, users.administrator).expect(200);
    expect(replaced.body.categories.map((c: { name: string }) => c.name)).toEqual(['Beta Cat']);
    expect(replaced.body.tags.map((t: { name: string }) => t.name)).toEqual(['Alpha Tag']);
    const cleared = await update(event.body.id, { categories: '', tags: [] }, users.administrator).expect(
      200,
    );
    expect(cleared.body).toMatchObject({ categories: [], tags: [] });
    const alpha = await h.db.term.findFirstOrThrow({ where: { name: 'Alpha Cat' } });
    expect(alpha.eventCount).toBe(0);
  });

  it('leaves the status alone when it is omitted (D17), and scales it for contributors', async () => {
    const pending = await create({ ...REQUIRED, status: 'pending' }, users.contributor).expect(201);
    const res = await update(pending.body.id, { title: 'Still pending' }, users.contributor).expect(200);
    expect(res.body.status).toBe('pending');
    const asked = await update(pending.body.id, { status: 'publish' }, users.contributor).expect(200);
    expect(asked.body.status).toBe('pending');
    const drafted = await update(pending.body.id, { status: 'draft' }, users.contributor).expect(200);
    expect(drafted.body.status).toBe('draft');
  });

  it('checks the caller first (D22), then refuses invalid values with one 400 naming each', async () => {
    const event = await create(REQUIRED, users.administrator).expect(201);
    const bad = { website: 'foo', timezone: 'Nowhere', all_day: 'perhaps' };
    await update(event.body.id, bad).expect(401);
    const res = await update(event.body.id, bad, users.administrator).expect(400);
    expect(Object.keys(res.body.data.params).sort()).toEqual(['all_day', 'timezone', 'website']);
  });

  it('changes nothing when a part of the update fails half-way', async () => {
    const event = await create({ ...REQUIRED, title: 'Untouched' }, users.administrator).expect(201);
    await update(
      event.body.id,
      {
        title: 'Touched',
        organizer: [
          { organizer: 'Half A' },
          { organizer: 'Half B' },
          { organizer: 'Half C', website: 'bad' },
        ],
      },
      users.administrator,
    ).expect(400);
    expect((await stored(event.body.id)).title).toBe('Untouched');
    expect(await h.db.organizer.count({ where: { name: { startsWith: 'Half ' } } })).toBe(0);
  });

  it('never loses a field to concurrent updates (parallel requests)', async () => {
    const event = await create({ ...REQUIRED, title: 'Parallel' }, users.editor).expect(201);
    const venue = await createVenue(h.db);
    const bodies: object[] = [
      { title: 'Parallel, renamed' },
      { cost: '7€' },
      { website: 'https://parallel.example' },
      { description: 'Parallel text' },
      { featured: '1' },
      { sticky: true },
      { show_map_link: 'yes' },
      { venue: venue.id },
      { categories: 'Parallel Category' },
      { tags: 'Parallel Tag' },
      { start_date: '2031-01-15 17:30:00' },
      { end_date: '2031-01-15 22:00:00' },
    ];
    const responses = await Promise.all(
      bodies.map((body, i) =>
        update(event.body.id, body, users.editor, (['post', 'put', 'patch'] as const)[i % 3]),
      ),
    );
    expect(responses.map((res) => res.status)).toEqual(bodies.map(() => 200));
    const { body } = await h.http.get(`${API}/events/${event.body.id}`).expect(200);
    expect(body).toMatchObject({
      title: 'Parallel, renamed',
      cost: '7€',
      website: 'https://parallel.example',
      description: '<p>Parallel text</p>',
      featured: true,
      sticky: true,
      show_map_link: true,
      venue: { id: venue.id },
      categories: [{ name: 'Parallel Category', count: 1 }],
      tags: [{ name: 'Parallel Tag', count: 1 }],
      start_date: '2031-01-15 17:30:00',
      end_date: '2031-01-15 22:00:00',
    });
  });
});

describe('DELETE /events/{id} and /events/by-slug/{slug}', () => {
  it('trashes (200 with the event, status trash), then 410 as sample 29; unknown 404; anonymous 401 (item 14)', async () => {
    const tag = await createTerm(h.db, 'post_tag', 'Trash Count');
    const event = await create({ ...REQUIRED, tags: [tag.id] }, users.administrator).expect(201);
    expect((await h.db.term.findUniqueOrThrow({ where: { id: tag.id } })).eventCount).toBe(1);
    await remove(event.body.id).expect(401);
    const res = await remove(event.body.id, users.administrator).expect(200);
    expect(res.body).toMatchObject({ id: event.body.id, status: 'trash' });
    expect(res.body).not.toHaveProperty('json_ld');
    expect((await h.db.term.findUniqueOrThrow({ where: { id: tag.id } })).eventCount).toBe(0);
    const again = await remove(event.body.id, users.administrator).expect(410);
    expect(again.body).toEqual(sample('29-delete-trashed-event-auth.json'));
    const unknown = await remove(99_999, users.administrator).expect(404);
    expect(unknown.body.code).toBe('rest-event-not-found');
    await h.http.get(`${API}/events/${event.body.id}`).expect(403);
  });

  it('deletes for good with force=true (editors and administrators, D4)', async () => {
    const event = await create(REQUIRED, users.author).expect(201);
    await remove(`${event.body.id}?force=true`, users.author).expect(403);
    const res = await remove(`${event.body.id}?force=true`, users.editor).expect(200);
    expect(res.body).toMatchObject({ id: event.body.id, status: 'publish' });
    expect(await h.db.event.findUnique({ where: { id: event.body.id } })).toBeNull();
    await remove(event.body.id, users.editor).expect(404);
    const trashed = await create(REQUIRED, users.administrator).expect(201);
    await remove(trashed.body.id, users.administrator).expect(200);
    await remove(`${trashed.body.id}?force=1`, users.administrator).expect(200);
    expect(await h.db.event.findUnique({ where: { id: trashed.body.id } })).toBeNull();
  });

  it('deletes by slug', async () => {
    await create({ ...REQUIRED, title: 'Slug To Trash' }, users.administrator).expect(201);
    const res = await remove('by-slug/slug-to-trash', users.administrator).expect(200);
    expect(res.body).toMatchObject({ status: 'trash', slug: 'slug-to-trash__trashed' });
    // Trashing renamed it (wp_add_trashed_suffix_to_post_name_for_post): the old slug names nothing
    // (the reference's 400 for a slug that names no event).
    await remove('by-slug/slug-to-trash', users.administrator).expect(400);
    await remove('by-slug/slug-to-trash__trashed', users.administrator).expect(410);
    await remove('by-slug/slug-to-trash__trashed?force=true', users.administrator).expect(200);
    await remove('by-slug/slug-to-trash__trashed', users.administrator).expect(400);
  });
});

describe('AuthorizationCest: events', () => {
  const event = (as: Credentials, status = 'publish') =>
    createEvent(h.db, { status, fields: { authorId: as.id } });

  it('anonymous PUT/DELETE on published or draft events → 401', async () => {
    for (const status of ['publish', 'draft']) {
      const target = await event(users.administrator, status);
      const put = await update(target.id, { title: 'x' }, undefined, 'put').expect(401);
      expect(put.body).toEqual(sample('21-event-update-anon-401.json'));
      const del = await remove(target.id).expect(401);
      expect(del.body).toEqual(sample('22-event-delete-anon.json'));
    }
  });

  it("contributor PUT/DELETE on an administrator's event → 403", async () => {
    const target = await event(users.administrator);
    await update(target.id, { title: 'x' }, users.contributor, 'put').expect(403);
    await remove(target.id, users.contributor).expect(403);
    const draft = await event(users.administrator, 'draft');
    await update(draft.id, { title: 'x' }, users.contributor, 'put').expect(403);
    await remove(draft.id, users.contributor).expect(403);
  });

  it('contributor PUT/DELETE on their own published event → 403', async () => {
    const target = await event(users.contributor);
    await update(target.id, { title: 'x' }, users.contributor, 'put').expect(403);
    await remove(target.id, users.contributor).expect(403);
  });

  it('contributor PUT/DELETE on their own draft → 200', async () => {
    const target = await event(users.contributor, 'draft');
    const res = await update(target.id, { title: 'Own draft' }, users.contributor, 'put').expect(200);
    expect(res.body).toMatchObject({ title: 'Own draft', status: 'draft' });
    const del = await remove(target.id, users.contributor).expect(200);
    expect(del.body).toMatchObject({ id: target.id, status: 'trash' });
  });

  it("author edits their own published event but not others'", async () => {
    const own = await event(users.author);
    await update(own.id, { title: 'Mine' }, users.author, 'patch').expect(200);
    const other = await event(users.editor);
    await update(other.id, { title: 'x' }, users.author, 'patch').expect(403);
    await remove(own.id, users.author).expect(200);
  });

  it("editor PUT/DELETE on others' events → 200", async () => {
    const target = await event(users.administrator);
    await update(target.id, { title: 'Edited by editor' }, users.editor, 'put').expect(200);
    await remove(target.id, users.editor).expect(200);
    const draft = await event(users.contributor, 'draft');
    await update(draft.id, { title: 'x' }, users.editor, 'put').expect(200);
  });

  it('subscribers may neither edit nor delete', async () => {
    const target = await event(users.administrator);
    await update(target.id, { title: 'x' }, users.subscriber, 'put').expect(403);
    await remove(target.id, users.subscriber).expect(403);
  });
});
