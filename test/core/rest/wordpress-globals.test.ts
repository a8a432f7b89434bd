import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import apiFetchModule from '@wordpress/api-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent } from '../../helpers/fixtures.js';
import { basicAuth, createUser } from '../../helpers/users.js';

// WordPress REST global parameters (#14 point 9), driven with WordPress's own client
// (`@wordpress/api-fetch`, whose default middleware sends PUT/PATCH/DELETE as POST with
// X-HTTP-Method-Override) against the real app on a port, plus `_method`, `_fields`, `_envelope`.

// Its typings describe the CommonJS build; under Vitest the ES module's default export is the function.
const apiFetch = ((apiFetchModule as { default?: unknown }).default ??
  apiFetchModule) as typeof apiFetchModule.default;

let h: Harness;
let server: Server;
let auth: string;

beforeAll(async () => {
  h = await startHarness();
  const editor = await createUser(h, 'editor');
  auth = basicAuth(editor);
  server = h.app.listen(0, '127.0.0.1');
  await new Promise((done) => server.once('listening', done));
  const { port } = server.address() as AddressInfo;
  apiFetch.use(apiFetch.createRootURLMiddleware(`http://127.0.0.1:${port}/`));
});

afterAll(async () => {
  await new Promise((done) => server?.close(done));
  await h?.close();
});

const path = (rest: string) => `${API.slice(1)}${rest}`;

describe('@wordpress/api-fetch', () => {
  it('DELETE (sent as POST + X-HTTP-Method-Override) trashes the event instead of updating nothing', async () => {
    const event = await createEvent(h.db, { title: 'Doomed' });
    const trashed = (await apiFetch({
      path: path(`/events/${event.id}`),
      method: 'DELETE',
      headers: { Authorization: auth },
    })) as { id: number; status: string };
    expect(trashed).toMatchObject({ id: event.id, status: 'trash' });
    expect((await h.db.event.findUniqueOrThrow({ where: { id: event.id } })).status).toBe('trash');
  });

  it('PUT and PATCH update', async () => {
    const event = await createEvent(h.db, { title: 'Before' });
    for (const [method, title] of [
      ['PUT', 'After put'],
      ['PATCH', 'After patch'],
    ] as const) {
      const updated = (await apiFetch({
        path: path(`/events/${event.id}`),
        method,
        data: { title },
        headers: { Authorization: auth },
      })) as { title: string };
      expect(updated.title).toBe(title);
    }
  });

  it('reads lists with _fields, nested paths included', async () => {
    await createEvent(h.db, { title: 'Fielded' });
    const list = (await apiFetch({ path: path('/events?_fields=total,events.id,events.title') })) as Record<
      string,
      unknown
    >;
    expect(Object.keys(list).sort()).toEqual(['events', 'total']);
    for (const item of list.events as Array<Record<string, unknown>>)
      expect(Object.keys(item).sort()).toEqual(['id', 'title']);
  });

  it('surfaces a WordPress error as api-fetch expects', async () => {
    await expect(apiFetch({ path: path('/events/987654') })).rejects.toMatchObject({
      code: 'rest-event-not-found',
    });
  });
});

describe('the parameters by hand', () => {
  it('_method=DELETE on a POST', async () => {
    const event = await createEvent(h.db, { title: 'Query override' });
    const res = await h.http
      .post(`${API}/events/${event.id}?_method=DELETE`)
      .set('Authorization', auth)
      .expect(200);
    expect(res.body.status).toBe('trash');
  });

  it('_envelope answers 200 with body, status and the route headers — errors too', async () => {
    const ok = await h.http.get(`${API}/events?_envelope&per_page=1`).expect(200);
    expect(ok.body.status).toBe(200);
    expect(ok.body.body.events).toHaveLength(1);
    expect(ok.body.headers).toMatchObject({ 'X-TEC-Total': expect.any(String), Allow: expect.any(String) });
    const missing = await h.http.get(`${API}/events/987654?_envelope=1`).expect(200);
    expect(missing.body).toMatchObject({ status: 404, body: { code: 'rest-event-not-found' } });
    expect(missing.headers.etag).toBeUndefined();
  });

  it('_fields on a single record, and never served as the whole cached answer', async () => {
    const event = await createEvent(h.db, { title: 'Single fields' });
    const res = await h.http.get(`${API}/events/${event.id}?_fields=id,venue`).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(['id', 'venue']);
    const whole = await h.http.get(`${API}/events/${event.id}`).expect(200);
    expect(whole.body.title).toBe('Single fields');
  });
});
