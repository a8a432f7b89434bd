import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness } from '../../helpers/harness.js';
import { createOrganizer, createTerm, createVenue } from '../../helpers/fixtures.js';
import { type Users, basicAuth, startWithRoles } from '../../helpers/users.js';

// GraphQL errors name the camelCase input fields a client sent (the REST routes name their own
// parameters for the same rules): venues, organizers, categories and tags.

let h: Harness;
let users: Users;

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
type Result = { errors?: Array<{ message: string; extensions: Record<string, any> }> };

async function errorOf(query: string, variables: Record<string, unknown>) {
  const res = await h.http
    .post('/graphql')
    .set('Authorization', basicAuth(users.editor))
    .send({ query, variables });
  const { errors } = res.body as Result;
  expect(errors, JSON.stringify(res.body)).toHaveLength(1);
  return errors![0]!;
}

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

const INVALID = 'Invalid parameter.';

describe('GraphQL input errors', () => {
  it('name the venue input fields', async () => {
    const create = 'mutation($input: CreateVenueInput!) { createVenue(input: $input) { id: databaseId } }';
    const error = await errorOf(create, {
      input: { name: 'Named Hall', authorId: 999999, dateUtc: 'nope', geoLng: 200, website: 'no url' },
    });
    expect(error.message).toBe('Invalid parameter(s): authorId, dateUtc, website, geoLng');
    expect(error.extensions).toMatchObject({
      code: 'rest_invalid_param',
      http: { status: 400 },
      data: { params: { authorId: INVALID, dateUtc: INVALID, website: INVALID, geoLng: INVALID } },
    });
    const venue = await createVenue(h.db, { slug: 'named-hall' });
    const update =
      'mutation($slug: String!, $input: UpdateVenueBySlugInput!) { updateVenueBySlug(slug: $slug, input: $input) { id: databaseId } }';
    const updated = await errorOf(update, { slug: venue.slug, input: { name: ' ', status: 'trash' } });
    expect(updated.extensions.data.params).toEqual({ name: INVALID, status: INVALID });
  });

  it('name the organizer input fields', async () => {
    const organizer = await createOrganizer(h.db, { slug: 'named-org' });
    const update =
      'mutation($id: Int!, $input: UpdateOrganizerInput!) { updateOrganizer(id: $id, input: $input) { id: databaseId } }';
    const error = await errorOf(update, {
      id: organizer.id,
      input: { authorId: -4, date: 'before my birthday', image: 'not-an-image' },
    });
    expect(error.message).toBe('Invalid parameter(s): authorId, date, image');
    expect(error.extensions.data.params).toEqual({ authorId: INVALID, date: INVALID, image: INVALID });
  });

  it('name the category and tag input fields', async () => {
    const create =
      'mutation($input: CreateCategoryInput!) { createCategory(input: $input) { id: databaseId } }';
    const error = await errorOf(create, { input: { name: 'Named', description: ' ', parentId: 987654 } });
    expect(error.message).toBe('Invalid parameter(s): description, parentId');
    expect(error.extensions.data.params).toEqual({ description: INVALID, parentId: INVALID });
    const top = await createTerm(h.db, 'tribe_events_cat', 'Named Top');
    const child = await h.db.term.create({
      data: { taxonomy: 'tribe_events_cat', name: 'Named Child', slug: 'named-child', parentId: top.id },
    });
    const update =
      'mutation($id: Int!, $input: UpdateCategoryInput!) { updateCategory(id: $id, input: $input) { id: databaseId } }';
    const cycle = await errorOf(update, { id: top.id, input: { parentId: child.id } });
    expect(Object.keys(cycle.extensions.data.params)).toEqual(['parentId']);
    const tag = await errorOf(
      'mutation($input: CreateTagInput!) { createTag(input: $input) { id: databaseId } }',
      {
        input: { name: 'x'.repeat(201), slug: '!!!' },
      },
    );
    expect(tag.extensions.data.params).toEqual({ name: INVALID, slug: INVALID });
  });
});
