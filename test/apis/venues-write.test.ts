import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, SITE_URL } from '../helpers/harness.js';
import { createEvent, createVenue } from '../helpers/fixtures.js';
import { linkedPostApis, linkedPostWriteApis } from '../helpers/apis.js';
import { graphqlClient } from '../helpers/graphql.js';
import { type Credentials, type Users, startWithRoles } from '../helpers/users.js';

// Venue writes on both APIs: POST /venues, POST|PUT|PATCH /venues/{id} and /venues/by-slug/{slug},
// DELETE of both (docs/reference.md §3.2, §4.1, §6.4, §8; D1, D4, D6, D18, D19, D22 and the `password`
// extension: VenueInsertionCest, VenueUpdateCest, VenueDeletionCest and the venue rows of
// AuthorizationCest) and GraphQL's createVenue, updateVenue[BySlug] and deleteVenue[BySlug] — the same
// validation, permissions, duplicate detection, trash and force rules, with the REST codes in
// `extensions` (one table), then what only REST shows (the reference's keys, form bodies, string
// and number forms, every method) and what only GraphQL shows.

let h: Harness;
let users: Users;

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

const FIELDS = `id: databaseId name slug status description address city country province state stateProvince zip
  phone website geoLat geoLng showMap showMapLink passwordProtected image { url } author { id: databaseId }`;

const [restWrite, graphqlWrite] = linkedPostWriteApis(() => h, 'venue', FIELDS);
const [restRead, graphqlRead] = linkedPostApis(() => h, 'venue', FIELDS);
const gql = graphqlClient(() => h, { status: 200 });

/** The venue ids an event links, as each API shows them (REST: one object, or [] without one). */
const linked = {
  REST: async (event: number) => {
    const { venue } = (await h.http.get(`${API}/events/${event}`).expect(200)).body;
    return Array.isArray(venue) ? venue.map((one: { id: number }) => one.id) : [venue.id];
  },
  GraphQL: async (event: number) =>
    (await gql(`{ event(id: ${event}) { venues { id: databaseId } } }`)).data!.event.venues.map(
      (one: { id: number }) => one.id,
    ),
};

describe.each([
  { name: 'REST', write: restWrite, read: restRead },
  { name: 'GraphQL', write: graphqlWrite, read: graphqlRead },
] as const)('$name: venue writes', ({ name, write: api, read }) => {
  /** A name of this row's own, so that the rows' duplicates do not meet. */
  const own = (venue: string) => `${venue} ${name}`;
  const authorOf = (body: { author: unknown }) =>
    api === restWrite ? Number(body.author) : (body.author as { id: number }).id;

  it('refuses anonymous callers with 401 and subscribers with 403', async () => {
    expect(await api.create({ name: own('Nope') })).toMatchObject({ status: 401, code: 'rest_forbidden' });
    expect(await api.create({ name: own('Nope') }, users.subscriber)).toMatchObject({
      status: 403,
      code: 'rest_forbidden',
    });
    expect(await h.db.venue.count({ where: { name: own('Nope') } })).toBe(0);
  });

  it('creates a venue from its fields', async () => {
    const created = await api.create(
      {
        name: own('Graph Hall'),
        city: 'Turin',
        stateProvince: 'Piedmont',
        geoLat: 45.07,
        geoLng: 7.69,
        showMap: false,
        website: 'https://graph.example',
      },
      users.editor,
    );
    expect(created.status).toBe(api.created);
    expect(created.body).toMatchObject({
      name: own('Graph Hall'),
      slug: `graph-hall-${name.toLowerCase()}`,
      status: 'publish',
      city: 'Turin',
      stateProvince: 'Piedmont',
      geoLat: 45.07,
      geoLng: 7.69,
      showMap: false,
      website: 'https://graph.example',
    });
    expect(authorOf(created.body)).toBe(users.editor.id);
    const rest = await h.http.get(`${API}/venues/${created.body.id}`).expect(200);
    expect(rest.body).toMatchObject({ venue: own('Graph Hall'), stateprovince: 'Piedmont', geo_lat: 45.07 });
  });

  it('fills stateProvince from province or state when it is not sent (as TEC)', async () => {
    const ontario = await api.create({ name: own('Toronto Hall'), province: 'Ontario' }, users.editor);
    expect(ontario.body).toMatchObject({ province: 'Ontario', stateProvince: 'Ontario' });
    const texas = await api.create({ name: own('Austin Hall'), state: 'TX' }, users.editor);
    expect(texas.body.stateProvince).toBe('TX');
    const both = await api.create(
      { name: own('Both Hall'), state: 'TX', stateProvince: 'Texas' },
      users.editor,
    );
    expect(both.body.stateProvince).toBe('Texas');
  });

  it('refuses the caller before validating (D22), then names every bad field of one 400', async () => {
    const bad = { name: ' ', website: 'nope', geoLat: 100 };
    expect((await api.create(bad)).status).toBe(401);
    expect((await api.create(bad, users.subscriber)).status).toBe(403);
    const refused = await api.create(bad, users.editor);
    expect(refused).toMatchObject({ status: 400, code: 'rest_invalid_param' });
    expect(refused.data.params).toEqual({
      [api.param('name')]: 'Invalid parameter.',
      website: 'Invalid parameter.',
      [api.param('geoLat')]: 'Invalid parameter.',
    });
  });

  it('lets only editors attribute a venue to someone else, and only to someone who exists', async () => {
    expect(
      (await api.create({ name: own('Borrowed Hall'), authorId: users.editor.id }, users.author)).status,
    ).toBe(403);
    const mine = await api.create({ name: own('Own Hall'), authorId: users.author.id }, users.author);
    expect([mine.status, authorOf(mine.body)]).toEqual([api.created, users.author.id]);
    const orphan = await api.create({ name: own('Orphan'), authorId: 999999 }, users.editor);
    expect(orphan.data.params).toEqual({ [api.param('authorId')]: 'Invalid parameter.' });
  });

  it('scales the status back for contributors: none → draft, publish → pending', async () => {
    expect((await api.create({ name: own('Contrib Draft') }, users.contributor)).body.status).toBe('draft');
    expect(
      (await api.create({ name: own('Contrib Pending'), status: 'publish' }, users.contributor)).body.status,
    ).toBe('pending');
    expect((await api.create({ name: own('Author Draft'), status: 'draft' }, users.author)).body.status).toBe(
      'draft',
    );
  });

  it('takes an image as a media id or (with the upload capability) a URL', async () => {
    const media = await h.db.media.create({
      data: { url: 'http://img.example/a.png', mimeType: 'image/png' },
    });
    const byId = await api.create({ name: own('Pictured Hall'), image: String(media.id) }, users.contributor);
    expect(byId.body.image).toMatchObject({ url: 'http://img.example/a.png' });
    if (api === restWrite) expect(byId.body.image).toMatchObject({ id: media.id, extension: 'png' });
    const byUrl = await api.create(
      { name: own('Linked Hall'), image: 'https://img.example/b.jpg' },
      users.author,
    );
    expect(byUrl.body.image).toMatchObject({ url: 'https://img.example/b.jpg' });
    if (api === restWrite) expect(byUrl.body.image.id).toEqual(expect.any(Number));
    const refused = await api.create(
      { name: own('Refused Hall'), image: 'https://img.example/c.jpg' },
      users.contributor,
    );
    expect([refused.status, refused.data.params]).toEqual([400, { image: 'Invalid parameter.' }]);
    expect(
      (await api.create({ name: own('Missing Image Hall'), image: '999999' }, users.editor)).status,
    ).toBe(400);
  });

  it('answers an image id beyond 32 bits with 400 on image, not 500', async () => {
    const huge = await api.create({ name: own('Huge image id'), image: '99999999999' }, users.editor);
    expect([huge.status, huge.data.params]).toEqual([400, { image: expect.any(String) }]);
  });

  it('returns the existing venue for a duplicate (same name any case; description when sent), unchanged (D18)', async () => {
    const first = await api.create(
      { name: own('A venue'), description: 'A venue description', city: 'Rome' },
      users.editor,
    );
    const again = await api.create({ name: own('A venue') }, users.editor);
    const lower = await api.create(
      { name: own('a venue'), country: 'Italy', phone: '123', city: 'Osaka' },
      users.editor,
    );
    const sameDescription = await api.create(
      { name: own('A VENUE'), description: 'a venue DESCRIPTION' },
      users.editor,
    );
    expect([again.status, lower.status, sameDescription.status]).toEqual([
      api.created,
      api.created,
      api.created,
    ]);
    expect([again.body.id, lower.body.id, sameDescription.body.id]).toEqual([
      first.body.id,
      first.body.id,
      first.body.id,
    ]);
    expect(lower.body).toMatchObject({ city: 'Rome' });
    if (api === restWrite) expect(lower.raw).not.toHaveProperty('phone');
    else expect(lower.body.phone).toBe('');
    const other = await api.create({ name: own('A venue'), description: 'Another one' }, users.editor);
    expect(other.body.id).not.toBe(first.body.id);
    expect(other.body.slug).toBe(`a-venue-${name.toLowerCase()}-2`);
    const names = [own('A venue'), own('a venue'), own('A VENUE')];
    expect(await h.db.venue.count({ where: { name: { in: names } } })).toBe(2);
  });

  it('creates one venue when the same one is posted several times at once', async () => {
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map(() => api.create({ name: own('Rush Hall') }, users.editor)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(5).fill(api.created));
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
    expect(await h.db.venue.count({ where: { name: own('Rush Hall') } })).toBe(1);
  });

  it('does not match trashed venues, and keeps slugs unique', async () => {
    const slug = `old-barn-${name.toLowerCase()}`;
    const trashed = await createVenue(h.db, { name: own('Old Barn'), slug, status: 'trash' });
    const created = await api.create({ name: own('Old Barn') }, users.editor);
    expect(created.body.id).not.toBe(trashed.id);
    expect(created.body.slug).toBe(`${slug}-2`);
  });

  it('updates the fields sent; empty strings clear text and coordinates, the others stay', async () => {
    const venue = await createVenue(h.db, { name: 'Update Hall', geoLat: 1, geoLng: 2 });
    const updated = await api.update(
      { id: venue.id },
      {
        name: 'Renamed Hall',
        city: 'Berlin',
        address: '',
        phone: '',
        ...(api === restWrite ? { geoLat: '' } : { geoLat: null, geoLng: null }),
      },
      users.editor,
    );
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id: venue.id,
      name: 'Renamed Hall',
      city: 'Berlin',
      slug: venue.slug,
      zip: '62701',
    });
    // REST drops a cleared field's key; GraphQL answers "" (null for a coordinate).
    if (api === restWrite) {
      for (const key of ['address', 'phone', 'geo_lat', 'json_ld'])
        expect(updated.raw).not.toHaveProperty(key);
    } else
      expect(updated.body).toMatchObject({
        address: '',
        phone: '',
        geoLat: null,
        geoLng: null,
        passwordProtected: false,
      });
    await api.update({ id: venue.id }, { zip: '10115' }, users.editor);
    const again = await api.update({ id: venue.id }, { showMap: false }, users.editor);
    expect(again.body).toMatchObject({ zip: '10115', city: 'Berlin', showMap: false, showMapLink: true });
  });

  it('400s an empty name or bad values; omitted fields (status included) stay', async () => {
    const venue = await createVenue(h.db, { status: 'draft' });
    const empty = await api.update({ id: venue.id }, { name: '' }, users.editor);
    expect([empty.status, empty.data.params]).toEqual([400, { [api.param('name')]: 'Invalid parameter.' }]);
    expect((await api.update({ id: venue.id }, { website: 'not a url' }, users.editor)).status).toBe(400);
    expect((await api.update({ id: venue.id }, { city: 'Oslo' }, users.editor)).body.status).toBe('draft');
  });

  it('allows a venue to become identical to another', async () => {
    await createVenue(h.db, { name: own('Twin') });
    const other = await createVenue(h.db, { name: 'Not Twin' });
    expect((await api.update({ id: other.id }, { name: own('Twin') }, users.editor)).body.name).toBe(
      own('Twin'),
    );
  });

  it('answers an unknown id with 404 venue-not-found to editors (D1); others as for a venue they may not edit (D22)', async () => {
    expect(await api.update({ id: 999999 }, { city: 'x' }, users.editor)).toMatchObject({
      status: 404,
      code: 'venue-not-found',
    });
    expect(await api.update({ id: 999999 }, { city: 'x' })).toMatchObject({
      status: 401,
      code: 'rest_forbidden',
    });
    expect(await api.update({ id: 999999 }, { city: 'x' }, users.contributor)).toMatchObject({
      status: 403,
      code: 'rest_forbidden',
    });
  });

  it('401s anonymous and 403s those who may not edit it before validating (D22)', async () => {
    const venue = await createVenue(h.db, { authorId: users.administrator.id });
    const key = { id: venue.id };
    const statuses = [
      (await api.update(key, { website: 'foo' })).status,
      (await api.update(key, { website: 'foo' }, users.subscriber)).status,
      (await api.update(key, { website: 'foo' }, users.editor)).status,
      (await api.update(key, { city: 'x' })).status,
      (await api.update(key, { city: 'x' }, users.contributor)).status,
      (await api.update(key, { city: 'x' }, users.subscriber)).status,
      (await api.update(key, { city: 'x' }, users.author)).status,
      (await api.update(key, { city: 'Edited' }, users.editor)).status,
    ];
    expect(statuses).toEqual([401, 403, 400, 401, 403, 403, 403, 200]);
  });

  it('lets a contributor edit their own draft, and scales a publish request back to pending', async () => {
    const mine = await createVenue(h.db, { status: 'draft', authorId: users.contributor.id });
    const updated = await api.update({ id: mine.id }, { city: 'Mine', status: 'publish' }, users.contributor);
    expect(updated.body).toMatchObject({ city: 'Mine', status: 'pending' });
  });

  it('sets and removes the password by id (extension); anonymous readers then see it scrubbed', async () => {
    const venue = await createVenue(h.db, { name: 'Guarded', authorId: users.author.id });
    const locked = await api.update({ id: venue.id }, { password: 'open sesame' }, users.author);
    expect(locked.status).toBe(200);
    if (api === graphqlWrite) expect(locked.body.passwordProtected).toBe(true);
    expect((await h.db.venue.findUniqueOrThrow({ where: { id: venue.id } })).password).toBe('open sesame');
    const scrubbed = await read.read({ id: venue.id });
    expect(scrubbed.status).toBe(200);
    expect([scrubbed.body[api === restWrite ? 'venue' : 'name'], scrubbed.body.address]).toEqual([
      'Guarded',
      '',
    ]);
    expect((await api.update({ id: venue.id }, { password: '' }, users.author)).status).toBe(200);
    expect((await read.read({ id: venue.id })).body.address).toBe('1 Main St');
  });

  it('updates by slug as by id; 404s an unknown slug', async () => {
    const venue = await createVenue(h.db, { name: 'Slug Hall' });
    const updated = await api.update({ slug: venue.slug }, { city: 'Madrid', name: 'Renamed' }, users.editor);
    expect(updated.body).toMatchObject({ id: venue.id, city: 'Madrid', name: 'Renamed', slug: venue.slug });
    expect(await api.update({ slug: 'no-such-hall' }, { city: 'x' }, users.editor)).toMatchObject({
      status: 404,
      code: 'venue-not-found',
    });
  });

  it('trashes: 200 with the venue, 410 venue-is-in-trash the second time, by id or by slug', async () => {
    const venue = await createVenue(h.db, { name: 'Doomed' });
    const trashed = await api.remove({ id: venue.id }, false, users.editor);
    expect(trashed.status).toBe(200);
    expect(trashed.body).toMatchObject({ id: venue.id, name: 'Doomed', status: 'trash' });
    for (const key of [{ id: venue.id }, { slug: venue.slug }])
      expect(await api.remove(key, false, users.editor)).toMatchObject({
        status: 410,
        code: 'venue-is-in-trash',
      });
  });

  it('unlinks the trashed venue from its events', async () => {
    const venue = await createVenue(h.db);
    const event = await createEvent(h.db, { venueIds: [venue.id] });
    expect(await linked[name](event.id)).toEqual([venue.id]);
    expect((await api.remove({ id: venue.id }, false, users.editor)).status).toBe(200);
    expect(await linked[name](event.id)).toEqual([]);
  });

  it('404s unknown ids to editors (D1); 401s anonymous; 403s those who may not delete it, known or not', async () => {
    expect(await api.remove({ id: 999999 }, false, users.editor)).toMatchObject({
      status: 404,
      code: 'venue-not-found',
    });
    expect(await api.remove({ id: 999999 })).toMatchObject({ status: 401, code: 'rest_forbidden' });
    expect(await api.remove({ id: 999999 }, false, users.contributor)).toMatchObject({
      status: 403,
      code: 'rest_forbidden',
    });
    const venue = await createVenue(h.db, { authorId: users.administrator.id });
    expect((await api.remove({ id: venue.id })).status).toBe(401);
    expect((await api.remove({ id: venue.id }, false, users.contributor)).status).toBe(403);
    const mine = await createVenue(h.db, { status: 'draft', authorId: users.contributor.id });
    expect((await api.remove({ id: mine.id }, false, users.contributor)).status).toBe(200);
  });

  it('force deletes for good (editors and administrators only, D4), by id or slug, even from the trash', async () => {
    const venue = await createVenue(h.db, { name: 'Purged', authorId: users.author.id });
    const event = await createEvent(h.db, { venueIds: [venue.id] });
    expect(await api.remove({ id: venue.id }, true, users.author)).toMatchObject({
      status: 403,
      code: 'rest_forbidden',
    });
    const purged = await api.remove({ id: venue.id }, true, users.editor);
    expect(purged.status).toBe(200);
    expect(purged.body).toMatchObject({ id: venue.id, name: 'Purged', status: 'publish' });
    expect((await read.read({ id: venue.id })).status).toBe(404);
    expect(await linked[name](event.id)).toEqual([]);

    const trashed = await createVenue(h.db, { status: 'trash' });
    const fromTrash = await api.remove({ slug: trashed.slug }, true, users.administrator);
    expect([fromTrash.status, fromTrash.body.id]).toEqual([200, trashed.id]);
    expect(await h.db.venue.findUnique({ where: { id: trashed.id } })).toBeNull();
  });

  it('trashes by slug, 410 the second time, 404 for an unknown slug', async () => {
    const venue = await createVenue(h.db, { name: 'Slugged' });
    const trashed = await api.remove({ slug: venue.slug }, false, users.editor);
    expect(trashed.body).toMatchObject({ id: venue.id, status: 'trash' });
    expect((await api.remove({ slug: venue.slug }, false, users.editor)).status).toBe(410);
    expect((await api.remove({ slug: 'never-was' }, false, users.editor)).status).toBe(404);
  });
});

describe('REST only', () => {
  const create = (body: object, as?: Credentials) => {
    const request = h.http.post(`${API}/venues`);
    if (as) request.auth(as.login, as.password);
    return request.send(body);
  };

  const update = (path: string, body: object, as?: Credentials, method: 'post' | 'put' | 'patch' = 'put') => {
    const request = h.http[method](`${API}/venues/${path}`);
    if (as) request.auth(as.login, as.password);
    return request.send(body);
  };

  const remove = (path: string, as?: Credentials) => {
    const request = h.http.delete(`${API}/venues/${path}`);
    if (as) request.auth(as.login, as.password);
    return request;
  };

  const FULL = {
    venue: 'White House',
    description: 'The residence',
    address: '1600 Pennsylvania Ave',
    city: 'Washington',
    country: 'United States',
    province: 'DC province',
    state: 'DC',
    stateprovince: 'District of Columbia',
    zip: '20500',
    phone: '+1 202 456 1111',
    website: 'https://www.whitehouse.gov',
    show_map: 'false',
    show_map_link: true,
    geo_lat: 38.8977,
    geo_lng: '-77.0365',
  };

  it("refuses anonymous callers with the reference's 401 body", async () => {
    expect((await create({ venue: 'Nope' }).expect(401)).body).toEqual({
      code: 'rest_forbidden',
      message: 'Sorry, you are not allowed to do that.',
      data: { status: 401, request_id: expect.any(String) },
    });
  });

  it('creates the venue from every field in string forms: 201 with the reference representation (no json_ld)', async () => {
    const res = await create(FULL, users.editor).expect(201);
    expect(res.body).toMatchObject({
      author: String(users.editor.id),
      status: 'publish',
      url: `${SITE_URL}/venue/white-house/`,
      venue: 'White House',
      // wpautop, as WordPress renders post content.
      description: '<p>The residence</p>',
      slug: 'white-house',
      address: '1600 Pennsylvania Ave',
      city: 'Washington',
      country: 'United States',
      province: 'DC province',
      state: 'DC',
      zip: '20500',
      phone: '+1 202 456 1111',
      website: 'https://www.whitehouse.gov',
      stateprovince: 'District of Columbia',
      geo_lat: 38.8977,
      geo_lng: -77.0365,
      show_map: false,
      show_map_link: true,
    });
    expect(res.body).not.toHaveProperty('json_ld');
    expect(Object.keys(res.body)).toEqual([
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'venue',
      'description',
      'slug',
      'address',
      'city',
      'country',
      'province',
      'state',
      'zip',
      'phone',
      'website',
      'stateprovince',
      'geo_lat',
      'geo_lng',
      'show_map',
      'show_map_link',
      'global_id',
      'global_id_lineage',
    ]);
    const stored = await h.db.venue.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(stored).toMatchObject({ authorId: users.editor.id, showMap: false, showMapLink: true });
  });

  it('takes form-encoded bodies as WordPress clients send them', async () => {
    const res = await h.http
      .post(`${API}/venues`)
      .auth(users.editor.login, users.editor.password)
      .type('form')
      .send('venue=Form+Hall&city=Lyon&show_map=0&show_map_link=yes')
      .expect(201);
    expect(res.body).toMatchObject({
      venue: 'Form Hall',
      city: 'Lyon',
      show_map: false,
      show_map_link: true,
    });
  });

  it('requires `venue`: missing → rest_missing_callback_param (after permissions, D22)', async () => {
    await create({ city: 'Paris' }).expect(401);
    await create({ city: 'Paris' }, users.subscriber).expect(403);
    expect((await create({ city: 'Paris' }, users.editor).expect(400)).body).toEqual({
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): venue',
      data: { status: 400, request_id: expect.any(String), params: ['venue'] },
    });
  });

  it('names every bad parameter in one 400', async () => {
    const res = await create(
      {
        venue: 'Bad Hall',
        website: 'foo',
        status: 'kinda_thinking_about_it',
        author: 999999,
        date: 'before my birthday',
        date_utc: 'nope',
        geo_lat: 91,
        geo_lng: 'east',
        image: 'not-an-image',
        city: ['array'],
      },
      users.administrator,
    ).expect(400);
    expect(res.body.code).toBe('rest_invalid_param');
    expect(Object.keys(res.body.data.params).sort()).toEqual(
      ['author', 'city', 'date', 'date_utc', 'geo_lat', 'geo_lng', 'image', 'status', 'website'].sort(),
    );
    expect(await h.db.venue.count({ where: { name: 'Bad Hall' } })).toBe(0);
  });

  it('accepts JSON numbers and booleans wherever their string forms are (D19)', async () => {
    const res = await create(
      { venue: 'Numbers Hall', zip: 12345, phone: 5550100, show_map: 0, show_map_link: 1 },
      users.editor,
    ).expect(201);
    expect(res.body).toMatchObject({ zip: '12345', phone: '5550100', show_map: false, show_map_link: true });
  });

  it('sets author, publication date (site zone) and date_utc', async () => {
    const res = await create(
      { venue: 'Dated Hall', author: users.author.id, date: '2024-05-01 10:00:00' },
      users.editor,
    ).expect(201);
    expect(res.body).toMatchObject({
      author: String(users.author.id),
      date: '2024-05-01 10:00:00',
      date_utc: '2024-05-01 10:00:00',
    });
    const utc = await create({ venue: 'UTC Hall', date_utc: 1714557600 }, users.editor).expect(201);
    expect(utc.body.date_utc).toBe('2024-05-01 10:00:00');
  });

  it('updates with PATCH and POST as with PUT', async () => {
    const venue = await createVenue(h.db, { name: 'Methods Hall', slug: 'methods-hall' });
    await update(String(venue.id), { zip: '10115' }, users.editor, 'patch').expect(200);
    const posted = await update(String(venue.id), { show_map: false }, users.editor, 'post').expect(200);
    expect(posted.body).toMatchObject({ zip: '10115', show_map: false, show_map_link: true });
    const bySlug = await update('by-slug/methods-hall', { city: 'Madrid' }, users.editor, 'patch').expect(
      200,
    );
    expect(bySlug.body).toMatchObject({ id: venue.id, city: 'Madrid' });
  });

  it('ignores `password` on by-slug routes', async () => {
    const venue = await createVenue(h.db, { name: 'Slug Pw Hall', slug: 'slug-pw-hall' });
    await update('by-slug/slug-pw-hall', { city: 'Madrid', password: 'x' }, users.editor, 'patch').expect(
      200,
    );
    expect((await h.db.venue.findUniqueOrThrow({ where: { id: venue.id } })).password).toBeNull();
  });

  it("answers a second delete with the reference's 410 body", async () => {
    const venue = await createVenue(h.db);
    await remove(String(venue.id), users.editor).expect(200);
    expect((await remove(String(venue.id), users.editor).expect(410)).body).toEqual({
      code: 'venue-is-in-trash',
      message: 'The venue is already trashed',
      data: { status: 410, request_id: expect.any(String) },
    });
  });

  it('takes force=1 as force=true', async () => {
    const trashed = await createVenue(h.db, { status: 'trash' });
    await remove(`${trashed.id}?force=1`, users.administrator).expect(200);
    expect(await h.db.venue.findUnique({ where: { id: trashed.id } })).toBeNull();
  });
});

describe('GraphQL only', () => {
  // A field the input type lacks fails validation, which need not answer 200.
  const anyStatus = graphqlClient(() => h);

  it('takes a publication date, shown as publishedAt', async () => {
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
  });

  it('has no password field on the by-slug input', async () => {
    const venue = await createVenue(h.db, { slug: 'graph-pw', authorId: users.author.id });
    const bySlug = await anyStatus(
      'mutation { updateVenueBySlug(slug: "graph-pw", input: { password: "x" }) { id: databaseId } }',
      {},
      users.author,
    );
    expect(bySlug.errors![0]!.message).toMatch(/password/);
    expect((await h.db.venue.findUniqueOrThrow({ where: { id: venue.id } })).password).toBeNull();
  });
});
