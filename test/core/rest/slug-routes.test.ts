import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness } from '../../helpers/harness.js';
import { createEvent, createOrganizer, createVenue } from '../../helpers/fixtures.js';
import { type Credentials, type Users, basicAuth, createUser, startWithRoles } from '../../helpers/users.js';

// The by-slug routes (docs/reference.md §3.2, §8; issue #30 points 4 and 12): an event slug is validated
// as the reference validates it (400 `rest_invalid_param` naming `slug` when it names no event the
// viewer may see), venues and organizers keep D1's 404, and a slug is data wherever it travels — one
// made of dots is never read as a path segment (it used to reach no internal route: a 500).

let h: Harness;
let server: Server;
let users: Users;

/**
 * The reference's answer to a slug that names no event: its recorded answer to an unknown id
 * (`09-event-missing-id-400` of the reference samples), naming `slug`.
 */
const invalidSlug = () => ({
  code: 'rest_invalid_param',
  message: 'Invalid parameter(s): slug',
  data: { status: 400, params: { slug: 'Invalid parameter.' }, details: [], request_id: expect.any(String) },
});

const FORBIDDEN = { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.' };

beforeAll(async () => {
  ({ h, users } = await startWithRoles());
  server = h.app.listen(0);
  await createEvent(h.db, { title: 'Open Air', fields: { slug: 'open-air' } });
  await createEvent(h.db, {
    status: 'draft',
    fields: { slug: 'secret-draft', authorId: users.contributor.id },
  });
  await createEvent(h.db, { status: 'pending', fields: { slug: 'waiting', authorId: users.contributor.id } });
  await createEvent(h.db, {
    status: 'private',
    fields: { slug: 'members-only', authorId: users.administrator.id },
  });
  await createVenue(h.db, { name: 'Hall', slug: 'the-hall' });
  await createOrganizer(h.db, { name: 'Org', slug: 'the-org' });
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await h.close();
});

const get = (path: string, as?: Credentials) => {
  const request = h.http.get(`${API}${path}`);
  if (as) request.auth(as.login, as.password);
  return request;
};

const write = (method: 'post' | 'put' | 'patch' | 'delete', path: string, as?: Credentials) => {
  const request = h.http[method](`${API}${path}`);
  if (as) request.auth(as.login, as.password);
  return method === 'delete' ? request : request.send({ title: 'Renamed' });
};

/**
 * A request whose path is sent byte for byte, as a client that keeps dot segments sends it (an HTTP
 * library would collapse `/..` before sending).
 */
function raw(
  method: string,
  path: string,
  as?: Credentials,
): Promise<{ status: number; body: Record<string, unknown> | string; type: string }> {
  const { port } = server.address() as AddressInfo;
  const body = method === 'GET' || method === 'DELETE' ? undefined : JSON.stringify({ title: 'Renamed' });
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          ...(as ? { authorization: basicAuth(as) } : {}),
          ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          const type = String(response.headers['content-type'] ?? '');
          resolve({
            status: response.statusCode ?? 0,
            type,
            body: type.startsWith('application/json') ? (JSON.parse(text) as Record<string, unknown>) : text,
          });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('GET /events/by-slug/{slug}: the slug is validated first, as the reference does', () => {
  it('answers a slug that names no event, or names a venue or organizer, with 400 naming slug', async () => {
    for (const slug of ['no-such-event', 'the-hall', 'the-org']) {
      for (const viewer of [undefined, users.subscriber, users.administrator]) {
        expect((await get(`/events/by-slug/${slug}`, viewer).expect(400)).body).toEqual(invalidSlug());
      }
    }
  });

  it("answers a draft's or pending event's slug with the same 400 to whoever may not read it", async () => {
    for (const slug of ['secret-draft', 'waiting']) {
      const unknown = (await get('/events/by-slug/no-such-event').expect(400)).body;
      for (const viewer of [undefined, users.subscriber]) {
        const res = await get(`/events/by-slug/${slug}`, viewer).expect(400);
        expect({ ...res.body, data: { ...res.body.data, request_id: 'r' } }).toEqual({
          ...unknown,
          data: { ...unknown.data, request_id: 'r' },
        });
      }
      const other = await createUser(h, 'contributor');
      expect((await get(`/events/by-slug/${slug}`, other).expect(400)).body).toEqual(invalidSlug());
    }
  });

  it('shows a draft to those who may read it: its author and editors', async () => {
    expect((await get('/events/by-slug/secret-draft', users.contributor).expect(200)).body).toMatchObject({
      slug: 'secret-draft',
      status: 'draft',
    });
    expect((await get('/events/by-slug/waiting', users.editor).expect(200)).body.status).toBe('pending');
  });

  it('keeps the single-read checks for an event the slug names (private: 403), and 200 for a public one', async () => {
    expect((await get('/events/by-slug/members-only').expect(403)).body.code).toBe('event-not-accessible');
    expect((await get('/events/by-slug/members-only', users.editor).expect(200)).body.status).toBe('private');
    expect((await get('/events/by-slug/open-air').expect(200)).body.slug).toBe('open-air');
  });
});

describe('writes by slug: the caller first (D22), then the slug', () => {
  const methods = ['post', 'put', 'patch', 'delete'] as const;

  it.each(methods)(
    '%s: an administrator gets 400 naming slug for a slug that names no event',
    async (method) => {
      for (const slug of ['no-such-event', 'the-hall']) {
        expect(
          (await write(method, `/events/by-slug/${slug}`, users.administrator).expect(400)).body,
        ).toEqual(invalidSlug());
      }
    },
  );

  it.each(methods)(
    '%s: anonymous gets 401 and a subscriber 403 before the slug is looked at',
    async (method) => {
      expect((await write(method, '/events/by-slug/no-such-event').expect(401)).body).toMatchObject(
        FORBIDDEN,
      );
      expect(
        (await write(method, '/events/by-slug/no-such-event', users.subscriber).expect(403)).body,
      ).toMatchObject(FORBIDDEN);
    },
  );

  it.each(methods)('%s: venues and organizers keep D1 (404) for an unknown slug', async (method) => {
    expect((await write(method, '/venues/by-slug/no-such-hall', users.editor).expect(404)).body.code).toBe(
      'venue-not-found',
    );
    expect((await write(method, '/organizers/by-slug/no-such-org', users.editor).expect(404)).body.code).toBe(
      'organizer-not-found',
    );
  });

  it('and reads of venues and organizers by an unknown slug stay 404 (D1)', async () => {
    expect((await get('/venues/by-slug/no-such-hall').expect(404)).body.code).toBe('venue-not-found');
    expect((await get('/organizers/by-slug/no-such-org').expect(404)).body.code).toBe('organizer-not-found');
  });
});

describe('a slug of dots is data, never a path segment', () => {
  it.each([
    ['/events/by-slug/..ics', 404, 'rest-event-not-found'],
    ['/events/by-slug/%2E.ics', 404, 'rest-event-not-found'],
    ['/events/by-slug/%2e%2E.ics', 404, 'rest-event-not-found'],
    ['/events/by-slug/...ics', 404, 'rest-event-not-found'],
    ['/events/by-slug/.?ical=1', 404, 'rest-event-not-found'],
    ['/events/by-slug/.', 400, 'rest_invalid_param'],
    ['/events/by-slug/..', 400, 'rest_invalid_param'],
    ['/events/by-slug/%2E%2e', 400, 'rest_invalid_param'],
    ['/venues/by-slug/..', 404, 'venue-not-found'],
    ['/venues/by-slug/.', 404, 'venue-not-found'],
    ['/organizers/by-slug/..', 404, 'organizer-not-found'],
  ])('GET %s answers %i %s', async (path, status, code) => {
    for (const prefix of [API, `/fr${API}`]) {
      const res = await raw('GET', `${prefix}${path}`);
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ code, data: { status } });
    }
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])(
    '%s by an administrator on dot slugs: 400 / 404, never a 500',
    async (method) => {
      for (const slug of ['.', '..', '%2E%2E']) {
        expect(await raw(method, `${API}/events/by-slug/${slug}`, users.administrator)).toMatchObject({
          status: 400,
          body: { code: 'rest_invalid_param', data: { params: { slug: 'Invalid parameter.' } } },
        });
        expect(await raw(method, `${API}/venues/by-slug/${slug}`, users.administrator)).toMatchObject({
          status: 404,
          body: { code: 'venue-not-found' },
        });
        expect(await raw(method, `${API}/organizers/by-slug/${slug}`, users.administrator)).toMatchObject({
          status: 404,
          body: { code: 'organizer-not-found' },
        });
        expect(await raw(method, `${API}/events/by-slug/${slug}`)).toMatchObject({
          status: 401,
          body: { code: 'rest_forbidden' },
        });
      }
    },
  );

  it('reaches the record whose slug it is, with the slug intact', async () => {
    const dots = await createEvent(h.db, { fields: { slug: '..' } });
    const venue = await createVenue(h.db, { slug: '.' });
    expect(await raw('GET', `${API}/events/by-slug/..`)).toMatchObject({
      status: 200,
      body: { id: dots.id, slug: '..' },
    });
    expect(await raw('GET', `${API}/events/by-slug/%2E%2E`)).toMatchObject({
      status: 200,
      body: { id: dots.id },
    });
    const feed = await raw('GET', `${API}/events/by-slug/...ics`);
    expect(feed.status).toBe(200);
    expect(feed.type).toMatch(/^text\/calendar/);
    expect(feed.body).toContain('BEGIN:VEVENT');
    expect(await raw('GET', `${API}/venues/by-slug/.`)).toMatchObject({
      status: 200,
      body: { id: venue.id },
    });
    expect(await raw('PATCH', `${API}/venues/by-slug/.`, users.editor)).toMatchObject({
      status: 200,
      body: { id: venue.id },
    });
    expect(await raw('DELETE', `${API}/events/by-slug/..`, users.editor)).toMatchObject({
      status: 200,
      body: { id: dots.id, status: 'trash' },
    });
  });
});
