import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness } from '../../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../../helpers/fixtures.js';
import { type Users, startWithRoles } from '../../../helpers/users.js';
import { graphqlClient } from '../../../helpers/graphql.js';

// Optimistic concurrency: an update or delete with If-Match (REST) or ifMatch (GraphQL) applies only
// to the version of the record the editor read; a stale one answers 412 and changes nothing.

let h: Harness;
let users: Users;

beforeAll(async () => ({ h, users } = await startWithRoles({ CALENDAR_CACHE: 'on' })));
afterAll(() => h.close());

const gql = graphqlClient(() => h);

interface Resource {
  name: string;
  /** REST collection path. */
  path: string;
  create(): Promise<{ id: number }>;
  /** A REST body that changes the record (n makes each change different). */
  change(n: number): Record<string, unknown>;
  /** Reads the field `change` writes, straight from the database. */
  stored(id: number): Promise<unknown>;
  exists(id: number): Promise<boolean>;
  /** Query parameters of a REST delete that removes it. */
  deleteQuery: string;
  graphql: { type: string; query: string; update: string; remove: string; input(n: number): object };
}

const resources: Resource[] = [
  {
    name: 'event',
    path: 'events',
    create: () => createEvent(h.db, { title: 'Board meeting' }),
    change: (n) => ({ title: `Board meeting ${n}` }),
    stored: async (id) => (await h.db.event.findUnique({ where: { id } }))?.title,
    exists: async (id) => (await h.db.event.findUnique({ where: { id } })) !== null,
    deleteQuery: '?force=true',
    graphql: {
      type: 'Event',
      query: 'event',
      update: 'updateEvent',
      remove: 'deleteEvent',
      input: (n) => ({ title: `Board meeting ${n}` }),
    },
  },
  {
    name: 'venue',
    path: 'venues',
    create: () => createVenue(h.db),
    change: (n) => ({ city: `Shelbyville ${n}` }),
    stored: async (id) => (await h.db.venue.findUnique({ where: { id } }))?.city,
    exists: async (id) => (await h.db.venue.findUnique({ where: { id } })) !== null,
    deleteQuery: '?force=true',
    graphql: {
      type: 'Venue',
      query: 'venue',
      update: 'updateVenue',
      remove: 'deleteVenue',
      input: (n) => ({ city: `Shelbyville ${n}` }),
    },
  },
  {
    name: 'organizer',
    path: 'organizers',
    create: () => createOrganizer(h.db),
    change: (n) => ({ phone: `555-01${n}` }),
    stored: async (id) => (await h.db.organizer.findUnique({ where: { id } }))?.phone,
    exists: async (id) => (await h.db.organizer.findUnique({ where: { id } })) !== null,
    deleteQuery: '?force=true',
    graphql: {
      type: 'Organizer',
      query: 'organizer',
      update: 'updateOrganizer',
      remove: 'deleteOrganizer',
      input: (n) => ({ phone: `555-01${n}` }),
    },
  },
  {
    name: 'category',
    path: 'categories',
    create: () => createTerm(h.db, 'tribe_events_cat'),
    change: (n) => ({ description: `Changed ${n}` }),
    stored: async (id) => (await h.db.term.findUnique({ where: { id } }))?.description,
    exists: async (id) => (await h.db.term.findUnique({ where: { id } })) !== null,
    deleteQuery: '',
    graphql: {
      type: 'Category',
      query: 'category',
      update: 'updateCategory',
      remove: 'deleteCategory',
      input: (n) => ({ description: `Changed ${n}` }),
    },
  },
  {
    name: 'tag',
    path: 'tags',
    create: () => createTerm(h.db, 'post_tag'),
    change: (n) => ({ description: `Changed ${n}` }),
    stored: async (id) => (await h.db.term.findUnique({ where: { id } }))?.description,
    exists: async (id) => (await h.db.term.findUnique({ where: { id } })) !== null,
    deleteQuery: '',
    graphql: {
      type: 'Tag',
      query: 'tag',
      update: 'updateTag',
      remove: 'deleteTag',
      input: (n) => ({ description: `Changed ${n}` }),
    },
  },
];

describe.each(resources)('REST $name: If-Match', (resource) => {
  const single = (id: number) => `${API}/${resource.path}/${id}`;
  const etagOf = async (id: number) => {
    const res = await h.http.get(single(id)).auth(users.editor.login, users.editor.password).expect(200);
    return res.headers.etag as string;
  };

  it('the single record ETag starts with its version and the anonymous one agrees on it', async () => {
    const record = await resource.create();
    const tag = await etagOf(record.id);
    expect(tag).toMatch(/^"[mt][\w-]+\.[\w-]+(\.gz)?"$/);
    // `.gz` after the bytes' hash names the gzip-coded representation (superagent accepts gzip).
    const res = await h.http.get(single(record.id)).auth(users.editor.login, users.editor.password);
    expect(tag.endsWith('.gz"')).toBe(res.headers['content-encoding'] === 'gzip');
    if (resource.name === 'event') {
      const anonymous = await h.http.get(single(record.id)).expect(200);
      expect((anonymous.headers.etag as string).split('.')[0]).toBe(tag.split('.')[0]);
    }
  });

  it('an update with the current tag applies; with the tag it replaced, 412 and nothing changes', async () => {
    const record = await resource.create();
    const first = await etagOf(record.id);
    await h.http
      .post(single(record.id))
      .auth(users.editor.login, users.editor.password)
      .set('If-Match', first)
      .send(resource.change(1))
      .expect(200);
    expect(await resource.stored(record.id)).toBe(Object.values(resource.change(1))[0]);
    const second = await etagOf(record.id);
    expect(second.split('.')[0]).not.toBe(first.split('.')[0]);

    const stale = await h.http
      .post(single(record.id))
      .auth(users.editor.login, users.editor.password)
      .set('If-Match', first)
      .send(resource.change(2));
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ code: 'precondition_failed', data: { status: 412 } });
    expect(await resource.stored(record.id)).toBe(Object.values(resource.change(1))[0]);

    // A list of tags matches when any does; `*` always; a weak tag never (strong comparison).
    await h.http
      .put(single(record.id))
      .auth(users.editor.login, users.editor.password)
      .set('If-Match', `"other", ${second}`)
      .send(resource.change(3))
      .expect(200);
    const weak = await h.http
      .put(single(record.id))
      .auth(users.editor.login, users.editor.password)
      .set('If-Match', `W/${await etagOf(record.id)}`)
      .send(resource.change(4));
    expect(weak.status).toBe(412);
    await h.http
      .put(single(record.id))
      .auth(users.editor.login, users.editor.password)
      .set('If-Match', '*')
      .send(resource.change(5))
      .expect(200);
    expect(await resource.stored(record.id)).toBe(Object.values(resource.change(5))[0]);
  });

  it('a delete with a stale tag answers 412 and keeps the record', async () => {
    const record = await resource.create();
    const first = await etagOf(record.id);
    await h.http
      .post(single(record.id))
      .auth(users.editor.login, users.editor.password)
      .send(resource.change(6))
      .expect(200);
    const stale = await h.http
      .delete(`${single(record.id)}${resource.deleteQuery}`)
      .auth(users.editor.login, users.editor.password)
      .set('If-Match', first);
    expect(stale.status).toBe(412);
    expect(await resource.exists(record.id)).toBe(true);
    await h.http
      .delete(`${single(record.id)}${resource.deleteQuery}`)
      .auth(users.editor.login, users.editor.password)
      .set('If-Match', await etagOf(record.id))
      .expect(200);
    expect(await resource.exists(record.id)).toBe(false);
  });

  it('of two editors who read the same version, exactly one write applies', async () => {
    const record = await resource.create();
    const tag = await etagOf(record.id);
    const answers = await Promise.all(
      [7, 8].map((n) =>
        h.http
          .post(single(record.id))
          .auth(users.editor.login, users.editor.password)
          .set('If-Match', tag)
          .send(resource.change(n)),
      ),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([200, 412]);
    const winner = answers.findIndex((res) => res.status === 200);
    expect(await resource.stored(record.id)).toBe(Object.values(resource.change([7, 8][winner]!))[0]);
  });
});

describe.each(resources)('GraphQL $name: ifMatch', (resource) => {
  const { type, query, update, remove, input } = resource.graphql;
  const versionOf = async (id: number) => {
    const body = await gql(`query($id: Int!) { ${query}(id: $id) { version } }`, { id }, users.editor);
    return body.data![query].version as string;
  };
  const UPDATE = `mutation($id: Int!, $input: Update${type}Input!, $ifMatch: String) {
    ${update}(id: $id, input: $input, ifMatch: $ifMatch) { id: databaseId version } }`;

  it('a stale version fails with precondition_failed (412) and changes nothing; the current one applies', async () => {
    const record = await resource.create();
    const first = await versionOf(record.id);
    const applied = await gql(UPDATE, { id: record.id, input: input(1), ifMatch: first }, users.editor);
    expect(applied.errors).toBeUndefined();
    const second = applied.data![update].version as string;
    expect(second).not.toBe(first);
    expect(await versionOf(record.id)).toBe(second);

    const stale = await gql(UPDATE, { id: record.id, input: input(2), ifMatch: first }, users.editor);
    expect(stale.errors?.[0]?.extensions).toMatchObject({
      code: 'precondition_failed',
      http: { status: 412 },
    });
    expect(await resource.stored(record.id)).toBe(Object.values(input(1))[0]);

    // The REST entity tag names the same version.
    const rest = await h.http
      .get(`${API}/${resource.path}/${record.id}`)
      .auth(users.editor.login, users.editor.password)
      .expect(200);
    const tag = rest.headers.etag as string;
    expect(tag.startsWith(`"${second}.`)).toBe(true);
    const viaTag = await gql(UPDATE, { id: record.id, input: input(3), ifMatch: tag }, users.editor);
    expect(viaTag.errors).toBeUndefined();
  });

  it('a delete with a stale version keeps the record', async () => {
    const record = await resource.create();
    const first = await versionOf(record.id);
    await gql(UPDATE, { id: record.id, input: input(4) }, users.editor);
    const force = resource.deleteQuery ? ', force: true' : '';
    const stale = await gql(
      `mutation($id: Int!, $ifMatch: String) { ${remove}(id: $id${force}, ifMatch: $ifMatch) { id: databaseId } }`,
      { id: record.id, ifMatch: first },
      users.editor,
    );
    expect(stale.errors?.[0]?.extensions.code).toBe('precondition_failed');
    expect(await resource.exists(record.id)).toBe(true);
  });
});
