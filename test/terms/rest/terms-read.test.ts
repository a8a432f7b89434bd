import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, API_ROOT, type Harness, SITE_URL, startHarness } from '../../helpers/harness.js';
import { createEvent, createTerm } from '../../helpers/fixtures.js';
import { createUser } from '../../helpers/users.js';
import { refreshTermCounts } from '../../../src/terms/term-counts.js';

// GET /categories, /categories/{id}, /tags, /tags/{id}: shapes of samples 07, 08, 16, 17, every list filter
// of docs/reference.md §S4.5 (CategoryArchiveCest, TagArchiveCest, SingleCategoryCest, SingleTagCest) and
// D1/D2.

import { sample } from '../../helpers/samples.js';
import { shape } from '../../helpers/shape.js';

/** Key order and JSON types, recursively for objects (arrays: first element). */
let h: Harness;
const ids: Record<string, number> = {};
const names = (body: { categories?: Array<{ name: string }>; tags?: Array<{ name: string }> }) =>
  (body.categories ?? body.tags ?? []).map((term) => term.name);

beforeAll(async () => {
  h = await startHarness();
  // Categories: Arts > Opera (events), Music (2 events), Business (empty), Zoo (1 event, draft + trashed
  // others)
  const arts = await createTerm(h.db, 'tribe_events_cat', 'Arts');
  const opera = await h.db.term.create({
    data: {
      taxonomy: 'tribe_events_cat',
      name: 'Opera',
      slug: 'opera',
      parentId: arts.id,
      description: 'Sung',
    },
  });
  const music = await createTerm(h.db, 'tribe_events_cat', 'Music');
  const business = await createTerm(h.db, 'tribe_events_cat', 'Business');
  const zoo = await createTerm(h.db, 'tribe_events_cat', 'zoo');
  const outdoor = await createTerm(h.db, 'post_tag', 'outdoor');
  const adults = await createTerm(h.db, 'post_tag', 'Adults');
  const unused = await createTerm(h.db, 'post_tag', 'unused');
  const carmen = await createEvent(h.db, { title: 'Carmen', termIds: [opera.id, music.id, outdoor.id] });
  await createEvent(h.db, { title: 'Jazz', termIds: [music.id, outdoor.id, adults.id] });
  await createEvent(h.db, { title: 'Lions', termIds: [zoo.id] });
  const draft = await createEvent(h.db, {
    title: 'Draft',
    status: 'draft',
    termIds: [zoo.id, business.id, unused.id],
  });
  await createEvent(h.db, { title: 'Trashed', status: 'trash', termIds: [zoo.id, business.id] });
  Object.assign(ids, { arts: arts.id, opera: opera.id, music: music.id, business: business.id, zoo: zoo.id });
  Object.assign(ids, {
    outdoor: outdoor.id,
    adults: adults.id,
    unused: unused.id,
    carmen: carmen.id,
    draft: draft.id,
  });
});
afterAll(() => h.close());

describe('GET /categories/{id} and /tags/{id}', () => {
  it('returns the reference category shape (sample 07): keys, order and types, _links included', async () => {
    const res = await h.http.get(`${API}/categories/${ids.music}`).expect(200);
    expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(shape(res.body)).toEqual(shape(sample('07-category-single.json')));
    expect(res.body).toEqual({
      id: ids.music,
      count: 2,
      description: 'Music events',
      name: 'Music',
      slug: 'music',
      taxonomy: 'tribe_events_cat',
      parent: 0,
      meta: [],
      url: `${SITE_URL}/events/category/music/`,
      urls: { self: `${API_ROOT}/categories/${ids.music}`, collection: `${API_ROOT}/categories` },
      _links: {
        self: [{ href: `${API_ROOT}/categories/${ids.music}`, targetHints: { allow: ['GET'] } }],
        collection: [{ href: `${API_ROOT}/categories` }],
        about: [{ href: `${API_ROOT}/doc` }],
        'wp:post_type': [{ href: `${API_ROOT}/events?categories=${ids.music}` }],
        curies: [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }],
      },
    });
  });

  it('adds urls.up for a child category', async () => {
    const { body } = await h.http.get(`${API}/categories/${ids.opera}`).expect(200);
    expect(body.parent).toBe(ids.arts);
    expect(body.urls).toEqual({
      self: `${API_ROOT}/categories/${ids.opera}`,
      collection: `${API_ROOT}/categories`,
      up: `${API_ROOT}/categories/${ids.arts}`,
    });
  });

  it('returns the reference tag shape (sample 08): no parent', async () => {
    const res = await h.http.get(`${API}/tags/${ids.outdoor}`).expect(200);
    expect(shape(res.body)).toEqual(shape(sample('08-tag-single.json')));
    expect(res.body).toMatchObject({
      id: ids.outdoor,
      count: 2,
      name: 'outdoor',
      taxonomy: 'post_tag',
      url: `${SITE_URL}/tag/outdoor/`,
    });
    expect(res.body).not.toHaveProperty('parent');
  });

  it('counts published events only (drafts and trash do not count)', async () => {
    const { body } = await h.http.get(`${API}/categories/${ids.zoo}`).expect(200);
    expect(body.count).toBe(1);
    const business = await h.http.get(`${API}/categories/${ids.business}`).expect(200);
    expect(business.body.count).toBe(0);
  });

  it('advertises the write methods to those who may use them', async () => {
    const editor = await createUser(h, 'editor');
    const { body } = await h.http
      .get(`${API}/categories/${ids.music}`)
      .auth(editor.login, editor.password)
      .expect(200);
    expect(body._links.self[0].targetHints.allow).toEqual(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
  });

  it('answers an unknown id, or a term of the other taxonomy, with 404 term-not-found (D1)', async () => {
    const missing = await h.http.get(`${API}/categories/987654`).expect(404);
    expect(missing.body).toEqual({
      code: 'term-not-found',
      message: 'The requested term does not exist',
      data: { status: 404, request_id: expect.any(String) },
    });
    expect((await h.http.get(`${API}/categories/${ids.outdoor}`).expect(404)).body.code).toBe(
      'term-not-found',
    );
    expect((await h.http.get(`${API}/tags/${ids.music}`).expect(404)).body.code).toBe('term-not-found');
  });

  it('answers a non-numeric id with rest_no_route', async () => {
    expect((await h.http.get(`${API}/categories/music`).expect(404)).body.code).toBe('rest_no_route');
    expect((await h.http.get(`${API}/tags/foo`).expect(404)).body.code).toBe('rest_no_route');
  });

  it('keeps the language segment in every URL', async () => {
    const { body } = await h.http.get(`/fr${API}/categories/${ids.music}`).expect(200);
    expect(body.url).toBe(`${SITE_URL}/fr/events/category/music/`);
    expect(body.urls.self).toBe(`${SITE_URL}/fr${API}/categories/${ids.music}`);
  });
});

describe('GET /categories', () => {
  it('returns the reference envelope (sample 16) with totals in headers', async () => {
    const res = await h.http.get(`${API}/categories?per_page=2`).expect(200);
    const reference = sample('16-categories-list.json');
    expect(Object.keys(res.body)).toEqual(Object.keys(reference));
    expect(shape(res.body.categories[0])).toEqual(shape(reference.categories[0]));
    expect(res.body.categories[0]._links).toBeUndefined();
    expect(res.headers['x-tec-total']).toBe('4');
    expect(res.headers['x-tec-totalpages']).toBe('2');
    expect(res.body).toMatchObject({ total: 4, total_pages: 2 });
  });

  it('hides empty categories by default, but keeps a parent whose child has events', async () => {
    const { body } = await h.http.get(`${API}/categories`).expect(200);
    expect(names(body)).toEqual(['Arts', 'Music', 'Opera', 'zoo']);
    expect(body.categories[0].count).toBe(0);
    const all = await h.http.get(`${API}/categories?hide_empty=false`).expect(200);
    expect(names(all.body)).toEqual(['Arts', 'Business', 'Music', 'Opera', 'zoo']);
    const zero = await h.http.get(`${API}/categories?hide_empty=0`).expect(200);
    expect(zero.body.total).toBe(5);
  });

  it('pages with next/previous links that echo every effective filter (D2)', async () => {
    const first = await h.http.get(`${API}/categories?per_page=2&hide_empty=false&search=s`).expect(200);
    expect(names(first.body)).toEqual(['Arts', 'Business']);
    expect(first.body.rest_url).toBe(
      `${API_ROOT}/categories/?page=1&per_page=2&search=s&order=asc&orderby=name&hide_empty=false`,
    );
    expect(first.body.next_rest_url).toBe(
      `${API_ROOT}/categories/?per_page=2&search=s&order=asc&orderby=name&hide_empty=false&page=2`,
    );
    expect(first.body.previous_rest_url).toBeUndefined();
    const second = await h.http.get(first.body.next_rest_url.replace(SITE_URL, '')).expect(200);
    expect(names(second.body)).toEqual(['Music']);
    expect(second.body.next_rest_url).toBeUndefined();
    expect(second.body.previous_rest_url).toBe(
      `${API_ROOT}/categories/?per_page=2&search=s&order=asc&orderby=name&hide_empty=false`,
    );
  });

  it('answers a page past the end with 200 and an empty list', async () => {
    const res = await h.http.get(`${API}/categories?page=9`).expect(200);
    expect(res.body).toMatchObject({ categories: [], total: 4, total_pages: 1 });
  });

  it('answers an empty result with 200, zero totals and no links', async () => {
    const res = await h.http.get(`${API}/categories?search=nothing-like-this`).expect(200);
    expect(res.body).toEqual({
      rest_url: `${API_ROOT}/categories/?page=1&per_page=10&search=nothing-like-this&order=asc&orderby=name&hide_empty=true`,
      total: 0,
      total_pages: 0,
      categories: [],
    });
    expect(res.headers['x-tec-total']).toBe('0');
    expect(res.headers['x-tec-totalpages']).toBe('0');
  });

  it('searches names as a substring, in any case', async () => {
    expect(names((await h.http.get(`${API}/categories?search=US&hide_empty=0`).expect(200)).body)).toEqual([
      'Business',
      'Music',
    ]);
    expect(names((await h.http.get(`${API}/categories?search=per`)).body)).toEqual(['Opera']);
    // LIKE wildcards are literal characters here
    expect((await h.http.get(`${API}/categories?search=%25`).expect(200)).body.total).toBe(0);
  });

  it('includes and excludes ids (arrays or comma lists)', async () => {
    const include = await h.http
      .get(`${API}/categories?include=${ids.music},${ids.business}&hide_empty=false`)
      .expect(200);
    expect(names(include.body)).toEqual(['Business', 'Music']);
    expect(include.body.rest_url).toContain(`include=${ids.music},${ids.business}`);
    const exclude = await h.http
      .get(`${API}/categories?exclude[]=${ids.music}&exclude[]=${ids.arts}`)
      .expect(200);
    expect(names(exclude.body)).toEqual(['Opera', 'zoo']);
  });

  it('orders by every supported attribute, both ways', async () => {
    const order = async (query: string) =>
      names((await h.http.get(`${API}/categories?hide_empty=false&${query}`).expect(200)).body);
    expect(await order('order=desc')).toEqual(['zoo', 'Opera', 'Music', 'Business', 'Arts']);
    expect(await order('orderby=id')).toEqual(['Arts', 'Opera', 'Music', 'Business', 'zoo']);
    expect(await order('orderby=id&order=desc')).toEqual(['zoo', 'Business', 'Music', 'Opera', 'Arts']);
    expect(await order('orderby=slug&order=desc')).toEqual(['zoo', 'Opera', 'Music', 'Business', 'Arts']);
    expect(await order('orderby=count&order=desc')).toEqual(['Music', 'Opera', 'zoo', 'Arts', 'Business']);
    expect(await order('orderby=description')).toEqual(['Arts', 'Business', 'Music', 'Opera', 'zoo']);
    expect(await order('orderby=term_group')).toEqual(['Arts', 'Opera', 'Music', 'Business', 'zoo']);
  });

  it('lists the children of a parent, and top-level categories with parent=0', async () => {
    expect(names((await h.http.get(`${API}/categories?parent=${ids.arts}`).expect(200)).body)).toEqual([
      'Opera',
    ]);
    expect(names((await h.http.get(`${API}/categories?parent=${ids.music}`).expect(200)).body)).toEqual([]);
    expect(names((await h.http.get(`${API}/categories?parent=0`).expect(200)).body)).toEqual([
      'Arts',
      'Music',
      'zoo',
    ]);
  });

  it('lists the categories of an event (post or event; event wins)', async () => {
    expect(names((await h.http.get(`${API}/categories?post=${ids.carmen}`).expect(200)).body)).toEqual([
      'Music',
      'Opera',
    ]);
    const both = await h.http
      .get(`${API}/categories?post=${ids.carmen}&event=${ids.draft}&hide_empty=0`)
      .auth(...(await editorAuth()))
      .expect(200);
    expect(names(both.body)).toEqual(['Business', 'zoo']);
    expect(both.body.rest_url).toContain(`event=${ids.draft}`);
  });

  it('finds a category by slug', async () => {
    const res = await h.http.get(`${API}/categories?slug=music`).expect(200);
    expect(names(res.body)).toEqual(['Music']);
    expect(res.body.rest_url).toContain('slug=music');
    expect(names((await h.http.get(`${API}/categories?slug=MUSIC`).expect(200)).body)).toEqual(['Music']);
  });

  it('refuses every invalid filter value with 400 rest_invalid_param', async () => {
    const cases: Array<[string, string]> = [
      ['page=0', 'page'],
      ['page=foo', 'page'],
      ['per_page=0', 'per_page'],
      ['per_page=-1', 'per_page'],
      ['search=', 'search'],
      ['order=', 'order'],
      ['order=sideways', 'order'],
      ['orderby=', 'orderby'],
      ['orderby=colour', 'orderby'],
      ['hide_empty=maybe', 'hide_empty'],
      ['include=foo', 'include'],
      ['include=987654', 'include'],
      [`include=${ids.outdoor}`, 'include'],
      ['exclude=987654', 'exclude'],
      ['parent=987654', 'parent'],
      [`parent=${ids.outdoor}`, 'parent'],
      ['parent=foo', 'parent'],
      ['post=987654', 'post'],
      ['event=987654', 'event'],
      ['event=foo', 'event'],
      [`event=${ids.draft}`, 'event'],
      ['slug=', 'slug'],
    ];
    for (const [query, param] of cases) {
      const res = await h.http.get(`${API}/categories?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.code, query).toBe('rest_invalid_param');
      expect(Object.keys(res.body.data.params), query).toEqual([param]);
    }
  });

  it('clamps per_page to 50', async () => {
    const res = await h.http.get(`${API}/categories?per_page=100`).expect(200);
    expect(res.body.rest_url).toContain('per_page=50');
  });
});

describe('GET /tags', () => {
  it('returns the reference envelope (sample 17)', async () => {
    const res = await h.http.get(`${API}/tags?per_page=1`).expect(200);
    const reference = sample('17-tags-list.json');
    expect(Object.keys(res.body)).toEqual(Object.keys(reference));
    expect(shape(res.body.tags[0])).toEqual(shape(reference.tags[0]));
    expect(res.body.next_rest_url).toBe(
      `${API_ROOT}/tags/?per_page=1&order=asc&orderby=name&hide_empty=true&page=2`,
    );
  });

  it('hides tags without published events, filters like categories', async () => {
    expect(names((await h.http.get(`${API}/tags`).expect(200)).body)).toEqual(['Adults', 'outdoor']);
    expect(names((await h.http.get(`${API}/tags?hide_empty=false`).expect(200)).body)).toEqual([
      'Adults',
      'outdoor',
      'unused',
    ]);
    expect(names((await h.http.get(`${API}/tags?orderby=count&order=desc`).expect(200)).body)).toEqual([
      'outdoor',
      'Adults',
    ]);
    expect(names((await h.http.get(`${API}/tags?event=${ids.carmen}`).expect(200)).body)).toEqual([
      'outdoor',
    ]);
    expect(names((await h.http.get(`${API}/tags?slug=adults`).expect(200)).body)).toEqual(['Adults']);
    expect(names((await h.http.get(`${API}/tags?search=DOO`).expect(200)).body)).toEqual(['outdoor']);
    expect(names((await h.http.get(`${API}/tags?exclude=${ids.outdoor}`).expect(200)).body)).toEqual([
      'Adults',
    ]);
  });

  it('has no parent filter and refuses categories in include', async () => {
    const res = await h.http.get(`${API}/tags?parent=${ids.arts}`).expect(200);
    expect(res.body.rest_url).not.toContain('parent');
    expect((await h.http.get(`${API}/tags?include=${ids.music}`).expect(400)).body.data.params).toEqual({
      include: 'Invalid parameter.',
    });
  });
});

describe('search', () => {
  it('matches the slug too, as WordPress does', async () => {
    const summer = await h.db.term.create({ data: { taxonomy: 'post_tag', name: 'Été', slug: 'ete' } });
    const res = await h.http.get(`${API}/tags?search=ete&hide_empty=false`).expect(200);
    expect(res.body.tags.map((tag: { id: number }) => tag.id)).toEqual([summer.id]);
    await h.db.term.delete({ where: { id: summer.id } });
  });
});

describe('counts follow event writes', () => {
  it('reads the count event writes keep (refreshTermCounts), for the term and its lists', async () => {
    const count = async () => (await h.http.get(`${API}/categories/${ids.business}`).expect(200)).body.count;
    const listed = async () =>
      names((await h.http.get(`${API}/categories`).expect(200)).body).includes('Business');
    const affected = [ids.business!, ids.zoo!];
    expect(await count()).toBe(0);
    expect(await listed()).toBe(false);
    // what an event write does: change the event, then refresh the counts of its terms
    await h.db.event.update({ where: { id: ids.draft }, data: { status: 'publish' } });
    await refreshTermCounts(h.db, affected);
    expect(await count()).toBe(1);
    expect(await listed()).toBe(true);
    await h.db.event.update({ where: { id: ids.draft }, data: { status: 'trash' } });
    await refreshTermCounts(h.db, affected);
    expect(await count()).toBe(0);
    await h.db.event.update({ where: { id: ids.draft }, data: { status: 'draft' } });
    await refreshTermCounts(h.db, affected);
  });
});

describe('SQL statements per term list', () => {
  it('are the same for 2 and 50 terms per page, on both routes', async () => {
    for (let i = 0; i < 120; i++)
      await createTerm(h.db, i % 2 ? 'post_tag' : 'tribe_events_cat', `Bulk ${String(i).padStart(2, '0')}`);
    for (const route of ['categories', 'tags']) {
      const run = async (perPage: number) => {
        h.queries.length = 0;
        const res = await h.http
          .get(`${API}/${route}?hide_empty=false&per_page=${perPage}&event=${ids.carmen}`)
          .expect(200);
        expect(res.body.total).toBeGreaterThan(0);
        const small = h.queries.length;
        h.queries.length = 0;
        const all = await h.http.get(`${API}/${route}?hide_empty=false&per_page=${perPage}`).expect(200);
        expect(all.body[route]).toHaveLength(perPage);
        return [small, h.queries.length];
      };
      const [filteredFew, few] = await run(2);
      const [filteredMany, many] = await run(50);
      expect(many).toBe(few);
      expect(filteredMany).toBe(filteredFew);
      // count + page ids + the page's terms (each carries its count)
      expect(few).toBeLessThanOrEqual(3);
    }
  });
});

let editorCredentials: [string, string] | undefined;
async function editorAuth(): Promise<[string, string]> {
  if (!editorCredentials) {
    const editor = await createUser(h, 'editor');
    editorCredentials = [editor.login, editor.password];
  }
  return editorCredentials;
}
