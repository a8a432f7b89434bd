import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/harness.js';
import { graphqlClient } from '../helpers/graphql.js';
import { type Credentials, type Users, startWithRoles } from '../helpers/users.js';
import { feedServer, icsEvent, icsFeed } from './helpers.js';

// Subscribed sources on GraphQL: every operation is for administrators only (the refusal webhook
// administration gives), the stored application password never appears in an answer, bad input is a
// 400 naming the field, and a source read now answers with its run's summary, listed with the runs.

let h: Harness;
let users: Users;
let feeds: Awaited<ReturnType<typeof feedServer>>;
const gql = graphqlClient(() => h, { status: 200 });
const SECRET = 'abcd EFGH ijkl MNOP qrst UVWX';

const SOURCE_FIELDS = `id type location everySeconds conflict csvType encoding user hasAppPassword nextRunAt readingUntil createdAt`;
const SUMMARY_FIELDS = `created updated unchanged conflicts retained failed trashed records seconds resumedAfter
  problems { where key message warning } conflictList { kind key localId where }
  differences { kind key field before after }`;

beforeAll(async () => {
  ({ h, users } = await startWithRoles({ CALENDAR_WEBHOOKS_ALLOW_PRIVATE: 'true' }));
  feeds = await feedServer();
  feeds.set('/team.ics', {
    body: icsFeed(...icsEvent('one@team', 'Kick-off', '20300110T090000Z')),
    etag: '"v1"',
  });
});
afterAll(async () => {
  await feeds?.close();
  await h?.close();
});

async function createTecSource(as: Credentials = users.administrator) {
  return gql(
    `mutation ($input: CreateImportSourceInput!) { createImportSource(input: $input) { ${SOURCE_FIELDS} } }`,
    {
      input: {
        type: 'TEC',
        location: 'https://events.example.org/wp-json/tribe/events/v1',
        every: '1h',
        conflict: 'PRESERVE_CHANGES',
        user: 'importer',
        appPassword: SECRET,
      },
    },
    as,
  );
}

describe('import sources on GraphQL', () => {
  it('records a source; its password is never shown, in any answer', async () => {
    const created = await createTecSource();
    expect(created.errors).toBeUndefined();
    expect(created.data!.createImportSource).toMatchObject({
      type: 'TEC',
      everySeconds: 3600,
      conflict: 'PRESERVE_CHANGES',
      csvType: null,
      encoding: null,
      user: 'importer',
      hasAppPassword: true,
      readingUntil: null,
    });
    const listed = await gql(`{ importSources { ${SOURCE_FIELDS} } }`, {}, users.administrator);
    expect(listed.data!.importSources).toHaveLength(1);
    const removed = await gql(
      `mutation ($id: Int!) { removeImportSource(id: $id) { ${SOURCE_FIELDS} } }`,
      { id: created.data!.createImportSource.id },
      users.administrator,
    );
    expect(removed.data!.removeImportSource.hasAppPassword).toBe(true);
    for (const answer of [created, listed, removed]) expect(JSON.stringify(answer)).not.toContain(SECRET);
    // Stored for the reads, only there.
    expect(await h.db.importSource.count()).toBe(0);
  });

  it('refuses bad input with the fields named', async () => {
    const create = (input: Record<string, unknown>) =>
      gql(
        `mutation ($input: CreateImportSourceInput!) { createImportSource(input: $input) { id } }`,
        { input: { type: 'ICS', location: feeds.url('/team.ics'), every: '1h', ...input } },
        users.administrator,
      );
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ every: 'hourly' }, ['every']],
      [{ every: '1m' }, ['every']],
      [{ every: '99999999999999999999d' }, ['every']],
      [{ every: '400d' }, ['every']],
      [{ type: 'CSV' }, ['csvType']],
      [{ csvType: 'EVENTS' }, ['csvType']],
      [{ encoding: 'utf-8' }, ['encoding']],
      [{ type: 'CSV', csvType: 'EVENTS', encoding: 'klingon' }, ['encoding']],
      [{ type: 'CSV', csvType: 'EVENTS', encoding: `utf-8${'-'.repeat(100_000)}` }, ['encoding']],
      [{ appPassword: 'x' }, ['user']],
      [{ type: 'TEC', user: 'u'.repeat(61), appPassword: 'x' }, ['user']],
      [{ type: 'TEC', user: 'u', appPassword: 'x'.repeat(257) }, ['appPassword']],
      [{ location: 'ftp://example.org/feed.ics' }, ['location']],
      [{ location: '/etc/passwd' }, ['location']],
    ];
    for (const [input, fields] of cases) {
      const result = await create(input);
      expect(result.errors?.[0]?.extensions.code, JSON.stringify(input)).toBe('rest_invalid_param');
      expect(Object.keys(result.errors![0]!.extensions.data.params as object)).toEqual(fields);
    }
    expect(await h.db.importSource.count()).toBe(0);
  });

  it('reads a source now, answers with the summary, and lists the run', async () => {
    const created = await gql(
      `mutation ($input: CreateImportSourceInput!) { createImportSource(input: $input) { id } }`,
      { input: { type: 'ICS', location: feeds.url('/team.ics'), every: '30m' } },
      users.administrator,
    );
    const id = created.data!.createImportSource.id as number;
    const run = await gql(
      `mutation ($id: Int!) { runImportSource(id: $id) { ${SUMMARY_FIELDS} } }`,
      { id },
      users.administrator,
    );
    expect(run.errors).toBeUndefined();
    expect(run.data!.runImportSource).toMatchObject({ created: 1, failed: 0, trashed: 0, records: 1 });
    // The feed answers 304 to its ETag: nothing read, no run.
    const again = await gql(
      `mutation ($id: Int!) { runImportSource(id: $id) { created } }`,
      { id },
      users.administrator,
    );
    expect(again.data!.runImportSource).toBeNull();
    const runs = await gql(
      `query ($id: Int) { importRuns(sourceId: $id, first: 5) { id sourceId state finishedAt summary { ${SUMMARY_FIELDS} } } }`,
      { id },
      users.administrator,
    );
    expect(runs.data!.importRuns).toHaveLength(1);
    expect(runs.data!.importRuns[0]).toMatchObject({
      sourceId: id,
      state: 'done',
      summary: { created: 1, records: 1, differences: [] },
    });
    const missing = await gql(`{ importRuns(sourceId: 999999) { id } }`, {}, users.administrator);
    expect(missing.errors?.[0]?.extensions.code).toBe('import_source_not_found');
    const tooMany = await gql(`{ importRuns(first: 1000) { id } }`, {}, users.administrator);
    expect(tooMany.errors?.[0]?.extensions.code).toBe('rest_invalid_param');
  });

  const OPERATIONS: Array<[string, string, Record<string, unknown>]> = [
    ['importSources', `{ importSources { id } }`, {}],
    ['importRuns', `{ importRuns { id } }`, {}],
    [
      'createImportSource',
      `mutation ($input: CreateImportSourceInput!) { createImportSource(input: $input) { id } }`,
      { input: { type: 'ICS', location: 'https://example.org/feed.ics', every: '1h' } },
    ],
    ['removeImportSource', `mutation { removeImportSource(id: 1) { id } }`, {}],
    ['runImportSource', `mutation { runImportSource(id: 1) { created } }`, {}],
  ];
  const CALLERS: Array<[string, number, (u: Users) => Credentials | undefined]> = [
    ['anonymous', 401, () => undefined],
    ['a subscriber', 403, (u) => u.subscriber],
    ['an editor', 403, (u) => u.editor],
  ];
  for (const [operation, query, variables] of OPERATIONS)
    for (const [who, status, caller] of CALLERS)
      it(`${operation} is refused to ${who} as webhook administration is (${status})`, async () => {
        const before = await h.db.importSource.count();
        const result = await gql(query, variables, caller(users));
        expect(result.data?.[operation] ?? null).toBeNull();
        expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'rest_forbidden', http: { status } });
        expect(await h.db.importSource.count()).toBe(before);
      });

  it('answers the refusal webhook administration answers', async () => {
    const webhooks = await gql(`{ webhookEndpoints { id } }`, {}, users.editor);
    const imports = await gql(`{ importSources { id } }`, {}, users.editor);
    expect(imports.errors![0]!.message).toBe(webhooks.errors![0]!.message);
    expect(imports.errors![0]!.extensions).toEqual(webhooks.errors![0]!.extensions);
  });
});
