import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, SITE_URL, startHarness } from '../../helpers/harness.js';
import { createEvent, createTerm } from '../../helpers/fixtures.js';
import { graphqlClient } from '../../helpers/graphql.js';

// The public GraphQL API reads categories and tags with the same filters and errors as REST.

let h: Harness;
const ids: Record<string, number> = {};

const gql = graphqlClient(() => h, { status: 200 });

const CATEGORIES = `query($filter: CategoryFilter, $orderBy: TermOrderField, $order: SortOrder, $page: Int, $perPage: Int) {
  categories(filter: $filter, orderBy: $orderBy, order: $order, page: $page, perPage: $perPage) {
    pageInfo { page perPage total totalPages }
    items { name }
  }
}`;

const TAGS = `query($filter: TagFilter, $orderBy: TermOrderField, $order: SortOrder) {
  tags(filter: $filter, orderBy: $orderBy, order: $order) { pageInfo { total } items { name count } }
}`;

async function categoryNames(variables: Record<string, unknown>) {
  const { data, errors } = await gql(CATEGORIES, variables);
  expect(errors).toBeUndefined();
  return (data!.categories.items as Array<{ name: string }>).map((item) => item.name);
}

beforeAll(async () => {
  h = await startHarness();
  const arts = await createTerm(h.db, 'tribe_events_cat', 'Arts');
  const opera = await h.db.term.create({
    data: { taxonomy: 'tribe_events_cat', name: 'Opera', slug: 'opera', parentId: arts.id },
  });
  const music = await createTerm(h.db, 'tribe_events_cat', 'Music');
  const empty = await createTerm(h.db, 'tribe_events_cat', 'Empty');
  const outdoor = await createTerm(h.db, 'post_tag', 'outdoor');
  const unused = await createTerm(h.db, 'post_tag', 'unused');
  const carmen = await createEvent(h.db, { title: 'Carmen', termIds: [opera.id, music.id, outdoor.id] });
  await createEvent(h.db, { title: 'Jazz', termIds: [music.id] });
  const draft = await createEvent(h.db, { title: 'Draft', status: 'draft', termIds: [empty.id, unused.id] });
  Object.assign(ids, {
    arts: arts.id,
    opera: opera.id,
    music: music.id,
    empty: empty.id,
    outdoor: outdoor.id,
    carmen: carmen.id,
    draft: draft.id,
  });
});
afterAll(() => h.close());

describe('category and tag by id', () => {
  it('reads a category with its parent and count', async () => {
    const { data, errors } = await gql(
      'query($id: Int!) { category(id: $id) { id: databaseId name slug description url count parent { name } } }',
      { id: ids.opera },
    );
    expect(errors).toBeUndefined();
    expect(data!.category).toEqual({
      id: ids.opera,
      name: 'Opera',
      slug: 'opera',
      description: '',
      url: `${SITE_URL}/events/category/arts/opera/`,
      count: 1,
      parent: { name: 'Arts' },
    });
  });

  it('reads a tag', async () => {
    const { data } = await gql('query($id: Int!) { tag(id: $id) { name url count } }', { id: ids.outdoor });
    expect(data!.tag).toEqual({ name: 'outdoor', url: `${SITE_URL}/tag/outdoor/`, count: 1 });
  });

  it('answers an unknown id, or a term of the other taxonomy, with term-not-found (404)', async () => {
    for (const [query, id] of [
      ['category', 987654],
      ['category', ids.outdoor],
      ['tag', ids.music],
    ] as const) {
      const { errors } = await gql(`query($id: Int!) { ${query}(id: $id) { id: databaseId } }`, { id });
      expect(errors![0]!.extensions).toMatchObject({ code: 'term-not-found', http: { status: 404 } });
    }
  });
});

describe('categories and tags lists', () => {
  it('hide empty terms by default (a parent with a non-empty child stays), ordered by name', async () => {
    expect(await categoryNames({})).toEqual(['Arts', 'Music', 'Opera']);
    expect(await categoryNames({ filter: { hideEmpty: false } })).toEqual([
      'Arts',
      'Empty',
      'Music',
      'Opera',
    ]);
  });

  it('page with totals, and answer a page past the end with no items', async () => {
    const { data } = await gql(CATEGORIES, { perPage: 2, page: 2, filter: { hideEmpty: false } });
    expect(data!.categories).toEqual({
      pageInfo: { page: 2, perPage: 2, total: 4, totalPages: 2 },
      items: [{ name: 'Music' }, { name: 'Opera' }],
    });
    const past = await gql(CATEGORIES, { page: 5 });
    expect(past.data!.categories.items).toEqual([]);
  });

  it('filter by search, include, exclude, parent, event and slug', async () => {
    expect(await categoryNames({ filter: { search: 'P' } })).toEqual(['Opera']);
    expect(await categoryNames({ filter: { include: [ids.music, ids.empty], hideEmpty: false } })).toEqual([
      'Empty',
      'Music',
    ]);
    expect(await categoryNames({ filter: { exclude: [ids.music] } })).toEqual(['Arts', 'Opera']);
    expect(await categoryNames({ filter: { parent: ids.arts } })).toEqual(['Opera']);
    expect(await categoryNames({ filter: { parent: 0 } })).toEqual(['Arts', 'Music']);
    expect(await categoryNames({ filter: { event: ids.carmen } })).toEqual(['Music', 'Opera']);
    expect(await categoryNames({ filter: { slug: 'music' } })).toEqual(['Music']);
  });

  it('order by any supported field, both ways', async () => {
    expect(await categoryNames({ order: 'desc' })).toEqual(['Opera', 'Music', 'Arts']);
    expect(await categoryNames({ orderBy: 'count', order: 'desc' })).toEqual(['Music', 'Opera', 'Arts']);
    expect(await categoryNames({ orderBy: 'id' })).toEqual(['Arts', 'Opera', 'Music']);
    expect(await categoryNames({ orderBy: 'slug', order: 'desc' })).toEqual(['Opera', 'Music', 'Arts']);
    expect(await categoryNames({ orderBy: 'termGroup' })).toEqual(['Arts', 'Opera', 'Music']);
    expect(await categoryNames({ orderBy: 'description' })).toEqual(['Opera', 'Arts', 'Music']);
  });

  it('refuse invalid filter values with rest_invalid_param (400), naming them', async () => {
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ filter: { search: '' } }, ['search']],
      [{ filter: { slug: ' ' } }, ['slug']],
      [{ filter: { include: [987654] } }, ['include']],
      [{ filter: { exclude: [ids.outdoor] } }, ['exclude']],
      [{ filter: { parent: 987654 } }, ['parent']],
      [{ filter: { event: 987654 } }, ['event']],
      [{ filter: { event: ids.draft } }, ['event']],
      [{ perPage: 0 }, ['per_page']],
    ];
    for (const [variables, params] of cases) {
      const { errors } = await gql(CATEGORIES, variables);
      expect(errors![0]!.extensions, JSON.stringify(variables)).toMatchObject({
        code: 'rest_invalid_param',
        http: { status: 400 },
      });
      expect(Object.keys((errors![0]!.extensions.data as { params: object }).params)).toEqual(params);
    }
  });

  it('list tags with the same filters', async () => {
    const { data } = await gql(TAGS, {});
    expect(data!.tags).toEqual({ pageInfo: { total: 1 }, items: [{ name: 'outdoor', count: 1 }] });
    const all = await gql(TAGS, { filter: { hideEmpty: false }, orderBy: 'name', order: 'desc' });
    expect(all.data!.tags.items.map((item: { name: string }) => item.name)).toEqual(['unused', 'outdoor']);
  });

  it('cost the same number of SQL statements for 2 and 50 terms per page', async () => {
    for (let i = 0; i < 60; i++)
      await createTerm(h.db, 'tribe_events_cat', `Bulk ${String(i).padStart(2, '0')}`);
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
