import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness } from '../helpers/harness.js';
import { createEvent, createTerm } from '../helpers/fixtures.js';
import { type Users, startWithRoles } from '../helpers/users.js';
import { type GqlResult, graphqlClient } from '../helpers/graphql.js';

// GraphQL mutations for categories and tags: the REST rules, codes and statuses (extensions).

let h: Harness;
let users: Users;

const gql = graphqlClient(() => h, { status: 200 });

const errorOf = (result: GqlResult) => result.errors?.[0]?.extensions;

const CREATE_CATEGORY = `mutation($input: CreateCategoryInput!) {
  createCategory(input: $input) { id: databaseId name slug description count parent { id: databaseId name } }
}`;
const UPDATE_CATEGORY = `mutation($id: Int!, $input: UpdateCategoryInput!) {
  updateCategory(id: $id, input: $input) { id: databaseId name slug description parent { id: databaseId } }
}`;
const DELETE_CATEGORY =
  'mutation($id: Int!) { deleteCategory(id: $id) { id: databaseId name count parent { id: databaseId } } }';
const CREATE_TAG =
  'mutation($input: CreateTagInput!) { createTag(input: $input) { id: databaseId name slug description count } }';
const UPDATE_TAG =
  'mutation($id: Int!, $input: UpdateTagInput!) { updateTag(id: $id, input: $input) { id: databaseId name slug } }';
const DELETE_TAG = 'mutation($id: Int!) { deleteTag(id: $id) { id: databaseId name count } }';

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

describe('createCategory / createTag', () => {
  it('creates a category under a parent, deriving a unique slug', async () => {
    const parent = await createTerm(h.db, 'tribe_events_cat', 'GQL Parent');
    const { data, errors } = await gql(
      CREATE_CATEGORY,
      { input: { name: 'GQL Parent', parentId: parent.id, description: 'Child' } },
      users.editor,
    );
    expect(errors).toBeUndefined();
    expect(data!.createCategory).toEqual({
      id: expect.any(Number),
      name: 'GQL Parent',
      slug: 'gql-parent-2',
      description: 'Child',
      count: 0,
      parent: { id: parent.id, name: 'GQL Parent' },
    });
  });

  it('creates a tag, sanitising a given slug', async () => {
    const { data } = await gql(
      CREATE_TAG,
      { input: { name: 'Family Friendly', slug: 'Family  Friendly!' } },
      users.administrator,
    );
    expect(data!.createTag).toMatchObject({
      name: 'Family Friendly',
      slug: 'family-friendly',
      description: '',
      count: 0,
    });
  });

  it('refuses anonymous callers (401) and roles below editor (403, D8)', async () => {
    expect(errorOf(await gql(CREATE_CATEGORY, { input: { name: 'Nope' } }))).toEqual({
      code: 'rest_forbidden',
      http: { status: 401 },
    });
    for (const role of ['subscriber', 'contributor', 'author'] as const) {
      expect(errorOf(await gql(CREATE_TAG, { input: { name: 'Nope' } }, users[role])), role).toEqual({
        code: 'rest_forbidden',
        http: { status: 403 },
      });
    }
    expect(await h.db.term.count({ where: { name: 'Nope' } })).toBe(0);
  });

  it('checks the caller first (D22), then validates', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: '' }, 'name'],
      [{ name: 'ok', description: '' }, 'description'],
      [{ name: 'ok', slug: '' }, 'slug'],
      [{ name: 'ok', parentId: 987654 }, 'parentId'],
      [{ name: 'ok', parentId: -3 }, 'parentId'],
    ];
    for (const [input, param] of cases) {
      expect(errorOf(await gql(CREATE_CATEGORY, { input })), 'anonymous').toMatchObject({
        code: 'rest_forbidden',
        http: { status: 401 },
      });
      const error = errorOf(await gql(CREATE_CATEGORY, { input }, users.editor));
      expect(error, JSON.stringify(input)).toMatchObject({
        code: 'rest_invalid_param',
        http: { status: 400 },
        data: { params: { [param]: 'Invalid parameter.' } },
      });
    }
  });

  it('refuses a duplicate name with term_exists and the existing id', async () => {
    const existing = await createTerm(h.db, 'post_tag', 'Dup Tag');
    expect(errorOf(await gql(CREATE_TAG, { input: { name: 'DUP TAG' } }, users.editor))).toMatchObject({
      code: 'term_exists',
      http: { status: 400 },
      data: { term_id: existing.id },
    });
  });
});

describe('updateCategory / updateTag', () => {
  it('changes the given fields only; null or 0 moves a category to the top level', async () => {
    const parent = await createTerm(h.db, 'tribe_events_cat', 'Upd Parent');
    const term = await h.db.term.create({
      data: { taxonomy: 'tribe_events_cat', name: 'Upd', slug: 'upd', description: 'd', parentId: parent.id },
    });
    const renamed = await gql(UPDATE_CATEGORY, { id: term.id, input: { name: 'Updated' } }, users.editor);
    expect(renamed.data!.updateCategory).toEqual({
      id: term.id,
      name: 'Updated',
      slug: 'upd',
      description: 'd',
      parent: { id: parent.id },
    });
    const top = await gql(UPDATE_CATEGORY, { id: term.id, input: { parentId: null } }, users.editor);
    expect(top.data!.updateCategory.parent).toBeNull();
    await gql(UPDATE_CATEGORY, { id: term.id, input: { parentId: parent.id } }, users.editor);
    const zero = await gql(
      UPDATE_CATEGORY,
      { id: term.id, input: { parentId: 0, slug: 'new-upd' } },
      users.editor,
    );
    expect(zero.data!.updateCategory).toMatchObject({ slug: 'new-upd', parent: null });
  });

  it('refuses cycles, slug clashes (D7) and unknown ids (D1)', async () => {
    const top = await createTerm(h.db, 'tribe_events_cat', 'G Top');
    const child = await h.db.term.create({
      data: { taxonomy: 'tribe_events_cat', name: 'G Child', slug: 'g-child', parentId: top.id },
    });
    expect(
      errorOf(await gql(UPDATE_CATEGORY, { id: top.id, input: { parentId: child.id } }, users.editor)),
    ).toMatchObject({ code: 'rest_invalid_param', http: { status: 400 } });
    expect(
      errorOf(await gql(UPDATE_CATEGORY, { id: top.id, input: { slug: 'g-child' } }, users.editor)),
    ).toMatchObject({ code: 'duplicate_term_slug', http: { status: 400 } });
    expect(
      errorOf(await gql(UPDATE_CATEGORY, { id: 987654, input: { name: 'x' } }, users.editor)),
    ).toMatchObject({
      code: 'term-not-found',
      http: { status: 404 },
    });
    const tag = await createTerm(h.db, 'post_tag', 'G Tag');
    expect(
      errorOf(await gql(UPDATE_CATEGORY, { id: tag.id, input: { name: 'x' } }, users.editor)),
    ).toMatchObject({ code: 'term-not-found' });
  });

  it('updates a tag; authors may not', async () => {
    const tag = await createTerm(h.db, 'post_tag', 'Old GQL Tag');
    expect(errorOf(await gql(UPDATE_TAG, { id: tag.id, input: { name: 'x' } }, users.author))).toEqual({
      code: 'rest_forbidden',
      http: { status: 403 },
    });
    const { data } = await gql(UPDATE_TAG, { id: tag.id, input: { name: 'New GQL Tag' } }, users.editor);
    expect(data!.updateTag).toEqual({ id: tag.id, name: 'New GQL Tag', slug: 'old-gql-tag' });
  });
});

describe('deleteCategory / deleteTag', () => {
  it('returns the category as it was (count and parent included) and moves its children up', async () => {
    const grandparent = await createTerm(h.db, 'tribe_events_cat', 'Del GP');
    const term = await h.db.term.create({
      data: { taxonomy: 'tribe_events_cat', name: 'Del Me', slug: 'del-me', parentId: grandparent.id },
    });
    const child = await h.db.term.create({
      data: { taxonomy: 'tribe_events_cat', name: 'Del Child', slug: 'del-child', parentId: term.id },
    });
    await createEvent(h.db, { termIds: [term.id] });
    const { data, errors } = await gql(DELETE_CATEGORY, { id: term.id }, users.editor);
    expect(errors).toBeUndefined();
    expect(data!.deleteCategory).toEqual({
      id: term.id,
      name: 'Del Me',
      count: 1,
      parent: { id: grandparent.id },
    });
    expect((await h.db.term.findUnique({ where: { id: child.id } }))!.parentId).toBe(grandparent.id);
    expect(errorOf(await gql(DELETE_CATEGORY, { id: term.id }, users.editor))).toMatchObject({
      code: 'term-not-found',
      http: { status: 404 },
    });
  });

  it('deletes a tag; 401 anonymously, 403 for contributors', async () => {
    const tag = await createTerm(h.db, 'post_tag', 'Del Tag');
    expect(errorOf(await gql(DELETE_TAG, { id: tag.id }))).toEqual({
      code: 'rest_forbidden',
      http: { status: 401 },
    });
    expect(errorOf(await gql(DELETE_TAG, { id: tag.id }, users.contributor))).toEqual({
      code: 'rest_forbidden',
      http: { status: 403 },
    });
    const { data } = await gql(DELETE_TAG, { id: tag.id }, users.administrator);
    expect(data!.deleteTag).toEqual({ id: tag.id, name: 'Del Tag', count: 0 });
    expect(await h.db.term.findUnique({ where: { id: tag.id } })).toBeNull();
  });
});
