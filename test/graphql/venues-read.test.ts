import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, SITE_URL, startHarness } from '../helpers/harness.js';
import { createEvent, createVenue } from '../helpers/fixtures.js';
import { type Users, createUser, startWithRoles } from '../helpers/users.js';
import { graphqlClient } from '../helpers/graphql.js';

// The GraphQL side of the venue reads: the same records, filters, visibility and errors as REST.

let h: Harness;
let users: Users;
const ids: Record<string, number> = {};

const gql = graphqlClient(() => h, { status: 200 });

beforeAll(async () => {
  ({ h, users } = await startWithRoles());
  const media = await h.db.media.create({
    data: { url: 'http://img.example/opera.jpg', width: 10, height: 10 },
  });
  const opera = await createVenue(h.db, {
    name: 'Opera',
    slug: 'opera',
    geoLat: 48.87,
    geoLng: 2.33,
    imageId: media.id,
    authorId: users.editor.id,
  });
  const draft = await createVenue(h.db, { name: 'Draft Venue', slug: 'draft-venue', status: 'draft' });
  const locked = await createVenue(h.db, {
    name: 'Locked',
    slug: 'locked',
    password: 'pw',
    imageId: media.id,
    geoLat: 1,
    geoLng: 1,
  });
  const event = await createEvent(h.db, { venueIds: [opera.id, draft.id] });
  Object.assign(ids, { opera: opera.id, draft: draft.id, locked: locked.id, event: event.id });
});
afterAll(() => h.close());

const FIELDS = `id: databaseId slug name description url address city stateProvince zip website showMap showMapLink geoLat geoLng
  passwordProtected status image { url } author { id: databaseId name }`;

describe('venue, venueBySlug', () => {
  it('reads a venue with its relations', async () => {
    const { data, errors } = await gql(`query($id: Int!) { venue(id: $id) { ${FIELDS} } }`, {
      id: ids.opera,
    });
    expect(errors).toBeUndefined();
    expect(data!.venue).toEqual({
      id: ids.opera,
      slug: 'opera',
      name: 'Opera',
      description: '',
      url: `${SITE_URL}/venue/opera/`,
      address: '1 Main St',
      city: 'Springfield',
      stateProvince: 'IL',
      zip: '62701',
      website: 'http://example.com',
      showMap: true,
      showMapLink: true,
      geoLat: 48.87,
      geoLng: 2.33,
      passwordProtected: false,
      status: 'publish',
      image: { url: 'http://img.example/opera.jpg' },
      author: { id: users.editor.id, name: users.editor.login },
    });
    const bySlug = await gql('{ venueBySlug(slug: "opera") { id: databaseId } }');
    expect(bySlug.data!.venueBySlug.id).toBe(ids.opera);
  });

  it('gives the REST codes in extensions: 404 venue-not-found, 403 venue-not-accessible', async () => {
    const missing = await gql('{ venue(id: 999999) { id: databaseId } }');
    expect(missing.errors![0]!.extensions).toMatchObject({ code: 'venue-not-found', http: { status: 404 } });
    const bySlug = await gql('{ venueBySlug(slug: "none") { id: databaseId } }');
    expect(bySlug.errors![0]!.extensions.code).toBe('venue-not-found');
    const draft = await gql(`{ venue(id: ${ids.draft}) { id: databaseId } }`);
    expect(draft.errors![0]!.extensions).toMatchObject({
      code: 'venue-not-accessible',
      http: { status: 403 },
    });
    expect(
      (await gql(`{ venue(id: ${ids.draft}) { id: databaseId } }`, {}, users.editor)).data!.venue.id,
    ).toBe(ids.draft);
  });

  it('hides the content of a password-protected venue from those who may not edit it (D6)', async () => {
    const query = `{ venue(id: ${ids.locked}) { name address website geoLat showMap image { url } passwordProtected } }`;
    expect((await gql(query)).data!.venue).toEqual({
      name: 'Locked',
      address: '',
      website: null,
      geoLat: null,
      showMap: null,
      image: null,
      passwordProtected: true,
    });
    expect((await gql(query, {}, users.editor)).data!.venue).toMatchObject({
      address: '1 Main St',
      geoLat: 1,
      image: { url: 'http://img.example/opera.jpg' },
    });
  });
});

describe('venues', () => {
  it('filters as REST does, with page info', async () => {
    const query = `query($filter: VenueFilter) { venues(filter: $filter) { pageInfo { total totalPages } items { name } } }`;
    const all = await gql(query);
    expect(all.data!.venues.items.map((venue: { name: string }) => venue.name).sort()).toEqual([
      'Locked',
      'Opera',
    ]);
    const ofEvent = await gql(query, { filter: { event: ids.event } }, users.editor);
    expect(ofEvent.data!.venues.items.map((venue: { name: string }) => venue.name).sort()).toEqual([
      'Draft Venue',
      'Opera',
    ]);
    const upcoming = await gql(query, { filter: { onlyWithUpcoming: true, hasEvents: true, search: 'OPE' } });
    expect(upcoming.data!.venues).toEqual({
      pageInfo: { total: 1, totalPages: 1 },
      items: [{ name: 'Opera' }],
    });
    const empty = await gql(query, { filter: { hasEvents: false } });
    expect(empty.data!.venues.items).toEqual([{ name: 'Locked' }]);
  });

  it('applies the status rules and the event check with REST error codes', async () => {
    const drafts = await gql('{ venues(filter: { status: [draft] }) { items { name } } }');
    expect(drafts.errors![0]!.extensions).toMatchObject({
      code: 'rest_invalid_param',
      http: { status: 400 },
    });
    const forEditor = await gql(
      '{ venues(filter: { status: [draft] }) { items { name } } }',
      {},
      users.editor,
    );
    expect(forEditor.data!.venues.items).toEqual([{ name: 'Draft Venue' }]);
    const unknown = await gql('{ venues(filter: { event: 999999 }) { items { name } } }');
    expect(unknown.errors![0]!.extensions.data).toMatchObject({ params: { event: 'Invalid parameter.' } });
    const beyond = await gql('{ venues(page: 5) { items { name } } }');
    expect(beyond.errors![0]!.extensions).toMatchObject({
      code: 'venue-archive-page-not-found',
      http: { status: 404 },
    });
  });
});

describe('SQL statements per venue list', () => {
  let big: Harness;
  beforeAll(async () => {
    big = await startHarness();
    const owner = await createUser(big, 'author');
    const media = await big.db.media.create({ data: { url: 'http://img.example/x.jpg' } });
    for (let i = 0; i < 60; i++) await createVenue(big.db, { authorId: owner.id, imageId: media.id });
  });
  afterAll(() => big.close());

  async function countQueries(run: () => Promise<unknown>): Promise<number> {
    big.queries.length = 0;
    await run();
    return big.queries.length;
  }

  it('is the same for 10 and 50 venues, in REST and GraphQL', async () => {
    const rest = (perPage: number) => () => big.http.get(`${API}/venues?per_page=${perPage}`).expect(200);
    expect(await countQueries(rest(50))).toBe(await countQueries(rest(10)));
    const graphql = (perPage: number) => async () => {
      const res = await big.http
        .post('/graphql')
        .send({ query: `{ venues(perPage: ${perPage}) { items { name image { url } author { name } } } }` })
        .expect(200);
      expect(res.body.data.venues.items).toHaveLength(perPage);
    };
    const ten = await countQueries(graphql(10));
    expect(await countQueries(graphql(50))).toBe(ten);
    expect(ten).toBeLessThanOrEqual(5);
  });
});
