import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Response } from 'supertest';
import { API, type Harness, startHarness } from '../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../helpers/fixtures.js';
import { sample } from '../helpers/samples.js';
import { basicAuth, createUser } from '../helpers/users.js';
import { encodeGlobalId } from '../../src/core/graphql/schema/global-ids.js';

// D22 (issue #30 point 1) on both APIs: a write by a caller who may not touch a keyed record answers an
// unknown id or slug exactly as it answers an existing record — REST's status, code, body and `Allow`;
// GraphQL's HTTP status and whole body (`data`, and every error's message, locations, path and
// extensions) — so no write tells which ids exist. One table per API: every keyed write (each REST
// route and method, each GraphQL mutation) × anonymous and the callers who may not touch the record
// (subscriber, and the contributor and author who are not its author) × an existing draft and an
// unknown key; whoever may act on every record of the type is told what is missing. Then what only
// GraphQL shows (versions, link entries, reads by global id).

type Credentials = { id: number; login: string; password: string };
let h: Harness;
const callers: Record<string, Credentials | undefined> = { anonymous: undefined };

/** The records the tables aim at (drafts owned by the administrator), to show none was touched. */
let draft: {
  event: { id: number; slug: string; modifiedAt: Date };
  venue: { id: number; slug: string; modifiedAt: Date };
  organizer: { id: number; slug: string; modifiedAt: Date };
  category: { id: number; name: string };
  tag: { id: number; name: string };
  webhook: number;
  /** The administrator's application password: no one else's to revoke. */
  password: number;
};

const UNKNOWN_ID = 987_654;
/** What no fresh `ifMatch` looks like: a write that checked it would fail with 412. */
const STALE = '"1"';
/** The reference's refusal (sample 21). */
const REFUSAL = sample('21-event-update-anon-401.json') as { code: string; message: string };

/** A keyed write, aimed at the existing record or at a key that names nothing. */
interface KeyedWrite {
  name: string;
  /** `stale`: with a stale version, where the write takes one (the refusal must not depend on it). */
  send(target: 'existing' | 'unknown', as?: Credentials, stale?: boolean): Promise<Response>;
  /** Whether it is an update, whose input an editor has refused (400) on the existing record. */
  update: boolean;
  /** Who, besides the four callers of every row, may not touch it either. */
  alsoRefused?: string[];
  /** The refusal a logged-in caller gets on the existing record (default: 403 rest_forbidden). */
  refusal?: { code: string; status: number };
  /** Who may act on every record of the type, and what they learn of the unknown key. */
  told: { as: string; code: string; status: number };
}

interface OracleApi {
  name: 'REST' | 'GraphQL';
  writes: KeyedWrite[];
  /** What must be identical on the existing record and the unknown key. */
  answer(res: Response): unknown;
  /** That answer, refusing with `code` and `status`. */
  refused(write: KeyedWrite, code: string, status: number): unknown;
  /** The code and status of an error answer. */
  error(res: Response): { code: string; status: number };
}

// REST: every keyed route × POST, PUT, PATCH, DELETE and DELETE ?force=true.

type Method = 'post' | 'put' | 'patch' | 'delete';

/** Bodies an editor's write would refuse (400): the refusal must not depend on them either. */
const BODIES: Record<string, object> = {
  events: { title: 'Taken over', start_date: 'before my birthday' },
  venues: { venue: 'Taken over', website: 'not a url' },
  organizers: { organizer: 'Taken over', website: 'not a url' },
};

function restSend(method: Method, path: string, as?: Credentials, query = '') {
  const request = h.http[method](`${API}${path}${query}`);
  if (as) request.auth(as.login, as.password);
  return method === 'delete' ? request : request.send(BODIES[path.split('/')[1]!]!);
}

const WRITES: Array<[Method, string]> = [
  ['post', ''],
  ['put', ''],
  ['patch', ''],
  ['delete', ''],
  ['delete', '?force=true'],
];

const REST_WRITES: KeyedWrite[] = (['events', 'venues', 'organizers'] as const).flatMap((path) => {
  const record = () => draft[path.slice(0, -1) as 'event' | 'venue' | 'organizer'];
  const code = {
    events: 'rest-event-not-found',
    venues: 'venue-not-found',
    organizers: 'organizer-not-found',
  };
  const missing = { code: code[path], status: 404 };
  const routes = [
    {
      route: `/${path}/{id}`,
      existing: () => `/${path}/${record().id}`,
      unknown: `/${path}/${UNKNOWN_ID}`,
      told: missing,
    },
    {
      route: `/${path}/by-slug/{slug}`,
      existing: () => `/${path}/by-slug/${record().slug}`,
      unknown: `/${path}/by-slug/no-such-${path}`,
      // An event slug is a bad parameter; other slugs name nothing (D1).
      told: path === 'events' ? { code: 'rest_invalid_param', status: 400 } : missing,
    },
  ];
  return routes.flatMap(({ route, existing, unknown, told }) =>
    WRITES.map(([method, query]) => ({
      name: `${method.toUpperCase()} ${route}${query}`,
      send: (target: 'existing' | 'unknown', as?: Credentials) =>
        restSend(method, target === 'existing' ? existing() : unknown, as, query),
      update: method === 'patch',
      told: { as: 'editor', ...told },
    })),
  );
});

const rest: OracleApi = {
  name: 'REST',
  writes: REST_WRITES,
  answer(res) {
    const body = res.body as { data?: Record<string, unknown> };
    const { request_id: _id, ...data } = body.data ?? {};
    return { status: res.status, allow: res.headers.allow, body: { ...body, data } };
  },
  refused: (_write, code, status) => ({
    status,
    allow: 'GET',
    body: { code, message: REFUSAL.message, data: { status } },
  }),
  error: (res) => ({ code: res.body.code, status: res.status }),
};

// GraphQL: every keyed mutation.

/** Inputs an editor's write refuses (400): the refusal must not depend on them either. */
const BAD_EVENT = { title: '', venues: [{ id: 1, create: { name: 'Both' } }] };
const BAD_LINKED = (name: string) => ({ name: '', website: `${name} is not a url` });

function graphqlSend(document: string, variables: Record<string, unknown>, as?: Credentials) {
  const request = h.http.post('/graphql');
  if (as) request.set('Authorization', basicAuth(as));
  return request.send({ query: document, variables });
}

const keyed = (
  name: string,
  document: string,
  record: () => { id: number; slug?: string },
  bySlug: boolean,
  extra: Record<string, unknown>,
  told: KeyedWrite['told'],
): KeyedWrite & {
  document: string;
  variables: (target: 'existing' | 'unknown') => Record<string, unknown>;
} => {
  const variables = (target: 'existing' | 'unknown') => ({
    ...extra,
    ...(target === 'existing'
      ? bySlug
        ? { slug: record().slug }
        : { id: record().id }
      : bySlug
        ? { slug: `no-such-${name}` }
        : { id: UNKNOWN_ID }),
  });
  return {
    name,
    document,
    variables,
    send: (target, as, stale) =>
      graphqlSend(
        document,
        { ...variables(target), ...(stale && document.includes('$ifMatch') ? { ifMatch: STALE } : {}) },
        as,
      ),
    update: name.startsWith('update') && document.includes('$ifMatch'),
    told,
  };
};

function postMutations(
  type: 'Event' | 'Venue' | 'Organizer',
  record: () => { id: number; slug: string },
  input: object,
  missing: string,
) {
  const told = { as: 'editor', code: missing, status: 404 };
  const update = (bySlug: boolean) => {
    const field = `update${type}${bySlug ? 'BySlug' : ''}`;
    const key = bySlug ? '$slug: String!' : '$id: Int!';
    const arg = bySlug ? 'slug: $slug' : 'id: $id';
    return keyed(
      field,
      `mutation (${key}, $input: Update${type}${bySlug ? 'BySlug' : ''}Input!, $ifMatch: String) {
        ${field}(${arg}, input: $input, ifMatch: $ifMatch) { databaseId status }
      }`,
      record,
      bySlug,
      { input },
      told,
    );
  };
  const remove = (bySlug: boolean, force: boolean) => {
    const field = `delete${type}${bySlug ? 'BySlug' : ''}`;
    const key = bySlug ? '$slug: String!' : '$id: Int!';
    const arg = bySlug ? 'slug: $slug' : 'id: $id';
    return {
      ...keyed(
        field,
        `mutation (${key}, $force: Boolean, $ifMatch: String) {
          ${field}(${arg}, force: $force, ifMatch: $ifMatch) { databaseId status }
        }`,
        record,
        bySlug,
        { force },
        told,
      ),
      name: `${field}${force ? ' (force)' : ''}`,
    };
  };
  return [update(false), update(true), remove(false, false), remove(false, true), remove(true, false)];
}

const MUTATIONS = [
  ...postMutations('Event', () => draft.event, BAD_EVENT, 'rest-event-not-found'),
  ...postMutations('Venue', () => draft.venue, BAD_LINKED('venue'), 'venue-not-found'),
  ...postMutations('Organizer', () => draft.organizer, BAD_LINKED('organizer'), 'organizer-not-found'),
  ...(['Category', 'Tag'] as const).flatMap((type) => {
    const term = () => (type === 'Category' ? draft.category : draft.tag);
    const told = { as: 'editor', code: 'term-not-found', status: 404 };
    return [
      keyed(
        `update${type}`,
        `mutation ($id: Int!, $input: Update${type}Input!, $ifMatch: String) {
          update${type}(id: $id, input: $input, ifMatch: $ifMatch) { databaseId name }
        }`,
        term,
        false,
        { input: { name: '' } },
        told,
      ),
      keyed(
        `delete${type}`,
        `mutation ($id: Int!, $ifMatch: String) { delete${type}(id: $id, ifMatch: $ifMatch) { databaseId } }`,
        term,
        false,
        {},
        told,
      ),
    ];
  }),
  ...[
    ['setWebhookEndpointEnabled', '(id: $id, enabled: false)'],
    ['deleteWebhookEndpoint', '(id: $id)'],
  ].map(([field, args]) => ({
    ...keyed(
      field!,
      `mutation ($id: Int!) { ${field}${args} { id enabled } }`,
      () => ({ id: draft.webhook }),
      false,
      {},
      { as: 'administrator', code: 'webhook_not_found', status: 404 },
    ),
    alsoRefused: ['editor'],
  })),
  {
    // Each caller's own passwords only: another user's is as unknown as a missing one, to everyone.
    ...keyed(
      'revokeApplicationPassword',
      'mutation ($id: Int!) { revokeApplicationPassword(id: $id) { id revokedAt } }',
      () => ({ id: draft.password }),
      false,
      {},
      { as: 'editor', code: 'application_password_not_found', status: 404 },
    ),
    refusal: { code: 'application_password_not_found', status: 404 },
  },
];

const graphql: OracleApi = {
  name: 'GraphQL',
  writes: MUTATIONS,
  answer: (res) => ({ status: res.status, type: res.type, body: res.body as unknown }),
  refused(write, code, status) {
    const { document } = write as ReturnType<typeof keyed>;
    // The reference's words for a refusal; a field error leaves the HTTP status at 200.
    const message = code === 'rest_forbidden' ? REFUSAL.message : expect.any(String);
    return {
      status: 200,
      type: 'application/json',
      body: {
        data: null,
        errors: [
          {
            message,
            locations: expect.any(Array),
            path: [document.match(/\{\s*(\w+)\(/)![1]!],
            extensions: expect.objectContaining({ code, http: { status } }),
          },
        ],
      },
    };
  },
  error: (res) => {
    const { code, http } = res.body.errors[0].extensions;
    return { code, status: http.status };
  },
};

beforeAll(async () => {
  h = await startHarness();
  const admin = await createUser(h, 'administrator');
  callers.administrator = admin;
  for (const role of ['editor', 'subscriber', 'contributor', 'author'] as const)
    callers[role] = await createUser(h, role);
  const authorId = admin.id;
  const event = await createEvent(h.db, { status: 'draft', fields: { slug: 'hidden-draft', authorId } });
  const venue = await createVenue(h.db, { status: 'draft', slug: 'hidden-hall', authorId });
  const organizer = await createOrganizer(h.db, { status: 'draft', slug: 'hidden-org', authorId });
  const category = await createTerm(h.db, 'tribe_events_cat', 'Kept Category');
  const tag = await createTerm(h.db, 'post_tag', 'Kept Tag');
  const webhook = await h.db.webhookEndpoint.create({
    data: { url: 'https://hooks.example/in', secret: 'whsec_test', events: '*' },
  });
  const password = await h.db.applicationPassword.findFirstOrThrow({ where: { userId: admin.id } });
  draft = {
    event: { id: event.id, slug: event.slug!, modifiedAt: event.modifiedAt },
    venue,
    organizer,
    category,
    tag,
    webhook: webhook.id,
    password: password.id,
  };
});
afterAll(() => h.close());

const CALLERS = ['anonymous', 'subscriber', 'contributor', 'author'];

describe.each([rest, graphql])('$name: keyed writes', (api) => {
  describe('answer an unknown key as an existing record the caller may not touch (D22)', () => {
    const table = api.writes.flatMap((write) =>
      [...CALLERS, ...(write.alsoRefused ?? [])].map((caller) => [write.name, caller, write] as const),
    );

    it.each(table)('%s as %s: existing record and unknown key answer alike', async (_name, caller, write) => {
      const as = callers[caller];
      const onExisting = api.answer(await write.send('existing', as, true));
      const onUnknown = api.answer(await write.send('unknown', as, true));
      const { code, status } =
        caller === 'anonymous'
          ? { code: REFUSAL.code, status: 401 }
          : (write.refusal ?? { code: REFUSAL.code, status: 403 });
      expect(onExisting).toEqual(api.refused(write, code, status));
      expect(onUnknown).toEqual(onExisting);
    });

    it('left every record as it was', async () => {
      for (const kind of ['event', 'venue', 'organizer'] as const) {
        const record = await (h.db[kind] as typeof h.db.venue).findUniqueOrThrow({
          where: { id: draft[kind].id },
        });
        expect([kind, record.status, record.slug, record.modifiedAt]).toEqual([
          kind,
          'draft',
          draft[kind].slug,
          draft[kind].modifiedAt,
        ]);
      }
      for (const term of [draft.category, draft.tag])
        expect((await h.db.term.findUniqueOrThrow({ where: { id: term.id } })).name).toBe(term.name);
      expect(await h.db.webhookEndpoint.findUniqueOrThrow({ where: { id: draft.webhook } })).toMatchObject({
        enabled: true,
      });
      expect(
        (await h.db.applicationPassword.findUniqueOrThrow({ where: { id: draft.password } })).revokedAt,
      ).toBeNull();
    });
  });

  describe('who may act on every record of the type is told what is missing', () => {
    it.each(api.writes.map((write) => [write.name, write.told.as, write] as const))(
      '%s as %s: the unknown key is named',
      async (_name, as, write) => {
        const { code, status } = write.told;
        expect(api.error(await write.send('unknown', callers[as]))).toEqual({ code, status });
      },
    );

    it.each(api.writes.filter((write) => write.update).map((write) => [write.name, write] as const))(
      '%s as editor: the inputs of the table are refused (400) on the existing record',
      async (_name, write) => {
        const res = await write.send('existing', callers.editor);
        expect(api.error(res)).toEqual({ code: 'rest_invalid_param', status: 400 });
      },
    );
  });
});

describe('GraphQL only', () => {
  const document = (name: string) => MUTATIONS.find((mutation) => mutation.name === name)!;
  const versioned = MUTATIONS.filter((mutation) => mutation.document.includes('$ifMatch'));

  it.each(versioned.map((mutation) => [mutation.name, mutation] as const))(
    '%s as editor: the existing record is reached (a stale ifMatch fails with 412) and left alone',
    async (_name, mutation) => {
      const variables = { ...mutation.variables('existing'), ifMatch: STALE };
      const { body } = await graphqlSend(mutation.document, variables, callers.editor);
      expect(body.errors[0].extensions).toMatchObject({ code: 'precondition_failed', http: { status: 412 } });
    },
  );

  it('an event link entry with both id and create is reported with the other bad fields, after the caller', async () => {
    const update = document('updateEvent');
    const { body } = await graphqlSend(update.document, update.variables('existing'), callers.editor);
    expect(Object.keys(body.errors[0].extensions.data.params).sort()).toEqual(['title', 'venues']);
    expect(body.errors[0].extensions.data.params.venues).toBe('Each entry gives either id or create.');
    const create = await graphqlSend(
      'mutation ($input: CreateEventInput!) { createEvent(input: $input) { databaseId } }',
      { input: { ...BAD_EVENT, title: 'Anonymous', startDate: 'tomorrow', endDate: 'tomorrow' } },
    );
    expect(create.body.errors[0].extensions).toMatchObject({ code: 'rest_forbidden', http: { status: 401 } });
  });

  it('the records are still drafts, unchanged', async () => {
    const event = await h.db.event.findUniqueOrThrow({ where: { id: draft.event.id } });
    expect([event.status, event.modifiedAt]).toEqual(['draft', draft.event.modifiedAt]);
    expect(await h.db.venue.count({ where: { id: draft.venue.id, status: 'draft' } })).toBe(1);
    expect(await h.db.organizer.count({ where: { id: draft.organizer.id, status: 'draft' } })).toBe(1);
    expect(await h.db.term.count({ where: { id: { in: [draft.category.id, draft.tag.id] } } })).toBe(2);
  });

  describe('reads by global id do not tell a draft the viewer may not see from an unknown id', () => {
    const NODE = 'query ($id: ID!) { node(id: $id) { id } }';
    const NODES = 'query ($ids: [ID!]!) { nodes(ids: $ids) { id } }';
    const answer = graphql.answer;

    it.each(CALLERS)('node and nodes as %s: null, and no error entry, either way', async (caller) => {
      for (const type of ['Event', 'Venue', 'Organizer'] as const) {
        const record = draft[type.toLowerCase() as 'event' | 'venue' | 'organizer'];
        const existing = encodeGlobalId(type, record.id);
        const unknown = encodeGlobalId(type, UNKNOWN_ID);
        const onExisting = answer(await graphqlSend(NODE, { id: existing }, callers[caller]));
        expect([type, onExisting]).toEqual([
          type,
          { status: 200, type: 'application/json', body: { data: { node: null } } },
        ]);
        expect(answer(await graphqlSend(NODE, { id: unknown }, callers[caller]))).toEqual(onExisting);
        expect(
          (
            answer(await graphqlSend(NODES, { ids: [existing, unknown] }, callers[caller])) as {
              body: unknown;
            }
          ).body,
        ).toEqual({ data: { nodes: [null, null] } });
      }
    });

    it('while the author reads the draft through the same query', async () => {
      const id = encodeGlobalId('Event', draft.event.id);
      const { body } = await graphqlSend(NODE, { id }, callers.administrator);
      expect(body).toEqual({ data: { node: { id } } });
    });
  });
});
