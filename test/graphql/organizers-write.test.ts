import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { createEvent, createOrganizer } from '../helpers/fixtures.js';
import { basicAuth, createUser } from '../helpers/users.js';

// The organizer mutations: the same rules as the REST routes, with the REST codes in `extensions`.

type Credentials = { id: number; login: string; password: string };
let h: Harness;
let editor: Credentials;
let contributor: Credentials;

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
type Result = {
  data?: Record<string, any> | null;
  errors?: Array<{ message: string; extensions: Record<string, any> }>;
};

async function gql(
  query: string,
  variables: Record<string, unknown> = {},
  as?: Credentials,
): Promise<Result> {
  const request = h.http.post('/graphql');
  if (as) request.set('Authorization', basicAuth(as));
  return (await request.send({ query, variables })).body as Result;
}

beforeAll(async () => {
  h = await startHarness();
  editor = await createUser(h, 'editor');
  contributor = await createUser(h, 'contributor');
});
afterAll(() => h.close());

const CREATE =
  'mutation($input: CreateOrganizerInput!) { createOrganizer(input: $input) { id: databaseId name slug status email phone website } }';

describe('organizer mutations', () => {
  it('createOrganizer: 401 anonymous, creates, keeps e-mail as given, returns duplicates, validates', async () => {
    expect((await gql(CREATE, { input: { name: 'Anon' } })).errors![0]!.extensions).toMatchObject({
      code: 'rest_forbidden',
      http: { status: 401 },
    });
    const created = await gql(
      CREATE,
      { input: { name: 'Graph Org', email: 'whatever', phone: '42' } },
      editor,
    );
    expect(created.data!.createOrganizer).toMatchObject({
      name: 'Graph Org',
      slug: 'graph-org',
      status: 'publish',
      email: 'whatever',
      phone: '42',
    });
    const duplicate = await gql(CREATE, { input: { name: 'GRAPH ORG', phone: '43' } }, editor);
    expect(duplicate.data!.createOrganizer).toMatchObject({
      id: created.data!.createOrganizer.id,
      phone: '42',
    });
    const bad = await gql(CREATE, { input: { name: 'Bad', website: 'ftp//nope' } }, editor);
    expect(bad.errors![0]!.extensions).toMatchObject({
      code: 'rest_invalid_param',
      data: { params: { website: 'Invalid parameter.' } },
    });
    const draft = await gql(CREATE, { input: { name: 'Contrib Org' } }, contributor);
    expect(draft.data!.createOrganizer.status).toBe('draft');
  });

  it('updateOrganizer / updateOrganizerBySlug: set, clear, password; 404 and 403', async () => {
    const organizer = await createOrganizer(h.db, { slug: 'graph-upd', authorId: editor.id });
    const updated = await gql(
      `mutation { updateOrganizer(id: ${organizer.id}, input: { phone: "", email: "new@example.com", password: "pw" }) { phone email passwordProtected } }`,
      {},
      editor,
    );
    expect(updated.data!.updateOrganizer).toEqual({
      phone: '',
      email: 'new@example.com',
      passwordProtected: true,
    });
    const bySlug = await gql(
      'mutation { updateOrganizerBySlug(slug: "graph-upd", input: { name: "Renamed Org" }) { name } }',
      {},
      editor,
    );
    expect(bySlug.data!.updateOrganizerBySlug.name).toBe('Renamed Org');
    const missing = await gql(
      'mutation { updateOrganizerBySlug(slug: "nobody", input: { phone: "1" }) { id: databaseId } }',
      {},
      editor,
    );
    expect(missing.errors![0]!.extensions).toMatchObject({
      code: 'organizer-not-found',
      http: { status: 404 },
    });
    const refused = await gql(
      `mutation { updateOrganizer(id: ${organizer.id}, input: { phone: "1" }) { id: databaseId } }`,
      {},
      contributor,
    );
    expect(refused.errors![0]!.extensions).toMatchObject({ code: 'rest_forbidden', http: { status: 403 } });
  });

  it('deleteOrganizer / deleteOrganizerBySlug: trash and unlink, 410, force', async () => {
    const organizer = await createOrganizer(h.db, { slug: 'graph-del' });
    const event = await createEvent(h.db, { organizerIds: [organizer.id] });
    expect(
      (await gql(`mutation { deleteOrganizer(id: ${organizer.id}) { status } }`, {}, editor)).data!
        .deleteOrganizer.status,
    ).toBe('trash');
    expect(
      (await gql(`{ event(id: ${event.id}) { organizers { id: databaseId } } }`)).data!.event.organizers,
    ).toEqual([]);
    const again = await gql(
      'mutation { deleteOrganizerBySlug(slug: "graph-del") { id: databaseId } }',
      {},
      editor,
    );
    expect(again.errors![0]!.extensions).toMatchObject({
      code: 'organizer-is-in-trash',
      http: { status: 410 },
    });
    const purged = await gql(
      'mutation { deleteOrganizerBySlug(slug: "graph-del", force: true) { id: databaseId } }',
      {},
      editor,
    );
    expect(purged.data!.deleteOrganizerBySlug.id).toBe(organizer.id);
    expect(await h.db.organizer.count({ where: { id: organizer.id } })).toBe(0);
  });
});
