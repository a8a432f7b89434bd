import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness } from '../../helpers/harness.js';
import { createEvent, createVenue } from '../../helpers/fixtures.js';
import { type Users, startWithRoles } from '../../helpers/users.js';
import { graphqlClient } from '../../helpers/graphql.js';

// The venue mutations: the same validation, permissions, duplicate detection, trash and force rules
// as the REST routes, with the REST codes in `extensions`.

let h: Harness;
let users: Users;

const gql = graphqlClient(() => h);

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

const CREATE = `mutation($input: CreateVenueInput!) { createVenue(input: $input) {
  id: databaseId name slug status city stateProvince geoLat geoLng showMap website author { id: databaseId } } }`;

describe('createVenue', () => {
  it('refuses anonymous callers with rest_forbidden 401', async () => {
    const { errors } = await gql(CREATE, { input: { name: 'Anon Hall' } });
    expect(errors![0]!.extensions).toMatchObject({ code: 'rest_forbidden', http: { status: 401 } });
  });

  it('creates a venue from camelCase fields', async () => {
    const { data, errors } = await gql(
      CREATE,
      {
        input: {
          name: 'Graph Hall',
          city: 'Turin',
          stateProvince: 'Piedmont',
          geoLat: 45.07,
          geoLng: 7.69,
          showMap: false,
          website: 'https://graph.example',
        },
      },
      users.editor,
    );
    expect(errors).toBeUndefined();
    expect(data!.createVenue).toMatchObject({
      name: 'Graph Hall',
      slug: 'graph-hall',
      status: 'publish',
      city: 'Turin',
      stateProvince: 'Piedmont',
      geoLat: 45.07,
      geoLng: 7.69,
      showMap: false,
      website: 'https://graph.example',
      author: { id: users.editor.id },
    });
    const rest = await h.http.get(`${API}/venues/${data!.createVenue.id}`).expect(200);
    expect(rest.body).toMatchObject({ venue: 'Graph Hall', stateprovince: 'Piedmont', geo_lat: 45.07 });
  });

  it('validates with the REST codes, naming the camelCase input fields', async () => {
    const { errors } = await gql(
      CREATE,
      { input: { name: ' ', website: 'nope', geoLat: 100 } },
      users.editor,
    );
    expect(errors![0]!.extensions).toMatchObject({
      code: 'rest_invalid_param',
      http: { status: 400 },
      data: {
        params: { name: 'Invalid parameter.', website: 'Invalid parameter.', geoLat: 'Invalid parameter.' },
      },
    });
  });

  it('takes an image URL from those who may upload, a publication date, and an existing author', async () => {
    const query = `mutation($input: CreateVenueInput!) { createVenue(input: $input) { image { url } publishedAt author { id: databaseId } } }`;
    const { data, errors } = await gql(
      query,
      {
        input: {
          name: 'Pictured',
          image: 'https://img.example/p.webp',
          date: '2024-05-01 10:00:00',
          authorId: users.author.id,
        },
      },
      users.author,
    );
    expect(errors).toBeUndefined();
    expect(data!.createVenue).toEqual({
      image: { url: 'https://img.example/p.webp' },
      publishedAt: '2024-05-01T10:00:00.000Z',
      author: { id: users.author.id },
    });
    const refused = await gql(
      query,
      { input: { name: 'Refused', image: 'https://img.example/q.png' } },
      users.contributor,
    );
    expect(refused.errors![0]!.extensions.data.params).toEqual({ image: 'Invalid parameter.' });
    const unknownAuthor = await gql(query, { input: { name: 'Orphan', authorId: 999999 } }, users.editor);
    expect(unknownAuthor.errors![0]!.extensions.data.params).toEqual({ authorId: 'Invalid parameter.' });
  });

  it('returns the existing duplicate (D18) and scales a contributor status back', async () => {
    const first = await gql(CREATE, { input: { name: 'Twin Hall', city: 'Kyoto' } }, users.editor);
    const again = await gql(CREATE, { input: { name: 'twin hall', city: 'Osaka' } }, users.editor);
    expect(again.data!.createVenue).toMatchObject({ id: first.data!.createVenue.id, city: 'Kyoto' });
    const pending = await gql(
      CREATE,
      { input: { name: 'Contrib Hall', status: 'publish' } },
      users.contributor,
    );
    expect(pending.data!.createVenue.status).toBe('pending');
  });
});

describe('updateVenue, updateVenueBySlug', () => {
  const UPDATE = `mutation($id: Int!, $input: UpdateVenueInput!) { updateVenue(id: $id, input: $input) {
    name city address geoLat geoLng passwordProtected } }`;

  it('changes the fields given; "" clears text, null clears coordinates, others stay', async () => {
    const venue = await createVenue(h.db, { geoLat: 3, geoLng: 4 });
    const { data, errors } = await gql(
      UPDATE,
      { id: venue.id, input: { city: 'Nantes', address: '', geoLat: null, geoLng: null } },
      users.editor,
    );
    expect(errors).toBeUndefined();
    expect(data!.updateVenue).toEqual({
      name: venue.name,
      city: 'Nantes',
      address: '',
      geoLat: null,
      geoLng: null,
      passwordProtected: false,
    });
  });

  it('sets a password by id; the by-slug input has no password field', async () => {
    const venue = await createVenue(h.db, { slug: 'graph-pw', authorId: users.author.id });
    const { data } = await gql(UPDATE, { id: venue.id, input: { password: 'secret' } }, users.author);
    expect(data!.updateVenue.passwordProtected).toBe(true);
    const anonymous = await gql(`{ venue(id: ${venue.id}) { name address } }`);
    expect(anonymous.data!.venue).toEqual({ name: venue.name, address: '' });
    const bySlug = await gql(
      'mutation { updateVenueBySlug(slug: "graph-pw", input: { password: "x" }) { id: databaseId } }',
      {},
      users.author,
    );
    expect(bySlug.errors![0]!.message).toMatch(/password/);
    const renamed = await gql(
      'mutation { updateVenueBySlug(slug: "graph-pw", input: { name: "Renamed" }) { name slug } }',
      {},
      users.author,
    );
    expect(renamed.data!.updateVenueBySlug).toEqual({ name: 'Renamed', slug: 'graph-pw' });
  });

  it('404s unknown venues and 403s those who may not edit them', async () => {
    const missing = await gql(UPDATE, { id: 999999, input: { city: 'x' } }, users.editor);
    expect(missing.errors![0]!.extensions).toMatchObject({ code: 'venue-not-found', http: { status: 404 } });
    const venue = await createVenue(h.db, { authorId: users.editor.id });
    const refused = await gql(UPDATE, { id: venue.id, input: { city: 'x' } }, users.contributor);
    expect(refused.errors![0]!.extensions).toMatchObject({ code: 'rest_forbidden', http: { status: 403 } });
  });
});

describe('deleteVenue, deleteVenueBySlug', () => {
  it('trashes (unlinking events), then 410, and force deletes for good for editors', async () => {
    const venue = await createVenue(h.db, { slug: 'graph-doomed', authorId: users.author.id });
    const event = await createEvent(h.db, { venueIds: [venue.id] });
    const trashed = await gql(
      `mutation { deleteVenue(id: ${venue.id}) { id: databaseId status } }`,
      {},
      users.author,
    );
    expect(trashed.data!.deleteVenue).toEqual({ id: venue.id, status: 'trash' });
    expect(
      (await gql(`{ event(id: ${event.id}) { venues { id: databaseId } } }`)).data!.event.venues,
    ).toEqual([]);
    const again = await gql(
      'mutation { deleteVenueBySlug(slug: "graph-doomed") { id: databaseId } }',
      {},
      users.author,
    );
    expect(again.errors![0]!.extensions).toMatchObject({ code: 'venue-is-in-trash', http: { status: 410 } });
    const notEditor = await gql(
      `mutation { deleteVenue(id: ${venue.id}, force: true) { id: databaseId } }`,
      {},
      users.author,
    );
    expect(notEditor.errors![0]!.extensions.code).toBe('rest_forbidden');
    const purged = await gql(
      'mutation { deleteVenueBySlug(slug: "graph-doomed", force: true) { id: databaseId name } }',
      {},
      users.editor,
    );
    expect(purged.data!.deleteVenueBySlug).toEqual({ id: venue.id, name: venue.name });
    expect(await h.db.venue.findUnique({ where: { id: venue.id } })).toBeNull();
  });
});
