import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../../rest-map/routes.js';
import { API, type Harness, SITE_URL, startHarness } from '../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../helpers/fixtures.js';
import { createUser } from '../helpers/users.js';

// Cross-site writes (#30 point 10): another site's page can send a form to the REST API without a
// preflight, with the credentials the browser holds. Every REST write route × what the browser says
// about where the request comes from: refused with 403 `rest_cross_site_request` (nothing written)
// unless it comes from the site itself, an allowed CORS origin, or no browser at all.

const ALLOWED = 'https://app.example';
const EVIL = 'https://evil.example';
/** How the request is reached in `Host`, so that the address it was sent to is an origin of its own. */
const REACHED_AT = 'calendar.internal:4000';

const CASES = {
  'a cross-site Origin': { Origin: EVIL, 'Sec-Fetch-Site': 'cross-site' },
  'another Origin, no Sec-Fetch-Site (an older browser)': { Origin: EVIL },
  'Sec-Fetch-Site cross-site, no Origin': { 'Sec-Fetch-Site': 'cross-site' },
  'Sec-Fetch-Site same-site, no Origin (a sibling host)': { 'Sec-Fetch-Site': 'same-site' },
  'Origin null': { Origin: 'null', 'Sec-Fetch-Site': 'cross-site' },
  'the site’s own origin': { Origin: SITE_URL, 'Sec-Fetch-Site': 'same-origin' },
  'the origin it was sent to': { Origin: `http://${REACHED_AT}`, 'Sec-Fetch-Site': 'same-origin' },
  'an allowed CORS origin': { Origin: ALLOWED, 'Sec-Fetch-Site': 'cross-site' },
  'server to server (neither header)': {},
} satisfies Record<string, Record<string, string>>;
type Case = keyof typeof CASES;
const REFUSED = new Set<Case>([
  'a cross-site Origin',
  'another Origin, no Sec-Fetch-Site (an older browser)',
  'Sec-Fetch-Site cross-site, no Origin',
  'Sec-Fetch-Site same-site, no Origin (a sibling host)',
  'Origin null',
]);

type Resource = 'events' | 'venues' | 'organizers' | 'categories' | 'tags';
type Kind = 'create' | 'update' | 'delete';

interface Row {
  method: string;
  path: string;
  resource: Resource;
  kind: Kind;
  /** How a browser form reaches the method: the method itself, `?_method=`, or the override header. */
  tunnel?: '_method' | 'header';
}

// Every write route of the table, each method, and the tunnelled forms of updates and deletes.
const ROWS: Row[] = restRoutes.flatMap((route) =>
  route.methods
    .filter((method) => method !== 'GET')
    .flatMap((method): Row[] => {
      const resource = route.path.split('/')[1] as Resource;
      const kind: Kind = method === 'DELETE' ? 'delete' : route.path.includes(':') ? 'update' : 'create';
      const row = { method, path: route.path, resource, kind };
      if (method === 'DELETE') return [row, { ...row, tunnel: '_method' }];
      if (method === 'PUT') return [row, { ...row, tunnel: 'header' }];
      return [row];
    }),
);

let h: Harness;
let admin: [string, string];
let sequence = 0;

beforeAll(async () => {
  h = await startHarness({ CALENDAR_CORS_ORIGINS: ALLOWED });
  const a = await createUser(h, 'administrator');
  admin = [a.login, a.password];
});

afterAll(async () => {
  await h?.close();
});

/** A record the write targets, and how to read it back (to tell whether anything was written). */
async function target(
  resource: Resource,
): Promise<{ id: number; slug: string | null; read: () => Promise<unknown> }> {
  switch (resource) {
    case 'events': {
      const { id, slug } = await createEvent(h.db);
      return { id, slug, read: () => h.db.event.findUnique({ where: { id } }) };
    }
    case 'venues': {
      const { id, slug } = await createVenue(h.db);
      return { id, slug, read: () => h.db.venue.findUnique({ where: { id } }) };
    }
    case 'organizers': {
      const { id, slug } = await createOrganizer(h.db);
      return { id, slug, read: () => h.db.organizer.findUnique({ where: { id } }) };
    }
    default: {
      const { id, slug } = await createTerm(
        h.db,
        resource === 'categories' ? 'tribe_events_cat' : 'post_tag',
      );
      return { id, slug, read: () => h.db.term.findUnique({ where: { id } }) };
    }
  }
}

/** The name a create or an update writes, and how many records carry it. */
function named(resource: Resource, name: string): { body: string; count: () => Promise<number> } {
  const field = {
    events: 'title',
    venues: 'venue',
    organizers: 'organizer',
    categories: 'name',
    tags: 'name',
  }[resource];
  const dates =
    resource === 'events' && name.startsWith('created')
      ? '&start_date=2031-05-01%2010%3A00%3A00&end_date=2031-05-01%2011%3A00%3A00'
      : '';
  const count = {
    events: () => h.db.event.count({ where: { title: name } }),
    venues: () => h.db.venue.count({ where: { name } }),
    organizers: () => h.db.organizer.count({ where: { name } }),
    categories: () => h.db.term.count({ where: { name } }),
    tags: () => h.db.term.count({ where: { name } }),
  }[resource];
  return { body: `${field}=${encodeURIComponent(name)}${dates}`, count };
}

/** One request of the row as a browser (or a server) would send it; what it answered and wrote. */
async function send(row: Row, headers: Record<string, string>) {
  const record = row.kind === 'create' ? undefined : await target(row.resource);
  const path = row.path.replace(':id', String(record?.id)).replace(':slug', record?.slug ?? '');
  const name = `${row.kind === 'create' ? 'created' : 'renamed'} ${++sequence}`;
  const { body, count } = named(row.resource, name);
  const before = await record?.read();
  const method = row.tunnel ? 'POST' : row.method;
  const url = `${API}${path}${row.tunnel === '_method' ? `?_method=${row.method}` : ''}`;
  const request = h.http[method.toLowerCase() as 'post' | 'put' | 'patch' | 'delete'](url)
    .auth(...admin)
    .set('Host', REACHED_AT)
    .set(headers);
  if (row.tunnel === 'header') request.set('X-HTTP-Method-Override', row.method);
  const res = await (row.kind === 'delete' && !row.tunnel ? request : request.type('form').send(body));
  const written =
    row.kind === 'delete'
      ? JSON.stringify(await record!.read()) !== JSON.stringify(before)
      : (await count()) > 0;
  return { status: res.status, code: (res.body as { code?: string }).code, written, body: res.body };
}

describe('REST writes from another site', () => {
  it('covers every write route of the table', () => {
    const routes = new Set(ROWS.map((row) => `${row.method} ${row.path}`));
    for (const resource of ['events', 'venues', 'organizers', 'categories', 'tags'])
      for (const path of [`/${resource}`, `/${resource}/:id`])
        expect(routes, path).toContain(`${path === `/${resource}` ? 'POST' : 'DELETE'} ${path}`);
    for (const resource of ['events', 'venues', 'organizers'])
      expect(routes).toContain(`PATCH /${resource}/by-slug/:slug`);
    expect(ROWS.length).toBeGreaterThanOrEqual(45);
  });

  it.each(
    ROWS.map((row) => [`${row.tunnel ? `POST (${row.tunnel} ${row.method})` : row.method} ${row.path}`, row]),
  )('%s', async (_name, row) => {
    const success = row.kind === 'create' ? 201 : 200;
    const expected: Record<string, unknown> = {};
    const actual: Record<string, unknown> = {};
    for (const [name, headers] of Object.entries(CASES) as Array<[Case, Record<string, string>]>) {
      const refused = REFUSED.has(name);
      expected[name] = refused
        ? { status: 403, code: 'rest_cross_site_request', written: false }
        : { status: success, code: undefined, written: true };
      const { body, ...answer } = await send(row, headers);
      actual[name] = answer;
      if (refused)
        expect(body, name).toMatchObject({
          code: 'rest_cross_site_request',
          message: expect.any(String),
          data: { status: 403 },
        });
    }
    expect(actual).toEqual(expected);
  });

  it('refuses an anonymous cross-site write the same way (before credentials are looked at)', async () => {
    const res = await h.http
      .post(`${API}/events`)
      .set({ Origin: EVIL, 'Sec-Fetch-Site': 'cross-site' })
      .type('form')
      .send('title=x');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('rest_cross_site_request');
  });

  it('lets reads through from anywhere, and a tunnelled read is still a POST', async () => {
    const { id } = await createEvent(h.db);
    await h.http.get(`${API}/events/${id}`).set({ Origin: EVIL, 'Sec-Fetch-Site': 'cross-site' }).expect(200);
    await h.http.head(`${API}/events`).set({ Origin: EVIL, 'Sec-Fetch-Site': 'cross-site' }).expect(200);
    const tunnelled = await h.http
      .post(`${API}/events/${id}?_method=GET`)
      .set({ Origin: EVIL, 'Sec-Fetch-Site': 'cross-site' });
    expect(tunnelled.status).toBe(403);
    // A preflight of an allowed origin is still answered.
    await h.http
      .options(`${API}/events`)
      .set({ Origin: ALLOWED, 'Access-Control-Request-Method': 'POST' })
      .expect(204);
  });
});

describe('CALENDAR_CORS_ORIGINS=*', () => {
  it('opens anonymous reads to any origin, never writes', async () => {
    const open = await startHarness({ CALENDAR_CORS_ORIGINS: '*' });
    try {
      const user = await createUser(open, 'administrator');
      const read = await open.http.get(`${API}/events`).set('Origin', EVIL).expect(200);
      expect(read.headers['access-control-allow-origin']).toBe('*');
      const write = await open.http
        .post(`${API}/categories`)
        .auth(user.login, user.password)
        .set({ Origin: EVIL, 'Sec-Fetch-Site': 'cross-site' })
        .type('form')
        .send('name=wildcard');
      expect(write.status).toBe(403);
      expect(write.body.code).toBe('rest_cross_site_request');
      expect(await open.db.term.count({ where: { name: 'wildcard' } })).toBe(0);
    } finally {
      await open.close();
    }
  });
});

describe('GraphQL keeps its own rule (JSON only: always preflighted)', () => {
  const mutation = 'mutation { createCategory(input: { name: "cross-site" }) { id: databaseId } }';

  it('a cross-site form is refused with 415, nothing written', async () => {
    const res = await h.http
      .post('/graphql')
      .auth(...admin)
      .set({ Origin: EVIL, 'Sec-Fetch-Site': 'cross-site' })
      .type('form')
      .send(`query=${encodeURIComponent(mutation)}`);
    expect(res.status).toBe(415);
    expect(await h.db.term.count({ where: { name: 'cross-site' } })).toBe(0);
  });

  it('an allowed origin’s JSON mutation runs', async () => {
    const res = await h.http
      .post('/graphql')
      .auth(...admin)
      .set({ Origin: ALLOWED, 'Sec-Fetch-Site': 'cross-site' })
      .send({ query: mutation })
      .expect(200);
    expect(res.body.errors).toBeUndefined();
    expect(await h.db.term.count({ where: { name: 'cross-site' } })).toBe(1);
  });
});
