import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, API_ROOT, type Harness, SITE_URL, startHarness } from '../helpers/harness.js';
import { createEvent, createOrganizer } from '../helpers/fixtures.js';
import { linkedPostApis } from '../helpers/apis.js';
import { sample } from '../helpers/samples.js';
import { shape } from '../helpers/shape.js';
import { type Users, createUser, startWithRoles } from '../helpers/users.js';

// Organizer reads on both APIs: GET /organizers/{id}, /organizers/by-slug/{slug} and /organizers
// (docs/reference.md §1.3, §2, §3.2, §4.3, D1, D6: OrganizerSingleCest, OrganizerSingleSlugCest and
// OrganizerArchiveCest) and GraphQL's organizer, organizerBySlug and organizers — the same records,
// filters, visibility and errors, asked each API's way (one table), then what only REST shows (the
// reference's shapes, JSON-LD, paging).

let both: Harness;
let users: Users;
const ids: Record<string, number> = {};

const FIELDS = 'id: databaseId name slug description url phone website email passwordProtected image { url }';

const [rest, graphql] = linkedPostApis(() => both, 'organizer', FIELDS);

beforeAll(async () => {
  ({ h: both, users } = await startWithRoles());
  const acme = await createOrganizer(both.db, { name: 'Acme', slug: 'acme', description: 'We organize' });
  const draft = await createOrganizer(both.db, {
    name: 'Draft Org',
    slug: 'draft-org',
    status: 'draft',
    authorId: users.author.id,
  });
  const locked = await createOrganizer(both.db, {
    name: 'Locked Org',
    slug: 'locked-org',
    password: 'pw',
    description: 'Private',
    authorId: users.author.id,
  });
  const event = await createEvent(both.db, { organizerIds: [acme.id, draft.id] });
  Object.assign(ids, { acme: acme.id, draft: draft.id, locked: locked.id, event: event.id });
});
afterAll(() => both.close());

describe.each([rest, graphql])('$name: organizer reads', (api) => {
  it('reads an organizer by id and by slug', async () => {
    const byId = await api.read({ id: ids.acme! });
    expect(byId.status).toBe(200);
    if (api === graphql)
      expect(byId.body).toEqual({
        id: ids.acme,
        name: 'Acme',
        slug: 'acme',
        description: 'We organize',
        url: `${SITE_URL}/organizer/acme/`,
        phone: '555-0199',
        website: 'http://acme.example',
        email: 'org@example.com',
        passwordProtected: false,
        image: null,
      });
    else
      expect(byId.body).toMatchObject({
        id: ids.acme,
        organizer: 'Acme',
        slug: 'acme',
        url: `${SITE_URL}/organizer/acme/`,
        phone: '555-0199',
        website: 'http://acme.example',
        email: 'org@example.com',
      });
    const bySlug = await api.read({ slug: 'acme' });
    expect(bySlug.body.id).toBe(ids.acme);
    // The same representation by slug.
    expect(bySlug.body).toEqual(byId.body);
  });

  it('answers unknown ids and slugs with organizer-not-found, 404 (D1)', async () => {
    const unknown = await api.read({ id: 999999 });
    expect([unknown.status, unknown.code]).toEqual([404, 'organizer-not-found']);
    if (api === rest)
      expect(unknown.body).toEqual({
        code: 'organizer-not-found',
        message: 'The requested post ID does not exist or is not an organizer',
        data: { status: 404, request_id: expect.any(String) },
      });
    const slug = await api.read({ slug: 'nobody' });
    expect([slug.status, slug.code]).toEqual([404, 'organizer-not-found']);
  });

  it('answers non-public organizers with organizer-not-accessible, 403, unless the viewer may read them', async () => {
    const draft = await api.read({ id: ids.draft! });
    expect([draft.status, draft.code]).toEqual([403, 'organizer-not-accessible']);
    if (api === rest)
      expect(draft.body).toEqual({
        code: 'organizer-not-accessible',
        message: 'The requested organizer is not accessible',
        data: { status: 403, request_id: expect.any(String) },
      });
    expect((await api.read({ slug: 'draft-org' })).status).toBe(403);
    expect((await api.read({ id: ids.draft! }, users.editor)).status).toBe(200);
    expect((await api.read({ slug: 'draft-org' }, users.author)).status).toBe(200);
  });

  it('withholds the content of password-protected organizers, keeping the name a string (D6)', async () => {
    const { body } = await api.read({ id: ids.locked! });
    if (api === graphql) {
      expect({ name: body.name, email: body.email, phone: body.phone, website: body.website }).toEqual({
        name: 'Locked Org',
        email: '',
        phone: '',
        website: null,
      });
    } else {
      expect(body).toMatchObject({
        organizer: 'Locked Org',
        description: '',
        phone: '',
        website: '',
        email: '',
      });
      expect(body.json_ld).toMatchObject({ name: 'Locked Org', email: '', telephone: '' });
    }
    const forEditor = (await api.read({ id: ids.locked! }, users.editor)).body;
    expect(forEditor.email).toBe('org@example.com');
    if (api === rest) expect(forEditor.description).toBe('<p>Private</p>');
  });

  it('filters the list', async () => {
    expect((await api.list({ event: ids.event })).names).toEqual(['Acme']);
    expect((await api.list({ event: ids.event }, users.editor)).names).toEqual(['Acme', 'Draft Org']);
    expect((await api.list({ hasEvents: true })).names).toEqual(['Acme']);
    expect((await api.list({ hasEvents: false })).names).toEqual(['Locked Org']);
    expect((await api.list({ onlyWithUpcoming: true, search: 'organize' })).names).toEqual(['Acme']);
  });

  it('hides drafts from anonymous readers and shows them to editors', async () => {
    expect((await api.list({})).names).not.toContain('Draft Org');
    expect((await api.list({ status: 'draft' }, users.editor)).names).toEqual(['Draft Org']);
  });
});

describe('REST only', () => {
  let h: Harness;
  const own: Record<string, number> = {};
  beforeAll(async () => {
    h = await startHarness();
    const author = await createUser(h, 'author');
    own.author = author.id;
    const acme = await createOrganizer(h.db, { name: 'Acme Org', slug: 'acme-org', authorId: author.id });
    const locked = await createOrganizer(h.db, {
      name: 'Locked Org',
      slug: 'locked-org',
      password: 'pw',
      description: 'Private',
      authorId: author.id,
    });
    Object.assign(own, { acme: acme.id, locked: locked.id });
  });
  afterAll(() => h.close());

  it('has the reference key order and types (sample 06), json_ld included', async () => {
    const res = await h.http.get(`${API}/organizers/${own.acme}`).expect(200);
    expect(shape(res.body)).toEqual(shape(sample('06-organizer-single.json')));
  });

  it('computes the values as the reference does, falsy fields dropped', async () => {
    const { body } = await h.http.get(`${API}/organizers/${own.acme}`).expect(200);
    expect(body).toMatchObject({
      id: own.acme,
      author: String(own.author),
      url: `${SITE_URL}/organizer/acme-org/`,
      organizer: 'Acme Org',
      slug: 'acme-org',
      phone: '555-0199',
      website: 'http://acme.example',
      email: 'org@example.com',
      global_id: `calendar.test?id=${own.acme}`,
    });
    expect(body).not.toHaveProperty('description');
    expect(body).not.toHaveProperty('image');
    expect(body.json_ld).toMatchObject({
      '@type': 'Person',
      name: 'Acme Org',
      telephone: '555-0199',
      sameAs: 'http://acme.example',
    });
    expect(body.json_ld.email).toMatch(/&#\d+;/);
  });

  it('answers a non-numeric id with rest_no_route', async () => {
    expect((await h.http.get(`${API}/organizers/abc`).expect(404)).body.code).toBe('rest_no_route');
  });

  it('withholds a protected organizer embedded in an event too', async () => {
    const event = await createEvent(h.db, { organizerIds: [own.locked!] });
    const embedded = await h.http.get(`${API}/events/${event.id}`).expect(200);
    expect(embedded.body.organizer[0]).toMatchObject({ organizer: 'Locked Org', email: '' });
  });

  it('refuses status=draft to anonymous readers (400)', async () => {
    await h.http.get(`${API}/organizers?status=draft`).expect(400);
  });

  describe('GET /organizers on a site of its own', () => {
    let fresh: Harness;
    beforeAll(async () => {
      fresh = await startHarness();
    });
    afterAll(() => fresh.close());

    it('answers an empty site with 200 and zero totals', async () => {
      const res = await fresh.http.get(`${API}/organizers`).expect(200);
      expect(res.body).toEqual({
        organizers: [],
        rest_url: `${API_ROOT}/organizers/?page=1&per_page=10&status=publish`,
        total: 0,
        total_pages: 0,
      });
      expect(res.headers['x-tec-total']).toBe('0');
    });

    it('pages like the reference (sample 15)', async () => {
      const owner = await createUser(fresh, 'author');
      for (let i = 1; i <= 11; i++) {
        await createOrganizer(fresh.db, {
          name: `Organizer ${i}`,
          slug: `organizer-${i}`,
          authorId: owner.id,
          publishedAt: new Date(Date.UTC(2026, 0, i)),
        });
      }
      const res = await fresh.http.get(`${API}/organizers?per_page=3`).expect(200);
      const reference = sample('15-organizers-list.json');
      expect(Object.keys(res.body)).toEqual(Object.keys(reference));
      expect(shape(res.body.organizers[0])).toEqual(shape(reference.organizers[0]));
      expect(res.body.organizers.map((organizer: { organizer: string }) => organizer.organizer)).toEqual([
        'Organizer 11',
        'Organizer 10',
        'Organizer 9',
      ]);
      expect(res.body.next_rest_url).toBe(`${API_ROOT}/organizers/?per_page=3&status=publish&page=2`);
      expect(res.body).toMatchObject({ total: 11, total_pages: 4 });
      expect(res.headers['x-tec-totalpages']).toBe('4');
    });

    it('404s a page past the end and 400s bad paging', async () => {
      expect((await fresh.http.get(`${API}/organizers?page=3`).expect(404)).body).toEqual({
        code: 'organizer-archive-page-not-found',
        message: 'The requested organizer archive page does not exist',
        data: { status: 404, request_id: expect.any(String) },
      });
      await fresh.http.get(`${API}/organizers?per_page=0`).expect(400);
    });
  });
});
