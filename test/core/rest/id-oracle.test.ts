import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Response } from 'supertest';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent, createOrganizer, createVenue } from '../../helpers/fixtures.js';
import { sample } from '../../helpers/samples.js';
import { createUser } from '../../helpers/users.js';

// D22 (issue #30 point 1): a write by a caller who may not touch a record answers an unknown id or slug
// exactly as it answers an existing record — status, code, body and `Allow` — so no write tells which
// ids exist. The table: every keyed write route × anonymous and the writers who may not touch the
// record (subscriber, and the contributor and author who are not its author) × an existing draft and
// an unknown key. Editors, who may act on every record, are told what is missing.

type Credentials = { id: number; login: string; password: string };
type Method = 'post' | 'put' | 'patch' | 'delete';
let h: Harness;
let editor: Credentials;
const callers: Record<string, Credentials | undefined> = { anonymous: undefined };

/** An existing draft (owned by the administrator) and a key that names nothing, per route family. */
const targets: Record<string, { existing: string; unknown: string }> = {};
/** The drafts, to show that no refused write touched them. */
const drafts: Record<'event' | 'venue' | 'organizer', { id: number; modifiedAt: Date }> = {} as never;

beforeAll(async () => {
  h = await startHarness();
  const admin = await createUser(h, 'administrator');
  editor = await createUser(h, 'editor');
  for (const role of ['subscriber', 'contributor', 'author'] as const)
    callers[role] = await createUser(h, role);
  const event = await createEvent(h.db, {
    status: 'draft',
    fields: { slug: 'hidden-draft', authorId: admin.id },
  });
  const venue = await createVenue(h.db, { status: 'draft', slug: 'hidden-hall', authorId: admin.id });
  const organizer = await createOrganizer(h.db, { status: 'draft', slug: 'hidden-org', authorId: admin.id });
  drafts.event = event;
  drafts.venue = venue;
  drafts.organizer = organizer;
  for (const [path, record] of [
    ['events', event],
    ['venues', venue],
    ['organizers', organizer],
  ] as const) {
    targets[`/${path}/{id}`] = { existing: `/${path}/${record.id}`, unknown: `/${path}/987654` };
    targets[`/${path}/by-slug/{slug}`] = {
      existing: `/${path}/by-slug/${record.slug}`,
      unknown: `/${path}/by-slug/no-such-${path}`,
    };
  }
});
afterAll(() => h.close());

/** Bodies an editor's write would refuse (400): the refusal must not depend on them either. */
const BODIES: Record<string, object> = {
  events: { title: 'Taken over', start_date: 'before my birthday' },
  venues: { venue: 'Taken over', website: 'not a url' },
  organizers: { organizer: 'Taken over', website: 'not a url' },
};

function send(method: Method, path: string, as?: Credentials, query = '') {
  const request = h.http[method](`${API}${path}${query}`);
  if (as) request.auth(as.login, as.password);
  return method === 'delete' ? request : request.send(BODIES[path.split('/')[1]!]!);
}

/** What must be identical: the status, the `Allow` header, and the body but for its request id. */
function answer(res: Response) {
  const body = res.body as { data?: Record<string, unknown> };
  const { request_id: _id, ...data } = body.data ?? {};
  return { status: res.status, allow: res.headers.allow, body: { ...body, data } };
}

const ROUTES = [
  '/events/{id}',
  '/events/by-slug/{slug}',
  '/venues/{id}',
  '/venues/by-slug/{slug}',
  '/organizers/{id}',
  '/organizers/by-slug/{slug}',
];
const WRITES: Array<[Method, string]> = [
  ['post', ''],
  ['put', ''],
  ['patch', ''],
  ['delete', ''],
  ['delete', '?force=true'],
];
const CALLERS = ['anonymous', 'subscriber', 'contributor', 'author'];

describe('keyed writes answer an unknown key as an existing record the caller may not touch (D22)', () => {
  const table = CALLERS.flatMap((caller) =>
    ROUTES.flatMap((route) => WRITES.map(([method, query]) => [caller, method, route, query] as const)),
  );

  it.each(table)(
    '%s %s %s%s: existing draft and unknown key answer alike',
    async (caller, method, route, query) => {
      const as = callers[caller];
      const { existing, unknown } = targets[route]!;
      const onExisting = answer(await send(method, existing, as, query));
      const onUnknown = answer(await send(method, unknown, as, query));
      // The reference's refusal (sample 21), with 403 for a logged-in caller.
      const { code, message } = sample('21-event-update-anon-401.json') as { code: string; message: string };
      const status = caller === 'anonymous' ? 401 : 403;
      expect(onExisting).toEqual({ status, allow: 'GET', body: { code, message, data: { status } } });
      expect(onUnknown).toEqual(onExisting);
    },
  );

  it('left every draft as it was', async () => {
    expect(await h.db.event.findUniqueOrThrow({ where: { id: drafts.event.id } })).toMatchObject({
      status: 'draft',
      modifiedAt: drafts.event.modifiedAt,
    });
    expect(await h.db.venue.findUniqueOrThrow({ where: { id: drafts.venue.id } })).toMatchObject({
      status: 'draft',
      modifiedAt: drafts.venue.modifiedAt,
    });
    expect(await h.db.organizer.findUniqueOrThrow({ where: { id: drafts.organizer.id } })).toMatchObject({
      status: 'draft',
      modifiedAt: drafts.organizer.modifiedAt,
    });
  });
});

describe('an editor, who may act on every record, is told what is missing', () => {
  it('and has the bodies of the table refused (400) on the existing drafts', async () => {
    for (const route of ROUTES) {
      const res = await send('patch', targets[route]!.existing, editor);
      expect([route, res.status, res.body.code]).toEqual([route, 400, 'rest_invalid_param']);
    }
  });

  it.each(WRITES)(
    '%s%s: 404 by id (D1), 400 naming slug for an event slug, 404 for other slugs',
    async (method, query) => {
      const codes: Record<string, [number, string]> = {
        '/events/{id}': [404, 'rest-event-not-found'],
        '/events/by-slug/{slug}': [400, 'rest_invalid_param'],
        '/venues/{id}': [404, 'venue-not-found'],
        '/venues/by-slug/{slug}': [404, 'venue-not-found'],
        '/organizers/{id}': [404, 'organizer-not-found'],
        '/organizers/by-slug/{slug}': [404, 'organizer-not-found'],
      };
      for (const route of ROUTES) {
        const res = await send(method, targets[route]!.unknown, editor, query);
        expect([res.status, res.body.code]).toEqual(codes[route]);
      }
    },
  );
});
