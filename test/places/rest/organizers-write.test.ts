import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, SITE_URL } from '../../helpers/harness.js';
import { createEvent, createOrganizer } from '../../helpers/fixtures.js';
import { type Credentials, type Users, startWithRoles } from '../../helpers/users.js';

// POST /organizers, updates and deletes by id and slug (docs/reference.md §3.2, §6.4, §8; D1, D4, D18 and
// the `password` extension): OrganizerInsertionCest, OrganizerUpdateCest, OrganizerDeletionCest and the
// organizer rows of AuthorizationCest.

let h: Harness;
let users: Users;

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

function call(method: 'post' | 'put' | 'patch' | 'delete', path: string, body?: object, as?: Credentials) {
  const request = h.http[method](`${API}/organizers${path}`);
  if (as) request.auth(as.login, as.password);
  return body ? request.send(body) : request;
}

describe('POST /organizers', () => {
  it('401s anonymous callers; 201 with the organizer for a contributor (as a draft)', async () => {
    await call('post', '', { organizer: 'Anon Org' }).expect(401);
    const res = await call('post', '', { organizer: 'Contrib Org', phone: '123' }, users.contributor).expect(
      201,
    );
    expect(res.body).toMatchObject({
      organizer: 'Contrib Org',
      phone: '123',
      status: 'draft',
      author: String(users.contributor.id),
    });
    expect(res.body.url).toBe(`${SITE_URL}/?post_type=tribe_organizer&p=${res.body.id}`);
  });

  it('stores every field; e-mail is kept as given; key order as the reference', async () => {
    const res = await call(
      'post',
      '',
      {
        organizer: 'Full Org',
        description: 'About us',
        phone: '+1 555',
        website: 'http://full.example',
        email: 'not-an-email',
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
    expect(res.body).toMatchObject({
      slug: 'full-org',
      email: 'not-an-email',
      website: 'http://full.example',
    });
  });

  it('401s anonymous callers first (D22), then 400s a missing or empty name and a bad website', async () => {
    await call('post', '', { phone: '1' }).expect(401);
    expect((await call('post', '', { phone: '1' }, users.editor).expect(400)).body).toEqual({
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): organizer',
      data: { status: 400, request_id: expect.any(String), params: ['organizer'] },
    });
    expect((await call('post', '', { organizer: '' }, users.editor).expect(400)).body.data.params).toEqual({
      organizer: 'Invalid parameter.',
    });
    expect(
      (await call('post', '', { organizer: 'X', website: 'foo' }, users.editor).expect(400)).body.data.params,
    ).toEqual({
      website: 'Invalid parameter.',
    });
  });

  it('returns the existing organizer for a duplicate, unchanged (D18)', async () => {
    const first = await call(
      'post',
      '',
      { organizer: 'An organizer', description: 'Organizer description' },
      users.editor,
    ).expect(201);
    const again = await call(
      'post',
      '',
      { organizer: 'an ORGANIZER', email: 'x@example.com' },
      users.editor,
    ).expect(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body).not.toHaveProperty('email');
    const different = await call(
      'post',
      '',
      { organizer: 'An organizer', description: 'Else' },
      users.editor,
    ).expect(201);
    expect(different.body.id).not.toBe(first.body.id);
  });

  it('takes an image by media id', async () => {
    const media = await h.db.media.create({
      data: { url: 'http://img.example/logo.gif', mimeType: 'image/gif' },
    });
    const res = await call(
      'post',
      '',
      { organizer: 'Logo Org', image: String(media.id) },
      users.editor,
    ).expect(201);
    expect(res.body.image).toMatchObject({ id: media.id, extension: 'gif' });
  });
});

describe('updates', () => {
  it('sets, clears (keys disappear) and keeps fields; 400 for an empty name', async () => {
    const organizer = await createOrganizer(h.db, { name: 'Mutable', slug: 'mutable' });
    const res = await call(
      'put',
      `/${organizer.id}`,
      { organizer: 'Mutated', phone: '', email: 'new@example.com' },
      users.editor,
    ).expect(200);
    expect(res.body).toMatchObject({
      organizer: 'Mutated',
      email: 'new@example.com',
      website: 'http://acme.example',
    });
    expect(res.body).not.toHaveProperty('phone');
    await call('patch', `/${organizer.id}`, { organizer: '' }, users.editor).expect(400);
    const bySlug = await call('post', '/by-slug/mutable', { website: '' }, users.editor).expect(200);
    expect(bySlug.body).not.toHaveProperty('website');
  });

  it('404s unknown ids and slugs; 401 anonymous; 403 a contributor on an admin organizer', async () => {
    await call('put', '/999999', { phone: '1' }, users.editor).expect(404);
    await call('put', '/by-slug/nobody', { phone: '1' }, users.editor).expect(404);
    const organizer = await createOrganizer(h.db, { authorId: users.administrator.id });
    await call('put', `/${organizer.id}`, { phone: '1' }).expect(401);
    await call('put', `/${organizer.id}`, { phone: '1' }, users.contributor).expect(403);
    await call('delete', `/${organizer.id}`, undefined, users.contributor).expect(403);
  });

  it('sets a password on by-id updates only; "" removes it', async () => {
    const organizer = await createOrganizer(h.db, {
      name: 'Pw Org',
      slug: 'pw-org',
      authorId: users.author.id,
    });
    await call('put', '/by-slug/pw-org', { password: 'x' }, users.author).expect(200);
    expect((await h.http.get(`${API}/organizers/${organizer.id}`)).body.email).toBe('org@example.com');
    await call('put', `/${organizer.id}`, { password: 'x' }, users.author).expect(200);
    expect((await h.http.get(`${API}/organizers/${organizer.id}`)).body).toMatchObject({
      organizer: 'Pw Org',
      email: '',
    });
    await call('put', `/${organizer.id}`, { password: '' }, users.author).expect(200);
    expect((await h.http.get(`${API}/organizers/${organizer.id}`)).body.email).toBe('org@example.com');
  });
});

describe('DELETE', () => {
  it('trashes and unlinks from events, 410 on the second delete, force=true deletes for good (editors)', async () => {
    const organizer = await createOrganizer(h.db, { authorId: users.author.id });
    const other = await createOrganizer(h.db);
    const event = await createEvent(h.db, { organizerIds: [organizer.id, other.id] });
    const res = await call('delete', `/${organizer.id}`, undefined, users.author).expect(200);
    expect(res.body).toMatchObject({ id: organizer.id, status: 'trash' });
    const { body } = await h.http.get(`${API}/events/${event.id}`).expect(200);
    expect(body.organizer.map((linked: { id: number }) => linked.id)).toEqual([other.id]);
    expect((await call('delete', `/${organizer.id}`, undefined, users.author).expect(410)).body.code).toBe(
      'organizer-is-in-trash',
    );
    await call('delete', `/${organizer.id}?force=true`, undefined, users.author).expect(403);
    await call('delete', `/${organizer.id}?force=true`, undefined, users.editor).expect(200);
    await h.http.get(`${API}/organizers/${organizer.id}`).expect(404);
  });

  it('deletes by slug; 404 for unknown ids and slugs', async () => {
    const organizer = await createOrganizer(h.db, { slug: 'by-slug-org' });
    expect((await call('delete', '/by-slug/by-slug-org', undefined, users.editor).expect(200)).body.id).toBe(
      organizer.id,
    );
    await call('delete', '/999999', undefined, users.editor).expect(404);
    await call('delete', '/by-slug/no-such-org?force=true', undefined, users.editor).expect(404);
  });
});
