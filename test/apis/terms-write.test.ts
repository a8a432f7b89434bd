import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, API_ROOT, type Harness, SITE_URL } from '../helpers/harness.js';
import { createEvent, createTerm } from '../helpers/fixtures.js';
import { type GqlResult, graphqlClient } from '../helpers/graphql.js';
import { sample } from '../helpers/samples.js';
import { shape } from '../helpers/shape.js';
import { type Credentials, type Users, startWithRoles } from '../helpers/users.js';

// Writing categories and tags on both APIs: POST /categories, POST|PUT|PATCH|DELETE /categories/{id}
// and the same for tags (the reference's Category*/Tag* Insertion, Update and Deletion Cests), and
// GraphQL's create/update/delete Category/Tag mutations — the same rules, codes and statuses, with
// D1 (404), D7 (no 500), D8 (editors) and D22 (the caller before the input). One table asks each API
// its way; then what only REST shows (the reference's shapes, Location and Allow, form bodies, bodies
// that are not JSON or of the wrong type, counts, concurrent writes) and what only GraphQL shows.

let h: Harness;
let users: Users;

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

const gql = graphqlClient(() => h, { status: 200 });

type Taxonomy = 'category' | 'tag';
const BELOW_EDITOR = ['subscriber', 'contributor', 'author'] as const;

/** A term as both APIs show it; `parent` (0 at the top level) only on categories. */
interface Term {
  id: number;
  name: string;
  slug: string;
  description: string;
  count: number;
  parent?: number;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
interface Answer {
  /** REST's HTTP status, or the status GraphQL's error names (200 without an error). */
  status: number;
  code?: string;
  message?: string;
  /** REST's `data`, or GraphQL's `extensions.data`, of an error. */
  data?: any;
  /** The whole error: REST's body, or GraphQL's extensions. */
  error?: any;
  term?: Term;
}

/** The input in REST's names; GraphQL calls `parent` `parentId`. */
type TermInput = Record<string, unknown>;

interface TermApi {
  name: 'REST' | 'GraphQL';
  /** The status of a created term. */
  created: 201 | 200;
  /** The name an error gives the parent parameter. */
  parentParam: 'parent' | 'parentId';
  create(taxonomy: Taxonomy, input: TermInput, as?: Credentials): Promise<Answer>;
  update(taxonomy: Taxonomy, id: number, input: TermInput, as?: Credentials): Promise<Answer>;
  remove(taxonomy: Taxonomy, id: number, as?: Credentials): Promise<Answer>;
  /** The whole error refusing the caller: 401 anonymously, 403 below editor. */
  forbidden(status: 401 | 403): any;
}

const PATH: Record<Taxonomy, string> = { category: 'categories', tag: 'tags' };

const restAnswer = (status: number, body: any): Answer =>
  status >= 400
    ? { status, code: body.code, message: body.message, data: body.data, error: body }
    : {
        status,
        term: {
          id: body.id,
          name: body.name,
          slug: body.slug,
          description: body.description,
          count: body.count,
          ...('parent' in body ? { parent: body.parent } : {}),
        },
      };

const rest: TermApi = {
  name: 'REST',
  created: 201,
  parentParam: 'parent',
  async create(taxonomy, input, as) {
    const request = h.http.post(`${API}/${PATH[taxonomy]}`);
    if (as) request.auth(as.login, as.password);
    const res = await request.send(input);
    return restAnswer(res.status, res.body);
  },
  async update(taxonomy, id, input, as) {
    const request = h.http.post(`${API}/${PATH[taxonomy]}/${id}`);
    if (as) request.auth(as.login, as.password);
    const res = await request.send(input);
    return restAnswer(res.status, res.body);
  },
  async remove(taxonomy, id, as) {
    const request = h.http.delete(`${API}/${PATH[taxonomy]}/${id}`);
    if (as) request.auth(as.login, as.password);
    const res = await request;
    return restAnswer(res.status, res.body);
  },
  forbidden: (status) => ({
    code: 'rest_forbidden',
    message: 'Sorry, you are not allowed to do that.',
    data: { status, request_id: expect.any(String) },
  }),
};

const TYPE: Record<Taxonomy, string> = { category: 'Category', tag: 'Tag' };
const SELECTION: Record<Taxonomy, string> = {
  category: 'id: databaseId name slug description count parent { id: databaseId name }',
  tag: 'id: databaseId name slug description count',
};

const graphqlInput = ({ parent, ...input }: TermInput) =>
  parent === undefined ? input : { ...input, parentId: parent };

const graphqlAnswer = (result: GqlResult): Answer => {
  const error = result.errors?.[0];
  if (error) {
    const { extensions } = error;
    return {
      status: extensions.http?.status ?? 400,
      code: extensions.code,
      message: error.message,
      data: extensions.data,
      error: extensions,
    };
  }
  const { parent, ...term } = result.data!.one;
  return { status: 200, term: parent === undefined ? term : { ...term, parent: parent?.id ?? 0 } };
};

const graphql: TermApi = {
  name: 'GraphQL',
  created: 200,
  parentParam: 'parentId',
  async create(taxonomy, input, as) {
    const mutation = `mutation($input: Create${TYPE[taxonomy]}Input!) {
      one: create${TYPE[taxonomy]}(input: $input) { ${SELECTION[taxonomy]} } }`;
    return graphqlAnswer(await gql(mutation, { input: graphqlInput(input) }, as));
  },
  async update(taxonomy, id, input, as) {
    const mutation = `mutation($id: Int!, $input: Update${TYPE[taxonomy]}Input!) {
      one: update${TYPE[taxonomy]}(id: $id, input: $input) { ${SELECTION[taxonomy]} } }`;
    return graphqlAnswer(await gql(mutation, { id, input: graphqlInput(input) }, as));
  },
  async remove(taxonomy, id, as) {
    const mutation = `mutation($id: Int!) { one: delete${TYPE[taxonomy]}(id: $id) { ${SELECTION[taxonomy]} } }`;
    return graphqlAnswer(await gql(mutation, { id }, as));
  },
  forbidden: (status) => ({ code: 'rest_forbidden', http: { status } }),
};
/* eslint-enable @typescript-eslint/no-explicit-any */

const stored = (id: number) => h.db.term.findUnique({ where: { id } });

const childOf = (parentId: number, name: string) =>
  h.db.term.create({
    data: { taxonomy: 'tribe_events_cat', name, slug: name.toLowerCase().replace(/\W+/g, '-'), parentId },
  });

describe.each([rest, graphql])('$name: term writes', (api) => {
  // Both APIs write to one database: each names its terms apart.
  const named = (name: string) => `${name} ${api.name}`;
  const slugOf = (name: string) => named(name).toLowerCase().replace(/\W+/g, '-');

  describe('create', () => {
    it('creates a category under a parent with the given fields', async () => {
      const parent = await createTerm(h.db, 'tribe_events_cat', named('Foo Parent'));
      const created = await api.create(
        'category',
        { parent: parent.id, name: 'foo', description: 'Term description', slug: slugOf('foo bar') },
        users.editor,
      );
      expect(created.status).toBe(api.created);
      expect(created.term).toEqual({
        id: expect.any(Number),
        name: 'foo',
        slug: slugOf('foo bar'),
        description: 'Term description',
        count: 0,
        parent: parent.id,
      });
      expect(await stored(created.term!.id)).toMatchObject({
        name: 'foo',
        slug: slugOf('foo bar'),
        parentId: parent.id,
      });
    });

    it('derives a unique slug from the name, and makes a taken slug unique', async () => {
      const name = named('Rock & Roll Café');
      const base = slugOf('Rock Roll Cafe');
      const first = await api.create('category', { name }, users.administrator);
      expect(first.status).toBe(api.created);
      expect(first.term).toMatchObject({ slug: base, parent: 0, description: '' });
      // The same name elsewhere in the tree: allowed, the slug made unique.
      const parent = await createTerm(h.db, 'tribe_events_cat', named('Genres'));
      const second = await api.create('category', { name, parent: parent.id }, users.editor);
      expect(second.term).toMatchObject({ slug: `${base}-2`, parent: parent.id });
      // An explicit slug that is taken is made unique too (as WordPress does on insert).
      const third = await api.create(
        'category',
        { name: named('Other'), slug: named('Rock Roll Cafe') },
        users.editor,
      );
      expect(third.term!.slug).toBe(`${base}-3`);
      // A child named as its parent.
      const child = await api.create(
        'category',
        { name: named('Genres'), parent: parent.id, description: 'Child' },
        users.editor,
      );
      expect(child.term).toEqual({
        id: expect.any(Number),
        name: named('Genres'),
        slug: `${slugOf('Genres')}-2`,
        description: 'Child',
        count: 0,
        parent: parent.id,
      });
    });

    it('creates a tag without a parent, sanitising a given slug', async () => {
      const created = await api.create(
        'tag',
        { name: named('Family Friendly'), slug: `${named('Family  Friendly')}!` },
        users.administrator,
      );
      expect(created.status).toBe(api.created);
      expect(created.term).toEqual({
        id: expect.any(Number),
        name: named('Family Friendly'),
        slug: slugOf('Family Friendly'),
        description: '',
        count: 0,
      });
    });

    it('refuses a duplicate name under the same parent with 400 term_exists and the existing id', async () => {
      const existing = await createTerm(h.db, 'tribe_events_cat', named('Theatre'));
      const duplicate = await api.create('category', { name: named('theatre') }, users.editor);
      expect(duplicate).toMatchObject({
        status: 400,
        code: 'term_exists',
        message: 'A term with the name provided already exists with this parent.',
        data: { term_id: existing.id },
      });
      expect(await h.db.term.count({ where: { name: named('theatre') } })).toBe(0);
    });

    it('refuses a duplicate tag name anywhere in the taxonomy, but not a category of that name', async () => {
      const existing = await createTerm(h.db, 'post_tag', named('Outdoor'));
      const duplicate = await api.create('tag', { name: named('OUTDOOR') }, users.editor);
      expect(duplicate).toMatchObject({
        status: 400,
        code: 'term_exists',
        message: 'A term with the name provided already exists in this taxonomy.',
        data: { term_id: existing.id },
      });
      const category = await api.create('category', { name: named('Outdoor') }, users.editor);
      expect(category.status).toBe(api.created);
      expect(category.term!.slug).toBe(slugOf('Outdoor'));
    });

    it('refuses 401 anonymously, 403 below editor (D8), and lets editors and administrators in', async () => {
      for (const taxonomy of ['category', 'tag'] as const) {
        const input = { name: named(`Role ${taxonomy}`), description: 'Term description' };
        const anonymous = await api.create(taxonomy, input);
        expect(anonymous.status, taxonomy).toBe(401);
        expect(anonymous.error, taxonomy).toEqual(api.forbidden(401));
        for (const role of BELOW_EDITOR) {
          const refused = await api.create(taxonomy, input, users[role]);
          expect(refused.status, `${taxonomy} ${role}`).toBe(403);
          expect(refused.error, `${taxonomy} ${role}`).toEqual(api.forbidden(403));
        }
        expect(await h.db.term.count({ where: { name: input.name } })).toBe(0);
        expect((await api.create(taxonomy, input, users.administrator)).status).toBe(api.created);
        const byEditor = await api.create(taxonomy, { name: named(`Editor ${taxonomy}`) }, users.editor);
        expect(byEditor.status).toBe(api.created);
      }
    });

    it('checks the caller first (D22: anonymous 401, subscriber 403), then 400s each bad value', async () => {
      const tag = await createTerm(h.db, 'post_tag', named('A tag'));
      const base = { name: 'foo', description: 'Term description', slug: slugOf('bad values') };
      const cases: Array<[Taxonomy, string, unknown]> = [
        ['category', 'name', ''],
        ['category', 'name', '   '],
        ['category', 'name', 'x'.repeat(201)],
        ['category', 'description', ''],
        ['category', 'slug', ''],
        ['category', 'slug', '!!!'],
        ['category', 'parent', 987654],
        ['category', 'parent', -1],
        ['category', 'parent', -3],
        ['category', 'parent', tag.id],
        ['tag', 'name', ''],
        ['tag', 'description', ''],
        ['tag', 'slug', ''],
      ];
      for (const [taxonomy, param, value] of cases) {
        const input = { ...base, [param]: value };
        const label = `${taxonomy} ${param}=${JSON.stringify(value)}`;
        expect((await api.create(taxonomy, input)).error, label).toEqual(api.forbidden(401));
        expect((await api.create(taxonomy, input, users.subscriber)).error, label).toEqual(
          api.forbidden(403),
        );
        const invalid = await api.create(taxonomy, input, users.editor);
        expect([invalid.status, invalid.code], label).toEqual([400, 'rest_invalid_param']);
        const reported = param === 'parent' ? api.parentParam : param;
        expect(invalid.data.params, label).toEqual({ [reported]: 'Invalid parameter.' });
      }
      expect(await h.db.term.count({ where: { slug: base.slug } })).toBe(0);
    });
  });

  describe('update', () => {
    it('changes the given fields only; a parent of null or 0 moves a category to the top level', async () => {
      const parent = await createTerm(h.db, 'tribe_events_cat', named('Upd Parent'));
      const other = await createTerm(h.db, 'tribe_events_cat', named('New Parent'));
      const term = await h.db.term.create({
        data: {
          taxonomy: 'tribe_events_cat',
          name: named('Upd'),
          slug: slugOf('Upd'),
          description: 'd',
          parentId: parent.id,
        },
      });
      // Only the name: the slug stays.
      const renamed = await api.update('category', term.id, { name: named('Updated') }, users.editor);
      expect(renamed.term).toEqual({
        id: term.id,
        name: named('Updated'),
        slug: slugOf('Upd'),
        description: 'd',
        count: 0,
        parent: parent.id,
      });
      const all = await api.update(
        'category',
        term.id,
        { parent: other.id, name: named('foo2'), description: 'Term description', slug: slugOf('foo bar 2') },
        users.editor,
      );
      expect(all.status).toBe(200);
      expect(all.term).toEqual({
        id: term.id,
        name: named('foo2'),
        slug: slugOf('foo bar 2'),
        description: 'Term description',
        count: 0,
        parent: other.id,
      });
      const top = await api.update('category', term.id, { parent: null }, users.editor);
      expect(top.term!.parent).toBe(0);
      await api.update('category', term.id, { parent: parent.id }, users.editor);
      const zero = await api.update(
        'category',
        term.id,
        { parent: 0, slug: slugOf('new upd') },
        users.editor,
      );
      expect(zero.term).toMatchObject({ slug: slugOf('new upd'), parent: 0 });
      expect(await stored(term.id)).toMatchObject({ parentId: null, name: named('foo2') });
    });

    it('leaves the term unchanged for an empty input', async () => {
      const term = await createTerm(h.db, 'tribe_events_cat', named('Untouched'));
      const res = await api.update('category', term.id, {}, users.editor);
      expect(res.status).toBe(200);
      expect(res.term).toMatchObject({ id: term.id, name: named('Untouched'), slug: slugOf('Untouched') });
    });

    it('answers a slug used by another category with 400, never 500 (D7); its own or a tag’s slug is fine', async () => {
      const a = await createTerm(h.db, 'tribe_events_cat', named('Slug A'));
      await createTerm(h.db, 'tribe_events_cat', named('Slug B'));
      const taken = await api.update('category', a.id, { slug: slugOf('Slug B') }, users.editor);
      expect(taken).toMatchObject({
        status: 400,
        code: 'duplicate_term_slug',
        message: `The slug “${slugOf('Slug B')}” is already in use by another term.`,
      });
      expect((await api.update('category', a.id, { slug: slugOf('Slug A') }, users.editor)).status).toBe(200);
      await createTerm(h.db, 'post_tag', named('Tag Slug'));
      const tagSlug = await api.update('category', a.id, { slug: slugOf('Tag Slug') }, users.editor);
      expect(tagSlug.status).toBe(200);
      expect(tagSlug.term!.slug).toBe(slugOf('Tag Slug'));
    });

    it('refuses a rename to a sibling name with 400 term_exists', async () => {
      const music = await createTerm(h.db, 'tribe_events_cat', named('Siblings Music'));
      const art = await createTerm(h.db, 'tribe_events_cat', named('Siblings Art'));
      const res = await api.update('category', art.id, { name: named('siblings music') }, users.editor);
      expect(res).toMatchObject({ status: 400, code: 'term_exists', data: { term_id: music.id } });
    });

    it('refuses a cycle: its own parent, or one of its descendants', async () => {
      const top = await createTerm(h.db, 'tribe_events_cat', named('Cycle Top'));
      const middle = await childOf(top.id, named('Cycle Middle'));
      const bottom = await childOf(middle.id, named('Cycle Bottom'));
      for (const parent of [top.id, bottom.id, middle.id]) {
        const res = await api.update('category', top.id, { parent }, users.editor);
        expect([res.status, res.code], String(parent)).toEqual([400, 'rest_invalid_param']);
        expect(Object.keys(res.data.params)).toEqual([api.parentParam]);
      }
      expect((await stored(top.id))!.parentId).toBeNull();
      // Moving the bottom up under the top is fine.
      const moved = await api.update('category', bottom.id, { parent: top.id }, users.editor);
      expect(moved.term).toMatchObject({ id: bottom.id, parent: top.id });
    });

    it('checks the caller first (D22), then finds the term (404 term-not-found, D1) and validates (400)', async () => {
      const term = await createTerm(h.db, 'tribe_events_cat', named('Guarded'));
      expect((await api.update('category', 987654, { name: 'x' })).error).toEqual(api.forbidden(401));
      const missing = await api.update('category', 987654, { name: 'x' }, users.editor);
      expect([missing.status, missing.code]).toEqual([404, 'term-not-found']);
      const tag = await createTerm(h.db, 'post_tag', named('Guarded Tag'));
      const notACategory = await api.update('category', tag.id, { name: 'x' }, users.editor);
      expect([notACategory.status, notACategory.code]).toEqual([404, 'term-not-found']);
      const cases: Array<[string, unknown]> = [
        ['name', ''],
        ['description', ''],
        ['slug', ''],
        ['parent', 2389],
      ];
      for (const [param, value] of cases) {
        const res = await api.update('category', term.id, { name: 'foo', [param]: value }, users.editor);
        expect([res.status, res.code], `${param}=${value}`).toEqual([400, 'rest_invalid_param']);
        const reported = param === 'parent' ? api.parentParam : param;
        expect(res.data.params).toEqual({ [reported]: 'Invalid parameter.' });
      }
      expect((await api.update('category', term.id, { name: 'x' })).error).toEqual(api.forbidden(401));
      for (const role of ['subscriber', 'author'] as const)
        expect((await api.update('category', term.id, { name: 'x' }, users[role])).error, role).toEqual(
          api.forbidden(403),
        );
      expect((await stored(term.id))!.name).toBe(named('Guarded'));
    });

    it('updates a tag; the same checks apply, and authors may not', async () => {
      const tag = await createTerm(h.db, 'post_tag', named('Old Tag'));
      await createTerm(h.db, 'post_tag', named('Taken Tag'));
      const author = await api.update('tag', tag.id, { name: 'x' }, users.author);
      expect(author.error).toEqual(api.forbidden(403));
      const renamed = await api.update('tag', tag.id, { name: named('Renamed Tag') }, users.editor);
      expect(renamed.term).toEqual({
        id: tag.id,
        name: named('Renamed Tag'),
        slug: slugOf('Old Tag'),
        description: expect.any(String),
        count: 0,
      });
      const res = await api.update(
        'tag',
        tag.id,
        { name: named('New Tag'), slug: slugOf('New Tag') },
        users.administrator,
      );
      expect(res.status).toBe(200);
      // No parent: a tag has none.
      expect(res.term).toEqual({
        id: tag.id,
        name: named('New Tag'),
        slug: slugOf('New Tag'),
        description: expect.any(String),
        count: 0,
      });
      const slugTaken = await api.update('tag', tag.id, { slug: slugOf('Taken Tag') }, users.editor);
      expect([slugTaken.status, slugTaken.code]).toEqual([400, 'duplicate_term_slug']);
      const nameTaken = await api.update('tag', tag.id, { name: named('taken tag') }, users.editor);
      expect([nameTaken.status, nameTaken.code]).toEqual([400, 'term_exists']);
      expect((await api.update('tag', tag.id, { description: '' })).error).toEqual(api.forbidden(401));
      const empty = await api.update('tag', tag.id, { description: '' }, users.editor);
      expect([empty.status, empty.code]).toEqual([400, 'rest_invalid_param']);
      const missing = await api.update('tag', 987654, { name: 'x' }, users.editor);
      expect([missing.status, missing.code]).toEqual([404, 'term-not-found']);
      expect((await stored(tag.id))!.name).toBe(named('New Tag'));
    });
  });

  describe('delete', () => {
    it('deletes for good and returns the term as it was, count included; then 404', async () => {
      const doomed = await createTerm(h.db, 'tribe_events_cat', named('Doomed'));
      const event = await createEvent(h.db, { termIds: [doomed.id] });
      const res = await api.remove('category', doomed.id, users.editor);
      expect(res.status).toBe(200);
      expect(res.term).toEqual({
        id: doomed.id,
        count: 1,
        description: `${named('Doomed')} events`,
        name: named('Doomed'),
        slug: slugOf('Doomed'),
        parent: 0,
      });
      expect(await stored(doomed.id)).toBeNull();
      expect(await h.db.eventTerm.count({ where: { eventId: event.id } })).toBe(0);
      const again = await api.remove('category', doomed.id, users.editor);
      expect([again.status, again.code]).toEqual([404, 'term-not-found']);
    });

    it('moves the children of a deleted category up to its parent', async () => {
      const grandparent = await createTerm(h.db, 'tribe_events_cat', named('Delete Grandparent'));
      const parent = await childOf(grandparent.id, named('Delete Parent'));
      const child = await childOf(parent.id, named('Delete Child'));
      await createEvent(h.db, { termIds: [parent.id] });
      const res = await api.remove('category', parent.id, users.administrator);
      expect(res.term).toMatchObject({
        id: parent.id,
        name: named('Delete Parent'),
        count: 1,
        parent: grandparent.id,
      });
      expect((await stored(child.id))!.parentId).toBe(grandparent.id);
      expect((await api.remove('category', grandparent.id, users.administrator)).status).toBe(200);
      expect((await stored(child.id))!.parentId).toBeNull();
    });

    it('needs an editor before anything else (D22), then finds the term (404)', async () => {
      for (const taxonomy of ['category', 'tag'] as const) {
        const term = await createTerm(
          h.db,
          taxonomy === 'tag' ? 'post_tag' : 'tribe_events_cat',
          named(`Kept ${taxonomy}`),
        );
        expect((await api.remove(taxonomy, 987654, users.subscriber)).error, taxonomy).toEqual(
          api.forbidden(403),
        );
        const missing = await api.remove(taxonomy, 987654, users.editor);
        expect([missing.status, missing.code], taxonomy).toEqual([404, 'term-not-found']);
        expect((await api.remove(taxonomy, term.id)).error, taxonomy).toEqual(api.forbidden(401));
        for (const role of BELOW_EDITOR)
          expect((await api.remove(taxonomy, term.id, users[role])).error, `${taxonomy} ${role}`).toEqual(
            api.forbidden(403),
          );
        expect(await stored(term.id)).not.toBeNull();
      }
    });

    it('deletes a tag, returning it without a parent', async () => {
      const tag = await createTerm(h.db, 'post_tag', named('Del Tag'));
      const res = await api.remove('tag', tag.id, users.administrator);
      expect(res.status).toBe(200);
      expect(res.term).toEqual({
        id: tag.id,
        name: named('Del Tag'),
        slug: slugOf('Del Tag'),
        description: `${named('Del Tag')} events`,
        count: 0,
      });
      expect(await stored(tag.id)).toBeNull();
    });
  });
});

describe('what only REST shows', () => {
  const post = (path: string, as: Credentials = users.editor) =>
    h.http.post(`${API}${path}`).auth(as.login, as.password);

  /** The sample is a top-level category: a child's `up` links (urls and `_links`) are extra. */
  function withoutUp(term: { urls: Record<string, string>; _links?: Record<string, unknown> }) {
    const { up: _up, ...urls } = term.urls;
    if (!term._links) return { ...term, urls };
    const { up: _linksUp, ...links } = term._links;
    return { ...term, urls, _links: links };
  }

  it('creates a category (201) in the reference shape, with urls.up and a Location', async () => {
    const parent = await createTerm(h.db, 'tribe_events_cat', 'Foo Parent');
    const res = await post('/categories')
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
    expect(await stored(id)).toMatchObject({ name: 'foo', slug: 'foo-bar', parentId: parent.id });
  });

  it('accepts form bodies, the parent as a string', async () => {
    const first = await post('/categories', users.administrator)
      .type('form')
      .send({ name: 'Form Café' })
      .expect(201);
    expect(first.body).toMatchObject({ slug: 'form-cafe', parent: 0, description: '' });
    expect(first.body.urls).not.toHaveProperty('up');
    const parent = await createTerm(h.db, 'tribe_events_cat', 'Form Genres');
    const second = await post('/categories')
      .type('form')
      .send({ name: 'Form Café', parent: String(parent.id) })
      .expect(201);
    expect(second.body).toMatchObject({ slug: 'form-cafe-2', parent: parent.id });
  });

  it('shows a duplicate name’s term_exists with WordPress’ additional_data', async () => {
    const existing = await createTerm(h.db, 'tribe_events_cat', 'Theatre');
    const res = await post('/categories').send({ name: 'theatre' }).expect(400);
    expect(res.body).toEqual({
      code: 'term_exists',
      message: 'A term with the name provided already exists with this parent.',
      data: { status: 400, request_id: expect.any(String), term_id: existing.id },
      // WordPress: the error's first data (the term id) and the copy the controller added stay beside
      // the `{status, term_id}` it added last.
      additional_data: [existing.id, existing.id],
    });
  });

  it('answers a slug used by another category with the whole error body', async () => {
    const a = await createTerm(h.db, 'tribe_events_cat', 'Body Slug A');
    await createTerm(h.db, 'tribe_events_cat', 'Body Slug B');
    const res = await post(`/categories/${a.id}`).send({ slug: 'body-slug-b' }).expect(400);
    expect(res.body).toEqual({
      code: 'duplicate_term_slug',
      message: 'The slug “body-slug-b” is already in use by another term.',
      data: { status: 400, request_id: expect.any(String) },
    });
  });

  it('checks the caller first (D22), then names a missing name rest_missing_callback_param', async () => {
    for (const path of ['/categories', '/tags']) {
      await h.http.post(`${API}${path}`).send({ description: 'x' }).expect(401);
      await post(path, users.subscriber).send({}).expect(403);
      const missing = await post(path).send({ description: 'x' }).expect(400);
      expect(missing.body, path).toEqual({
        code: 'rest_missing_callback_param',
        message: 'Missing parameter(s): name',
        data: { status: 400, request_id: expect.any(String), params: ['name'] },
      });
      expect((await post(path).send({}).expect(400)).body.code).toBe('rest_missing_callback_param');
    }
  });

  it('checks the caller first (D22), then 400s a value of the wrong type', async () => {
    const base = { name: 'foo', description: 'Term description', slug: 'wrong-type' };
    await post('/categories', users.subscriber)
      .send({ ...base, parent: 'foo' })
      .expect(403);
    const cases: Array<[string, unknown]> = [
      ['name', 12],
      ['parent', ''],
      ['parent', '2389'],
      ['parent', 'foo'],
    ];
    for (const [param, value] of cases) {
      const res = await post('/categories').send({ ...base, [param]: value });
      expect(res.status, `${param}=${JSON.stringify(value)}`).toBe(400);
      expect(res.body.code).toBe('rest_invalid_param');
      expect(res.body.data.params).toEqual({ [param]: 'Invalid parameter.' });
    }
    const term = await createTerm(h.db, 'tribe_events_cat', 'Wrong Type');
    for (const [param, value] of cases.slice(1)) {
      const res = await post(`/categories/${term.id}`).send({ name: 'foo', [param]: value });
      expect(res.status, `${param}=${value}`).toBe(400);
      expect(res.body.data.params).toEqual({ [param]: 'Invalid parameter.' });
    }
    expect((await stored(term.id))!.name).toBe('Wrong Type');
  });

  it('refuses a body that is not JSON with 400', async () => {
    const res = await post('/categories')
      .set('content-type', 'application/json')
      .send('{"name":')
      .expect(400);
    expect(res.body.code).toBe('rest_invalid_json');
  });

  it('leaves the term unchanged for a request without a body', async () => {
    const term = await createTerm(h.db, 'tribe_events_cat', 'No Body');
    const res = await post(`/categories/${term.id}`).expect(200);
    expect(res.body).toMatchObject({ id: term.id, name: 'No Body', slug: 'no-body' });
  });

  it('creates a tag in the reference shape (no parent; a parent sent is ignored)', async () => {
    const res = await post('/tags').send({ name: 'Outdoor', description: 'Open air', parent: 3 }).expect(201);
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

  it('updates (200) with the reference shape through POST, PUT and PATCH, and names the methods in Allow', async () => {
    const term = await createTerm(h.db, 'tribe_events_cat', 'Old Foo');
    const parent = await createTerm(h.db, 'tribe_events_cat', 'New Parent');
    const res = await post(`/categories/${term.id}`)
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
      .auth(users.editor.login, users.editor.password)
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
      .auth(users.editor.login, users.editor.password)
      .send({ parent: 0 })
      .expect(200);
    expect(patch.body.parent).toBe(0);
    expect(patch.body.urls).not.toHaveProperty('up');
    expect(res.headers['allow']).toBe('GET, POST, PUT, PATCH, DELETE');
    // PUT and PATCH check the caller as POST does.
    await h.http.put(`${API}/categories/${term.id}`).send({ name: 'x' }).expect(401);
    await h.http
      .patch(`${API}/categories/${term.id}`)
      .auth(users.subscriber.login, users.subscriber.password)
      .send({ name: 'x' })
      .expect(403);
  });

  it('updates a tag through PUT and PATCH; the same checks apply', async () => {
    const tag = await createTerm(h.db, 'post_tag', 'Put Tag');
    await createTerm(h.db, 'post_tag', 'Put Taken');
    const res = await h.http
      .put(`${API}/tags/${tag.id}`)
      .auth(users.administrator.login, users.administrator.password)
      .send({ name: 'New Put Tag', slug: 'new-put-tag' })
      .expect(200);
    expect(res.body).toMatchObject({
      id: tag.id,
      name: 'New Put Tag',
      slug: 'new-put-tag',
      taxonomy: 'post_tag',
    });
    expect(res.body).not.toHaveProperty('parent');
    const patch = (body: object, as?: Credentials) => {
      const request = h.http.patch(`${API}/tags/${tag.id}`);
      if (as) request.auth(as.login, as.password);
      return request.send(body);
    };
    expect((await patch({ slug: 'put-taken' }, users.editor).expect(400)).body.code).toBe(
      'duplicate_term_slug',
    );
    expect((await patch({ name: 'put taken' }, users.editor).expect(400)).body.code).toBe('term_exists');
    await patch({ description: '' }).expect(401);
    expect((await patch({ description: '' }, users.editor).expect(400)).body.code).toBe('rest_invalid_param');
    await patch({ name: 'x' }, users.author).expect(403);
    expect(
      (
        await h.http
          .patch(`${API}/tags/987654`)
          .auth(users.editor.login, users.editor.password)
          .send({ name: 'x' })
          .expect(404)
      ).body.code,
    ).toBe('term-not-found');
  });

  it('returns a deleted category as it was, in the reference shape', async () => {
    const doomed = await createTerm(h.db, 'tribe_events_cat', 'Doomed');
    await createEvent(h.db, { termIds: [doomed.id] });
    const res = await h.http
      .delete(`${API}/categories/${doomed.id}`)
      .auth(users.editor.login, users.editor.password)
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
  });

  it('deletes a tag, and updates the counts and lists that mentioned it', async () => {
    const tag = await createTerm(h.db, 'post_tag', 'Ephemeral');
    const event = await createEvent(h.db, { termIds: [tag.id] });
    expect((await h.http.get(`${API}/tags?include=${tag.id}`).expect(200)).body.total).toBe(1);
    const res = await h.http
      .delete(`${API}/tags/${tag.id}`)
      .auth(users.editor.login, users.editor.password)
      .expect(200);
    expect(res.body).toMatchObject({ id: tag.id, count: 1, taxonomy: 'post_tag' });
    expect(res.body).not.toHaveProperty('parent');
    expect(res.body).not.toHaveProperty('_links');
    const { body } = await h.http.get(`${API}/events/${event.id}`).expect(200);
    expect(body.tags).toEqual([]);
    expect((await h.http.get(`${API}/tags/${tag.id}`).expect(404)).body.code).toBe('term-not-found');
  });

  it('never answers concurrent creates with a 500: one wins, the others get a 400', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => post('/categories').send({ name: 'Race Condition' })),
    );
    const statuses = results.map((res) => res.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 400)).toHaveLength(5);
    for (const res of results.filter((r) => r.status === 400))
      expect(['term_exists', 'duplicate_term_slug']).toContain(res.body.code);
    expect(await h.db.term.count({ where: { name: 'Race Condition' } })).toBe(1);
  });

  it('deletes once under concurrent deletes (200); the other requests find no term (404), never a 500', async () => {
    const term = await createTerm(h.db, 'tribe_events_cat', 'Deleted Twice');
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        h.http.delete(`${API}/categories/${term.id}`).auth(users.editor.login, users.editor.password),
      ),
    );
    const statuses = results.map((res) => res.status).sort();
    expect(statuses).toEqual([200, 404, 404, 404]);
  });
});

describe('what only GraphQL shows', () => {
  it('resolves a category’s parent to the parent category, and to null at the top level', async () => {
    const parent = await createTerm(h.db, 'tribe_events_cat', 'GQL Parent');
    const { data, errors } = await gql(
      `mutation($input: CreateCategoryInput!) {
        createCategory(input: $input) { id: databaseId name slug parent { id: databaseId name } } }`,
      { input: { name: 'GQL Parent', parentId: parent.id } },
      users.editor,
    );
    expect(errors).toBeUndefined();
    expect(data!.createCategory).toEqual({
      id: expect.any(Number),
      name: 'GQL Parent',
      slug: 'gql-parent-2',
      parent: { id: parent.id, name: 'GQL Parent' },
    });
    const top = await gql(
      `mutation($id: Int!, $input: UpdateCategoryInput!) {
        updateCategory(id: $id, input: $input) { parent { id: databaseId } } }`,
      // Renamed: at the top level its parent's name is taken.
      { id: data!.createCategory.id, input: { name: 'GQL Child', parentId: null } },
      users.editor,
    );
    expect(top.data!.updateCategory.parent).toBeNull();
  });

  it('refuses a missing name or a value of the wrong type before running, writing nothing', async () => {
    const graphqlAny = graphqlClient(() => h);
    const mutation =
      'mutation($input: CreateCategoryInput!) { createCategory(input: $input) { id: databaseId } }';
    for (const input of [{ description: 'x' }, { name: 12 }, { name: 'Typed', parentId: 'foo' }]) {
      const { data, errors } = await graphqlAny(mutation, { input }, users.editor);
      expect(data ?? null, JSON.stringify(input)).toBeNull();
      expect(errors?.[0]?.message, JSON.stringify(input)).toMatch(/^Variable "\$input" got invalid value/);
    }
    expect(await h.db.term.count({ where: { name: 'Typed' } })).toBe(0);
  });
});
