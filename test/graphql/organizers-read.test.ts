import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, SITE_URL, startHarness } from '../helpers/harness.js';
import { createEvent, createOrganizer } from '../helpers/fixtures.js';
import { type Credentials, createUser } from '../helpers/users.js';
import { graphqlClient } from '../helpers/graphql.js';

// The GraphQL side of the organizer reads: the same records, filters, visibility and errors as REST.

let h: Harness;
let editor: Credentials;
const ids: Record<string, number> = {};

const gql = graphqlClient(() => h, { status: 200 });

beforeAll(async () => {
  h = await startHarness();
  editor = await createUser(h, 'editor');
  const acme = await createOrganizer(h.db, { name: 'Acme', slug: 'acme', description: 'We organize' });
  const draft = await createOrganizer(h.db, { name: 'Draft Org', slug: 'draft-org', status: 'draft' });
  const locked = await createOrganizer(h.db, { name: 'Locked Org', slug: 'locked-org', password: 'pw' });
  const event = await createEvent(h.db, { organizerIds: [acme.id, draft.id] });
  Object.assign(ids, { acme: acme.id, draft: draft.id, locked: locked.id, event: event.id });
});
afterAll(() => h.close());

describe('organizer, organizerBySlug, organizers', () => {
  it('reads an organizer by id and slug', async () => {
    const { data, errors } = await gql(
      `{ organizer(id: ${ids.acme}) { id: databaseId name slug description url phone website email passwordProtected image { url } } }`,
    );
    expect(errors).toBeUndefined();
    expect(data!.organizer).toEqual({
      id: ids.acme,
      name: 'Acme',
      slug: 'acme',
      description: 'We organize',
      url: `${SITE_URL}/organizer/acme/`,
      phone: '555-0199',
      website: 'http://acme.example',
      email: 'org@example.com',
      passwordProtected: false,
      image: null,
    });
    expect((await gql('{ organizerBySlug(slug: "acme") { id: databaseId } }')).data!.organizerBySlug.id).toBe(
      ids.acme,
    );
  });

  it('uses the REST error codes and hides password-protected content', async () => {
    expect((await gql('{ organizer(id: 999999) { id: databaseId } }')).errors![0]!.extensions).toMatchObject({
      code: 'organizer-not-found',
      http: { status: 404 },
    });
    expect(
      (await gql(`{ organizer(id: ${ids.draft}) { id: databaseId } }`)).errors![0]!.extensions,
    ).toMatchObject({
      code: 'organizer-not-accessible',
      http: { status: 403 },
    });
    const locked = `{ organizer(id: ${ids.locked}) { name email phone website } }`;
    expect((await gql(locked)).data!.organizer).toEqual({
      name: 'Locked Org',
      email: '',
      phone: '',
      website: null,
    });
    expect((await gql(locked, {}, editor)).data!.organizer.email).toBe('org@example.com');
  });

  it('filters the list as REST does', async () => {
    const names = async (filter: string, as?: Credentials) =>
      (await gql(`{ organizers(filter: ${filter}) { pageInfo { total } items { name } } }`, {}, as))
        .data!.organizers.items.map((organizer: { name: string }) => organizer.name)
        .sort();
    expect(await names(`{ event: ${ids.event} }`)).toEqual(['Acme']);
    expect(await names(`{ event: ${ids.event} }`, editor)).toEqual(['Acme', 'Draft Org']);
    expect(await names('{ hasEvents: true }')).toEqual(['Acme']);
    expect(await names('{ hasEvents: false }')).toEqual(['Locked Org']);
    expect(await names('{ onlyWithUpcoming: true, search: "organize" }')).toEqual(['Acme']);
    expect(await names('{ status: [draft] }', editor)).toEqual(['Draft Org']);
  });
});
