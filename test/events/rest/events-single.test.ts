import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, API_ROOT, type Harness, SITE_URL } from '../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../helpers/fixtures.js';
import { type Credentials, type Users, createUser, startWithRoles } from '../../helpers/users.js';

// GET /events/{id} and /events/by-slug/{slug}: visibility (docs/reference.md §3.2, §4.3, D1) and the full
// representation, compared with the captured samples.

import { sample, withEventStatus } from '../../helpers/samples.js';
import { shape } from '../../helpers/shape.js';

/** Key order and JSON types, recursively (arrays: first element). */
let h: Harness;
const ids: Record<string, number> = {};
let users: Users;
let otherAuthor: Credentials;

beforeAll(async () => {
  ({ h, users } = await startWithRoles());
  otherAuthor = await createUser(h, 'author');
  const venue = await createVenue(h.db, { name: 'Main Hall', slug: 'main-hall', authorId: users.author.id });
  const second = await createVenue(h.db, { name: 'Annex', slug: 'annex' });
  const org1 = await createOrganizer(h.db, { name: 'Acme Org', authorId: users.author.id });
  const org2 = await createOrganizer(h.db, { name: 'Beta Org' });
  const music = await createTerm(h.db, 'tribe_events_cat', 'Single Music');
  const child = await h.db.term.create({
    data: { taxonomy: 'tribe_events_cat', name: 'Single Jazz', slug: 'single-jazz', parentId: music.id },
  });
  const tag = await createTerm(h.db, 'post_tag', 'single-kids');
  const media = await h.db.media.create({
    data: { url: 'http://example.com/img/poster.jpg', width: 800, height: 600, filesize: 1234 },
  });
  const full = await createEvent(h.db, {
    title: 'Full Event',
    start: '2031-12-01 10:00:00',
    timezone: 'America/New_York',
    venueIds: [venue.id],
    organizerIds: [org1.id, org2.id],
    termIds: [child.id, tag.id],
    fields: {
      slug: 'full-event',
      imageId: media.id,
      excerpt: 'Short',
      authorId: users.author.id,
      cost: '0,20,30',
      currencySymbol: '$',
      currencyPosition: 'postfix',
    },
  });
  const twoVenues = await createEvent(h.db, {
    title: 'Two venues',
    start: '2031-12-02 10:00:00',
    venueIds: [venue.id, second.id],
    fields: { slug: 'two-venues', website: '' },
  });
  const draft = await createEvent(h.db, {
    title: 'Draft',
    status: 'draft',
    fields: { slug: 'a-draft', authorId: users.author.id },
  });
  const trashed = await createEvent(h.db, { title: 'Trashed', status: 'trash', fields: { slug: 'trashed' } });
  const privateEvent = await createEvent(h.db, {
    title: 'Private',
    status: 'private',
    fields: { slug: 'private-one', authorId: users.author.id },
  });
  const locked = await createEvent(h.db, {
    title: 'Locked',
    fields: { slug: 'locked', password: 's3cret', authorId: users.author.id },
  });
  const unicode = await createEvent(h.db, { title: 'Café', fields: { slug: 'café-concert' } });
  Object.assign(ids, {
    full: full.id,
    twoVenues: twoVenues.id,
    draft: draft.id,
    trashed: trashed.id,
    private: privateEvent.id,
    locked: locked.id,
    unicode: unicode.id,
    media: media.id,
    child: child.id,
    music: music.id,
  });
});
afterAll(() => h.close());

describe('the single event representation', () => {
  it('has the keys, order and JSON types of the reference sample', async () => {
    const res = await h.http.get(`${API}/events/${ids.full}`).expect(200);
    const reference = withEventStatus(sample('04-event-single.json'));
    expect(Object.keys(res.body)).toEqual(Object.keys(reference));
    for (const key of Object.keys(reference)) {
      if (['image', 'organizer', 'json_ld', 'tags', 'cost_details', 'categories'].includes(key)) continue;
      expect([key, shape(res.body[key])]).toEqual([key, shape(reference[key])]);
    }
    expect(Object.keys(res.body.json_ld)).toEqual([
      ...Object.keys(reference.json_ld).slice(0, 4),
      'image',
      ...Object.keys(reference.json_ld).slice(4),
    ]);
  });

  it('computes every derived field', async () => {
    const { body } = await h.http.get(`${API}/events/${ids.full}`).expect(200);
    expect(body).toMatchObject({
      author: String(users.author.id),
      slug: 'full-event',
      url: `${SITE_URL}/event/full-event/`,
      rest_url: `${API_ROOT}/events/${ids.full}`,
      excerpt: 'Short',
      start_date: '2031-12-01 10:00:00',
      utc_start_date: '2031-12-01 15:00:00',
      utc_start_date_details: {
        year: '2031',
        month: '12',
        day: '01',
        hour: '15',
        minutes: '00',
        seconds: '00',
      },
      timezone: 'America/New_York',
      timezone_abbr: 'EST',
      cost: 'Free – 30$',
      cost_details: {
        currency_symbol: '$',
        currency_code: '',
        currency_position: 'postfix',
        values: ['0', '20', '30'],
      },
      website: 'http://example.com/e',
      image: {
        url: 'http://example.com/img/poster.jpg',
        id: ids.media,
        extension: 'jpg',
        width: 800,
        height: 600,
        filesize: 1234,
      },
      custom_fields: [],
    });
    expect(body.venue).toMatchObject({ venue: 'Main Hall', slug: 'main-hall' });
    expect(body.venue.json_ld['@type']).toBe('Place');
    expect(body.organizer.map((o: { organizer: string }) => o.organizer)).toEqual(['Acme Org', 'Beta Org']);
    expect(body.organizer[0].json_ld['@type']).toBe('Person');
    expect(body.categories).toEqual([
      {
        name: 'Single Jazz',
        slug: 'single-jazz',
        term_group: 0,
        term_taxonomy_id: ids.child,
        taxonomy: 'tribe_events_cat',
        description: '',
        parent: ids.music,
        count: 1,
        filter: 'raw',
        id: ids.child,
        urls: {
          self: `${API_ROOT}/categories/${ids.child}`,
          collection: `${API_ROOT}/categories`,
          up: `${API_ROOT}/categories/${ids.music}`,
        },
      },
    ]);
    expect(body.tags.map((t: { slug: string }) => t.slug)).toEqual(['single-kids']);
  });

  it('describes the event in schema.org JSON-LD, with the event’s offset', async () => {
    const { body } = await h.http.get(`${API}/events/${ids.full}`).expect(200);
    expect(body.json_ld).toMatchObject({
      '@context': 'http://schema.org',
      '@type': 'Event',
      name: 'Full Event',
      // TEC: the excerpt rendered (wpautop), escaped, and the literal \\n its double encoding leaves.
      description: '&lt;p&gt;Short&lt;/p&gt;\\n',
      image: 'http://example.com/img/poster.jpg',
      url: `${SITE_URL}/event/full-event/`,
      startDate: '2031-12-01T10:00:00-05:00',
      endDate: '2031-12-01T12:00:00-05:00',
      location: {
        '@type': 'Place',
        name: 'Main Hall',
        address: { '@type': 'PostalAddress', addressLocality: 'Springfield' },
      },
      offers: { '@type': 'Offer', price: '0', url: `${SITE_URL}/event/full-event/` },
      performer: 'Organization',
    });
    expect(body.json_ld.organizer).toEqual([
      expect.objectContaining({ '@type': 'Person', name: 'Acme Org' }),
      expect.objectContaining({ '@type': 'Person', name: 'Beta Org' }),
    ]);
    expect(body.json_ld.offers.validFrom).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00[+-]\d{2}:\d{2}$/);
  });

  it('gives several venues as an array, none as [], and falls back to the permalink for the website', async () => {
    const { body } = await h.http.get(`${API}/events/${ids.twoVenues}`).expect(200);
    expect(body.venue.map((v: { venue: string }) => v.venue)).toEqual(['Main Hall', 'Annex']);
    expect(body.website).toBe(`${SITE_URL}/event/two-venues/`);
    expect(body.organizer).toEqual([]);
    const locked = await h.http.get(`${API}/events/${ids.locked}?password=s3cret`).expect(200);
    expect(locked.body.venue).toEqual([]);
    expect(locked.body.image).toBe(false);
  });
});

describe('who may read a single event', () => {
  it('404 rest-event-not-found for an unknown id, rest_no_route for a non-numeric one', async () => {
    const res = await h.http.get(`${API}/events/987654`).expect(404);
    expect(res.body).toEqual({
      code: 'rest-event-not-found',
      message: 'Event with ID 987654 does not exist.',
      data: { status: 404, request_id: expect.any(String) },
    });
    await h.http.get(`${API}/events/0`).expect(404);
    expect((await h.http.get(`${API}/events/12abc`).expect(404)).body.code).toBe('rest_no_route');
  });

  it('403 event-no-longer-available for a trashed event, for everyone', async () => {
    for (const who of [null, users.editor, users.administrator]) {
      const request = h.http.get(`${API}/events/${ids.trashed}`);
      if (who) request.auth(who.login, who.password);
      const res = await request.expect(403);
      expect(res.body).toEqual({
        code: 'event-no-longer-available',
        message: 'This event is no longer available',
        data: { status: 403, request_id: expect.any(String) },
      });
    }
  });

  it('403 event-not-accessible for a draft, unless the viewer may edit it', async () => {
    const anonymous = await h.http.get(`${API}/events/${ids.draft}`).expect(403);
    expect(anonymous.body).toEqual({
      code: 'event-not-accessible',
      message: 'The requested event is not accessible',
      data: { status: 403, request_id: expect.any(String) },
    });
    await h.http.get(`${API}/events/${ids.draft}`).auth(otherAuthor.login, otherAuthor.password).expect(403);
    const own = await h.http
      .get(`${API}/events/${ids.draft}`)
      .auth(users.author.login, users.author.password)
      .expect(200);
    expect(own.body.status).toBe('draft');
    expect(own.body.url).toBe(`${SITE_URL}/?post_type=tribe_events&p=${ids.draft}`);
    await h.http
      .get(`${API}/events/${ids.draft}`)
      .auth(users.editor.login, users.editor.password)
      .expect(200);
  });

  it('private events: their author and editors only', async () => {
    await h.http.get(`${API}/events/${ids.private}`).expect(403);
    await h.http
      .get(`${API}/events/${ids.private}`)
      .auth(otherAuthor.login, otherAuthor.password)
      .expect(403);
    await h.http
      .get(`${API}/events/${ids.private}`)
      .auth(users.author.login, users.author.password)
      .expect(200);
    await h.http
      .get(`${API}/events/${ids.private}`)
      .auth(users.editor.login, users.editor.password)
      .expect(200);
  });

  it('403 event-password-protected without the right password; whoever may edit it reads it', async () => {
    const res = await h.http.get(`${API}/events/${ids.locked}`).expect(403);
    expect(res.body).toEqual({
      code: 'event-password-protected',
      message: 'The requested event is not accessible without a password',
      data: { status: 403, request_id: expect.any(String) },
    });
    await h.http.get(`${API}/events/${ids.locked}?password=wrong`).expect(403);
    const open = await h.http.get(`${API}/events/${ids.locked}?password=s3cret`).expect(200);
    expect(open.body.description).toBe('<p>Locked description</p>');
    await h.http
      .get(`${API}/events/${ids.locked}`)
      .auth(users.author.login, users.author.password)
      .expect(200);
    await h.http.get(`${API}/events/${ids.locked}`).auth(otherAuthor.login, otherAuthor.password).expect(403);
  });
});

describe('GET /events/by-slug/{slug}', () => {
  it('returns the same representation as by id', async () => {
    const bySlug = await h.http.get(`${API}/events/by-slug/full-event`).expect(200);
    const byId = await h.http.get(`${API}/events/${ids.full}`).expect(200);
    expect(bySlug.body).toEqual(byId.body);
    expect(bySlug.headers['allow']).toMatch(/^GET/);
  });

  it('decodes percent-encoded slugs and serves the language segment', async () => {
    const res = await h.http.get(`${API}/events/by-slug/${encodeURIComponent('café-concert')}`).expect(200);
    expect(res.body.id).toBe(ids.unicode);
    const fr = await h.http.get(`/fr${API}/events/by-slug/full-event`).expect(200);
    expect(fr.body.rest_url).toBe(`${SITE_URL}/fr${API}/events/${ids.full}`);
  });

  it('validates the slug first (unknown, or a draft the viewer may not read: 400), then trashed 403, password 403', async () => {
    const missing = await h.http.get(`${API}/events/by-slug/no-such-event`).expect(400);
    expect(missing.body).toEqual({
      code: 'rest_invalid_param',
      message: 'Invalid parameter(s): slug',
      data: {
        status: 400,
        params: { slug: 'Invalid parameter.' },
        details: [],
        request_id: expect.any(String),
      },
    });
    expect((await h.http.get(`${API}/events/by-slug/a-draft`).expect(400)).body.code).toBe(
      'rest_invalid_param',
    );
    await h.http
      .get(`${API}/events/by-slug/a-draft`)
      .auth(users.author.login, users.author.password)
      .expect(200);
    expect((await h.http.get(`${API}/events/by-slug/trashed`).expect(403)).body.code).toBe(
      'event-no-longer-available',
    );
    expect((await h.http.get(`${API}/events/by-slug/locked`).expect(403)).body.code).toBe(
      'event-password-protected',
    );
    await h.http.get(`${API}/events/by-slug/locked?password=s3cret`).expect(200);
  });

  it('has no route for an empty slug', async () => {
    expect((await h.http.get(`${API}/events/by-slug/`).expect(404)).body.code).toBe('rest_no_route');
  });
});
