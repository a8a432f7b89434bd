import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../../src/app.js';
import { createLogger } from '../../../../src/core/ops/logger.js';
import { API, type Harness, startHarness } from '../../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../../helpers/fixtures.js';
import { type Users, withRoles } from '../../../helpers/users.js';

// Every write route and mutation, REST and GraphQL: reads answered from the cache before the write
// answer, after it, exactly what an app without a cache answers on the same data.

let h: Harness;
let fresh: ReturnType<typeof supertest>;
let users: Users;

beforeAll(async () => {
  h = await startHarness({ CALENDAR_CACHE: 'on' });
  const app = buildApp({
    db: h.db,
    config: { ...h.config, cache: { enabled: false, maxBytes: 0 } },
    logger: createLogger('silent'),
  });
  fresh = supertest(app.callback());
  users = await withRoles(h);
});
afterAll(() => h.close());

type Kind = 'event' | 'venue' | 'organizer' | 'category' | 'tag';
interface Target {
  id: number;
  slug: string | null;
}

const soon = new Date(Date.now() + 3 * 86400_000).toISOString().slice(0, 10);
const KINDS: Record<
  Kind,
  {
    path: string;
    gqlList: string;
    gqlName: string;
    bySlug: boolean;
    trash: boolean;
    make: () => Promise<Target>;
    restBody: (text: string) => object;
    gqlInput: (text: string) => object;
  }
> = {
  event: {
    path: 'events',
    gqlList: 'events(perPage: 50) { items { id title status } }',
    gqlName: 'Event',
    bySlug: true,
    trash: true,
    make: () => createEvent(h.db),
    restBody: (title) => ({ title, start_date: `${soon} 10:00:00`, end_date: `${soon} 11:00:00` }),
    gqlInput: (title) => ({ title, startDate: `${soon} 10:00:00`, endDate: `${soon} 11:00:00` }),
  },
  venue: {
    path: 'venues',
    gqlList: 'venues(perPage: 50) { items { id name } }',
    gqlName: 'Venue',
    bySlug: true,
    trash: true,
    make: () => createVenue(h.db),
    restBody: (name) => ({ venue: name }),
    gqlInput: (name) => ({ name }),
  },
  organizer: {
    path: 'organizers',
    gqlList: 'organizers(perPage: 50) { items { id name } }',
    gqlName: 'Organizer',
    bySlug: true,
    trash: true,
    make: () => createOrganizer(h.db),
    restBody: (name) => ({ organizer: name }),
    gqlInput: (name) => ({ name }),
  },
  category: {
    path: 'categories',
    gqlList: 'categories(perPage: 50) { items { id name } }',
    gqlName: 'Category',
    bySlug: false,
    trash: false,
    make: () => createTerm(h.db, 'tribe_events_cat'),
    restBody: (name) => ({ name }),
    gqlInput: (name) => ({ name }),
  },
  tag: {
    path: 'tags',
    gqlList: 'tags(perPage: 50) { items { id name } }',
    gqlName: 'Tag',
    bySlug: false,
    trash: false,
    make: () => createTerm(h.db, 'post_tag'),
    restBody: (name) => ({ name }),
    gqlInput: (name) => ({ name }),
  },
};

type Operation = 'create' | 'update' | 'update-by-slug' | 'trash' | 'trash-by-slug' | 'force-delete';
const OPERATIONS: Operation[] = [
  'create',
  'update',
  'update-by-slug',
  'trash',
  'trash-by-slug',
  'force-delete',
];

let sequence = 0;

/** The write through REST; returns the id of the record it touched. */
async function restWrite(kind: Kind, operation: Operation, target: Target): Promise<number> {
  const k = KINDS[kind];
  const text = `Changed ${kind} ${++sequence}`;
  const base = `${API}/${k.path}`;
  const call =
    operation === 'create'
      ? h.http.post(base).send(k.restBody(text))
      : operation === 'update'
        ? h.http.post(`${base}/${target.id}`).send(k.restBody(text))
        : operation === 'update-by-slug'
          ? h.http.post(`${base}/by-slug/${target.slug}`).send(k.restBody(text))
          : operation === 'trash' || (operation === 'force-delete' && !k.trash)
            ? h.http.delete(`${base}/${target.id}`)
            : operation === 'trash-by-slug'
              ? h.http.delete(`${base}/by-slug/${target.slug}`)
              : h.http.delete(`${base}/${target.id}?force=true`);
  const res = await call.auth(users.administrator.login, users.administrator.password);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return (res.body as { id?: number }).id ?? target.id;
}

/** The same write as a GraphQL mutation. */
async function graphqlWrite(kind: Kind, operation: Operation, target: Target): Promise<number> {
  const k = KINDS[kind];
  const n = k.gqlName;
  const input = k.gqlInput(`Changed ${kind} ${++sequence}`);
  const [query, variables] =
    operation === 'create'
      ? [`mutation($input: Create${n}Input!) { w: create${n}(input: $input) { id: databaseId } }`, { input }]
      : operation === 'update'
        ? [
            `mutation($input: Update${n}Input!) { w: update${n}(id: ${target.id}, input: $input) { id: databaseId } }`,
            { input },
          ]
        : operation === 'update-by-slug'
          ? [
              `mutation($input: Update${n}BySlugInput!) { w: update${n}BySlug(slug: "${target.slug}", input: $input) { id: databaseId } }`,
              { input },
            ]
          : operation === 'trash' || (operation === 'force-delete' && !k.trash)
            ? [`mutation { w: delete${n}(id: ${target.id}) { id: databaseId } }`, {}]
            : operation === 'trash-by-slug'
              ? [`mutation { w: delete${n}BySlug(slug: "${target.slug}") { id: databaseId } }`, {}]
              : [`mutation { w: delete${n}(id: ${target.id}, force: true) { id: databaseId } }`, {}];
  const res = await h.http
    .post('/graphql')
    .auth(users.administrator.login, users.administrator.password)
    .send({ query, variables });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return (res.body.data.w as { id: number }).id;
}

async function reads(kind: Kind, id: number, http: ReturnType<typeof supertest>) {
  const k = KINDS[kind];
  // One request id for every read: error bodies name it, and both apps must answer byte for byte alike.
  const list = await http.get(`${API}/${k.path}?per_page=50`).set('X-Request-Id', 'freshness');
  const single = await http.get(`${API}/${k.path}/${id}`).set('X-Request-Id', 'freshness');
  const graphql = await http
    .post('/graphql')
    .set('X-Request-Id', 'freshness')
    .send({ query: `{ ${k.gqlList} }` });
  return [list, single, graphql].map((res) => ({ status: res.status, body: res.text as string }));
}

const cases = (Object.keys(KINDS) as Kind[]).flatMap((kind) =>
  OPERATIONS.filter((operation) => KINDS[kind].bySlug || !operation.endsWith('by-slug'))
    .filter((operation) => KINDS[kind].trash || operation !== 'trash')
    .flatMap((operation) => (['REST', 'GraphQL'] as const).map((api) => ({ kind, operation, api }))),
);

describe('a write makes every cached read that could show it fresh', () => {
  it.each(cases)('$api $operation $kind', async ({ kind, operation, api }) => {
    const target = await KINDS[kind].make();
    // A direct fixture write bypasses the pipeline: start from an empty cache.
    await h.writes.run(
      { db: h.db, viewer: { userId: null, login: null, role: null }, config: h.config },
      async (s) => {
        s.changed(kind === 'category' || kind === 'tag' ? 'term' : kind, target.id, 'updated');
      },
    );
    const before = await reads(kind, target.id, h.http);
    const again = await h.http.get(`${API}/${KINDS[kind].path}?per_page=50`);
    expect(again.headers['x-cache']).toBe('hit');

    const id = await (api === 'REST' ? restWrite : graphqlWrite)(kind, operation, target);

    const after = await reads(kind, id, h.http);
    const truth = await reads(kind, id, fresh);
    expect(after).toEqual(truth);
    expect(after).not.toEqual(before);
  });
});
