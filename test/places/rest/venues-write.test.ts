import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, SITE_URL } from '../../helpers/harness.js';
import { createEvent, createVenue } from '../../helpers/fixtures.js';
import { type Credentials, type Users, startWithRoles } from '../../helpers/users.js';

// POST /venues, POST|PUT|PATCH /venues/{id} and /venues/by-slug/{slug}, DELETE of both (docs/reference.md
// §3.2, §4.1, §6.4, §8; D1, D4, D6, D18, D19 and the `password` extension): VenueInsertionCest,
// VenueUpdateCest, VenueDeletionCest and the venue rows of AuthorizationCest.

let h: Harness;
let users: Users;

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

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

describe('POST /venues', () => {
  it('fills stateprovince from province or state when it is not sent (as TEC)', async () => {
    const ontario = await create({ venue: 'Toronto Hall', province: 'Ontario' }, users.editor).expect(201);
    expect(ontario.body).toMatchObject({ province: 'Ontario', stateprovince: 'Ontario' });
    const texas = await create({ venue: 'Austin Hall', state: 'TX' }, users.editor).expect(201);
    expect(texas.body.stateprovince).toBe('TX');
    const both = await create(
      { venue: 'Both Hall', state: 'TX', stateprovince: 'Texas' },
      users.editor,
    ).expect(201);
    expect(both.body.stateprovince).toBe('Texas');
  });

  it('refuses anonymous callers with 401 and subscribers with 403', async () => {
    expect((await create({ venue: 'Nope' }).expect(401)).body).toEqual({
      code: 'rest_forbidden',
      message: 'Sorry, you are not allowed to do that.',
      data: { status: 401, request_id: expect.any(String) },
    });
    expect((await create({ venue: 'Nope' }, users.subscriber).expect(403)).body.code).toBe('rest_forbidden');
    expect(await h.db.venue.count({ where: { name: 'Nope' } })).toBe(0);
  });

  it('creates the venue from every field: 201 with the reference representation (no json_ld)', async () => {
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

  it('requires `venue`: missing → rest_missing_callback_param, empty → rest_invalid_param (after permissions, D22)', async () => {
    await create({ city: 'Paris' }).expect(401);
    await create({ city: 'Paris' }, users.subscriber).expect(403);
    expect((await create({ city: 'Paris' }, users.editor).expect(400)).body).toEqual({
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): venue',
      data: { status: 400, request_id: expect.any(String), params: ['venue'] },
    });
    const empty = await create({ venue: '   ' }, users.editor).expect(400);
    expect(empty.body).toMatchObject({
      code: 'rest_invalid_param',
      data: { params: { venue: 'Invalid parameter.' } },
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

  it('lets only editors attribute a venue to someone else', async () => {
    await create({ venue: 'Borrowed Hall', author: users.editor.id }, users.author).expect(403);
    await create({ venue: 'Own Hall', author: users.author.id }, users.author).expect(201);
  });

  it('scales the status back for contributors: none → draft, publish → pending', async () => {
    expect((await create({ venue: 'Contrib Draft' }, users.contributor).expect(201)).body.status).toBe(
      'draft',
    );
    expect(
      (await create({ venue: 'Contrib Pending', status: 'publish' }, users.contributor).expect(201)).body
        .status,
    ).toBe('pending');
    expect(
      (await create({ venue: 'Author Draft', status: 'draft' }, users.author).expect(201)).body.status,
    ).toBe('draft');
  });

  it('takes an image as a media id or (with the upload capability) a URL', async () => {
    const media = await h.db.media.create({
      data: { url: 'http://img.example/a.png', mimeType: 'image/png' },
    });
    const byId = await create({ venue: 'Pictured Hall', image: media.id }, users.contributor).expect(201);
    expect(byId.body.image).toMatchObject({
      id: media.id,
      url: 'http://img.example/a.png',
      extension: 'png',
    });
    const byUrl = await create(
      { venue: 'Linked Hall', image: 'https://img.example/b.jpg' },
      users.author,
    ).expect(201);
    expect(byUrl.body.image).toMatchObject({ url: 'https://img.example/b.jpg', id: expect.any(Number) });
    const refused = await create(
      { venue: 'Refused Hall', image: 'https://img.example/c.jpg' },
      users.contributor,
    ).expect(400);
    expect(refused.body.data.params).toEqual({ image: 'Invalid parameter.' });
    await create({ venue: 'Missing Image Hall', image: 999999 }, users.editor).expect(400);
  });

  it('returns the existing venue for a duplicate (same name any case; description when sent), unchanged (D18)', async () => {
    const first = await create(
      { venue: 'A venue', description: 'A venue description', city: 'Rome' },
      users.editor,
    ).expect(201);
    const again = await create({ venue: 'A venue' }, users.editor).expect(201);
    const lower = await create({ venue: 'a venue', country: 'Italy', phone: '123' }, users.editor).expect(
      201,
    );
    const sameDescription = await create(
      { venue: 'A VENUE', description: 'a venue DESCRIPTION' },
      users.editor,
    ).expect(201);
    expect([again.body.id, lower.body.id, sameDescription.body.id]).toEqual([
      first.body.id,
      first.body.id,
      first.body.id,
    ]);
    expect(lower.body).toMatchObject({ city: 'Rome' });
    expect(lower.body).not.toHaveProperty('phone');
    const other = await create({ venue: 'A venue', description: 'Another one' }, users.editor).expect(201);
    expect(other.body.id).not.toBe(first.body.id);
    expect(other.body.slug).toBe('a-venue-2');
    expect(await h.db.venue.count({ where: { name: { in: ['A venue', 'a venue', 'A VENUE'] } } })).toBe(2);
  });

  it('creates one venue when the same one is posted several times at once', async () => {
    const responses = await Promise.all(
      [1, 2, 3, 4, 5].map(() => create({ venue: 'Rush Hall' }, users.editor)),
    );
    expect(responses.map((res) => res.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(responses.map((res) => res.body.id)).size).toBe(1);
    expect(await h.db.venue.count({ where: { name: 'Rush Hall' } })).toBe(1);
  });

  it('does not match trashed venues, and keeps slugs unique', async () => {
    const trashed = await createVenue(h.db, { name: 'Old Barn', slug: 'old-barn', status: 'trash' });
    const res = await create({ venue: 'Old Barn' }, users.editor).expect(201);
    expect(res.body.id).not.toBe(trashed.id);
    expect(res.body.slug).toBe('old-barn-2');
  });
});

describe('POST|PUT|PATCH /venues/{id}', () => {
  it('updates the fields sent with each method; empty strings clear them and their keys disappear', async () => {
    const venue = await createVenue(h.db, { name: 'Update Hall', slug: 'update-hall', geoLat: 1, geoLng: 2 });
    const res = await update(
      String(venue.id),
      { venue: 'Renamed Hall', city: 'Berlin', address: '', phone: '', geo_lat: '' },
      users.editor,
    ).expect(200);
    expect(res.body).toMatchObject({
      id: venue.id,
      venue: 'Renamed Hall',
      city: 'Berlin',
      slug: 'update-hall',
      zip: '62701',
    });
    expect(res.body).not.toHaveProperty('address');
    expect(res.body).not.toHaveProperty('phone');
    expect(res.body).not.toHaveProperty('geo_lat');
    expect(res.body).not.toHaveProperty('json_ld');
    await update(String(venue.id), { zip: '10115' }, users.editor, 'patch').expect(200);
    const posted = await update(String(venue.id), { show_map: false }, users.editor, 'post').expect(200);
    expect(posted.body).toMatchObject({ zip: '10115', city: 'Berlin', show_map: false, show_map_link: true });
  });

  it('400s an empty name or bad values; omitted fields (status included) stay', async () => {
    const venue = await createVenue(h.db, { status: 'draft' });
    expect(
      (await update(String(venue.id), { venue: '' }, users.editor).expect(400)).body.data.params,
    ).toEqual({
      venue: 'Invalid parameter.',
    });
    await update(String(venue.id), { website: 'not a url' }, users.editor).expect(400);
    expect((await update(String(venue.id), { city: 'Oslo' }, users.editor).expect(200)).body.status).toBe(
      'draft',
    );
  });

  it('allows a venue to become identical to another', async () => {
    await createVenue(h.db, { name: 'Twin', slug: 'twin' });
    const other = await createVenue(h.db, { name: 'Not Twin' });
    expect((await update(String(other.id), { venue: 'Twin' }, users.editor).expect(200)).body.venue).toBe(
      'Twin',
    );
  });

  it('answers an unknown id with 404 venue-not-found to editors (D1); others as for a venue they may not edit (D22)', async () => {
    expect((await update('999999', { city: 'x' }, users.editor).expect(404)).body.code).toBe(
      'venue-not-found',
    );
    expect((await update('999999', { city: 'x' }).expect(401)).body.code).toBe('rest_forbidden');
    expect((await update('999999', { city: 'x' }, users.contributor).expect(403)).body.code).toBe(
      'rest_forbidden',
    );
  });

  it('401s anonymous and 403s those who may not edit it before validating (D22)', async () => {
    const venue = await createVenue(h.db, { authorId: users.administrator.id });
    await update(String(venue.id), { website: 'foo' }).expect(401);
    await update(String(venue.id), { website: 'foo' }, users.subscriber).expect(403);
    await update(String(venue.id), { website: 'foo' }, users.editor).expect(400);
    await update(String(venue.id), { city: 'x' }).expect(401);
    await update(String(venue.id), { city: 'x' }, users.contributor).expect(403);
    await update(String(venue.id), { city: 'x' }, users.subscriber).expect(403);
    await update(String(venue.id), { city: 'x' }, users.author).expect(403);
    await update(String(venue.id), { city: 'Edited' }, users.editor).expect(200);
  });

  it('lets a contributor edit their own draft, and scales a publish request back to pending', async () => {
    const own = await createVenue(h.db, { status: 'draft', authorId: users.contributor.id });
    const res = await update(String(own.id), { city: 'Mine', status: 'publish' }, users.contributor).expect(
      200,
    );
    expect(res.body).toMatchObject({ city: 'Mine', status: 'pending' });
  });

  it('sets and removes the password on by-id routes (extension); anonymous readers then see it scrubbed', async () => {
    const venue = await createVenue(h.db, { name: 'Guarded', slug: 'guarded', authorId: users.author.id });
    await update(String(venue.id), { password: 'open sesame' }, users.author).expect(200);
    expect((await h.db.venue.findUniqueOrThrow({ where: { id: venue.id } })).password).toBe('open sesame');
    expect((await h.http.get(`${API}/venues/${venue.id}`).expect(200)).body).toMatchObject({
      venue: 'Guarded',
      address: '',
    });
    await update(String(venue.id), { password: '' }, users.author).expect(200);
    expect((await h.http.get(`${API}/venues/${venue.id}`).expect(200)).body.address).toBe('1 Main St');
  });
});

describe('POST|PUT|PATCH /venues/by-slug/{slug}', () => {
  it('updates by slug as by id, and ignores `password` there', async () => {
    const venue = await createVenue(h.db, { name: 'Slug Hall', slug: 'slug-hall' });
    const res = await update(
      'by-slug/slug-hall',
      { city: 'Madrid', password: 'x' },
      users.editor,
      'patch',
    ).expect(200);
    expect(res.body).toMatchObject({ id: venue.id, city: 'Madrid' });
    expect((await h.db.venue.findUniqueOrThrow({ where: { id: venue.id } })).password).toBeNull();
  });

  it('404s an unknown slug', async () => {
    expect((await update('by-slug/no-such-hall', { city: 'x' }, users.editor).expect(404)).body.code).toBe(
      'venue-not-found',
    );
  });
});

describe('DELETE /venues/{id}', () => {
  it('trashes: 200 with the venue, 410 venue-is-in-trash the second time', async () => {
    const venue = await createVenue(h.db, { name: 'Doomed', slug: 'doomed' });
    const res = await remove(String(venue.id), users.editor).expect(200);
    expect(res.body).toMatchObject({ id: venue.id, venue: 'Doomed', status: 'trash' });
    expect((await remove(String(venue.id), users.editor).expect(410)).body).toEqual({
      code: 'venue-is-in-trash',
      message: 'The venue is already trashed',
      data: { status: 410, request_id: expect.any(String) },
    });
  });

  it('unlinks the trashed venue from its events: their venue becomes []', async () => {
    const venue = await createVenue(h.db);
    const event = await createEvent(h.db, { venueIds: [venue.id] });
    expect((await h.http.get(`${API}/events/${event.id}`).expect(200)).body.venue.id).toBe(venue.id);
    await remove(String(venue.id), users.editor).expect(200);
    expect((await h.http.get(`${API}/events/${event.id}`).expect(200)).body.venue).toEqual([]);
  });

  it('404s unknown ids to editors (D1); 401s anonymous; 403s those who may not delete it, known or not', async () => {
    expect((await remove('999999', users.editor).expect(404)).body.code).toBe('venue-not-found');
    expect((await remove('999999').expect(401)).body.code).toBe('rest_forbidden');
    expect((await remove('999999', users.contributor).expect(403)).body.code).toBe('rest_forbidden');
    const venue = await createVenue(h.db, { authorId: users.administrator.id });
    await remove(String(venue.id)).expect(401);
    await remove(String(venue.id), users.contributor).expect(403);
    const own = await createVenue(h.db, { status: 'draft', authorId: users.contributor.id });
    await remove(String(own.id), users.contributor).expect(200);
  });

  it('force=true deletes for good (editors and administrators only, D4), even from the trash', async () => {
    const venue = await createVenue(h.db, { name: 'Purged', slug: 'purged', authorId: users.author.id });
    const event = await createEvent(h.db, { venueIds: [venue.id] });
    await remove(`${venue.id}?force=true`, users.author).expect(403);
    const res = await remove(`${venue.id}?force=true`, users.editor).expect(200);
    expect(res.body).toMatchObject({ id: venue.id, venue: 'Purged', status: 'publish' });
    await h.http.get(`${API}/venues/${venue.id}`).expect(404);
    expect((await h.http.get(`${API}/events/${event.id}`).expect(200)).body.venue).toEqual([]);

    const trashed = await createVenue(h.db, { status: 'trash' });
    await remove(`${trashed.id}?force=1`, users.administrator).expect(200);
    expect(await h.db.venue.findUnique({ where: { id: trashed.id } })).toBeNull();
  });
});

describe('DELETE /venues/by-slug/{slug}', () => {
  it('trashes by slug, 410 the second time, 404 for an unknown slug', async () => {
    const venue = await createVenue(h.db, { name: 'Slugged', slug: 'slugged' });
    expect((await remove('by-slug/slugged', users.editor).expect(200)).body).toMatchObject({
      id: venue.id,
      status: 'trash',
    });
    await remove('by-slug/slugged', users.editor).expect(410);
    await remove('by-slug/never-was', users.editor).expect(404);
  });
});

describe('image ids out of range', () => {
  it('answers an image id beyond 32 bits with 400 on image, not 500', async () => {
    const res = await create({ venue: 'Huge image id', image: 99999999999 }, users.editor).expect(400);
    expect(res.body.data.params).toEqual({ image: expect.any(String) });
  });
});
