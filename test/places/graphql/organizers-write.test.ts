import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness } from '../../helpers/harness.js';
import { createEvent, createOrganizer } from '../../helpers/fixtures.js';
import { type Users, startWithRoles } from '../../helpers/users.js';
import { graphqlClient } from '../../helpers/graphql.js';

// The organizer mutations: the same rules as the REST routes, with the REST codes in `extensions`.

let h: Harness;
let users: Users;

const gql = graphqlClient(() => h);

beforeAll(async () => ({ h, users } = await startWithRoles()));
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
      users.editor,
    );
    expect(created.data!.createOrganizer).toMatchObject({
      name: 'Graph Org',
      slug: 'graph-org',
      status: 'publish',
      email: 'whatever',
      phone: '42',
    });
    const duplicate = await gql(CREATE, { input: { name: 'GRAPH ORG', phone: '43' } }, users.editor);
    expect(duplicate.data!.createOrganizer).toMatchObject({
      id: created.data!.createOrganizer.id,
      phone: '42',
    });
    const bad = await gql(CREATE, { input: { name: 'Bad', website: 'ftp//nope' } }, users.editor);
    expect(bad.errors![0]!.extensions).toMatchObject({
      code: 'rest_invalid_param',
      data: { params: { website: 'Invalid parameter.' } },
    });
    const draft = await gql(CREATE, { input: { name: 'Contrib Org' } }, users.contributor);
    expect(draft.data!.createOrganizer.status).toBe('draft');
  });

  it('updateOrganizer / updateOrganizerBySlug: set, clear, password; 404 and 403', async () => {
    const organizer = await createOrganizer(h.db, { slug: 'graph-upd', authorId: users.editor.id });
    const updated = await gql(
      `mutation { updateOrganizer(id: ${organizer.id}, input: { phone: "", email: "new@example.com", password: "pw" }) { phone email passwordProtected } }`,
      {},
      users.editor,
    );
    expect(updated.data!.updateOrganizer).toEqual({
      phone: '',
      email: 'new@example.com',
      passwordProtected: true,
    });
    const bySlug = await gql(
      'mutation { updateOrganizerBySlug(slug: "graph-upd", input: { name: "Renamed Org" }) { name } }',
      {},
      users.editor,
    );
    expect(bySlug.data!.updateOrganizerBySlug.name).toBe('Renamed Org');
    const missing = await gql(
      'mutation { updateOrganizerBySlug(slug: "nobody", input: { phone: "1" }) { id: databaseId } }',
      {},
      users.editor,
    );
    expect(missing.errors![0]!.extensions).toMatchObject({
      code: 'organizer-not-found',
      http: { status: 404 },
    });
    const refused = await gql(
      `mutation { updateOrganizer(id: ${organizer.id}, input: { phone: "1" }) { id: databaseId } }`,
      {},
      users.contributor,
    );
    expect(refused.errors![0]!.extensions).toMatchObject({ code: 'rest_forbidden', http: { status: 403 } });
  });

  it('deleteOrganizer / deleteOrganizerBySlug: trash and unlink, 410, force', async () => {
    const organizer = await createOrganizer(h.db, { slug: 'graph-del' });
    const event = await createEvent(h.db, { organizerIds: [organizer.id] });
    expect(
      (await gql(`mutation { deleteOrganizer(id: ${organizer.id}) { status } }`, {}, users.editor)).data!
        .deleteOrganizer.status,
    ).toBe('trash');
    expect(
      (await gql(`{ event(id: ${event.id}) { organizers { id: databaseId } } }`)).data!.event.organizers,
    ).toEqual([]);
    const again = await gql(
      'mutation { deleteOrganizerBySlug(slug: "graph-del") { id: databaseId } }',
      {},
      users.editor,
    );
    expect(again.errors![0]!.extensions).toMatchObject({
      code: 'organizer-is-in-trash',
      http: { status: 410 },
    });
    const purged = await gql(
      'mutation { deleteOrganizerBySlug(slug: "graph-del", force: true) { id: databaseId } }',
      {},
      users.editor,
    );
    expect(purged.data!.deleteOrganizerBySlug.id).toBe(organizer.id);
    expect(await h.db.organizer.count({ where: { id: organizer.id } })).toBe(0);
  });
});
