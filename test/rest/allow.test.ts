import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, startHarness } from '../helpers/harness.js';
import { createEvent, createTerm, createVenue } from '../helpers/fixtures.js';
import { createUser } from '../helpers/users.js';

// `Allow` on every response of a known route, errors included, listing the methods this viewer may
// use on this record (docs/reference/compatibility.md; WordPress `WP_REST_Server::envelope_response`
// / `rest_send_allow_header`): viewers × routes × records.

type Who = 'anonymous' | 'subscriber' | 'contributor' | 'author' | 'editor';
let h: Harness;
const as: Partial<Record<Who, [string, string]>> = {};
const ids: Record<string, number> = {};
const slugs: Record<string, string> = {};

beforeAll(async () => {
  h = await startHarness();
  const users: Partial<Record<Who, number>> = {};
  for (const role of ['subscriber', 'contributor', 'author', 'editor'] as const) {
    const user = await createUser(h, role);
    as[role] = [user.login, user.password];
    users[role] = user.id;
  }
  const published = await createEvent(h.db, {
    title: 'Editor published',
    fields: { authorId: users.editor },
  });
  const draft = await createEvent(h.db, {
    title: 'Contributor draft',
    status: 'draft',
    fields: { authorId: users.contributor },
  });
  const authored = await createEvent(h.db, { title: 'Author published', fields: { authorId: users.author } });
  const trashed = await createEvent(h.db, {
    title: 'Trashed',
    status: 'trash',
    fields: { authorId: users.editor },
  });
  const venue = await createVenue(h.db, { authorId: users.author });
  const category = await createTerm(h.db, 'tribe_events_cat', 'Allow cat');
  Object.assign(ids, {
    published: published.id,
    draft: draft.id,
    authored: authored.id,
    trashed: trashed.id,
    venue: venue.id,
    category: category.id,
  });
  slugs.published = published.slug!;
});

afterAll(async () => {
  await h?.close();
});

const ALL = 'GET, POST, PUT, PATCH, DELETE';
const READ = 'GET';
const CREATE = 'GET, POST';

function send(method: 'get' | 'post' | 'delete', path: string, who: Who) {
  const request = h.http[method](`${API}${path}`);
  const credentials = as[who];
  if (credentials) request.auth(...credentials);
  return request;
}

const set = (header: string | undefined) =>
  (header ?? '')
    .split(',')
    .map((m) => m.trim())
    .sort();

// [viewer, method, path (ids filled in), expected status, expected Allow]
const CASES: Array<[Who, 'get' | 'post' | 'delete', () => string, number, string]> = [
  ['anonymous', 'get', () => '/events', 200, READ],
  ['subscriber', 'get', () => '/events', 200, READ],
  ['contributor', 'get', () => '/events', 200, CREATE],
  ['editor', 'get', () => '/events', 200, CREATE],
  ['anonymous', 'post', () => '/events', 401, READ],
  ['subscriber', 'post', () => '/events', 403, READ],
  ['author', 'get', () => '/categories', 200, READ],
  ['editor', 'get', () => '/categories', 200, CREATE],
  ['author', 'get', () => `/categories/${ids.category}`, 200, READ],
  ['editor', 'get', () => `/categories/${ids.category}`, 200, ALL],
  ['editor', 'get', () => '/categories/987654', 404, ALL],
  ['anonymous', 'get', () => `/events/${ids.published}`, 200, READ],
  ['contributor', 'get', () => `/events/${ids.published}`, 200, READ],
  ['author', 'get', () => `/events/${ids.published}`, 200, READ],
  ['editor', 'get', () => `/events/${ids.published}`, 200, ALL],
  ['editor', 'get', () => `/events/by-slug/${slugs.published}`, 200, ALL],
  ['author', 'get', () => `/events/${ids.authored}`, 200, ALL],
  ['contributor', 'get', () => `/events/${ids.draft}`, 200, ALL],
  ['anonymous', 'get', () => `/events/${ids.draft}`, 403, READ],
  ['contributor', 'post', () => `/events/${ids.published}`, 403, READ],
  ['editor', 'get', () => '/events/987654', 404, READ],
  // Past 32 bits: no record, no database error (found by the fuzz test on PostgreSQL).
  ['editor', 'delete', () => '/events/2147483648', 400, READ],
  ['editor', 'delete', () => `/events/${ids.trashed}`, 410, ALL],
  ['author', 'get', () => `/venues/${ids.venue}`, 200, ALL],
  ['contributor', 'get', () => `/venues/${ids.venue}`, 200, READ],
  ['editor', 'get', () => '/doc', 200, READ],
  ['editor', 'get', () => '', 200, READ],
  ['editor', 'get', () => `/events/${ids.published}.ics`, 200, READ],
];

describe('Allow', () => {
  it.each(CASES)('%s %s %s → %i, Allow: %s', async (who, method, path, status, allow) => {
    const res = await send(method, path(), who);
    expect(res.status).toBe(status);
    expect(set(res.headers.allow)).toEqual(set(allow));
  });

  it('is absent where no route matched, and on a refused login', async () => {
    expect((await h.http.get(`${API}/nowhere`).expect(404)).headers.allow).toBeUndefined();
    const refused = await h.http.get(`${API}/events`).auth('nobody', 'wrong').expect(401);
    expect(refused.headers.allow).toBeUndefined();
  });
});
