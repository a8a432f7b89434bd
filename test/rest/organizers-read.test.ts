import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, API_ROOT, type Harness, SITE_URL, startHarness } from '../helpers/harness.js';
import { createEvent, createOrganizer } from '../helpers/fixtures.js';
import { type Users, createUser, withRoles } from '../helpers/users.js';

// GET /organizers/{id}, /organizers/by-slug/{slug} and /organizers (docs/reference.md §1.3, §2, §3.2, §4.3,
// D1, D6): OrganizerSingleCest, OrganizerSingleSlugCest and OrganizerArchiveCest.

import { sample } from '../helpers/samples.js';
import { shape } from '../helpers/shape.js';

let h: Harness;
let users: Users;
const ids: Record<string, number> = {};

beforeAll(async () => {
  h = await startHarness();
  users = await withRoles(h);
  const acme = await createOrganizer(h.db, { name: 'Acme Org', slug: 'acme-org', authorId: users.author.id });
  const draft = await createOrganizer(h.db, {
    name: 'Draft Org',
    slug: 'draft-org',
    status: 'draft',
    authorId: users.author.id,
  });
  const locked = await createOrganizer(h.db, {
    name: 'Locked Org',
    slug: 'locked-org',
    password: 'pw',
    description: 'Private',
    authorId: users.author.id,
  });
  Object.assign(ids, { acme: acme.id, draft: draft.id, locked: locked.id });
});
afterAll(() => h.close());

describe('GET /organizers/{id}', () => {
  it('has the reference key order and types (sample 06), json_ld included', async () => {
    const res = await h.http.get(`${API}/organizers/${ids.acme}`).expect(200);
    expect(shape(res.body)).toEqual(shape(sample('06-organizer-single.json')));
  });

  it('computes the values as the reference does, falsy fields dropped', async () => {
    const { body } = await h.http.get(`${API}/organizers/${ids.acme}`).expect(200);
    expect(body).toMatchObject({
      id: ids.acme,
      author: String(users.author.id),
      url: `${SITE_URL}/organizer/acme-org/`,
      organizer: 'Acme Org',
      slug: 'acme-org',
      phone: '555-0199',
      website: 'http://acme.example',
      email: 'org@example.com',
      global_id: `calendar.test?id=${ids.acme}`,
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

  it('404s unknown ids and slugs (D1), rest_no_route for non-numeric ids', async () => {
    expect((await h.http.get(`${API}/organizers/999999`).expect(404)).body).toEqual({
      code: 'organizer-not-found',
      message: 'The requested post ID does not exist or is not an organizer',
      data: { status: 404, request_id: expect.any(String) },
    });
    expect((await h.http.get(`${API}/organizers/by-slug/nobody`).expect(404)).body.code).toBe(
      'organizer-not-found',
    );
    expect((await h.http.get(`${API}/organizers/abc`).expect(404)).body.code).toBe('rest_no_route');
  });

  it('403s non-public organizers (organizer-not-accessible) unless the viewer may read them', async () => {
    expect((await h.http.get(`${API}/organizers/${ids.draft}`).expect(403)).body).toEqual({
      code: 'organizer-not-accessible',
      message: 'The requested organizer is not accessible',
      data: { status: 403, request_id: expect.any(String) },
    });
    await h.http.get(`${API}/organizers/by-slug/draft-org`).expect(403);
    await h.http
      .get(`${API}/organizers/${ids.draft}`)
      .auth(users.editor.login, users.editor.password)
      .expect(200);
    await h.http
      .get(`${API}/organizers/by-slug/draft-org`)
      .auth(users.author.login, users.author.password)
      .expect(200);
  });

  it('scrubs password-protected organizers, keeping the name a string (D6)', async () => {
    const { body } = await h.http.get(`${API}/organizers/${ids.locked}`).expect(200);
    expect(body).toMatchObject({
      organizer: 'Locked Org',
      description: '',
      phone: '',
      website: '',
      email: '',
    });
    expect(body.json_ld).toMatchObject({ name: 'Locked Org', email: '', telephone: '' });
    const forEditor = await h.http
      .get(`${API}/organizers/${ids.locked}`)
      .auth(users.editor.login, users.editor.password)
      .expect(200);
    expect(forEditor.body).toMatchObject({ description: '<p>Private</p>', email: 'org@example.com' });
    const event = await createEvent(h.db, { organizerIds: [ids.locked!] });
    const embedded = await h.http.get(`${API}/events/${event.id}`).expect(200);
    expect(embedded.body.organizer[0]).toMatchObject({ organizer: 'Locked Org', email: '' });
  });

  it('reads the same representation by slug', async () => {
    const bySlug = await h.http.get(`${API}/organizers/by-slug/acme-org`).expect(200);
    expect(bySlug.body).toEqual((await h.http.get(`${API}/organizers/${ids.acme}`)).body);
  });
});

describe('GET /organizers', () => {
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

  it('hides drafts from anonymous readers and shows them to editors', async () => {
    const anonymous = await h.http.get(`${API}/organizers`).expect(200);
    expect(
      anonymous.body.organizers.map((organizer: { organizer: string }) => organizer.organizer),
    ).not.toContain('Draft Org');
    await h.http.get(`${API}/organizers?status=draft`).expect(400);
    const drafts = await h.http
      .get(`${API}/organizers?status=draft`)
      .auth(users.editor.login, users.editor.password)
      .expect(200);
    expect(drafts.body.organizers.map((organizer: { organizer: string }) => organizer.organizer)).toEqual([
      'Draft Org',
    ]);
  });
});
