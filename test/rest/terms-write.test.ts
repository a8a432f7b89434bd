import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, API_ROOT, type Harness, SITE_URL } from '../helpers/harness.js';
import { createEvent, createTerm } from '../helpers/fixtures.js';
import { type Users, startWithRoles } from '../helpers/users.js';

// POST /categories, POST|PUT|PATCH|DELETE /categories/{id} and the same for tags: the reference's
// Category*/Tag* Insertion, Update and Deletion Cests, with D1 (404), D7 (no 500) and D8 (editors).

import { sample } from '../helpers/samples.js';
import { shape } from '../helpers/shape.js';

/** The sample's category has no parent: compare a child's shape without `urls.up`. */
/** The sample is a top-level category: a child's `up` links (urls and `_links`) are extra. */
function withoutUp(term: { urls: Record<string, string>; _links?: Record<string, unknown> }) {
  const { up: _up, ...urls } = term.urls;
  if (!term._links) return { ...term, urls };
  const { up: _linksUp, ...links } = term._links;
  return { ...term, urls, _links: links };
}

let h: Harness;
let as: Users;

beforeAll(async () => ({ h, users: as } = await startWithRoles()));
afterAll(() => h.close());

const category = (id: number) => h.db.term.findUnique({ where: { id } });

describe('POST /categories', () => {
  it('creates a category (201) in the reference shape, with urls.up and a Location', async () => {
    const parent = await createTerm(h.db, 'tribe_events_cat', 'Foo Parent');
    const res = await h.http
      .post(`${API}/categories`)
      .auth(as.editor.login, as.editor.password)
      .send({ parent: parent.id, name: 'foo', description: 'Term description', slug: 'foo-bar' })
      .expect(201);
    const id = res.body.id as number;
    expect(shape(withoutUp(res.body))).toEqual(shape(sample('07-category-single.json')));
    expect(res.body).toMatchObject({
      id,
      count: 0,
      description: 'Term description',
      name: 'foo',
      slug: 'foo-bar',
      taxonomy: 'tribe_events_cat',
      parent: parent.id,
      meta: [],
      // A child category's archive nests its ancestors' slugs (WordPress hierarchical term links).
      url: `${SITE_URL}/events/category/foo-parent/foo-bar/`,
      urls: {
        self: `${API_ROOT}/categories/${id}`,
        collection: `${API_ROOT}/categories`,
        up: `${API_ROOT}/categories/${parent.id}`,
      },
    });
    expect(res.body._links.up).toEqual([{ href: `${API_ROOT}/categories/${parent.id}`, embeddable: true }]);
    expect(res.headers.location).toBe(`${API_ROOT}/categories/${id}`);
    expect(await category(id)).toMatchObject({ name: 'foo', slug: 'foo-bar', parentId: parent.id });
  });

  it('derives a unique slug from the name, and accepts form bodies', async () => {
    const first = await h.http
      .post(`${API}/categories`)
      .auth(as.administrator.login, as.administrator.password)
      .type('form')
      .send({ name: 'Rock & Roll Café' })
      .expect(201);
    expect(first.body).toMatchObject({ slug: 'rock-roll-cafe', parent: 0, description: '' });
    expect(first.body.urls).not.toHaveProperty('up');
    // same name elsewhere in the tree: allowed, slug made unique
    const parent = await createTerm(h.db, 'tribe_events_cat', 'Genres');
    const second = await h.http
      .post(`${API}/categories`)
      .auth(as.editor.login, as.editor.password)
      .type('form')
      .send({ name: 'Rock & Roll Café', parent: String(parent.id) })
      .expect(201);
    expect(second.body).toMatchObject({ slug: 'rock-roll-cafe-2', parent: parent.id });
    // an explicit slug that is taken is made unique too (as WordPress does on insert)
    const third = await h.http
      .post(`${API}/categories`)
      .auth(as.editor.login, as.editor.password)
      .send({ name: 'Other', slug: 'Rock Roll Cafe' })
      .expect(201);
    expect(third.body.slug).toBe('rock-roll-cafe-3');
  });

  it('refuses a duplicate name under the same parent with 400 term_exists and the existing id', async () => {
    const existing = await createTerm(h.db, 'tribe_events_cat', 'Theatre');
    const res = await h.http
      .post(`${API}/categories`)
      .auth(as.editor.login, as.editor.password)
      .send({ name: 'theatre' })
      .expect(400);
    expect(res.body).toEqual({
      code: 'term_exists',
      message: 'A term with the name provided already exists with this parent.',
      data: { status: 400, request_id: expect.any(String), term_id: existing.id },
      // WordPress: the error's first data (the term id) and the copy the controller added stay beside
      // the `{status, term_id}` it added last.
      additional_data: [existing.id, existing.id],
    });
  });

  it('refuses 401 anonymously, 403 below editor (D8), and lets editors and administrators in', async () => {
    const body = { name: 'Role test', description: 'Term description', slug: 'role-test' };
    const anonymous = await h.http.post(`${API}/categories`).send(body).expect(401);
    expect(anonymous.body).toEqual({
      code: 'rest_forbidden',
      message: 'Sorry, you are not allowed to do that.',
      data: { status: 401, request_id: expect.any(String) },
    });
    for (const role of ['subscriber', 'contributor', 'author'] as const) {
      const res = await h.http.post(`${API}/categories`).auth(as[role].login, as[role].password).send(body);
      expect(res.status, role).toBe(403);
      expect(res.body.code, role).toBe('rest_forbidden');
    }
    expect(await h.db.term.count({ where: { slug: 'role-test' } })).toBe(0);
    await h.http
      .post(`${API}/categories`)
      .auth(as.administrator.login, as.administrator.password)
      .send(body)
      .expect(201);
  });

  it('checks the caller first (D22: anonymous 401, subscriber 403), then 400s each bad parameter', async () => {
    const base = { name: 'foo', description: 'Term description', slug: 'foo-bar' };
    await h.http.post(`${API}/categories`).send({ description: 'x' }).expect(401);
    await h.http
      .post(`${API}/categories`)
      .auth(as.subscriber.login, as.subscriber.password)
      .send({ ...base, parent: 'foo' })
      .expect(403);
    const missing = await h.http
      .post(`${API}/categories`)
      .auth(as.editor.login, as.editor.password)
      .send({ description: 'x' })
      .expect(400);
    expect(missing.body).toEqual({
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): name',
      data: { status: 400, request_id: expect.any(String), params: ['name'] },
    });
    const tag = await createTerm(h.db, 'post_tag', 'A tag');
    const cases: Array<[string, unknown]> = [
      ['name', ''],
      ['name', '   '],
      ['name', 12],
      ['name', 'x'.repeat(201)],
      ['description', ''],
      ['slug', ''],
      ['slug', '!!!'],
      ['parent', ''],
      ['parent', '2389'],
      ['parent', 'foo'],
      ['parent', -1],
      ['parent', tag.id],
    ];
    for (const [param, value] of cases) {
      const res = await h.http
        .post(`${API}/categories`)
        .auth(as.editor.login, as.editor.password)
        .send({ ...base, [param]: value });
      expect(res.status, `${param}=${JSON.stringify(value)}`).toBe(400);
      expect(res.body.code).toBe('rest_invalid_param');
      expect(res.body.data.params).toEqual({ [param]: 'Invalid parameter.' });
    }
  });

  it('refuses a body that is not JSON with 400', async () => {
    const res = await h.http
      .post(`${API}/categories`)
      .auth(as.editor.login, as.editor.password)
      .set('content-type', 'application/json')
      .send('{"name":')
      .expect(400);
    expect(res.body.code).toBe('rest_invalid_json');
  });
});

describe('POST /tags', () => {
  it('creates a tag in the reference shape (no parent; a parent sent is ignored)', async () => {
    const res = await h.http
      .post(`${API}/tags`)
      .auth(as.editor.login, as.editor.password)
      .send({ name: 'Outdoor', description: 'Open air', parent: 3 })
      .expect(201);
    const reference = sample('08-tag-single.json');
    expect(shape(res.body)).toEqual(shape(reference));
    expect(res.body).toMatchObject({
      name: 'Outdoor',
      slug: 'outdoor',
      taxonomy: 'post_tag',
      count: 0,
      url: `${SITE_URL}/tag/outdoor/`,
    });
    expect(res.headers.location).toBe(`${API_ROOT}/tags/${res.body.id}`);
  });

  it('refuses a duplicate tag name anywhere in the taxonomy, but not a category of that name', async () => {
    const res = await h.http
      .post(`${API}/tags`)
      .auth(as.editor.login, as.editor.password)
      .send({ name: 'OUTDOOR' })
      .expect(400);
    expect(res.body.message).toBe('A term with the name provided already exists in this taxonomy.');
    expect(res.body.data.term_id).toEqual(expect.any(Number));
    const cat = await h.http
      .post(`${API}/categories`)
      .auth(as.editor.login, as.editor.password)
      .send({ name: 'Outdoor' })
      .expect(201);
    expect(cat.body.slug).toBe('outdoor');
  });

  it('needs an editor (D8) before anything else (D22)', async () => {
    await h.http.post(`${API}/tags`).send({ name: 'x' }).expect(401);
    await h.http
      .post(`${API}/tags`)
      .auth(as.author.login, as.author.password)
      .send({ name: 'x' })
      .expect(403);
    await h.http
      .post(`${API}/tags`)
      .auth(as.contributor.login, as.contributor.password)
      .send({ name: 'x' })
      .expect(403);
    await h.http.post(`${API}/tags`).send({ name: '' }).expect(401);
    await h.http.post(`${API}/tags`).auth(as.subscriber.login, as.subscriber.password).send({}).expect(403);
    expect(
      (
        await h.http
          .post(`${API}/tags`)
          .auth(as.editor.login, as.editor.password)
          .send({ name: '' })
          .expect(400)
      ).body.code,
    ).toBe('rest_invalid_param');
    expect(
      (await h.http.post(`${API}/tags`).auth(as.editor.login, as.editor.password).send({}).expect(400)).body
        .code,
    ).toBe('rest_missing_callback_param');
  });
});

describe('POST|PUT|PATCH /categories/{id}', () => {
  it('updates (200) with the reference shape; PUT and PATCH do the same', async () => {
    const term = await createTerm(h.db, 'tribe_events_cat', 'Old Foo');
    const parent = await createTerm(h.db, 'tribe_events_cat', 'New Parent');
    const res = await h.http
      .post(`${API}/categories/${term.id}`)
      .auth(as.editor.login, as.editor.password)
      .send({ parent: parent.id, name: 'foo2', description: 'Term description', slug: 'foo-bar-2' })
      .expect(200);
    expect(shape(withoutUp(res.body))).toEqual(shape(sample('07-category-single.json')));
    expect(res.body).toMatchObject({
      id: term.id,
      name: 'foo2',
      count: 0,
      parent: parent.id,
      description: 'Term description',
      slug: 'foo-bar-2',
      urls: { up: `${API_ROOT}/categories/${parent.id}` },
    });
    const put = await h.http
      .put(`${API}/categories/${term.id}`)
      .auth(as.editor.login, as.editor.password)
      .send({ description: 'Put' })
      .expect(200);
    expect(put.body).toMatchObject({
      description: 'Put',
      name: 'foo2',
      slug: 'foo-bar-2',
      parent: parent.id,
    });
    const patch = await h.http
      .patch(`${API}/categories/${term.id}`)
      .auth(as.editor.login, as.editor.password)
      .send({ parent: 0 })
      .expect(200);
    expect(patch.body.parent).toBe(0);
    expect(patch.body.urls).not.toHaveProperty('up');
    expect(res.headers['allow']).toBe('GET, POST, PUT, PATCH, DELETE');
  });

  it('keeps the slug when only the name changes', async () => {
    const term = await createTerm(h.db, 'tribe_events_cat', 'Stable');
    const res = await h.http
      .post(`${API}/categories/${term.id}`)
      .auth(as.editor.login, as.editor.password)
      .send({ name: 'Renamed' })
      .expect(200);
    expect(res.body).toMatchObject({ name: 'Renamed', slug: 'stable' });
  });

  it('answers a slug used by another category with 400, never 500 (D7)', async () => {
    const a = await createTerm(h.db, 'tribe_events_cat', 'Slug A');
    await createTerm(h.db, 'tribe_events_cat', 'Slug B');
    const res = await h.http
      .post(`${API}/categories/${a.id}`)
      .auth(as.editor.login, as.editor.password)
      .send({ slug: 'slug-b' })
      .expect(400);
    expect(res.body).toEqual({
      code: 'duplicate_term_slug',
      message: 'The slug “slug-b” is already in use by another term.',
      data: { status: 400, request_id: expect.any(String) },
    });
    // its own slug, or a tag's slug, is fine
    await h.http
      .post(`${API}/categories/${a.id}`)
      .auth(as.editor.login, as.editor.password)
      .send({ slug: 'slug-a' })
      .expect(200);
    await createTerm(h.db, 'post_tag', 'Tag Slug');
    await h.http
      .post(`${API}/categories/${a.id}`)
      .auth(as.editor.login, as.editor.password)
      .send({ slug: 'tag-slug' })
      .expect(200);
  });

  it('refuses a rename to a sibling name with 400 term_exists', async () => {
    const music = await createTerm(h.db, 'tribe_events_cat', 'Siblings Music');
    const art = await createTerm(h.db, 'tribe_events_cat', 'Siblings Art');
    const res = await h.http
      .post(`${API}/categories/${art.id}`)
      .auth(as.editor.login, as.editor.password)
      .send({ name: 'siblings music' })
      .expect(400);
    expect(res.body).toMatchObject({ code: 'term_exists', data: { term_id: music.id } });
  });

  it('refuses a cycle: its own parent, or one of its descendants', async () => {
    const top = await createTerm(h.db, 'tribe_events_cat', 'Cycle Top');
    const middle = await h.db.term.create({
      data: { taxonomy: 'tribe_events_cat', name: 'Cycle Middle', slug: 'cycle-middle', parentId: top.id },
    });
    const bottom = await h.db.term.create({
      data: { taxonomy: 'tribe_events_cat', name: 'Cycle Bottom', slug: 'cycle-bottom', parentId: middle.id },
    });
    for (const parent of [top.id, bottom.id, middle.id]) {
      const res = await h.http
        .post(`${API}/categories/${top.id}`)
        .auth(as.editor.login, as.editor.password)
        .send({ parent })
        .expect(400);
      expect(res.body.code).toBe('rest_invalid_param');
      expect(Object.keys(res.body.data.params)).toEqual(['parent']);
    }
    expect((await category(top.id))!.parentId).toBeNull();
    // moving the bottom up under the top is fine
    await h.http
      .post(`${API}/categories/${bottom.id}`)
      .auth(as.editor.login, as.editor.password)
      .send({ parent: top.id })
      .expect(200);
  });

  it('checks the caller first (D22), then finds the term (404 term-not-found, D1) and validates (400)', async () => {
    const term = await createTerm(h.db, 'tribe_events_cat', 'Guarded');
    await h.http.post(`${API}/categories/987654`).send({ name: 'x' }).expect(401);
    expect(
      (
        await h.http
          .post(`${API}/categories/987654`)
          .auth(as.editor.login, as.editor.password)
          .send({ name: 'x' })
          .expect(404)
      ).body.code,
    ).toBe('term-not-found');
    const tag = await createTerm(h.db, 'post_tag', 'Guarded Tag');
    expect(
      (
        await h.http
          .post(`${API}/categories/${tag.id}`)
          .auth(as.editor.login, as.editor.password)
          .send({ name: 'x' })
          .expect(404)
      ).body.code,
    ).toBe('term-not-found');
    const cases: Array<[string, string]> = [
      ['name', ''],
      ['description', ''],
      ['slug', ''],
      ['parent', ''],
      ['parent', '2389'],
      ['parent', 'foo'],
    ];
    for (const [param, value] of cases) {
      const res = await h.http
        .post(`${API}/categories/${term.id}`)
        .auth(as.editor.login, as.editor.password)
        .send({ name: 'foo', [param]: value });
      expect(res.status, `${param}=${value}`).toBe(400);
      expect(res.body.data.params).toEqual({ [param]: 'Invalid parameter.' });
    }
    await h.http.put(`${API}/categories/${term.id}`).send({ name: 'x' }).expect(401);
    await h.http
      .patch(`${API}/categories/${term.id}`)
      .auth(as.subscriber.login, as.subscriber.password)
      .send({ name: 'x' })
      .expect(403);
    await h.http
      .post(`${API}/categories/${term.id}`)
      .auth(as.author.login, as.author.password)
      .send({ name: 'x' })
      .expect(403);
    expect((await category(term.id))!.name).toBe('Guarded');
  });

  it('leaves the term unchanged for an empty body', async () => {
    const term = await createTerm(h.db, 'tribe_events_cat', 'Untouched');
    const res = await h.http
      .post(`${API}/categories/${term.id}`)
      .auth(as.editor.login, as.editor.password)
      .expect(200);
    expect(res.body).toMatchObject({ id: term.id, name: 'Untouched', slug: 'untouched' });
  });
});

describe('POST|PUT|PATCH /tags/{id}', () => {
  it('updates a tag; the same checks apply', async () => {
    const tag = await createTerm(h.db, 'post_tag', 'Old Tag');
    await createTerm(h.db, 'post_tag', 'Taken Tag');
    const res = await h.http
      .put(`${API}/tags/${tag.id}`)
      .auth(as.administrator.login, as.administrator.password)
      .send({ name: 'New Tag', slug: 'new-tag' })
      .expect(200);
    expect(res.body).toMatchObject({ id: tag.id, name: 'New Tag', slug: 'new-tag', taxonomy: 'post_tag' });
    expect(res.body).not.toHaveProperty('parent');
    expect(
      (
        await h.http
          .patch(`${API}/tags/${tag.id}`)
          .auth(as.editor.login, as.editor.password)
          .send({ slug: 'taken-tag' })
          .expect(400)
      ).body.code,
    ).toBe('duplicate_term_slug');
    expect(
      (
        await h.http
          .patch(`${API}/tags/${tag.id}`)
          .auth(as.editor.login, as.editor.password)
          .send({ name: 'taken tag' })
          .expect(400)
      ).body.code,
    ).toBe('term_exists');
    await h.http.patch(`${API}/tags/${tag.id}`).send({ description: '' }).expect(401);
    expect(
      (
        await h.http
          .patch(`${API}/tags/${tag.id}`)
          .auth(as.editor.login, as.editor.password)
          .send({ description: '' })
          .expect(400)
      ).body.code,
    ).toBe('rest_invalid_param');
    expect(
      (
        await h.http
          .patch(`${API}/tags/987654`)
          .auth(as.editor.login, as.editor.password)
          .send({ name: 'x' })
          .expect(404)
      ).body.code,
    ).toBe('term-not-found');
    await h.http
      .patch(`${API}/tags/${tag.id}`)
      .auth(as.author.login, as.author.password)
      .send({ name: 'x' })
      .expect(403);
  });
});

describe('DELETE /categories/{id} and /tags/{id}', () => {
  it('deletes for good and returns the term as it was (200), count included', async () => {
    const doomed = await createTerm(h.db, 'tribe_events_cat', 'Doomed');
    const event = await createEvent(h.db, { termIds: [doomed.id] });
    const res = await h.http
      .delete(`${API}/categories/${doomed.id}`)
      .auth(as.editor.login, as.editor.password)
      .expect(200);
    expect(res.body).toEqual({
      id: doomed.id,
      count: 1,
      description: 'Doomed events',
      name: 'Doomed',
      slug: 'doomed',
      taxonomy: 'tribe_events_cat',
      parent: 0,
      meta: [],
      url: `${SITE_URL}/events/category/doomed/`,
      urls: { self: `${API_ROOT}/categories/${doomed.id}`, collection: `${API_ROOT}/categories` },
    });
    expect(await category(doomed.id)).toBeNull();
    expect(await h.db.eventTerm.count({ where: { eventId: event.id } })).toBe(0);
    expect(
      (
        await h.http
          .delete(`${API}/categories/${doomed.id}`)
          .auth(as.editor.login, as.editor.password)
          .expect(404)
      ).body.code,
    ).toBe('term-not-found');
  });

  it('moves the children of a deleted category up to its parent', async () => {
    const grandparent = await createTerm(h.db, 'tribe_events_cat', 'Delete Grandparent');
    const parent = await h.db.term.create({
      data: {
        taxonomy: 'tribe_events_cat',
        name: 'Delete Parent',
        slug: 'delete-parent',
        parentId: grandparent.id,
      },
    });
    const child = await h.db.term.create({
      data: { taxonomy: 'tribe_events_cat', name: 'Delete Child', slug: 'delete-child', parentId: parent.id },
    });
    const res = await h.http
      .delete(`${API}/categories/${parent.id}`)
      .auth(as.administrator.login, as.administrator.password)
      .expect(200);
    expect(res.body).toMatchObject({ id: parent.id, parent: grandparent.id });
    expect((await category(child.id))!.parentId).toBe(grandparent.id);
    await h.http
      .delete(`${API}/categories/${grandparent.id}`)
      .auth(as.administrator.login, as.administrator.password)
      .expect(200);
    expect((await category(child.id))!.parentId).toBeNull();
  });

  it('needs an editor before anything else (D22), then finds the term (404)', async () => {
    const term = await createTerm(h.db, 'tribe_events_cat', 'Kept');
    await h.http
      .delete(`${API}/categories/987654`)
      .auth(as.subscriber.login, as.subscriber.password)
      .expect(403);
    expect(
      (await h.http.delete(`${API}/categories/987654`).auth(as.editor.login, as.editor.password).expect(404))
        .body.code,
    ).toBe('term-not-found');
    await h.http.delete(`${API}/categories/${term.id}`).expect(401);
    for (const role of ['subscriber', 'contributor', 'author'] as const) {
      await h.http.delete(`${API}/categories/${term.id}`).auth(as[role].login, as[role].password).expect(403);
    }
    expect(await category(term.id)).not.toBeNull();
  });

  it('deletes a tag, and updates the counts and lists that mentioned it', async () => {
    const tag = await createTerm(h.db, 'post_tag', 'Ephemeral');
    const event = await createEvent(h.db, { termIds: [tag.id] });
    expect((await h.http.get(`${API}/tags?include=${tag.id}`).expect(200)).body.total).toBe(1);
    const res = await h.http
      .delete(`${API}/tags/${tag.id}`)
      .auth(as.editor.login, as.editor.password)
      .expect(200);
    expect(res.body).toMatchObject({ id: tag.id, count: 1, taxonomy: 'post_tag' });
    expect(res.body).not.toHaveProperty('parent');
    expect(res.body).not.toHaveProperty('_links');
    const { body } = await h.http.get(`${API}/events/${event.id}`).expect(200);
    expect(body.tags).toEqual([]);
    expect((await h.http.get(`${API}/tags/${tag.id}`).expect(404)).body.code).toBe('term-not-found');
  });
});

describe('concurrent writes', () => {
  it('never answer 500: one create wins, the others get a 400', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        h.http
          .post(`${API}/categories`)
          .auth(as.editor.login, as.editor.password)
          .send({ name: 'Race Condition' }),
      ),
    );
    const statuses = results.map((res) => res.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 400)).toHaveLength(5);
    for (const res of results.filter((r) => r.status === 400))
      expect(['term_exists', 'duplicate_term_slug']).toContain(res.body.code);
    expect(await h.db.term.count({ where: { name: 'Race Condition' } })).toBe(1);
  });
});

describe('concurrent deletes', () => {
  it('delete once (200); the other requests find no term (404), never a 500', async () => {
    const term = await createTerm(h.db, 'tribe_events_cat', 'Deleted Twice');
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        h.http.delete(`${API}/categories/${term.id}`).auth(as.editor.login, as.editor.password),
      ),
    );
    const statuses = results.map((res) => res.status).sort();
    expect(statuses).toEqual([200, 404, 404, 404]);
  });
});
