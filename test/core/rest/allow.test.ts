import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../helpers/fixtures.js';
import { createUser } from '../../helpers/users.js';

// `Allow` on every response of a known route, errors included, listing the methods this viewer may
// use on this record (docs/reference/compatibility.md; WordPress `WP_REST_Server::envelope_response`
// / `rest_send_allow_header`): viewers × routes × records.

const VIEWERS = ['anonymous', 'subscriber', 'contributor', 'author', 'editor', 'administrator'] as const;
type Who = (typeof VIEWERS)[number];
let h: Harness;
const as: Partial<Record<Who, [string, string]>> = {};
const ids: Record<string, number> = {};
const slugs: Record<string, string> = {};

beforeAll(async () => {
  h = await startHarness();
  const users: Partial<Record<Who, number>> = {};
  for (const role of ['subscriber', 'contributor', 'author', 'editor', 'administrator'] as const) {
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
  // By slug: an editor's and an author's event, a contributor's draft (drafts may have a slug here),
  // an author's event trashed through the API (its slug becomes `<slug>__trashed`), venues, organizers.
  await createEvent(h.db, { fields: { slug: 'editor-event', authorId: users.editor } });
  await createEvent(h.db, { fields: { slug: 'author-event', authorId: users.author } });
  await createEvent(h.db, {
    status: 'draft',
    fields: { slug: 'contributor-draft', authorId: users.contributor },
  });
  const binned = await createEvent(h.db, { fields: { slug: 'binned', authorId: users.author } });
  await send('delete', `/events/${binned.id}`, 'author').expect(200);
  // Trashing renamed it (docs/reference/compatibility.md), freeing `binned`.
  expect((await h.db.event.findUniqueOrThrow({ where: { id: binned.id } })).slug).toBe('binned__trashed');
  await createVenue(h.db, { slug: 'author-hall', authorId: users.author });
  await createVenue(h.db, { slug: 'binned-hall', authorId: users.author, status: 'trash' });
  await createOrganizer(h.db, { slug: 'editor-org', authorId: users.editor });
});

afterAll(async () => {
  await h?.close();
});

const ALL = 'GET, POST, PUT, PATCH, DELETE';
const READ = 'GET';
const CREATE = 'GET, POST';

function send(method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, who: Who) {
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

// By slug, as the reference computes it (TEC's `can_edit`/`can_delete` run on the id the slug
// resolved to): a slug naming a record lists the viewer's rights on it; one naming none (unknown, or
// a trashed event's old slug) lists the rights on the type — all five — to editors and
// administrators, on the 400/404 it answers too, while contributors and authors see what a record
// they may not touch shows (`GET`: D22, test/apis/id-oracle.test.ts). By id, an unknown record still
// lists `GET` alone.
type Method = 'get' | 'put' | 'patch' | 'delete';
/** On a slug naming no record, per viewer: anonymous, subscriber, contributor, author, editor, admin. */
const UNKNOWN = [READ, READ, READ, READ, ALL, ALL];
/** A write's statuses per viewer: 401, 403 without the right (D22, unknown slugs too), then `status`. */
const writeStatuses = (status: number) => [401, 403, 403, 403, status, status];

// [method, path, status (one for every viewer, or one per viewer), Allow per viewer]
const BY_SLUG: Array<[Method, string, number | number[], string[]]> = [
  ['get', '/events/by-slug/no-such-event', 400, UNKNOWN],
  ['get', '/events/by-slug/editor-event', 200, [READ, READ, READ, READ, ALL, ALL]],
  ['get', '/events/by-slug/author-event', 200, [READ, READ, READ, ALL, ALL, ALL]],
  // Only its author and editors may read the draft (to others its slug is unknown: 400) and edit it.
  [
    'get',
    '/events/by-slug/contributor-draft',
    [400, 400, 200, 400, 200, 200],
    [READ, READ, ALL, READ, ALL, ALL],
  ],
  // A trashed event's old slug names no event; its `__trashed` slug names the trashed one.
  ['get', '/events/by-slug/binned', 400, UNKNOWN],
  ['get', '/events/by-slug/binned__trashed', 403, [READ, READ, READ, ALL, ALL, ALL]],
  ['put', '/events/by-slug/no-such-event', writeStatuses(400), UNKNOWN],
  ['delete', '/events/by-slug/no-such-event', writeStatuses(400), UNKNOWN],
  ['get', '/venues/by-slug/no-such-hall', 404, UNKNOWN],
  ['get', '/venues/by-slug/author-hall', 200, [READ, READ, READ, ALL, ALL, ALL]],
  ['get', '/venues/by-slug/binned-hall', 403, [READ, READ, READ, ALL, ALL, ALL]],
  ['patch', '/venues/by-slug/no-such-hall', writeStatuses(404), UNKNOWN],
  ['get', '/organizers/by-slug/no-such-org', 404, UNKNOWN],
  ['get', '/organizers/by-slug/editor-org', 200, [READ, READ, READ, READ, ALL, ALL]],
  ['get', '/events/987654', 404, VIEWERS.map(() => READ)],
  ['get', '/venues/987654', 404, VIEWERS.map(() => READ)],
];

const BY_SLUG_CASES = BY_SLUG.flatMap(([method, path, status, allow]) =>
  VIEWERS.map((who, i) => ({
    who,
    method,
    path,
    status: typeof status === 'number' ? status : status[i]!,
    allow: allow[i]!,
  })),
);

describe("Allow by slug: the viewer's rights on the record the slug names, else on the type", () => {
  it.each(BY_SLUG_CASES)(
    '$who $method $path → $status, Allow: $allow',
    async ({ who, method, path, status, allow }) => {
      const request = send(method, path, who);
      const res = await (method === 'put' || method === 'patch'
        ? request.send({ title: 'Renamed' })
        : request);
      expect([res.status, set(res.headers.allow)]).toEqual([status, set(allow)]);
    },
  );
});
