import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, startHarness } from '../helpers/harness.js';
import { createEvent } from '../helpers/fixtures.js';
import { createUser } from '../helpers/users.js';

// The boundary (#13 parts 2 and 5): one CORS policy for REST and GraphQL, no cross-site GraphQL
// without a preflight, and no 5xx for any input — bad text, deep JSON, out-of-range dates.

const ALLOWED = 'https://app.example';
const EVIL = 'https://evil.example';

let h: Harness;
let open: Harness;
let admin: [string, string];
let subscriber: [string, string];
let eventId = 0;

beforeAll(async () => {
  h = await startHarness({
    CALENDAR_CORS_ORIGINS: `${ALLOWED}, https://other.example`,
    CALENDAR_CACHE: 'on',
  });
  open = await startHarness({ CALENDAR_CORS_ORIGINS: '*' });
  const a = await createUser(h, 'administrator');
  admin = [a.login, a.password];
  const s = await createUser(h, 'subscriber');
  subscriber = [s.login, s.password];
  eventId = (await createEvent(h.db, { title: 'Boundary' })).id;
});

afterAll(async () => {
  await h?.close();
  await open?.close();
});

const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('CORS', () => {
  it.each([
    ['/events', ['GET', 'POST']],
    ['/events/1', ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']],
    [`/fr${API}/venues/by-slug/x`, ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']],
  ])('answers the preflight of %s with the route methods', async (path, methods) => {
    const url = path.startsWith('/fr') ? path : `${API}${path}`;
    const res = await h.http
      .options(url)
      .set('Origin', ALLOWED)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization, content-type');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    const allowed = res.headers['access-control-allow-methods']!.split(',');
    for (const method of methods) expect(allowed).toContain(method);
    expect(res.headers['access-control-allow-headers']).toBe(
      'Authorization,Content-Type,X-WP-Nonce,X-HTTP-Method-Override,If-Match,If-None-Match,X-RSVP-Token',
    );
  });

  it('echoes an allowed origin on actual requests, REST and GraphQL, and exposes the paging headers', async () => {
    const rest = await h.http.get(`${API}/events`).set('Origin', ALLOWED).expect(200);
    expect(rest.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(rest.headers['access-control-expose-headers']).toContain('X-TEC-Total');
    expect(rest.headers['access-control-expose-headers']).toContain('Allow');
    expect(rest.headers['access-control-expose-headers']).toContain('ETag');
    expect(rest.headers.vary).toMatch(/Origin/i);
    // A browser client finds the API from the site's root and reads a feed's file name.
    const root = await h.http.get('/').set('Origin', ALLOWED).expect(200);
    expect(root.headers['x-tec-api-root']).toBeDefined();
    for (const name of ['X-TEC-API-VERSION', 'X-TEC-API-ROOT', 'X-TEC-API-ORIGIN', 'Content-Disposition']) {
      expect(root.headers['access-control-expose-headers']?.split(',')).toContain(name);
    }
    const gql = await h.http.post('/graphql').set('Origin', ALLOWED).send({ query: '{ viewer { login } }' });
    expect(gql.status).toBe(200);
    expect(gql.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it('a cached answer carries the CORS headers of the origin that asks, not of the one that filled it', async () => {
    const first = await h.http.get(`${API}/categories`).set('Origin', ALLOWED).expect(200);
    expect(first.headers['access-control-allow-origin']).toBe(ALLOWED);
    const second = await h.http.get(`${API}/categories`).set('Origin', 'https://other.example').expect(200);
    expect(second.headers['x-cache']).toBe('hit');
    expect(second.headers['access-control-allow-origin']).toBe('https://other.example');
    const evil = await h.http.get(`${API}/categories`).set('Origin', EVIL).expect(200);
    expect(evil.headers['x-cache']).toBe('hit');
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('grants nothing to an origin not in the setting, on REST, GraphQL and preflights', async () => {
    for (const request of [
      h.http.get(`${API}/events`).set('Origin', EVIL),
      h.http.post('/graphql').set('Origin', EVIL).send({ query: '{ viewer { login } }' }),
      h.http.options(`${API}/events`).set('Origin', EVIL).set('Access-Control-Request-Method', 'POST'),
      h.http.options('/graphql').set('Origin', EVIL).set('Access-Control-Request-Method', 'POST'),
    ]) {
      const res = await request;
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });

  it('`*` lets any origin read, never with credentials', async () => {
    const res = await open.http.get(`${API}/events`).set('Origin', EVIL).expect(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('the default grants no origin (yoga no longer reflects one)', async () => {
    const plain = await startHarness();
    try {
      const res = await plain.http
        .post('/graphql')
        .set('Origin', EVIL)
        .send({ query: '{ viewer { login } }' });
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});

describe('GraphQL refuses what a browser sends cross-site without a preflight', () => {
  const mutation = 'mutation { createCategory(input: { name: "csrf" }) { id: databaseId } }';
  it.each([
    ['application/x-www-form-urlencoded', `query=${encodeURIComponent(mutation)}`],
    [
      'multipart/form-data; boundary=x',
      `--x\r\nContent-Disposition: form-data; name="query"\r\n\r\n${mutation}\r\n--x--`,
    ],
    ['text/plain', JSON.stringify({ query: mutation })],
  ])('%s → 415 with a JSON error, nothing written', async (type, body) => {
    const res = await h.http
      .post('/graphql')
      .auth(...admin)
      .set('Content-Type', type)
      .send(body);
    expect(res.status).toBe(415);
    expect(res.body.errors[0].extensions).toEqual({ code: 'unsupported_media_type', http: { status: 415 } });
    expect(await h.db.term.count({ where: { name: 'csrf' } })).toBe(0);
  });
});

describe('no 5xx for any input', () => {
  it('refuses JSON nested deeper than 32 levels (REST, anonymous or not; GraphQL)', async () => {
    for (const auth of [null, admin]) {
      const request = h.http.post(`${API}/events`).set('Content-Type', 'application/json');
      if (auth) request.auth(...auth);
      const res = await request.send(`{"title":"x","start_date":${nested(5000)}}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('rest_invalid_json');
    }
    const gql = await h.http
      .post('/graphql')
      .set('Content-Type', 'application/json')
      .send(`{"query":"{ viewer { login } }","variables":{"a":${nested(5000)}}}`);
    expect(gql.status).toBe(400);
    expect(gql.body.errors[0].extensions.code).toBe('invalid_body');
    // 32 levels are fine.
    await h.http
      .post('/graphql')
      .set('Content-Type', 'application/json')
      .send(`{"query":"{ viewer { login } }","variables":{"a":${nested(30)}}}`)
      .expect(200);
  });

  it.each([
    [
      'a REST body',
      () =>
        h.http
          .post(`${API}/events`)
          .auth(...admin)
          .send({ title: 'a\u0000b', start_date: 'tomorrow 10am', end_date: 'tomorrow 11am' }),
    ],
    [
      'a form body',
      () =>
        h.http
          .post(`${API}/venues`)
          .auth(...admin)
          .type('form')
          .send('venue=a%00b'),
    ],
    ['a query string', () => h.http.get(`${API}/events?search=a%00b`)],
    ['a path slug', () => h.http.get(`${API}/events/by-slug/a%00b`)],
    [
      'GraphQL variables',
      () =>
        h.http.post('/graphql').send({
          query: 'query($s: String) { events(filter: { search: $s }) { items { id: databaseId } } }',
          variables: { s: 'a\u0000b' },
        }),
    ],
    [
      'a GraphQL GET',
      () =>
        h.http.get('/graphql?query=%7B%20events(filter%3A%7Bsearch%3A%22a%00%22%7D)%7Bitems%7Bid%7D%7D%7D'),
    ],
    [
      'Basic credentials',
      () =>
        h.http
          .get(`${API}/events`)
          .set('Authorization', `Basic ${Buffer.from('adm\u0000in:secret').toString('base64')}`),
    ],
  ])('refuses a NUL in %s with a 400', async (_where, send) => {
    const res = await send();
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/NUL/);
  });

  it.each([
    ['start_date', '0999-12-31 10:00:00'],
    ['start_date', '-62135596800'],
    ['end_date', '9999-12-31T23:00:00-14:00'],
  ])('refuses a %s outside the years 1000–9999 with a 400 (%s)', async (param, value) => {
    const body = {
      title: 'Far',
      start_date: '2031-01-01 10:00:00',
      end_date: '2031-01-01 11:00:00',
      [param]: value,
    };
    const res = await h.http
      .post(`${API}/events`)
      .auth(...admin)
      .send(body);
    expect(res.status).toBe(400);
    expect(res.body.data.params).toHaveProperty(param);
  });

  it('refuses out-of-range list filters with a 400 too', async () => {
    const res = await h.http.get(`${API}/events?start_date=0001-01-01`);
    expect(res.status).toBe(400);
  });
});

describe('the caller is checked before the body (D22)', () => {
  it('anonymous → 401 and subscriber → 403, whatever ids the body names', async () => {
    const body = {
      title: 'Probe',
      start_date: 'tomorrow',
      venue: 987654,
      organizer: 987655,
      categories: [987656],
    };
    expect((await h.http.post(`${API}/events`).send(body)).status).toBe(401);
    expect(
      (
        await h.http
          .post(`${API}/events`)
          .auth(...subscriber)
          .send(body)
      ).status,
    ).toBe(403);
    expect((await h.http.post(`${API}/events/${eventId}`).send(body)).status).toBe(401);
    expect(
      (
        await h.http
          .post(`${API}/events/${eventId}`)
          .auth(...subscriber)
          .send(body)
      ).status,
    ).toBe(403);
    const res = await h.http
      .post(`${API}/events`)
      .auth(...admin)
      .send(body);
    expect(res.status).toBe(400);
  });
});
