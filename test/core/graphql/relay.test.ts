import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { type Harness } from '../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../helpers/fixtures.js';
import { type Users, startWithRoles } from '../../helpers/users.js';
import { graphqlClient } from '../../helpers/graphql.js';

// Relay conventions on the public schema: every record type with identity implements `Node` with an
// opaque global `id` (its numeric id is `databaseId`), `node`/`nodes` read them back under the same
// visibility as the lookups, and lists are also connections paged by keyset cursors.

let h: Harness;
let users: Users;
const ids = { event: 0, draft: 0, protected: 0, venue: 0, draftVenue: 0, organizer: 0, category: 0, tag: 0 };

const day = (offset: number, hour = 10) =>
  DateTime.utc().plus({ days: offset }).set({ hour, minute: 0, second: 0 }).toFormat('yyyy-MM-dd HH:mm:ss');

beforeAll(async () => {
  ({ h, users } = await startWithRoles());
  const venue = await createVenue(h.db, { name: 'Hall', slug: 'hall' });
  const draftVenue = await createVenue(h.db, { name: 'Secret Hall', slug: 'secret-hall', status: 'draft' });
  const organizer = await createOrganizer(h.db, { name: 'Org', slug: 'org' });
  const category = await createTerm(h.db, 'tribe_events_cat', 'Music');
  const tag = await createTerm(h.db, 'post_tag', 'Outdoor');
  const event = await createEvent(h.db, { title: 'Open Air', start: day(1) });
  const draft = await createEvent(h.db, { title: 'Hidden', status: 'draft', start: day(1) });
  const locked = await createEvent(h.db, { title: 'Locked', start: day(1), fields: { password: 'pw' } });
  Object.assign(ids, {
    event: event.id,
    draft: draft.id,
    protected: locked.id,
    venue: venue.id,
    draftVenue: draftVenue.id,
    organizer: organizer.id,
    category: category.id,
    tag: tag.id,
  });
});

afterAll(() => h.close());

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
const gql = graphqlClient(() => h);

const globalIdOf = (type: string, id: number) => Buffer.from(`${type}:${id}`).toString('base64');

describe('Node', () => {
  const types = () => [
    { type: 'Event', query: 'event', id: ids.event, hidden: ids.draft },
    { type: 'Venue', query: 'venue', id: ids.venue, hidden: ids.draftVenue },
    { type: 'Organizer', query: 'organizer', id: ids.organizer, hidden: null },
    { type: 'Category', query: 'category', id: ids.category, hidden: null },
    { type: 'Tag', query: 'tag', id: ids.tag, hidden: null },
  ];

  it('every type has a global id, its databaseId, and node(id:) reads it back', async () => {
    for (const { type, query, id } of types()) {
      const read = await gql(`query ($id: Int!) { one: ${query}(id: $id) { id databaseId } }`, { id });
      expect(read.errors, type).toBeUndefined();
      expect(read.data!.one.databaseId, type).toBe(id);
      const globalId = read.data!.one.id as string;
      expect(globalId, type).not.toBe(String(id));
      const node = await gql(
        `query ($id: ID!) { node(id: $id) { __typename id ... on ${type} { databaseId } } }`,
        { id: globalId },
      );
      expect(node.errors, type).toBeUndefined();
      expect(node.data!.node, type).toEqual({ __typename: type, id: globalId, databaseId: id });
    }
  });

  it('ids are unique across types: a Category id never finds a tag', async () => {
    const asTag = await gql(`query ($id: ID!) { node(id: $id) { id } }`, {
      id: globalIdOf('Tag', ids.category),
    });
    expect(asTag.errors).toBeUndefined();
    expect(asTag.data!.node).toBeNull();
  });

  it('node is null for what the viewer may not read, next to sibling fields; editors see it', async () => {
    for (const { type, hidden } of types()) {
      if (hidden === null) continue;
      const query = `query ($id: ID!) { node(id: $id) { id } sibling: eventsConnection { totalCount } }`;
      const anonymous = await gql(query, { id: globalIdOf(type, hidden) });
      expect(anonymous.data!.node, type).toBeNull();
      expect(anonymous.data!.sibling.totalCount, type).toBeGreaterThan(0);
      const asEditor = await gql(query, { id: globalIdOf(type, hidden) }, users.editor);
      expect(asEditor.data!.node, type).toEqual({ id: globalIdOf(type, hidden) });
    }
    const missing = await gql(`{ node(id: "${globalIdOf('Event', 987_654)}") { id } }`);
    expect(missing).toEqual({ data: { node: null } });
  });

  it('a password-protected event comes with its content withheld, unlocked by content(password:)', async () => {
    const result = await gql(
      `query ($id: ID!) { node(id: $id) { ... on Event { title
         withheld: content { withheld description } open: content(password: "pw") { withheld description } } } }`,
      { id: globalIdOf('Event', ids.protected) },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data!.node.title).toBe('Locked');
    expect(result.data!.node.withheld).toEqual({ withheld: true, description: '' });
    expect(result.data!.node.open).toMatchObject({
      withheld: false,
      description: expect.stringContaining('Locked'),
    });
  });

  it('nodes keeps the order asked, null for each unreadable or missing one', async () => {
    const result = await gql(`query ($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`, {
      ids: [
        globalIdOf('Venue', ids.venue),
        globalIdOf('Event', ids.draft),
        globalIdOf('Event', ids.event),
        globalIdOf('Organizer', 987_654),
      ],
    });
    expect(result.errors).toBeUndefined();
    expect(result.data!.nodes).toEqual([
      { __typename: 'Venue', id: globalIdOf('Venue', ids.venue) },
      null,
      { __typename: 'Event', id: globalIdOf('Event', ids.event) },
      null,
    ]);
  });

  it('a malformed or foreign id is a 400 naming the argument, never a server error', async () => {
    for (const bad of [
      '42',
      'not base64!',
      globalIdOf('Author', 1),
      globalIdOf('Event', 0),
      globalIdOf('Event', 2 ** 40),
    ]) {
      const result = await gql(`query ($id: ID!) { node(id: $id) { id } }`, { id: bad });
      expect(result.data?.node ?? null, bad).toBeNull();
      expect(result.errors?.[0]?.extensions, bad).toMatchObject({
        code: 'rest_invalid_param',
        data: { params: { id: 'Not a global id of this API.' } },
      });
    }
    const tooMany = await gql(`query ($ids: [ID!]!) { nodes(ids: $ids) { id } }`, {
      ids: Array.from({ length: 101 }, () => globalIdOf('Event', ids.event)),
    });
    expect(tooMany.errors?.[0]?.extensions?.code).toBe('rest_invalid_param');
  });
});

describe('eventsConnection', () => {
  const PAGE = `query ($first: Int, $after: String, $last: Int, $before: String, $filter: EventFilter) {
    eventsConnection(first: $first, after: $after, last: $last, before: $before, filter: $filter) {
      totalCount
      edges { cursor node { databaseId title } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    } }`;
  const filter = { search: 'Paged' };

  async function page(variables: Record<string, unknown>) {
    const result = await gql(PAGE, { filter, ...variables });
    expect(result.errors).toBeUndefined();
    return result.data!.eventsConnection as {
      totalCount: number;
      edges: Array<{ cursor: string; node: { databaseId: number; title: string } }>;
      pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string; endCursor: string };
    };
  }

  beforeAll(async () => {
    // Ten events over ten days, two of them at the same start (the id breaks the tie).
    for (let i = 0; i < 10; i++)
      await createEvent(h.db, { title: `Paged ${i}`, start: day(2 + Math.min(i, 8), 9) });
  });

  it('forward pages equal the page/perPage list in order, with its total', async () => {
    const numbered = await gql(
      `query ($filter: EventFilter) { events(filter: $filter, perPage: 50) { items { databaseId } pageInfo { total } } }`,
      { filter },
    );
    const expected = numbered.data!.events.items.map((item: { databaseId: number }) => item.databaseId);
    expect(expected).toHaveLength(10);
    const seen: number[] = [];
    let after: string | null = null;
    for (;;) {
      const current = await page({ first: 4, after });
      expect(current.totalCount).toBe(10);
      seen.push(...current.edges.map((edge) => edge.node.databaseId));
      expect(current.pageInfo.hasPreviousPage).toBe(after !== null);
      if (!current.pageInfo.hasNextPage) break;
      after = current.pageInfo.endCursor;
    }
    expect(seen).toEqual(expected);
  });

  it('backward pages (last/before) walk the same order from the end', async () => {
    const all = (await page({ first: 50 })).edges.map((edge) => edge.node.databaseId);
    const seen: number[] = [];
    let before: string | null = null;
    for (;;) {
      const current = await page({ last: 3, before });
      seen.unshift(...current.edges.map((edge) => edge.node.databaseId));
      if (!current.pageInfo.hasPreviousPage) break;
      before = current.pageInfo.startCursor;
    }
    expect(seen).toEqual(all);
  });

  it('records inserted or removed between two page loads neither skip nor repeat the others', async () => {
    const first = await page({ first: 5 });
    const before = first.edges.map((edge) => edge.node.databaseId);
    // An event sorting before the cursor, and one among the rest.
    const early = await createEvent(h.db, { title: 'Paged early', start: day(2, 8) });
    const late = await createEvent(h.db, { title: 'Paged late', start: day(8, 9) });
    await h.db.event.delete({ where: { id: before[4]! } });
    const second = await page({ first: 50, after: first.pageInfo.endCursor });
    const rest = second.edges.map((edge) => edge.node.databaseId);
    expect(rest).toContain(late.id);
    expect(rest).not.toContain(early.id);
    expect(rest.filter((id) => before.includes(id))).toEqual([]);
    expect(before.length + rest.length).toBe(10 + 1);
    await h.db.event.delete({ where: { id: early.id } });
    await h.db.event.delete({ where: { id: late.id } });
  });

  it('applies the list visibility: drafts only for editors, protected content withheld', async () => {
    const query = `{ eventsConnection(first: 50) { edges { node { databaseId content { withheld } } } } }`;
    const anonymous = (await gql(query)).data!.eventsConnection.edges.map((edge: any) => edge.node);
    expect(anonymous.map((node: any) => node.databaseId)).not.toContain(ids.draft);
    expect(anonymous.find((node: any) => node.databaseId === ids.protected).content.withheld).toBe(true);
    const asEditor = (await gql(query, {}, users.editor)).data!.eventsConnection.edges.map(
      (edge: any) => edge.node,
    );
    expect(asEditor.map((node: any) => node.databaseId)).toContain(ids.draft);
    expect(asEditor.find((node: any) => node.databaseId === ids.protected).content.withheld).toBe(false);
  });

  it('refuses malformed cursors and sizes with a 400 naming the argument', async () => {
    for (const [variables, param] of [
      [{ after: 'garbage!' }, 'after'],
      [{ before: Buffer.from('["x"]').toString('base64url') }, 'before'],
      [{ first: -1 }, 'first'],
      [{ first: 2, last: 2 }, 'last'],
    ] as const) {
      const result = await gql(PAGE, { filter, ...variables });
      expect(result.errors?.[0]?.extensions, param).toMatchObject({
        code: 'rest_invalid_param',
        data: { params: { [param]: expect.any(String) } },
      });
    }
    const near = await gql(`{ eventsConnection(filter: { near: { lat: 1, lng: 1 } }) { totalCount } }`);
    expect(near.errors?.[0]?.extensions?.data?.params).toHaveProperty('near');
  });
});

describe('the other lists as connections', () => {
  beforeAll(async () => {
    for (let i = 0; i < 5; i++) {
      await createVenue(h.db, { name: `Room ${i}`, slug: `room-${i}` });
      await createOrganizer(h.db, { name: `Crew ${i}`, slug: `crew-${i}` });
      await createTerm(h.db, 'tribe_events_cat', `Genre ${String.fromCharCode(70 - i)}`);
      await createTerm(h.db, 'post_tag', `Mood ${i}`);
    }
  });

  // Each list: its numbered form and its connection, with the same arguments.
  const lists = [
    { numbered: 'venues', connection: 'venuesConnection', args: '' },
    { numbered: 'organizers', connection: 'organizersConnection', args: '' },
    { numbered: 'categories', connection: 'categoriesConnection', args: 'filter: { hideEmpty: false }' },
    {
      numbered: 'categories',
      connection: 'categoriesConnection',
      args: 'filter: { hideEmpty: false }, orderBy: slug, order: desc',
    },
    { numbered: 'tags', connection: 'tagsConnection', args: 'filter: { hideEmpty: false }, orderBy: count' },
  ];

  async function walk(connection: string, args: string, direction: 'forward' | 'backward') {
    const seen: number[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 20; pages++) {
      const paging: string =
        direction === 'forward'
          ? `first: 2${cursor ? `, after: "${cursor}"` : ''}`
          : `last: 2${cursor ? `, before: "${cursor}"` : ''}`;
      const result = await gql(`{ list: ${connection}(${[args, paging].filter(Boolean).join(', ')}) {
        totalCount edges { node { databaseId } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`);
      expect(result.errors).toBeUndefined();
      const { edges, pageInfo } = result.data!.list;
      const page = edges.map((edge: { node: { databaseId: number } }) => edge.node.databaseId);
      if (direction === 'forward') seen.push(...page);
      else seen.unshift(...page);
      const more = direction === 'forward' ? pageInfo.hasNextPage : pageInfo.hasPreviousPage;
      if (!more) return { seen, total: result.data!.list.totalCount as number };
      cursor = direction === 'forward' ? pageInfo.endCursor : pageInfo.startCursor;
    }
    throw new Error('the walk did not end');
  }

  it.each(lists)('$connection($args) walks both ways in the order of $numbered', async (list) => {
    const numbered = await gql(
      `{ list: ${list.numbered}(${[list.args, 'perPage: 50'].filter(Boolean).join(', ')}) { items { databaseId } pageInfo { total } } }`,
    );
    expect(numbered.errors).toBeUndefined();
    const expected = numbered.data!.list.items.map((item: { databaseId: number }) => item.databaseId);
    expect(expected.length).toBeGreaterThanOrEqual(5);
    const forward = await walk(list.connection, list.args, 'forward');
    expect(forward.seen).toEqual(expected);
    expect(forward.total).toBe(numbered.data!.list.pageInfo.total);
    expect((await walk(list.connection, list.args, 'backward')).seen).toEqual(expected);
  });

  it('shows anonymous viewers no draft venue; editors see it', async () => {
    const query = `{ venuesConnection(first: 50) { edges { node { databaseId } } } }`;
    const listed = (body: Awaited<ReturnType<typeof gql>>) =>
      body.data!.venuesConnection.edges.map((edge: { node: { databaseId: number } }) => edge.node.databaseId);
    expect(listed(await gql(query))).not.toContain(ids.draftVenue);
    expect(listed(await gql(query))).toContain(ids.venue);
    expect(
      listed(
        await gql(
          `{ venuesConnection(first: 50, filter: { status: [draft] }) { edges { node { databaseId } } } }`,
          {},
          users.editor,
        ),
      ),
    ).toContain(ids.draftVenue);
  });

  it('a venue added between two pages neither skips nor repeats the others', async () => {
    const first = await gql(
      `{ venuesConnection(first: 3) { edges { node { databaseId } } pageInfo { endCursor } } }`,
    );
    const before = first.data!.venuesConnection.edges.map((edge: any) => edge.node.databaseId as number);
    // Newest first: a new venue sorts before the cursor and must not appear on the next page.
    const added = await createVenue(h.db, { name: 'Brand New Room', slug: 'brand-new-room' });
    const rest = await gql(
      `query ($after: String) { venuesConnection(first: 50, after: $after) { edges { node { databaseId } } } }`,
      { after: first.data!.venuesConnection.pageInfo.endCursor },
    );
    const after = rest.data!.venuesConnection.edges.map((edge: any) => edge.node.databaseId as number);
    expect(after).not.toContain(added.id);
    expect(after.filter((id: number) => before.includes(id))).toEqual([]);
    const all = await gql(`{ venues(perPage: 50) { items { databaseId } } }`);
    expect([...before, ...after]).toEqual(
      all
        .data!.venues.items.map((item: { databaseId: number }) => item.databaseId)
        .filter((id: number) => id !== added.id),
    );
  });
});
