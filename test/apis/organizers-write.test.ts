import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, SITE_URL } from '../helpers/harness.js';
import { createEvent, createOrganizer } from '../helpers/fixtures.js';
import { linkedPostApis, linkedPostWriteApis } from '../helpers/apis.js';
import { graphqlClient } from '../helpers/graphql.js';
import { type Credentials, type Users, startWithRoles } from '../helpers/users.js';

// Organizer writes on both APIs: POST /organizers, updates and deletes by id and slug (docs/reference.md
// §3.2, §6.4, §8; D1, D4, D18, D22 and the `password` extension: OrganizerInsertionCest,
// OrganizerUpdateCest, OrganizerDeletionCest and the organizer rows of AuthorizationCest) and GraphQL's
// createOrganizer, updateOrganizer[BySlug] and deleteOrganizer[BySlug] — the same rules, with the REST
// codes in `extensions` (one table), then what only REST shows (the reference's keys and URLs, the
// missing-name error, every method).

let h: Harness;
let users: Users;

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

const FIELDS =
  'id: databaseId name slug status description email phone website passwordProtected image { url }';

const [restWrite, graphqlWrite] = linkedPostWriteApis(() => h, 'organizer', FIELDS);
const [restRead, graphqlRead] = linkedPostApis(() => h, 'organizer', FIELDS);
const gql = graphqlClient(() => h, { status: 200 });

/** The organizer ids an event links, as each API shows them. */
const linked = {
  REST: async (event: number) =>
    (await h.http.get(`${API}/events/${event}`).expect(200)).body.organizer.map(
      (organizer: { id: number }) => organizer.id,
    ),
  GraphQL: async (event: number) =>
    (await gql(`{ event(id: ${event}) { organizers { id: databaseId } } }`)).data!.event.organizers.map(
      (organizer: { id: number }) => organizer.id,
    ),
};

describe.each([
  { name: 'REST', write: restWrite, read: restRead },
  { name: 'GraphQL', write: graphqlWrite, read: graphqlRead },
] as const)('$name: organizer writes', ({ name, write: api, read }) => {
  it('401s anonymous callers; a contributor creates a draft', async () => {
    expect(await api.create({ name: 'Anon Org' })).toMatchObject({ status: 401, code: 'rest_forbidden' });
    const created = await api.create({ name: 'Contrib Org', phone: '123' }, users.contributor);
    expect(created.status).toBe(api.created);
    expect(created.body).toMatchObject({ name: 'Contrib Org', phone: '123', status: 'draft' });
  });

  it('stores every field; an editor publishes; e-mail is kept as given', async () => {
    const input = {
      name: `Full Org ${name}`,
      description: 'About us',
      phone: '+1 555',
      website: 'http://full.example',
      email: 'not-an-email',
    };
    const created = await api.create(input, users.editor);
    expect(created.status).toBe(api.created);
    expect(created.body).toMatchObject({
      name: `Full Org ${name}`,
      slug: `full-org-${name.toLowerCase()}`,
      status: 'publish',
      phone: '+1 555',
      website: 'http://full.example',
      email: 'not-an-email',
    });
  });

  it('401s anonymous callers first (D22), then 400s an empty name and bad websites', async () => {
    expect((await api.create({ name: '' })).status).toBe(401);
    const empty = await api.create({ name: '' }, users.editor);
    expect(empty).toMatchObject({ status: 400, code: 'rest_invalid_param' });
    expect(empty.data.params).toEqual({ [api.param('name')]: 'Invalid parameter.' });
    for (const website of ['foo', 'ftp//nope']) {
      const bad = await api.create({ name: 'X', website }, users.editor);
      expect(bad).toMatchObject({ status: 400, code: 'rest_invalid_param' });
      expect(bad.data.params).toEqual({ website: 'Invalid parameter.' });
    }
  });

  it('returns the existing organizer for a duplicate, unchanged; another description is another (D18)', async () => {
    const first = await api.create(
      { name: `An organizer ${name}`, description: 'Organizer description', phone: '42' },
      users.editor,
    );
    const again = await api.create(
      { name: `an ORGANIZER ${name}`, email: 'x@example.com', phone: '43' },
      users.editor,
    );
    expect(again.status).toBe(api.created);
    expect(again.body).toMatchObject({ id: first.body.id, phone: '42' });
    if (api === restWrite) expect(again.raw).not.toHaveProperty('email');
    else expect(again.body.email).toBe('');
    const different = await api.create({ name: `An organizer ${name}`, description: 'Else' }, users.editor);
    expect(different.body.id).not.toBe(first.body.id);
  });

  it('takes an image by media id', async () => {
    const media = await h.db.media.create({
      data: { url: 'http://img.example/logo.gif', mimeType: 'image/gif' },
    });
    const created = await api.create({ name: `Logo Org ${name}`, image: String(media.id) }, users.editor);
    expect(created.status).toBe(api.created);
    if (api === restWrite) expect(created.body.image).toMatchObject({ id: media.id, extension: 'gif' });
    else expect(created.body.image).toEqual({ url: 'http://img.example/logo.gif' });
  });

  it('sets, clears and keeps fields by id and by slug; 400 for an empty name', async () => {
    const organizer = await createOrganizer(h.db, { name: 'Mutable', slug: `mutable-${name.toLowerCase()}` });
    const updated = await api.update(
      { id: organizer.id },
      { name: 'Mutated', phone: '', email: 'new@example.com' },
      users.editor,
    );
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: 'Mutated',
      email: 'new@example.com',
      website: 'http://acme.example',
    });
    // REST drops a cleared field's key; GraphQL answers "".
    if (api === restWrite) expect(updated.raw).not.toHaveProperty('phone');
    else expect(updated.body.phone).toBe('');
    const empty = await api.update({ id: organizer.id }, { name: '' }, users.editor);
    expect(empty).toMatchObject({ status: 400, code: 'rest_invalid_param' });
    const bySlug = await api.update(
      { slug: organizer.slug },
      { name: 'Renamed Org', website: '' },
      users.editor,
    );
    expect(bySlug.body).toMatchObject({ id: organizer.id, name: 'Renamed Org' });
    if (api === restWrite) expect(bySlug.raw).not.toHaveProperty('website');
    else expect(bySlug.body.website).toBeNull();
  });

  it('404s unknown ids and slugs to editors; 401 anonymous; 403 a contributor on an admin organizer', async () => {
    expect(await api.update({ id: 999999 }, { phone: '1' }, users.editor)).toMatchObject({
      status: 404,
      code: 'organizer-not-found',
    });
    expect(await api.update({ slug: 'nobody' }, { phone: '1' }, users.editor)).toMatchObject({
      status: 404,
      code: 'organizer-not-found',
    });
    const organizer = await createOrganizer(h.db, { authorId: users.administrator.id });
    expect(await api.update({ id: organizer.id }, { phone: '1' })).toMatchObject({
      status: 401,
      code: 'rest_forbidden',
    });
    expect(await api.update({ id: organizer.id }, { phone: '1' }, users.contributor)).toMatchObject({
      status: 403,
      code: 'rest_forbidden',
    });
    expect(await api.remove({ id: organizer.id }, false, users.contributor)).toMatchObject({
      status: 403,
      code: 'rest_forbidden',
    });
  });

  it('sets a password by id, withholding the content from anonymous readers; "" removes it', async () => {
    const organizer = await createOrganizer(h.db, { name: 'Pw Org', authorId: users.author.id });
    const locked = await api.update({ id: organizer.id }, { password: 'x' }, users.author);
    expect(locked.status).toBe(200);
    if (api === graphqlWrite) expect(locked.body.passwordProtected).toBe(true);
    const withheld = (await read.read({ id: organizer.id })).body;
    expect([withheld[api === restWrite ? 'organizer' : 'name'], withheld.email]).toEqual(['Pw Org', '']);
    expect((await api.update({ id: organizer.id }, { password: '' }, users.author)).status).toBe(200);
    expect((await read.read({ id: organizer.id })).body.email).toBe('org@example.com');
  });

  it('trashes and unlinks from events, 410 the second time, force deletes for good (editors only)', async () => {
    const organizer = await createOrganizer(h.db, {
      slug: `doomed-${name.toLowerCase()}`,
      authorId: users.author.id,
    });
    const other = await createOrganizer(h.db);
    const event = await createEvent(h.db, { organizerIds: [organizer.id, other.id] });
    const trashed = await api.remove({ id: organizer.id }, false, users.author);
    expect(trashed.status).toBe(200);
    expect(trashed.body).toMatchObject({ id: organizer.id, status: 'trash' });
    expect(await linked[name](event.id)).toEqual([other.id]);
    for (const key of [{ id: organizer.id }, { slug: organizer.slug }])
      expect(await api.remove(key, false, users.author)).toMatchObject({
        status: 410,
        code: 'organizer-is-in-trash',
      });
    expect(await api.remove({ id: organizer.id }, true, users.author)).toMatchObject({
      status: 403,
      code: 'rest_forbidden',
    });
    const purged = await api.remove({ slug: organizer.slug }, true, users.editor);
    expect(purged.status).toBe(200);
    expect(purged.body.id).toBe(organizer.id);
    expect(await h.db.organizer.count({ where: { id: organizer.id } })).toBe(0);
    expect((await read.read({ id: organizer.id })).status).toBe(404);
  });

  it('deletes by slug, and for good by id; 404 for unknown ids and slugs', async () => {
    const organizer = await createOrganizer(h.db, { slug: `by-slug-org-${name.toLowerCase()}` });
    const removed = await api.remove({ slug: organizer.slug }, false, users.editor);
    expect([removed.status, removed.body.id]).toEqual([200, organizer.id]);
    const purged = await api.remove({ id: organizer.id }, true, users.editor);
    expect([purged.status, await h.db.organizer.count({ where: { id: organizer.id } })]).toEqual([200, 0]);
    expect(await api.remove({ id: 999999 }, false, users.editor)).toMatchObject({
      status: 404,
      code: 'organizer-not-found',
    });
    expect(await api.remove({ slug: 'no-such-org' }, true, users.editor)).toMatchObject({
      status: 404,
      code: 'organizer-not-found',
    });
  });
});

describe('REST only', () => {
  function call(method: 'post' | 'put' | 'patch' | 'delete', path: string, body?: object, as?: Credentials) {
    const request = h.http[method](`${API}/organizers${path}`);
    if (as) request.auth(as.login, as.password);
    return body ? request.send(body) : request;
  }

  it("names a contributor's draft by its author and a ?post_type URL", async () => {
    const res = await call('post', '', { organizer: 'Contrib Url Org' }, users.contributor).expect(201);
    expect(res.body).toMatchObject({ status: 'draft', author: String(users.contributor.id) });
    expect(res.body.url).toBe(`${SITE_URL}/?post_type=tribe_organizer&p=${res.body.id}`);
  });

  it('answers with the keys in the reference order', async () => {
    const res = await call(
      'post',
      '',
      {
        organizer: 'Keyed Org',
        description: 'About us',
        phone: '1',
        website: 'http://k.example',
        email: 'x',
      },
      users.editor,
    ).expect(201);
    expect(Object.keys(res.body)).toEqual([
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'organizer',
      'description',
      'slug',
      'phone',
      'website',
      'email',
      'global_id',
      'global_id_lineage',
    ]);
  });

  it('401s anonymous callers first (D22), then 400s a missing name with rest_missing_callback_param', async () => {
    await call('post', '', { phone: '1' }).expect(401);
    expect((await call('post', '', { phone: '1' }, users.editor).expect(400)).body).toEqual({
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): organizer',
      data: { status: 400, request_id: expect.any(String), params: ['organizer'] },
    });
  });

  it('updates with PATCH and POST as with PUT', async () => {
    const organizer = await createOrganizer(h.db, { name: 'Methods', slug: 'methods' });
    await call('patch', `/${organizer.id}`, { organizer: '' }, users.editor).expect(400);
    const patched = await call('patch', `/${organizer.id}`, { phone: '7' }, users.editor).expect(200);
    expect(patched.body.phone).toBe('7');
    const bySlug = await call('post', '/by-slug/methods', { website: '' }, users.editor).expect(200);
    expect(bySlug.body).not.toHaveProperty('website');
  });

  it('ignores a password on by-slug updates', async () => {
    const organizer = await createOrganizer(h.db, { slug: 'pw-slug-org', authorId: users.author.id });
    await call('put', '/by-slug/pw-slug-org', { password: 'x' }, users.author).expect(200);
    expect((await h.http.get(`${API}/organizers/${organizer.id}`)).body.email).toBe('org@example.com');
  });
});
