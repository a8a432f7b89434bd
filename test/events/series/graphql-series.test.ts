import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../../helpers/harness.js';
import { dataOf, graphqlClient } from '../../helpers/graphql.js';
import { type Users, startWithRoles } from '../../helpers/users.js';

// Series through GraphQL: `EventInput.recurrence`, `Event.recurrence/series/originalStart/isException`,
// `EventSeries { first recurrence timezone occurrences exceptions }` and `scope: RecurrenceScope` on
// update and delete (THIS, THIS_AND_FOLLOWING, ALL), with exceptions present.

let h: Harness;
let users: Users;
const gql = graphqlClient(() => h);

beforeAll(async () => {
  ({ h, users } = await startWithRoles());
});
afterAll(() => h.close());

const SERIES_FIELDS = `databaseId title localStartDate recurrence originalStart isException
  series { id timezone recurrence first { databaseId } exceptions { databaseId title }
    occurrences(first: 20) { edges { node { databaseId title localStartDate } } } }`;

async function create(lines: string[]) {
  const result = await gql(
    `mutation($input: CreateEventInput!) { createEvent(input: $input) { ${SERIES_FIELDS} } }`,
    {
      input: {
        title: 'Monthly talk',
        startDate: '2027-01-29 18:00:00',
        endDate: '2027-01-29 19:30:00',
        timezone: 'America/New_York',
        recurrence: lines,
      },
    },
    users.administrator,
  );
  return dataOf(result).createEvent;
}

const update = (id: number, input: Record<string, unknown>, scope?: string) =>
  gql(
    `mutation($id: Int!, $input: UpdateEventInput!, $scope: RecurrenceScope) {
      updateEvent(id: $id, input: $input, scope: $scope) { ${SERIES_FIELDS} } }`,
    { id, input, ...(scope ? { scope } : {}) },
    users.administrator,
  );

const read = async (id: number) =>
  dataOf(await gql(`query($id: Int!) { event(id: $id) { ${SERIES_FIELDS} } }`, { id })).event;

const titles = (event: { series: { occurrences: { edges: Array<{ node: { title: string } }> } } }) =>
  event.series.occurrences.edges.map((edge) => edge.node.title);

describe('a monthly series by position (last Friday)', () => {
  it('shows the series on every event, its occurrences and exceptions', async () => {
    const first = await create(['RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=6']);
    expect(first.recurrence).toEqual(['RRULE:FREQ=MONTHLY;COUNT=6;BYDAY=-1FR']);
    expect(first.series).toMatchObject({
      timezone: 'America/New_York',
      first: { databaseId: first.databaseId },
    });
    const starts = first.series.occurrences.edges.map(
      (edge: { node: { localStartDate: string } }) => edge.node.localStartDate,
    );
    expect(starts).toEqual([
      '2027-02-26 18:00:00',
      '2027-03-26 18:00:00',
      '2027-04-30 18:00:00',
      '2027-05-28 18:00:00',
      '2027-06-25 18:00:00',
    ]);
    const second = first.series.occurrences.edges[0].node.databaseId;
    const occurrence = await read(second);
    expect(occurrence).toMatchObject({
      recurrence: first.recurrence,
      isException: false,
      originalStart: '2027-02-26T23:00:00.000Z',
      series: { id: first.series.id },
    });
    const single = dataOf(
      await gql(
        `mutation { createEvent(input: { title: "Once", startDate: "2027-02-01 10:00", endDate: "2027-02-01 11:00" }) { recurrence series { id } originalStart isException } }`,
        {},
        users.administrator,
      ),
    ).createEvent;
    expect(single).toEqual({ recurrence: [], series: null, originalStart: null, isException: false });
  });

  it('THIS makes an exception; ALL renames the others and keeps it; THIS_AND_FOLLOWING splits', async () => {
    const first = await create(['RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=6']);
    const ids: number[] = first.series.occurrences.edges.map(
      (edge: { node: { databaseId: number } }) => edge.node.databaseId,
    );

    const moved = dataOf(
      await update(ids[1]!, { title: 'Spring special', startDate: '2027-03-25 18:00:00' }),
    ).updateEvent;
    expect(moved).toMatchObject({
      isException: true,
      originalStart: '2027-03-26T22:00:00.000Z',
      localStartDate: '2027-03-25 18:00:00',
    });

    const all = dataOf(await update(ids[3]!, { title: 'Talk' }, 'ALL')).updateEvent;
    expect(all.databaseId).toBe(first.databaseId);
    let series = await read(first.databaseId);
    expect(series.title).toBe('Talk');
    expect(titles(series)).toEqual(['Talk', 'Spring special', 'Talk', 'Talk', 'Talk']);
    expect(series.series.exceptions).toEqual([{ databaseId: ids[1], title: 'Spring special' }]);

    const split = dataOf(await update(ids[2]!, { title: 'Summer talk' }, 'THIS_AND_FOLLOWING')).updateEvent;
    expect(split.recurrence).toEqual(['RRULE:FREQ=MONTHLY;COUNT=3;BYDAY=-1FR']);
    expect(titles(split)).toEqual(['Summer talk', 'Summer talk']);
    series = await read(first.databaseId);
    expect(series.recurrence[0]).toMatch(/^RRULE:FREQ=MONTHLY;UNTIL=20270430T215959Z;BYDAY=-1FR$/);
    expect(titles(series)).toEqual(['Talk', 'Spring special']);
  });

  it('deleteEvent with THIS cancels one instance (an EXDATE), with ALL the whole series', async () => {
    const first = await create(['RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=4']);
    const ids: number[] = first.series.occurrences.edges.map(
      (edge: { node: { databaseId: number } }) => edge.node.databaseId,
    );
    const removed = await gql(
      `mutation($id: Int!) { deleteEvent(id: $id) { status } }`,
      { id: ids[0] },
      users.administrator,
    );
    expect(dataOf(removed).deleteEvent.status).toBe('trash');
    const series = await read(first.databaseId);
    expect(series.recurrence).toEqual([
      'RRULE:FREQ=MONTHLY;COUNT=4;BYDAY=-1FR',
      'EXDATE;TZID=America/New_York:20270226T180000',
    ]);
    await gql(
      `mutation($id: Int!) { deleteEvent(id: $id, scope: ALL) { databaseId } }`,
      { id: ids[1] },
      users.administrator,
    );
    const statuses = await h.db.event.findMany({
      where: { OR: [{ id: first.databaseId }, { postParentId: first.databaseId }] },
      select: { status: true },
    });
    expect(statuses.map((row) => row.status)).toEqual(['trash', 'trash', 'trash', 'trash']);
  });

  it('refuses a malformed rule naming recurrence', async () => {
    const result = await gql(
      `mutation { createEvent(input: { title: "Bad", startDate: "2027-02-01 10:00", endDate: "2027-02-01 11:00", recurrence: ["RRULE:FREQ=WEEKLY;BYMONTHDAY=40"] }) { databaseId } }`,
      {},
      users.administrator,
    );
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'rest_invalid_param' });
    expect(JSON.stringify(result.errors?.[0]?.extensions)).toContain('recurrence');
  });
});
