import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Response } from 'supertest';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../helpers/fixtures.js';
import { sample } from '../../helpers/samples.js';
import { basicAuth, createUser } from '../../helpers/users.js';
import { encodeGlobalId } from '../../../src/core/graphql/schema/global-ids.js';

// D22 (issue #30 point 1) on GraphQL: a mutation on a keyed record, by a caller who may not touch it,
// answers an unknown id or slug exactly as it answers an existing record — HTTP status and the whole
// body (`data`, and every error's message, locations, path and extensions) — so no write tells which
// ids exist. The table: every keyed mutation × anonymous and the callers who may not touch the record
// (subscriber, and the contributor and author who are not its author) × an existing draft and an
// unknown key. Whoever may act on every record of the type is told what is missing.

type Credentials = { id: number; login: string; password: string };
let h: Harness;
const callers: Record<string, Credentials | undefined> = { anonymous: undefined };

/** The records the table aims at (drafts owned by the administrator), to show none was touched. */
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

interface Mutation {
  name: string;
  document: string;
  /** The variables naming the existing record, then the unknown one. */
  existing: () => Record<string, unknown>;
  unknown: () => Record<string, unknown>;
  /** Who, besides the four callers of every row, may not touch it either. */
  alsoRefused?: string[];
  /** The refusal a logged-in caller gets on the existing record (default: 403 rest_forbidden). */
  refusal?: { code: string; status: number };
  /** Who may act on every record of the type, and what they learn of the unknown key. */
  told: { as: string; code: string; status: number };
}

/** Inputs an editor's write refuses (400): the refusal must not depend on them either. */
const BAD_EVENT = { title: '', venues: [{ id: 1, create: { name: 'Both' } }] };
const BAD_LINKED = (name: string) => ({ name: '', website: `${name} is not a url` });

const keyed = (
  name: string,
  document: string,
  record: () => { id: number; slug?: string },
  bySlug: boolean,
  extra: Record<string, unknown>,
  told: Mutation['told'],
): Mutation => ({
  name,
  document,
  existing: () => ({ ...extra, ...(bySlug ? { slug: record().slug } : { id: record().id }) }),
  unknown: () => ({ ...extra, ...(bySlug ? { slug: `no-such-${name}` } : { id: UNKNOWN_ID }) }),
  told,
});

function postMutations(
  type: 'Event' | 'Venue' | 'Organizer',
  record: () => { id: number; slug: string },
  input: object,
  missing: string,
): Mutation[] {
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

const MUTATIONS: Mutation[] = [
  ...postMutations('Event', () => draft.event, BAD_EVENT, 'rest-event-not-found'),
  ...postMutations('Venue', () => draft.venue, BAD_LINKED('venue'), 'venue-not-found'),
  ...postMutations('Organizer', () => draft.organizer, BAD_LINKED('organizer'), 'organizer-not-found'),
  ...(['Category', 'Tag'] as const).flatMap((type): Mutation[] => {
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

async function send(document: string, variables: Record<string, unknown>, as?: Credentials) {
  const request = h.http.post('/graphql');
  if (as) request.set('Authorization', basicAuth(as));
  return request.send({ query: document, variables });
}

/** What must be identical: the HTTP status, the media type and the whole body. */
const answer = (res: Response) => ({ status: res.status, type: res.type, body: res.body as unknown });

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

describe('keyed mutations answer an unknown key as an existing record the caller may not touch (D22)', () => {
  const table = MUTATIONS.flatMap((mutation) =>
    [...CALLERS, ...(mutation.alsoRefused ?? [])].map((caller) => [mutation.name, caller, mutation] as const),
  );

  it.each(table)(
    '%s as %s: existing record and unknown key answer alike',
    async (_name, caller, mutation) => {
      const as = callers[caller];
      // A stale version too, where the mutation takes one: the refusal must not depend on it either.
      const stale = mutation.document.includes('$ifMatch') ? { ifMatch: STALE } : {};
      const onExisting = answer(await send(mutation.document, { ...mutation.existing(), ...stale }, as));
      const onUnknown = answer(await send(mutation.document, { ...mutation.unknown(), ...stale }, as));
      const field = mutation.document.match(/\{\s*(\w+)\(/)![1]!;
      const { code, status } =
        caller === 'anonymous'
          ? { code: 'rest_forbidden', status: 401 }
          : (mutation.refusal ?? { code: 'rest_forbidden', status: 403 });
      // The reference's words for a refusal (sample 21); a field error leaves the HTTP status at 200.
      const message =
        code === 'rest_forbidden'
          ? (sample('21-event-update-anon-401.json') as { message: string }).message
          : expect.any(String);
      expect(onExisting).toEqual({
        status: 200,
        type: 'application/json',
        body: {
          data: null,
          errors: [
            {
              message,
              locations: expect.any(Array),
              path: [field],
              extensions: expect.objectContaining({ code, http: { status } }),
            },
          ],
        },
      });
      expect(onUnknown).toEqual(onExisting);
    },
  );

  it('left every record as it was', async () => {
    for (const kind of ['event', 'venue', 'organizer'] as const) {
      const row = await (h.db[kind] as typeof h.db.venue).findUniqueOrThrow({
        where: { id: draft[kind].id },
      });
      expect([kind, row.status, row.slug, row.modifiedAt]).toEqual([
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
  it.each(MUTATIONS.map((mutation) => [mutation.name, mutation.told.as, mutation] as const))(
    '%s as %s: the unknown key is named',
    async (_name, _as, mutation) => {
      const { body } = await send(mutation.document, mutation.unknown(), callers[mutation.told.as]);
      expect(body.errors[0].extensions).toMatchObject({
        code: mutation.told.code,
        http: { status: mutation.told.status },
      });
    },
  );

  const versioned = MUTATIONS.filter((mutation) => mutation.document.includes('$ifMatch'));

  it.each(versioned.map((mutation) => [mutation.name, mutation] as const))(
    '%s as editor: the existing record is reached (a stale ifMatch fails with 412) and left alone',
    async (_name, mutation) => {
      const variables = { ...mutation.existing(), ifMatch: STALE };
      const { body } = await send(mutation.document, variables, callers.editor);
      expect(body.errors[0].extensions).toMatchObject({ code: 'precondition_failed', http: { status: 412 } });
    },
  );

  it.each(
    versioned.filter((mutation) => mutation.name.startsWith('update')).map((m) => [m.name, m] as const),
  )('%s as editor: the inputs of the table are refused (400)', async (_name, mutation) => {
    const { body } = await send(mutation.document, mutation.existing(), callers.editor);
    expect(body.errors[0].extensions).toMatchObject({ code: 'rest_invalid_param', http: { status: 400 } });
  });

  it('an event link entry with both id and create is reported with the other bad fields, after the caller', async () => {
    const update = MUTATIONS.find((mutation) => mutation.name === 'updateEvent')!;
    const { body } = await send(update.document, update.existing(), callers.editor);
    expect(Object.keys(body.errors[0].extensions.data.params).sort()).toEqual(['title', 'venues']);
    expect(body.errors[0].extensions.data.params.venues).toBe('Each entry gives either id or create.');
    const create = await send(
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
});

describe('reads by global id do not tell a draft the viewer may not see from an unknown id', () => {
  const NODE = 'query ($id: ID!) { node(id: $id) { id } }';
  const NODES = 'query ($ids: [ID!]!) { nodes(ids: $ids) { id } }';

  it.each(CALLERS)('node and nodes as %s: null, and no error entry, either way', async (caller) => {
    for (const type of ['Event', 'Venue', 'Organizer'] as const) {
      const record = draft[type.toLowerCase() as 'event' | 'venue' | 'organizer'];
      const existing = encodeGlobalId(type, record.id);
      const unknown = encodeGlobalId(type, UNKNOWN_ID);
      const onExisting = answer(await send(NODE, { id: existing }, callers[caller]));
      expect([type, onExisting]).toEqual([
        type,
        { status: 200, type: 'application/json', body: { data: { node: null } } },
      ]);
      expect(answer(await send(NODE, { id: unknown }, callers[caller]))).toEqual(onExisting);
      expect(answer(await send(NODES, { ids: [existing, unknown] }, callers[caller])).body).toEqual({
        data: { nodes: [null, null] },
      });
    }
  });

  it('while the author reads the draft through the same query', async () => {
    const { body } = await send(NODE, { id: encodeGlobalId('Event', draft.event.id) }, callers.administrator);
    expect(body).toEqual({ data: { node: { id: encodeGlobalId('Event', draft.event.id) } } });
  });
});
