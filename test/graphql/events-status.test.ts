import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness } from '../helpers/harness.js';
import { createEvent } from '../helpers/fixtures.js';
import { type Users, startWithRoles } from '../helpers/users.js';
import { graphqlClient } from '../helpers/graphql.js';

// The event status in GraphQL: the `EventStatus` enum on `Event`, the `eventStatus` filter of
// `events`, and the `eventStatus` / `eventStatusReason` inputs of the event mutations.

let h: Harness;
let users: Users;

const gql = graphqlClient(() => h);

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

const FIELDS = 'id: databaseId slug eventStatus eventStatusReason';
const REQUIRED = {
  title: 'GraphQL status',
  startDate: '2034-03-01 10:00:00',
  endDate: '2034-03-01 11:00:00',
};

describe('event status mutations', () => {
  it('creates, updates by id and by slug, and clears the reason when scheduled', async () => {
    const created = await gql(
      `mutation($input: CreateEventInput!) { createEvent(input: $input) { ${FIELDS} } }`,
      { input: { ...REQUIRED, slug: 'gql-status', eventStatus: 'canceled', eventStatusReason: 'Strike' } },
      users.editor,
    );
    expect(created.errors).toBeUndefined();
    expect(created.data!.createEvent).toMatchObject({ eventStatus: 'canceled', eventStatusReason: 'Strike' });
    const id = created.data!.createEvent.id;

    const updated = await gql(
      `mutation($id: Int!, $input: UpdateEventInput!) { updateEvent(id: $id, input: $input) { ${FIELDS} } }`,
      { id, input: { eventStatus: 'postponed', eventStatusReason: 'Next spring' } },
      users.editor,
    );
    expect(updated.data!.updateEvent).toMatchObject({
      eventStatus: 'postponed',
      eventStatusReason: 'Next spring',
    });

    const bySlug = await gql(
      `mutation($slug: String!, $input: UpdateEventBySlugInput!) { updateEventBySlug(slug: $slug, input: $input) { ${FIELDS} } }`,
      { slug: 'gql-status', input: { eventStatus: 'scheduled' } },
      users.editor,
    );
    expect(bySlug.data!.updateEventBySlug).toMatchObject({
      eventStatus: 'scheduled',
      eventStatusReason: null,
    });
    const row = await h.db.event.findUniqueOrThrow({ where: { id } });
    expect([row.eventStatus, row.eventStatusReason]).toEqual(['scheduled', '']);
  });

  it('refuses a value outside the enum before running', async () => {
    const res = await gql(
      `mutation { createEvent(input: { title: "x", startDate: "2034-03-01", endDate: "2034-03-01", eventStatus: cancelled }) { id: databaseId } }`,
      {},
      users.editor,
    );
    expect(res.errors?.[0]?.message).toMatch(/EventStatus/);
    expect(await h.db.event.count({ where: { title: 'x' } })).toBe(0);
  });
});

describe('event status reads', () => {
  let ids: Record<'scheduled' | 'canceled' | 'postponed', number>;
  const WINDOW = 'startDate: "2036-01-01", endDate: "2036-01-31"';

  beforeAll(async () => {
    ids = {
      scheduled: (await createEvent(h.db, { title: 'Runs', start: '2036-01-05 10:00:00' })).id,
      canceled: (
        await createEvent(h.db, {
          title: 'Stopped',
          start: '2036-01-06 10:00:00',
          fields: { eventStatus: 'canceled', eventStatusReason: 'Snow' },
        })
      ).id,
      postponed: (
        await createEvent(h.db, {
          title: 'Moved',
          start: '2036-01-07 10:00:00',
          fields: { eventStatus: 'postponed' },
        })
      ).id,
    };
  });

  it('exposes eventStatus and eventStatusReason', async () => {
    const res = await gql(
      `{ events(filter: { ${WINDOW} }) { items { id: databaseId eventStatus eventStatusReason } } }`,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.events.items).toEqual([
      { id: ids.scheduled, eventStatus: 'scheduled', eventStatusReason: null },
      { id: ids.canceled, eventStatus: 'canceled', eventStatusReason: 'Snow' },
      { id: ids.postponed, eventStatus: 'postponed', eventStatusReason: null },
    ]);
  });

  it('filters by any of the given statuses', async () => {
    const one = await gql(
      `{ events(filter: { ${WINDOW}, eventStatus: [canceled] }) { items { id: databaseId } } }`,
    );
    expect(one.data!.events.items).toEqual([{ id: ids.canceled }]);
    const two = await gql(
      `{ events(filter: { ${WINDOW}, eventStatus: [scheduled, postponed] }) { pageInfo { total } items { id: databaseId } } }`,
    );
    expect(two.data!.events.items).toEqual([{ id: ids.scheduled }, { id: ids.postponed }]);
    expect(two.data!.events.pageInfo.total).toBe(2);
  });
});
