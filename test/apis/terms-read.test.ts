import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, API_ROOT, type Harness, SITE_URL, startHarness } from '../helpers/harness.js';
import { createEvent, createTerm } from '../helpers/fixtures.js';
import { graphqlClient } from '../helpers/graphql.js';
import { sample } from '../helpers/samples.js';
import { shape } from '../helpers/shape.js';
import { type Credentials, createUser } from '../helpers/users.js';
import { refreshTermCounts } from '../../src/terms/term-counts.js';

// Category and tag reads on both APIs: GET /categories, /categories/{id}, /tags, /tags/{id}
// (docs/reference.md §S4.5: CategoryArchiveCest, TagArchiveCest, SingleCategoryCest, SingleTagCest;
// D1, D2) and GraphQL's category, tag, categories and tags — the same records, counts, filters,
// orders and errors, asked each API's way (one table), then what only REST shows (the reference's
// shapes of samples 07, 08, 16, 17, links, headers, query forms), what only GraphQL shows (pageInfo's
// echo) and the SQL statements a list costs on both.

let h: Harness;
let editor: Credentials;
const ids: Record<string, number> = {};

beforeAll(async () => {
  h = await startHarness();
  editor = await createUser(h, 'editor');
  // Categories: Arts > Opera (events), Music (2 events), Business (empty), zoo (1 event, draft + trashed
  // others); tags: outdoor (2 events), Adults (1), unused (a draft's only).
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

type Taxonomy = 'category' | 'tag';

/** A term as both APIs show it; `parent` (0 at the top level) only on categories. */
interface Term {
  id: number;
  name: string;
  slug: string;
  description: string;
  url: string;
  count: number;
  parent?: number;
}

/** A list filter, in GraphQL's names (REST: `hide_empty`, `per_page`, `orderby=term_group`, …). */
interface Filter {
  hideEmpty?: boolean;
  search?: string;
  include?: number[];
  exclude?: number[];
  parent?: number;
  event?: number;
  slug?: string;
  orderBy?: 'name' | 'id' | 'slug' | 'count' | 'description' | 'termGroup';
  order?: 'asc' | 'desc';
  page?: number;
  perPage?: number;
}

interface Answer<T> {
  /** REST's HTTP status, or the status GraphQL's error names (200 without an error). */
  status: number;
  code?: string;
  /** The parameters an error names. */
  params?: string[];
  value?: T;
}

interface List {
  /** The terms listed, in the order given. */
  terms: Array<{ name: string; count: number }>;
  total: number;
  totalPages: number;
}

interface TermApi {
  name: 'REST' | 'GraphQL';
  read(taxonomy: Taxonomy, id: number): Promise<Answer<Term>>;
  list(taxonomy: Taxonomy, filter?: Filter, as?: Credentials): Promise<Answer<List>>;
}

/** The parameters an error's `data` names, if any. */
const paramsOf = (data?: { params?: object }) => (data?.params ? { params: Object.keys(data.params) } : {});

const PATH: Record<Taxonomy, 'categories' | 'tags'> = { category: 'categories', tag: 'tags' };

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
const rest: TermApi = {
  name: 'REST',
  async read(taxonomy, id) {
    const { status, body } = await h.http.get(`${API}/${PATH[taxonomy]}/${id}`);
    if (status !== 200) return { status, code: body.code };
    const { id: termId, name, slug, description, url, count } = body;
    const term = { id: termId, name, slug, description, url, count };
    return { status, value: 'parent' in body ? { ...term, parent: body.parent } : term };
  },
  async list(taxonomy, filter = {}, as) {
    const query = new URLSearchParams();
    const { hideEmpty, include, exclude, orderBy, perPage, ...rest } = filter;
    if (hideEmpty !== undefined) query.set('hide_empty', String(hideEmpty));
    if (include) query.set('include', include.join(','));
    if (exclude) query.set('exclude', exclude.join(','));
    if (orderBy) query.set('orderby', orderBy === 'termGroup' ? 'term_group' : orderBy);
    if (perPage !== undefined) query.set('per_page', String(perPage));
    for (const [key, value] of Object.entries(rest)) if (value !== undefined) query.set(key, String(value));
    const request = h.http.get(`${API}/${PATH[taxonomy]}?${query}`);
    if (as) request.auth(as.login, as.password);
    const { status, body } = await request;
    if (status !== 200) return { status, code: body.code, ...paramsOf(body.data) };
    const terms = body[PATH[taxonomy]].map(({ name, count }: List['terms'][number]) => ({ name, count }));
    return { status, value: { terms, total: body.total, totalPages: body.total_pages } };
  },
};

const gql = graphqlClient(() => h, { status: 200 });
const TYPE: Record<Taxonomy, string> = { category: 'Category', tag: 'Tag' };

const graphqlError = (errors: Array<{ extensions: Record<string, any> }>) => {
  const { code, http, data } = errors[0]!.extensions;
  return { status: http.status, code, ...paramsOf(data) };
};

const graphql: TermApi = {
  name: 'GraphQL',
  async read(taxonomy, id) {
    const parent = taxonomy === 'category' ? 'parent { id: databaseId }' : '';
    const { data, errors } = await gql(
      `query($id: Int!) { one: ${taxonomy}(id: $id) { id: databaseId name slug description url count ${parent} } }`,
      { id },
    );
    if (errors) return graphqlError(errors);
    const { parent: up, ...term } = data!.one;
    return { status: 200, value: taxonomy === 'category' ? { ...term, parent: up?.id ?? 0 } : term };
  },
  async list(taxonomy, { orderBy, order, page, perPage, ...filter } = {}, as) {
    const query = `query($filter: ${TYPE[taxonomy]}Filter, $orderBy: TermOrderField, $order: SortOrder,
      $page: Int, $perPage: Int) {
      list: ${PATH[taxonomy]}(filter: $filter, orderBy: $orderBy, order: $order, page: $page, perPage: $perPage) {
        pageInfo { total totalPages } items { name count } } }`;
    const { data, errors } = await gql(query, { filter, orderBy, order, page, perPage }, as);
    if (errors) return graphqlError(errors);
    const { pageInfo, items } = data!.list;
    return { status: 200, value: { terms: items, total: pageInfo.total, totalPages: pageInfo.totalPages } };
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */

describe.each([rest, graphql])('$name: term reads', (api) => {
  const names = async (taxonomy: Taxonomy, filter?: Filter, as?: Credentials) => {
    const answer = await api.list(taxonomy, filter, as);
    expect(answer.status, JSON.stringify(filter)).toBe(200);
    return answer.value!.terms.map((term) => term.name);
  };

  it('reads a category with its count, and a child with its parent', async () => {
    expect(await api.read('category', ids.music!)).toEqual({
      status: 200,
      value: {
        id: ids.music,
        name: 'Music',
        slug: 'music',
        description: 'Music events',
        url: `${SITE_URL}/events/category/music/`,
        count: 2,
        parent: 0,
      },
    });
    expect((await api.read('category', ids.opera!)).value).toEqual({
      id: ids.opera,
      name: 'Opera',
      slug: 'opera',
      description: 'Sung',
      url: `${SITE_URL}/events/category/arts/opera/`,
      count: 1,
      parent: ids.arts,
    });
  });

  it('reads a tag, which has no parent', async () => {
    const { value } = await api.read('tag', ids.outdoor!);
    expect(value).toMatchObject({
      id: ids.outdoor,
      count: 2,
      name: 'outdoor',
      url: `${SITE_URL}/tag/outdoor/`,
    });
    expect(value).not.toHaveProperty('parent');
  });

  it('counts published events only (drafts and trash do not count)', async () => {
    expect((await api.read('category', ids.zoo!)).value!.count).toBe(1);
    expect((await api.read('category', ids.business!)).value!.count).toBe(0);
  });

  it('answers an unknown id, or a term of the other taxonomy, with 404 term-not-found (D1)', async () => {
    for (const [taxonomy, id] of [
      ['category', 987654],
      ['category', ids.outdoor!],
      ['tag', ids.music!],
    ] as const)
      expect(await api.read(taxonomy, id), `${taxonomy} ${id}`).toEqual({
        status: 404,
        code: 'term-not-found',
      });
  });

  it('hides empty categories by default, ordered by name, but keeps a parent whose child has events', async () => {
    const { value } = await api.list('category');
    expect(value!.terms.map((term) => term.name)).toEqual(['Arts', 'Music', 'Opera', 'zoo']);
    expect(value!.terms[0]!.count).toBe(0);
    const all = await api.list('category', { hideEmpty: false });
    expect(all.value!.terms.map((term) => term.name)).toEqual(['Arts', 'Business', 'Music', 'Opera', 'zoo']);
    expect(all.value!.total).toBe(5);
  });

  it('pages with totals; a page past the end is empty', async () => {
    const first = await api.list('category', { perPage: 2, hideEmpty: false, search: 's' });
    expect(first.value).toEqual({
      terms: [
        { name: 'Arts', count: 0 },
        { name: 'Business', count: 0 },
      ],
      total: 3,
      totalPages: 2,
    });
    expect(await names('category', { perPage: 2, page: 2, hideEmpty: false, search: 's' })).toEqual([
      'Music',
    ]);
    expect((await api.list('category', { page: 9 })).value).toEqual({ terms: [], total: 4, totalPages: 1 });
    expect((await api.list('category', { search: 'nothing-like-this' })).value).toEqual({
      terms: [],
      total: 0,
      totalPages: 0,
    });
  });

  it('searches names as a substring, in any case', async () => {
    expect(await names('category', { search: 'US', hideEmpty: false })).toEqual(['Business', 'Music']);
    expect(await names('category', { search: 'per' })).toEqual(['Opera']);
    expect(await names('category', { search: 'P' })).toEqual(['Opera']);
    // LIKE wildcards are literal characters here
    expect((await api.list('category', { search: '%' })).value!.total).toBe(0);
  });

  it('includes and excludes ids', async () => {
    expect(await names('category', { include: [ids.music!, ids.business!], hideEmpty: false })).toEqual([
      'Business',
      'Music',
    ]);
    expect(await names('category', { exclude: [ids.music!, ids.arts!] })).toEqual(['Opera', 'zoo']);
  });

  it('orders by every supported attribute, both ways', async () => {
    const order = (orderBy: Filter['orderBy'], direction?: Filter['order']) =>
      names('category', { hideEmpty: false, orderBy, order: direction });
    expect(await order(undefined, 'desc')).toEqual(['zoo', 'Opera', 'Music', 'Business', 'Arts']);
    expect(await order('id')).toEqual(['Arts', 'Opera', 'Music', 'Business', 'zoo']);
    expect(await order('id', 'desc')).toEqual(['zoo', 'Business', 'Music', 'Opera', 'Arts']);
    expect(await order('slug', 'desc')).toEqual(['zoo', 'Opera', 'Music', 'Business', 'Arts']);
    expect(await order('count', 'desc')).toEqual(['Music', 'Opera', 'zoo', 'Arts', 'Business']);
    expect(await order('description')).toEqual(['Arts', 'Business', 'Music', 'Opera', 'zoo']);
    expect(await order('termGroup')).toEqual(['Arts', 'Opera', 'Music', 'Business', 'zoo']);
    expect(await order('name', 'desc')).toEqual(['zoo', 'Opera', 'Music', 'Business', 'Arts']);
  });

  it('lists the children of a parent, and top-level categories with parent 0', async () => {
    expect(await names('category', { parent: ids.arts })).toEqual(['Opera']);
    expect(await names('category', { parent: ids.music })).toEqual([]);
    expect(await names('category', { parent: 0 })).toEqual(['Arts', 'Music', 'zoo']);
  });

  it("lists the categories of an event, a draft's to an editor", async () => {
    expect(await names('category', { event: ids.carmen })).toEqual(['Music', 'Opera']);
    expect(await names('category', { event: ids.draft, hideEmpty: false }, editor)).toEqual([
      'Business',
      'zoo',
    ]);
  });

  it('finds a category by slug, in any case', async () => {
    expect(await names('category', { slug: 'music' })).toEqual(['Music']);
    expect(await names('category', { slug: 'MUSIC' })).toEqual(['Music']);
  });

  it('refuses every invalid filter value with 400 rest_invalid_param, naming it', async () => {
    const cases: Array<[Filter, string]> = [
      [{ page: 0 }, 'page'],
      [{ perPage: 0 }, 'per_page'],
      [{ perPage: -1 }, 'per_page'],
      [{ search: '' }, 'search'],
      [{ slug: '' }, 'slug'],
      [{ slug: ' ' }, 'slug'],
      [{ include: [987654] }, 'include'],
      [{ include: [ids.outdoor!] }, 'include'],
      [{ exclude: [987654] }, 'exclude'],
      [{ exclude: [ids.outdoor!] }, 'exclude'],
      [{ parent: 987654 }, 'parent'],
      [{ parent: ids.outdoor }, 'parent'],
      [{ event: 987654 }, 'event'],
      [{ event: ids.draft }, 'event'],
    ];
    for (const [filter, param] of cases) {
      const answer = await api.list('category', filter);
      expect([answer.status, answer.code], JSON.stringify(filter)).toEqual([400, 'rest_invalid_param']);
      expect(answer.params, JSON.stringify(filter)).toEqual([param]);
    }
  });

  it('lists tags as categories: hiding those without published events, with the same filters', async () => {
    expect((await api.list('tag')).value).toEqual({
      terms: [
        { name: 'Adults', count: 1 },
        { name: 'outdoor', count: 2 },
      ],
      total: 2,
      totalPages: 1,
    });
    expect(await names('tag', { hideEmpty: false })).toEqual(['Adults', 'outdoor', 'unused']);
    expect(await names('tag', { hideEmpty: false, orderBy: 'name', order: 'desc' })).toEqual([
      'unused',
      'outdoor',
      'Adults',
    ]);
    expect(await names('tag', { orderBy: 'count', order: 'desc' })).toEqual(['outdoor', 'Adults']);
    expect(await names('tag', { event: ids.carmen })).toEqual(['outdoor']);
    expect(await names('tag', { slug: 'adults' })).toEqual(['Adults']);
    expect(await names('tag', { search: 'DOO' })).toEqual(['outdoor']);
    expect(await names('tag', { exclude: [ids.outdoor!] })).toEqual(['Adults']);
  });

  it('refuses categories in the include of tags', async () => {
    const answer = await api.list('tag', { include: [ids.music!] });
    expect(answer).toMatchObject({ status: 400, code: 'rest_invalid_param', params: ['include'] });
  });

  it('matches the slug too in a search, as WordPress does', async () => {
    const summer = await h.db.term.create({ data: { taxonomy: 'post_tag', name: 'Été', slug: 'ete' } });
    expect(await names('tag', { search: 'ete', hideEmpty: false })).toEqual(['Été']);
    await h.db.term.delete({ where: { id: summer.id } });
  });

  it('reads the count event writes keep (refreshTermCounts), for the term and its lists', async () => {
    const count = async () => (await api.read('category', ids.business!)).value!.count;
    const listed = async () => (await names('category')).includes('Business');
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

describe('REST only', () => {
  const restNames = (body: { categories?: Array<{ name: string }>; tags?: Array<{ name: string }> }) =>
    (body.categories ?? body.tags ?? []).map((term) => term.name);

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
    expect(body.urls).toEqual({
      self: `${API_ROOT}/categories/${ids.opera}`,
      collection: `${API_ROOT}/categories`,
      up: `${API_ROOT}/categories/${ids.arts}`,
    });
  });

  it('returns the reference tag shape (sample 08)', async () => {
    const res = await h.http.get(`${API}/tags/${ids.outdoor}`).expect(200);
    expect(shape(res.body)).toEqual(shape(sample('08-tag-single.json')));
    expect(res.body).toMatchObject({ taxonomy: 'post_tag' });
  });

  it('advertises the write methods to those who may use them', async () => {
    const { body } = await h.http
      .get(`${API}/categories/${ids.music}`)
      .auth(editor.login, editor.password)
      .expect(200);
    expect(body._links.self[0].targetHints.allow).toEqual(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
  });

  it("answers an unknown id with the reference's 404 body", async () => {
    const missing = await h.http.get(`${API}/categories/987654`).expect(404);
    expect(missing.body).toEqual({
      code: 'term-not-found',
      message: 'The requested term does not exist',
      data: { status: 404, request_id: expect.any(String) },
    });
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

  it('takes hide_empty=0 for false', async () => {
    const zero = await h.http.get(`${API}/categories?hide_empty=0`).expect(200);
    expect(zero.body.total).toBe(5);
  });

  it('pages with next/previous links that echo every effective filter (D2)', async () => {
    const first = await h.http.get(`${API}/categories?per_page=2&hide_empty=false&search=s`).expect(200);
    expect(restNames(first.body)).toEqual(['Arts', 'Business']);
    expect(first.body.rest_url).toBe(
      `${API_ROOT}/categories/?page=1&per_page=2&search=s&order=asc&orderby=name&hide_empty=false`,
    );
    expect(first.body.next_rest_url).toBe(
      `${API_ROOT}/categories/?per_page=2&search=s&order=asc&orderby=name&hide_empty=false&page=2`,
    );
    expect(first.body.previous_rest_url).toBeUndefined();
    const second = await h.http.get(first.body.next_rest_url.replace(SITE_URL, '')).expect(200);
    expect(restNames(second.body)).toEqual(['Music']);
    expect(second.body.next_rest_url).toBeUndefined();
    expect(second.body.previous_rest_url).toBe(
      `${API_ROOT}/categories/?per_page=2&search=s&order=asc&orderby=name&hide_empty=false`,
    );
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

  it('takes include and exclude as comma lists or arrays, echoing them', async () => {
    const include = await h.http
      .get(`${API}/categories?include=${ids.music},${ids.business}&hide_empty=false`)
      .expect(200);
    expect(include.body.rest_url).toContain(`include=${ids.music},${ids.business}`);
    const exclude = await h.http
      .get(`${API}/categories?exclude[]=${ids.music}&exclude[]=${ids.arts}`)
      .expect(200);
    expect(restNames(exclude.body)).toEqual(['Opera', 'zoo']);
  });

  it('takes post for event; event wins', async () => {
    expect(restNames((await h.http.get(`${API}/categories?post=${ids.carmen}`).expect(200)).body)).toEqual([
      'Music',
      'Opera',
    ]);
    const both = await h.http
      .get(`${API}/categories?post=${ids.carmen}&event=${ids.draft}&hide_empty=0`)
      .auth(editor.login, editor.password)
      .expect(200);
    expect(restNames(both.body)).toEqual(['Business', 'zoo']);
    expect(both.body.rest_url).toContain(`event=${ids.draft}`);
  });

  it('echoes the slug filter', async () => {
    const res = await h.http.get(`${API}/categories?slug=music`).expect(200);
    expect(res.body.rest_url).toContain('slug=music');
  });

  it('refuses the invalid values only a query string can carry with 400 rest_invalid_param', async () => {
    const cases: Array<[string, string]> = [
      ['page=foo', 'page'],
      ['order=', 'order'],
      ['order=sideways', 'order'],
      ['orderby=', 'orderby'],
      ['orderby=colour', 'orderby'],
      ['hide_empty=maybe', 'hide_empty'],
      ['include=foo', 'include'],
      ['parent=foo', 'parent'],
      ['post=987654', 'post'],
      ['event=foo', 'event'],
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

  it('returns the reference envelope (sample 17)', async () => {
    const res = await h.http.get(`${API}/tags?per_page=1`).expect(200);
    const reference = sample('17-tags-list.json');
    expect(Object.keys(res.body)).toEqual(Object.keys(reference));
    expect(shape(res.body.tags[0])).toEqual(shape(reference.tags[0]));
    expect(res.body.next_rest_url).toBe(
      `${API_ROOT}/tags/?per_page=1&order=asc&orderby=name&hide_empty=true&page=2`,
    );
  });

  it('has no parent filter on tags', async () => {
    const res = await h.http.get(`${API}/tags?parent=${ids.arts}`).expect(200);
    expect(res.body.rest_url).not.toContain('parent');
  });

  it('matches the slug in a search by id too', async () => {
    const summer = await h.db.term.create({ data: { taxonomy: 'post_tag', name: 'Été', slug: 'ete' } });
    const res = await h.http.get(`${API}/tags?search=ete&hide_empty=false`).expect(200);
    expect(res.body.tags.map((tag: { id: number }) => tag.id)).toEqual([summer.id]);
    await h.db.term.delete({ where: { id: summer.id } });
  });
});

describe('GraphQL only', () => {
  it('echoes the page and page size in pageInfo', async () => {
    const { data } = await gql(
      'query { categories(page: 2, perPage: 2, filter: { hideEmpty: false }) { pageInfo { page perPage total totalPages } items { name } } }',
    );
    expect(data!.categories).toEqual({
      pageInfo: { page: 2, perPage: 2, total: 5, totalPages: 3 },
      items: [{ name: 'Music' }, { name: 'Opera' }],
    });
  });
});

// Last: the bulk terms would change every list above.
describe('SQL statements per term list, on both APIs', () => {
  beforeAll(async () => {
    for (let i = 0; i < 120; i++)
      await createTerm(h.db, i % 2 ? 'post_tag' : 'tribe_events_cat', `Bulk ${String(i).padStart(2, '0')}`);
  });

  it('REST: are the same for 2 and 50 terms per page, on both routes', async () => {
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

  it('GraphQL: are the same for 2 and 50 terms per page, parents and URLs included', async () => {
    const query = `query($perPage: Int) { categories(perPage: $perPage, filter: { hideEmpty: false }) {
      pageInfo { total } items { id: databaseId name count url parent { name } } } }`;
    const run = async (perPage: number) => {
      h.queries.length = 0;
      const { data, errors } = await gql(query, { perPage });
      expect(errors).toBeUndefined();
      expect(data!.categories.items).toHaveLength(perPage);
      return h.queries.length;
    };
    const few = await run(2);
    expect(await run(50)).toBe(few);
    // count + page ids + terms with their parents (each term carries its count)
    expect(few).toBeLessThanOrEqual(4);
  });
});
