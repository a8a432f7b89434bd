import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness } from '../../../helpers/harness.js';
import { createEvent } from '../../../helpers/fixtures.js';
import { type Users, startWithRoles } from '../../../helpers/users.js';

// Validators and conditional answers on cacheable reads; protected content never in a shared entry.

let h: Harness;
let users: Users;
let open: { id: number };
let secret: { id: number };

beforeAll(async () => {
  ({ h, users } = await startWithRoles({ CALENDAR_CACHE: 'on' }));
  open = await createEvent(h.db, { title: 'Open day' });
  secret = await createEvent(h.db, {
    title: 'Secret party',
    fields: { password: 'hunter2', description: 'The cellar' },
  });
});
afterAll(() => h.close());

const SINGLE_QUERY =
  'query($id: Int!, $password: String) { event(id: $id, password: $password) { title description } }';

describe('conditional reads', () => {
  it.each([`${API}/events`, `${API}/events/{open}`, `${API}/categories`, API])(
    'GET %s: strong ETag, 304 on If-None-Match, Cache-Control and Vary',
    async (template) => {
      const path = template.replace('{open}', String(open.id));
      const first = await h.http.get(path).expect(200);
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[\w.-]+"$/);
      expect(first.headers['cache-control']).toBe('public, max-age=0, must-revalidate');
      expect(first.headers.vary).toMatch(/Authorization/);
      expect(first.headers.vary).toMatch(/Accept/);
      expect(first.headers.vary).toMatch(/Accept-Encoding/);
      const hit = await h.http.get(path).expect(200);
      expect(hit.headers['x-cache']).toBe('hit');
      expect(hit.headers.etag).toBe(etag);
      expect(hit.text).toBe(first.text);
      const notModified = await h.http.get(path).set('If-None-Match', etag);
      expect(notModified.status).toBe(304);
      expect(notModified.text).toBe('');
      // As its GETs do (superagent asks for no coding on a HEAD by itself): the same representation.
      const head = await h.http
        .head(path)
        .set('Accept-Encoding', 'gzip, deflate')
        .set('If-None-Match', '"other"');
      expect(head.status).toBe(200);
      expect(head.headers.etag).toBe(etag);
    },
  );

  it('a single record says when it last changed; a write changes its ETag', async () => {
    const first = await h.http.get(`${API}/events/${open.id}`).expect(200);
    expect(new Date(first.headers['last-modified'] as string).getTime()).not.toBeNaN();
    await h.http
      .post(`${API}/events/${open.id}`)
      .auth(users.administrator.login, users.administrator.password)
      .send({ title: 'Open day (moved)' })
      .expect(200);
    const changed = await h.http
      .get(`${API}/events/${open.id}`)
      .set('If-None-Match', first.headers.etag as string);
    expect(changed.status).toBe(200);
    expect(changed.body.title).toBe('Open day (moved)');
    expect(changed.headers.etag).not.toBe(first.headers.etag);
  });

  it('authenticated reads are private and never shared', async () => {
    const res = await h.http
      .get(`${API}/events`)
      .auth(users.administrator.login, users.administrator.password)
      .expect(200);
    expect(res.headers['cache-control']).toBe('private, max-age=0, must-revalidate');
    expect(res.headers['x-cache']).toBeUndefined();
    const again = await h.http
      .get(`${API}/events`)
      .auth(users.administrator.login, users.administrator.password)
      .expect(200);
    expect(again.headers['x-cache']).toBeUndefined();
  });
});

describe('password-protected content is never served from a shared entry', () => {
  const sequences = [
    ['without', 'with', 'without', 'with'],
    ['with', 'without', 'with', 'without'],
  ] as const;
  it.each(sequences)('REST single: %s, %s, %s, %s the password', async (...steps) => {
    for (const step of steps) {
      const res = await h.http.get(`${API}/events/${secret.id}${step === 'with' ? '?password=hunter2' : ''}`);
      if (step === 'with') {
        expect(res.status).toBe(200);
        expect(res.body.description).toContain('The cellar');
        expect(res.headers['x-cache']).toBeUndefined();
        expect(res.headers['cache-control']).toMatch(/^private/);
      } else expect(JSON.stringify(res.body)).not.toContain('The cellar');
    }
  });

  it.each(sequences)('GraphQL single: %s, %s, %s, %s the password', async (...steps) => {
    for (const step of steps) {
      const res = await h.http
        .post('/graphql')
        .send({
          query: SINGLE_QUERY,
          variables: { id: secret.id, ...(step === 'with' ? { password: 'hunter2' } : {}) },
        })
        .expect(200);
      expect(res.headers['x-cache']).toBeUndefined();
      if (step === 'with') expect(res.body.data.event.description).toContain('The cellar');
      else expect(JSON.stringify(res.body)).not.toContain('The cellar');
    }
  });

  it('GraphQL: a query without the password is shared, and shows nothing protected', async () => {
    const query = `{ event(id: ${secret.id}) { title description } }`;
    await h.http.post('/graphql').send({ query }).expect(200);
    const hit = await h.http.post('/graphql').send({ query }).expect(200);
    expect(hit.headers['x-cache']).toBe('hit');
    expect(JSON.stringify(hit.body)).not.toContain('The cellar');
  });
});
