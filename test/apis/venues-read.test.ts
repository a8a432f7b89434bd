import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, API_ROOT, type Harness, SITE_URL, startHarness } from '../helpers/harness.js';
import { createEvent, createVenue } from '../helpers/fixtures.js';
import { linkedPostApis } from '../helpers/apis.js';
import { sample } from '../helpers/samples.js';
import { shape } from '../helpers/shape.js';
import { type Users, createUser, startWithRoles } from '../helpers/users.js';

// Venue reads on both APIs: GET /venues/{id}, /venues/by-slug/{slug} and /venues (docs/reference.md
// §1.2, §2, §3.2, §4.2–4.3, D1, D6: VenueSingleCest, VenueSingleSlugCest and VenueArchiveCest) and
// GraphQL's venue, venueBySlug and venues — the same records, filters, visibility and errors, asked
// each API's way (one table), then what only REST shows (the reference's shapes, JSON-LD, paging, the
// role rules of `status`) and the SQL statements a list costs on both.

let both: Harness;
let users: Users;
const ids: Record<string, number> = {};

const FIELDS = `id: databaseId slug name description url address city stateProvince zip website showMap showMapLink geoLat geoLng
  passwordProtected status image { url } author { id: databaseId name }`;

const [rest, graphql] = linkedPostApis(() => both, 'venue', FIELDS);

beforeAll(async () => {
  ({ h: both, users } = await startWithRoles());
  const media = await both.db.media.create({
    data: { url: 'http://img.example/opera.jpg', width: 10, height: 10 },
  });
  const opera = await createVenue(both.db, {
    name: 'Opera',
    slug: 'opera',
    geoLat: 48.87,
    geoLng: 2.33,
    imageId: media.id,
    authorId: users.editor.id,
  });
  const draft = await createVenue(both.db, { name: 'Draft Venue', slug: 'draft-venue', status: 'draft' });
  const locked = await createVenue(both.db, {
    name: 'Locked',
    slug: 'locked',
    password: 'pw',
    description: 'Behind the door',
    imageId: media.id,
    geoLat: 1,
    geoLng: 1,
    authorId: users.author.id,
  });
  const event = await createEvent(both.db, { venueIds: [opera.id, draft.id] });
  Object.assign(ids, { opera: opera.id, draft: draft.id, locked: locked.id, event: event.id });
});
afterAll(() => both.close());

describe.each([rest, graphql])('$name: venue reads', (api) => {
  it('reads a venue with its relations, by id and by slug', async () => {
    const byId = await api.read({ id: ids.opera! });
    expect(byId.status).toBe(200);
    if (api === graphql)
      expect(byId.body).toEqual({
        id: ids.opera,
        slug: 'opera',
        name: 'Opera',
        description: '',
        url: `${SITE_URL}/venue/opera/`,
        address: '1 Main St',
        city: 'Springfield',
        stateProvince: 'IL',
        zip: '62701',
        website: 'http://example.com',
        showMap: true,
        showMapLink: true,
        geoLat: 48.87,
        geoLng: 2.33,
        passwordProtected: false,
        status: 'publish',
        image: { url: 'http://img.example/opera.jpg' },
        author: { id: users.editor.id, name: users.editor.login },
      });
    else
      expect(byId.body).toMatchObject({
        id: ids.opera,
        author: String(users.editor.id),
        slug: 'opera',
        venue: 'Opera',
        url: `${SITE_URL}/venue/opera/`,
        address: '1 Main St',
        city: 'Springfield',
        stateprovince: 'IL',
        zip: '62701',
        website: 'http://example.com',
        show_map: true,
        show_map_link: true,
        geo_lat: 48.87,
        geo_lng: 2.33,
        status: 'publish',
        image: { url: 'http://img.example/opera.jpg' },
      });
    const bySlug = await api.read({ slug: 'opera' });
    expect(bySlug.body.id).toBe(ids.opera);
    // The same representation as by id.
    expect(bySlug.body).toEqual(byId.body);
  });

  it('answers unknown ids and slugs with venue-not-found, 404 (D1)', async () => {
    const missing = await api.read({ id: 999999 });
    expect([missing.status, missing.code]).toEqual([404, 'venue-not-found']);
    if (api === rest)
      expect(missing.body).toEqual({
        code: 'venue-not-found',
        message: 'The requested post ID does not exist or is not an venue',
        data: { status: 404, request_id: expect.any(String) },
      });
    const bySlug = await api.read({ slug: 'none' });
    expect([bySlug.status, bySlug.code]).toEqual([404, 'venue-not-found']);
  });

  it('answers non-public venues with venue-not-accessible, 403, unless the viewer may read them', async () => {
    const draft = await api.read({ id: ids.draft! });
    expect([draft.status, draft.code]).toEqual([403, 'venue-not-accessible']);
    if (api === rest)
      expect(draft.body).toEqual({
        code: 'venue-not-accessible',
        message: 'The requested venue is not accessible',
        data: { status: 403, request_id: expect.any(String) },
      });
    const forEditor = await api.read({ id: ids.draft! }, users.editor);
    expect(forEditor.status).toBe(200);
    expect(forEditor.body.id).toBe(ids.draft);
    expect(forEditor.body.status).toBe('draft');
    const bySlug = await api.read({ slug: 'draft-venue' });
    expect([bySlug.status, bySlug.code]).toEqual([403, 'venue-not-accessible']);
    expect((await api.read({ slug: 'draft-venue' }, users.editor)).status).toBe(200);
  });

  it('withholds the content of a password-protected venue from those who may not edit it; the name stays a string (D6)', async () => {
    const { body } = await api.read({ id: ids.locked! });
    const forEditor = (await api.read({ id: ids.locked! }, users.editor)).body;
    const forAuthor = (await api.read({ id: ids.locked! }, users.author)).body;
    if (api === graphql) {
      const { name, address, website, geoLat, showMap, image, passwordProtected } = body;
      expect({ name, address, website, geoLat, showMap, image, passwordProtected }).toEqual({
        name: 'Locked',
        address: '',
        website: null,
        geoLat: null,
        showMap: null,
        image: null,
        passwordProtected: true,
      });
      expect(forEditor).toMatchObject({
        address: '1 Main St',
        geoLat: 1,
        image: { url: 'http://img.example/opera.jpg' },
      });
    } else {
      expect(body.venue).toBe('Locked');
      expect(body).toMatchObject({
        description: '',
        address: '',
        city: '',
        phone: '',
        website: '',
        geo_lat: 0,
        geo_lng: 0,
        show_map: null,
        show_map_link: null,
      });
      // No JSON-LD at all for a password-protected venue, whoever asks (#14, as the reference).
      expect(body).not.toHaveProperty('json_ld');
      expect(forEditor).not.toHaveProperty('json_ld');
      expect(forEditor).toMatchObject({
        description: '<p>Behind the door</p>',
        address: '1 Main St',
        geo_lat: 1,
        show_map: true,
      });
    }
    expect(forAuthor.address).toBe('1 Main St');
  });

  it('filters the list, with its totals', async () => {
    expect((await api.list({})).names).toEqual(['Locked', 'Opera']);
    expect((await api.list({ event: ids.event }, users.editor)).names).toEqual(['Draft Venue', 'Opera']);
    expect(await api.list({ onlyWithUpcoming: true, hasEvents: true, search: 'OPE' })).toEqual({
      status: 200,
      names: ['Opera'],
      total: 1,
      totalPages: 1,
    });
    expect((await api.list({ hasEvents: false })).names).toEqual(['Locked']);
  });

  it('applies the status rules, the event check and the page bound with the REST error codes', async () => {
    const drafts = await api.list({ status: 'draft' });
    expect([drafts.status, drafts.code]).toEqual([400, 'rest_invalid_param']);
    expect(drafts.data).toMatchObject({ params: { status: 'Invalid parameter.' } });
    expect((await api.list({ status: 'draft' }, users.editor)).names).toEqual(['Draft Venue']);
    const unknown = await api.list({ event: 999999 });
    expect(unknown.data).toMatchObject({ params: { event: 'Invalid parameter.' } });
    const beyond = await api.list({ page: 5 });
    expect([beyond.status, beyond.code]).toEqual([404, 'venue-archive-page-not-found']);
  });
});

describe('REST only', () => {
  // A site of its own: these `h`, `users` and `ids` hide the table's.
  let h: Harness;
  let users: Users;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    ({ h, users } = await startWithRoles());
    const hall = await createVenue(h.db, { name: 'Main Hall', slug: 'main-hall', authorId: users.author.id });
    const draft = await createVenue(h.db, {
      name: 'Secret Cellar',
      slug: 'secret-cellar',
      status: 'draft',
      authorId: users.author.id,
    });
    const own = await createVenue(h.db, {
      name: 'Own Draft',
      slug: 'own-draft',
      status: 'draft',
      authorId: users.contributor.id,
    });
    const trashed = await createVenue(h.db, { name: 'Gone', slug: 'gone', status: 'trash' });
    const locked = await createVenue(h.db, {
      name: 'Locked Room',
      slug: 'locked-room',
      password: 'sesame',
      description: 'Behind the door',
      geoLat: 48.85,
      geoLng: 2.35,
      authorId: users.author.id,
    });
    const media = await h.db.media.create({
      data: { url: 'http://img.example/hall.jpg', width: 800, height: 600 },
    });
    await h.db.venue.update({ where: { id: hall.id }, data: { imageId: media.id, geoLat: 0, geoLng: 0 } });
    Object.assign(ids, {
      hall: hall.id,
      draft: draft.id,
      own: own.id,
      trashed: trashed.id,
      locked: locked.id,
    });
  });
  afterAll(() => h.close());

  describe('GET /venues/{id}', () => {
    it('has the reference key order and types (sample 05), json_ld included', async () => {
      const plain = await createVenue(h.db, { name: 'Plain', slug: 'plain', authorId: users.author.id });
      const res = await h.http.get(`${API}/venues/${plain.id}`).expect(200);
      expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
      expect(shape(res.body)).toEqual(shape(sample('05-venue-single.json')));
    });

    it('computes the values as the reference does, falsy fields dropped', async () => {
      const { body } = await h.http.get(`${API}/venues/${ids.hall}`).expect(200);
      expect(body).toMatchObject({
        id: ids.hall,
        author: String(users.author.id),
        status: 'publish',
        url: `${SITE_URL}/venue/main-hall/`,
        venue: 'Main Hall',
        slug: 'main-hall',
        image: {
          url: 'http://img.example/hall.jpg',
          id: expect.any(Number),
          extension: 'jpg',
          width: 800,
          height: 600,
        },
        address: '1 Main St',
        stateprovince: 'IL',
        geo_lat: 0,
        geo_lng: 0,
        show_map: true,
        show_map_link: true,
        global_id: `calendar.test?id=${ids.hall}`,
        global_id_lineage: [`calendar.test?id=${ids.hall}`],
      });
      expect(body).not.toHaveProperty('description');
      expect(body).not.toHaveProperty('province');
      expect(body.json_ld).toMatchObject({
        '@type': 'Place',
        name: 'Main Hall',
        address: { streetAddress: '1 Main St' },
      });
      expect(Object.keys(body).slice(-4)).toEqual([
        'show_map',
        'show_map_link',
        'global_id',
        'global_id_lineage',
      ]);
    });

    it('answers non-numeric ids with rest_no_route', async () => {
      expect((await h.http.get(`${API}/venues/foo`).expect(404)).body.code).toBe('rest_no_route');
    });

    it('lets contributors read their own drafts only, and no one a trashed venue', async () => {
      await h.http
        .get(`${API}/venues/${ids.draft}`)
        .auth(users.contributor.login, users.contributor.password)
        .expect(403);
      await h.http
        .get(`${API}/venues/${ids.own}`)
        .auth(users.contributor.login, users.contributor.password)
        .expect(200);
      await h.http
        .get(`${API}/venues/${ids.trashed}`)
        .auth(users.editor.login, users.editor.password)
        .expect(403);
    });

    it('scrubs a password-protected venue embedded in an event too', async () => {
      const event = await createEvent(h.db, { venueIds: [ids.locked!] });
      const { body } = await h.http.get(`${API}/events/${event.id}`).expect(200);
      expect(body.venue).toMatchObject({ venue: 'Locked Room', address: '' });
    });
  });

  describe('GET /venues', () => {
    let fresh: Harness;
    beforeAll(async () => {
      fresh = await startHarness();
    });
    afterAll(() => fresh.close());

    it('answers an empty site with 200, [] and zero totals, without paging links', async () => {
      const res = await fresh.http.get(`${API}/venues`).expect(200);
      expect(res.body).toEqual({
        venues: [],
        rest_url: `${API_ROOT}/venues/?page=1&per_page=10&status=publish`,
        total: 0,
        total_pages: 0,
      });
      expect(res.headers['x-tec-total']).toBe('0');
      expect(res.headers['x-tec-totalpages']).toBe('0');
    });

    it('pages like the reference (sample 14): envelope, list items without json_ld, links and headers', async () => {
      for (let i = 1; i <= 11; i++) {
        await createVenue(fresh.db, {
          name: `Venue ${i}`,
          slug: `venue-${i}`,
          publishedAt: new Date(Date.UTC(2026, 0, i)),
        });
      }
      const res = await fresh.http.get(`${API}/venues?per_page=3`).expect(200);
      const reference = sample('14-venues-list.json');
      expect(Object.keys(res.body)).toEqual(Object.keys(reference));
      expect(Object.keys(res.body.venues[0])).toEqual(
        Object.keys(reference.venues[0]).filter((key) => key !== 'author'),
      );
      expect(res.body.venues.map((venue: { venue: string }) => venue.venue)).toEqual([
        'Venue 11',
        'Venue 10',
        'Venue 9',
      ]);
      expect(res.body.rest_url).toBe(`${API_ROOT}/venues/?page=1&per_page=3&status=publish`);
      expect(res.body.next_rest_url).toBe(`${API_ROOT}/venues/?per_page=3&status=publish&page=2`);
      expect(res.body).toMatchObject({ total: 11, total_pages: 4 });
      expect(res.headers['x-tec-total']).toBe('11');
      expect(res.headers['x-tec-totalpages']).toBe('4');

      const second = await fresh.http.get(`${API}/venues?per_page=3&page=2`).expect(200);
      expect(second.body.previous_rest_url).toBe(`${API_ROOT}/venues/?per_page=3&status=publish`);
      expect(second.body.next_rest_url).toBe(`${API_ROOT}/venues/?per_page=3&status=publish&page=3`);
      const last = await fresh.http.get(`${API}/venues?per_page=3&page=4`).expect(200);
      expect(last.body.venues).toHaveLength(2);
      expect(last.body).not.toHaveProperty('next_rest_url');
    });

    it('clamps per_page to 50, 404s a page past the end and 400s bad paging', async () => {
      for (let i = 12; i <= 55; i++) await createVenue(fresh.db, { name: `Venue ${i}`, slug: `venue-${i}` });
      const clamped = await fresh.http.get(`${API}/venues?per_page=100`).expect(200);
      expect(clamped.body.venues).toHaveLength(50);
      const beyond = await fresh.http.get(`${API}/venues?page=7`).expect(404);
      expect(beyond.body).toEqual({
        code: 'venue-archive-page-not-found',
        message: 'The requested venue archive page does not exist',
        data: { status: 404, request_id: expect.any(String) },
      });
      for (const query of ['page=0', 'page=-1', 'page=foo', 'per_page=0', 'per_page=foo']) {
        expect((await fresh.http.get(`${API}/venues?${query}`).expect(400)).body.code).toBe(
          'rest_invalid_param',
        );
      }
    });

    it('hides drafts from anonymous readers and shows them to editors; status follows the role rules', async () => {
      const anonymous = await h.http.get(`${API}/venues?per_page=50`).expect(200);
      const names = anonymous.body.venues.map((venue: { venue: string }) => venue.venue);
      expect(names).toContain('Main Hall');
      expect(names).not.toContain('Secret Cellar');
      expect(names).not.toContain('Gone');
      expect((await h.http.get(`${API}/venues?status=publish`).expect(200)).body.total).toBe(
        anonymous.body.total,
      );
      expect((await h.http.get(`${API}/venues?status=draft`).expect(400)).body.data.params).toEqual({
        status: 'Invalid parameter.',
      });
      await h.http.get(`${API}/venues?status=publish,draft`).expect(400);

      const asEditor = await h.http
        .get(`${API}/venues?per_page=50`)
        .auth(users.editor.login, users.editor.password)
        .expect(200);
      expect(asEditor.body.total).toBe(anonymous.body.total + 2);
      expect(asEditor.body.rest_url).toContain('status=any');
      const drafts = await h.http
        .get(`${API}/venues?status=draft`)
        .auth(users.editor.login, users.editor.password)
        .expect(200);
      expect(drafts.body.venues.map((venue: { venue: string }) => venue.venue).sort()).toEqual([
        'Own Draft',
        'Secret Cellar',
      ]);
      await h.http
        .get(`${API}/venues?status=foo`)
        .auth(users.editor.login, users.editor.password)
        .expect(400);

      const asContributor = await h.http
        .get(`${API}/venues?status=draft`)
        .auth(users.contributor.login, users.contributor.password)
        .expect(200);
      expect(asContributor.body.venues.map((venue: { venue: string }) => venue.venue)).toEqual(['Own Draft']);
    });

    it('lists password-protected venues scrubbed for anonymous readers', async () => {
      const res = await h.http.get(`${API}/venues?per_page=50`).expect(200);
      const locked = res.body.venues.find((venue: { id: number }) => venue.id === ids.locked);
      expect(locked).toMatchObject({ venue: 'Locked Room', address: '', show_map: null });
      expect(locked).not.toHaveProperty('json_ld');
    });
  });
});

describe('SQL statements per venue list', () => {
  let big: Harness;
  beforeAll(async () => {
    big = await startHarness();
    const owner = await createUser(big, 'author');
    const media = await big.db.media.create({ data: { url: 'http://img.example/x.jpg' } });
    for (let i = 0; i < 60; i++) await createVenue(big.db, { authorId: owner.id, imageId: media.id });
  });
  afterAll(() => big.close());

  async function countQueries(run: () => Promise<unknown>): Promise<number> {
    big.queries.length = 0;
    await run();
    return big.queries.length;
  }

  it('is the same for 10 and 50 venues, in REST and GraphQL', async () => {
    const rest = (perPage: number) => () => big.http.get(`${API}/venues?per_page=${perPage}`).expect(200);
    expect(await countQueries(rest(50))).toBe(await countQueries(rest(10)));
    const graphql = (perPage: number) => async () => {
      const res = await big.http
        .post('/graphql')
        .send({ query: `{ venues(perPage: ${perPage}) { items { name image { url } author { name } } } }` })
        .expect(200);
      expect(res.body.data.venues.items).toHaveLength(perPage);
    };
    const ten = await countQueries(graphql(10));
    expect(await countQueries(graphql(50))).toBe(ten);
    expect(ten).toBeLessThanOrEqual(5);
  });
});
