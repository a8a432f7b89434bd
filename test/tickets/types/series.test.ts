import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extendSeries } from '../../../src/events/series/series-horizon.js';
import { dataOf, graphqlClient } from '../../helpers/graphql.js';
import type { Harness } from '../../helpers/harness.js';
import { type Users, startWithRoles } from '../../helpers/users.js';
import { CREATE_TYPE, TYPES_OF_EVENT, rsvp } from '../tickets-setup.js';

// Occurrences of a series have their own ticket types, places and attendees: the types are copied to
// every occurrence the series creates (at once, when its rule changes, as the horizon moves), their
// sales windows moved in the event's wall-clock time; a type write takes the event edits' scope and
// reaches the copies in scope in one transaction, or writes nothing.

let h: Harness;
let users: Users;
const gql = graphqlClient(() => h);

beforeAll(async () => {
  ({ h, users } = await startWithRoles());
});
afterAll(() => h?.close());

const CREATE_SERIES = `mutation ($input: CreateEventInput!) { createEvent(input: $input) { databaseId } }`;
const UPDATE_EVENT = `mutation ($id: Int!, $input: UpdateEventInput!, $scope: RecurrenceScope) {
  updateEvent(id: $id, input: $input, scope: $scope) { databaseId } }`;
const CREATE_SCOPED = `mutation ($eventId: Int!, $input: TicketTypeInput!, $scope: RecurrenceScope) {
  createTicketType(eventId: $eventId, input: $input, scope: $scope) { id } }`;
const UPDATE_TYPE = `mutation ($id: Int!, $input: TicketTypeInput!, $scope: RecurrenceScope) {
  updateTicketType(id: $id, input: $input, scope: $scope) { id name capacity } }`;
const DELETE_TYPE = `mutation ($id: Int!, $scope: RecurrenceScope) {
  deleteTicketType(id: $id, scope: $scope) { id } }`;
const WINDOW = `query ($id: Int!) { ticketType(id: $id) { salesStart salesEnd salesStartUtc salesEndUtc } }`;

/** A series through GraphQL; returns its events in slot order, the first event first. */
async function series(start: string, lines: string[], timezone = 'Europe/Paris'): Promise<number[]> {
  const input = { title: 'Choir', startDate: start, endDate: start.replace(/ 19:/, ' 21:'), timezone };
  const { databaseId } = dataOf(
    await gql(CREATE_SERIES, { input: { ...input, recurrence: lines } }, users.administrator),
  ).createEvent;
  return [databaseId, ...(await occurrencesOf(databaseId))];
}

async function occurrencesOf(firstId: number): Promise<number[]> {
  const rows = await h.db.event.findMany({
    where: { postParentId: firstId },
    orderBy: { originalStart: 'asc' },
    select: { id: true },
  });
  return rows.map((row) => row.id);
}

const addType = async (eventId: number, input: Record<string, unknown>, scope?: string) =>
  dataOf(
    await gql(
      CREATE_SCOPED,
      { eventId, input: { name: 'Entry', ...input }, ...(scope ? { scope } : {}) },
      users.editor,
    ),
  ).createTicketType.id as number;

/** Each event's types as the public sees them: name → availability. */
async function typesOf(eventId: number) {
  const event = dataOf(await gql(TYPES_OF_EVENT, { id: eventId })).event;
  return event.ticketTypes as Array<{
    id: number;
    name: string;
    availability: { capacity: number | null; available: number | null; waitlist: number };
  }>;
}

const rowsOf = (eventIds: number[]) =>
  Promise.all(
    eventIds.map((eventId) =>
      h.db.ticketType.findMany({
        where: { eventId },
        orderBy: { id: 'asc' },
        include: { sharedCapacity: true },
      }),
    ),
  );

const CHANGES = `query ($since: String) { changes(since: $since) { ticketTypes { id eventId } next } }`;

const lastSequence = async () =>
  (await h.db.changeLog.findFirst({ orderBy: { id: 'desc' }, select: { id: true } }))?.id ?? 0;

/** The `ticket.created` entries appended after `sequence`: each copy, with the event it is on. */
const copiesLogged = async (sequence: number) =>
  (
    await h.db.changeLog.findMany({
      where: { id: { gt: sequence }, kind: 'ticket', operation: 'created' },
      orderBy: { id: 'asc' },
    })
  ).map((row) => ({ id: row.recordId, eventId: row.eventId }));

describe('every occurrence has its own types', () => {
  it('copies a type written on the first event to every occurrence, each with its own places', async () => {
    const events = await series('2027-05-04 19:00:00', ['RRULE:FREQ=WEEKLY;COUNT=4']);
    const original = await addType(events[0]!, { capacity: 2, price: '5.00', currency: 'EUR' });
    const rows = await rowsOf(events);
    expect(rows.map((types) => types.length)).toEqual([1, 1, 1, 1]);
    const ids = rows.map((types) => types[0]!.id);
    expect(new Set(ids).size).toBe(4);
    expect(ids[0]).toBe(original);
    for (const [index, [type]] of rows.entries()) {
      expect(type).toMatchObject({
        eventId: events[index],
        name: 'Entry',
        capacity: 2,
        price: '5.00',
        currency: 'EUR',
        seriesKey: index === 0 ? null : original,
      });
    }

    const booked = await rsvp(h, { ticketTypeId: ids[1], name: 'Ada', email: 'ada@example.org', guests: 2 });
    expect(booked.confirmation?.attendee.status).toBe('GOING');
    const availability = await Promise.all(
      events.map(async (id) => (await typesOf(id))[0]!.availability.available),
    );
    expect(availability).toEqual([2, 0, 2, 2]);
    expect(await h.db.attendee.count({ where: { eventId: { in: events } } })).toBe(1);
  });

  it('copies to the occurrences a rule change adds, from the event before them, never its attendees', async () => {
    const events = await series('2027-06-01 19:00:00', ['RRULE:FREQ=WEEKLY;COUNT=3']);
    const original = await addType(events[0]!, { capacity: 3, newSharedCapacity: 4 });
    const last = (await rowsOf([events[2]!]))[0]![0]!;
    await rsvp(h, { ticketTypeId: last.id, name: 'Bo', email: 'bo@example.org', guests: 3 });

    const sequence = await lastSequence();
    dataOf(
      await gql(
        UPDATE_EVENT,
        { id: events[0], input: { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'] } },
        users.administrator,
      ),
    );
    const all = [events[0]!, ...(await occurrencesOf(events[0]!))];
    expect(all.slice(0, 3)).toEqual(events);
    expect(all).toHaveLength(5);
    const rows = await rowsOf(all);
    for (const [index, [type]] of rows.entries()) {
      expect(type).toMatchObject({
        eventId: all[index],
        capacity: 3,
        seriesKey: index === 0 ? null : original,
      });
      // A shared capacity of its own, of the same size, on each occurrence.
      expect(type!.sharedCapacity).toMatchObject({ eventId: all[index], capacity: 4 });
    }
    expect(new Set(rows.map(([type]) => type!.sharedCapacityId)).size).toBe(5);
    // Each copy is in the change stream, as a scoped write's copies are.
    expect(await copiesLogged(sequence)).toEqual(
      rows.slice(3).map(([type]) => ({ id: type!.id, eventId: type!.eventId })),
    );
    const available = await Promise.all(
      all.map(async (id) => (await typesOf(id))[0]!.availability.available),
    );
    expect(available).toEqual([3, 3, 0, 3, 3]);
  });
});

describe('sales windows across a DST change (Europe/Paris, 2027-03-28)', () => {
  it('moves a copied window in wall-clock time: 10:00 a week before stays 10:00', async () => {
    // Tuesdays 19:00 from 2027-03-16 (CET, +01:00) to 2027-03-30 (CEST, +02:00).
    const events = await series('2027-03-16 19:00:00', ['RRULE:FREQ=WEEKLY;COUNT=3']);
    const window = { salesStart: '2027-03-09 10:00:00', salesEnd: '2027-03-16 18:00:00' };
    await addType(events[0]!, window);
    const shown = await Promise.all(
      (await rowsOf(events)).map(async ([type]) => dataOf(await gql(WINDOW, { id: type!.id })).ticketType),
    );
    expect(shown).toEqual([
      {
        ...window,
        salesStartUtc: '2027-03-09T09:00:00.000Z',
        salesEndUtc: '2027-03-16T17:00:00.000Z',
      },
      {
        salesStart: '2027-03-16 10:00:00',
        salesEnd: '2027-03-23 18:00:00',
        salesStartUtc: '2027-03-16T09:00:00.000Z',
        salesEndUtc: '2027-03-23T17:00:00.000Z',
      },
      {
        // Opens before the change (CET), closes after it (CEST): one UTC hour less than a week later.
        salesStart: '2027-03-23 10:00:00',
        salesEnd: '2027-03-30 18:00:00',
        salesStartUtc: '2027-03-23T09:00:00.000Z',
        salesEndUtc: '2027-03-30T16:00:00.000Z',
      },
    ]);
  });

  it('moves the window of a scoped edit by each occurrence’s distance, and of occurrences made later', async () => {
    const events = await series('2027-03-18 19:00:00', ['RRULE:FREQ=WEEKLY;COUNT=1']);
    expect(events).toHaveLength(1);
    const original = await addType(events[0]!, {});
    dataOf(
      await gql(
        UPDATE_EVENT,
        { id: events[0], input: { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] } },
        users.administrator,
      ),
    );
    const all = [events[0]!, ...(await occurrencesOf(events[0]!))];
    expect(all).toHaveLength(3);
    dataOf(
      await gql(
        UPDATE_TYPE,
        { id: original, input: { salesEnd: '2027-03-18 12:00:00' }, scope: 'ALL' },
        users.editor,
      ),
    );
    const ends = (await rowsOf(all)).map(([type]) => type!.salesEnd!.toISOString());
    expect(ends).toEqual([
      '2027-03-18T11:00:00.000Z',
      '2027-03-25T11:00:00.000Z',
      '2027-04-01T10:00:00.000Z',
    ]);
  });
});

describe('the horizon', () => {
  it('copies the types to the occurrences it creates', async () => {
    const now = Date.now();
    const day = new Date(now + 86_400_000).toISOString().slice(0, 10);
    const events = await series(`${day} 19:00:00`, ['RRULE:FREQ=WEEKLY'], 'UTC');
    const original = await addType(events[0]!, { capacity: 9, waitlist: true, maxPerRequest: 3 });
    const before = events.length;
    const sequence = await lastSequence();
    const since = dataOf(await gql(CHANGES, {})).changes.next as string;
    const created = await extendSeries(
      { db: h.db, config: h.config, writes: h.writes },
      new Date(now + 35 * 86_400_000),
    );
    const all = [events[0]!, ...(await occurrencesOf(events[0]!))];
    expect(created).toBeGreaterThanOrEqual(4);
    expect(all.length - before).toBe(created);
    const added = await rowsOf(all.slice(before));
    for (const [index, types] of added.entries()) {
      expect(types).toHaveLength(1);
      expect(types[0]).toMatchObject({
        eventId: all[before + index],
        capacity: 9,
        waitlist: true,
        maxPerRequest: 3,
        seriesKey: original,
      });
    }
    expect(await copiesLogged(sequence)).toEqual(
      added.map(([type]) => ({ id: type!.id, eventId: type!.eventId })),
    );
    // And a sync token taken before the horizon moved reads them.
    const { ticketTypes } = dataOf(await gql(CHANGES, { since })).changes;
    expect(ticketTypes).toEqual(added.map(([type]) => ({ id: type!.id, eventId: type!.eventId })));
  });
});

describe('a type write takes the scope of event edits', () => {
  it('this, following and all reach the copies in scope; an exception keeps its types', async () => {
    const events = await series('2027-09-07 19:00:00', ['RRULE:FREQ=WEEKLY;COUNT=5']);
    await addType(events[0]!, { capacity: 10 });
    const typeOn = async (index: number, name: string) =>
      (await rowsOf([events[index]!]))[0]!.find((type) => type.name === name)!;
    const capacities = async () => (await rowsOf(events)).map((types) => types.map((type) => type.capacity));

    dataOf(
      await gql(UPDATE_TYPE, { id: (await typeOn(2, 'Entry')).id, input: { capacity: 7 } }, users.editor),
    );
    expect(await capacities()).toEqual([[10], [10], [7], [10], [10]]);

    dataOf(
      await gql(
        UPDATE_TYPE,
        { id: (await typeOn(2, 'Entry')).id, input: { name: 'Late' }, scope: 'THIS_AND_FOLLOWING' },
        users.editor,
      ),
    );
    const names = async () => (await rowsOf(events)).map((types) => types.map((type) => type.name));
    expect(await names()).toEqual([['Entry'], ['Entry'], ['Late'], ['Late'], ['Late']]);

    // Occurrence 1 edited on its own: an exception, detached from the series' edits of types too.
    dataOf(
      await gql(
        UPDATE_EVENT,
        { id: events[1], input: { title: 'Choir (moved)' }, scope: 'THIS' },
        users.administrator,
      ),
    );
    dataOf(
      await gql(
        UPDATE_TYPE,
        { id: (await typeOn(3, 'Late')).id, input: { capacity: 12 }, scope: 'ALL' },
        users.editor,
      ),
    );
    expect(await capacities()).toEqual([[12], [10], [12], [12], [12]]);

    // A type added to "this and following" reaches the later occurrences, and the ones they make later.
    await addType(events[3]!, { name: 'Extra', capacity: 1 }, 'THIS_AND_FOLLOWING');
    expect(await names()).toEqual([['Entry'], ['Entry'], ['Late'], ['Late', 'Extra'], ['Late', 'Extra']]);
    dataOf(
      await gql(
        UPDATE_EVENT,
        { id: events[0], input: { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] } },
        users.administrator,
      ),
    );
    const sixth = (await occurrencesOf(events[0]!)).at(-1)!;
    expect((await rowsOf([sixth]))[0]!.map((type) => [type.name, type.capacity])).toEqual([
      ['Late', 12],
      ['Extra', 1],
    ]);

    // Deleting with scope all: every copy in scope, none elsewhere.
    dataOf(await gql(DELETE_TYPE, { id: (await typeOn(4, 'Extra')).id, scope: 'ALL' }, users.editor));
    expect(
      await h.db.ticketType.count({ where: { eventId: { in: [...events, sixth] }, name: 'Extra' } }),
    ).toBe(0);
    expect(await h.db.ticketType.count({ where: { eventId: { in: [...events, sixth] } } })).toBe(6);
  });

  it('a series split by "this and following" keeps the types, each part edited as its own series', async () => {
    const events = await series('2027-09-08 19:00:00', ['RRULE:FREQ=WEEKLY;COUNT=4']);
    await addType(events[0]!, { capacity: 10 });
    dataOf(
      await gql(
        UPDATE_EVENT,
        { id: events[2], input: { title: 'Choir, new season' }, scope: 'THIS_AND_FOLLOWING' },
        users.administrator,
      ),
    );
    const [second] = (await rowsOf([events[2]!]))[0]!;
    // Now the first event of its own series: its types are that series'.
    dataOf(await gql(UPDATE_TYPE, { id: second!.id, input: { capacity: 20 } }, users.editor));
    const capacities = (await rowsOf(events)).map((types) => types.map((type) => type.capacity));
    expect(capacities).toEqual([[10], [10], [20], [20]]);
  });

  it('a scoped edit refused on one occurrence writes nothing on any', async () => {
    const events = await series('2027-10-05 19:00:00', ['RRULE:FREQ=WEEKLY;COUNT=3']);
    const original = await addType(events[0]!, { capacity: 5 });
    const booked = (await rowsOf([events[2]!]))[0]![0]!;
    await rsvp(h, { ticketTypeId: booked.id, name: 'Cy', email: 'cy@example.org', guests: 3 });
    const snapshot = async () =>
      (await rowsOf(events)).map(([type]) => ({
        name: type!.name,
        capacity: type!.capacity,
        modifiedAt: type!.modifiedAt,
      }));
    const before = await snapshot();

    const refused = await gql(
      UPDATE_TYPE,
      { id: original, input: { capacity: 2, name: 'Renamed' }, scope: 'ALL' },
      users.editor,
    );
    expect(refused.errors?.[0]?.extensions).toMatchObject({
      code: 'CAPACITY_TAKEN',
      http: { status: 409 },
      data: { events: [events[2]] },
    });
    expect(await snapshot()).toEqual(before);

    // Down to the places taken is fine.
    dataOf(await gql(UPDATE_TYPE, { id: original, input: { capacity: 3 }, scope: 'ALL' }, users.editor));
    expect((await snapshot()).map((type) => type.capacity)).toEqual([3, 3, 3]);

    const notDeleted = await gql(DELETE_TYPE, { id: original, scope: 'ALL' }, users.editor);
    expect(notDeleted.errors?.[0]?.extensions).toMatchObject({
      code: 'TYPE_HAS_ATTENDEES',
      http: { status: 409 },
      data: { events: [events[2]] },
    });
    expect(await h.db.ticketType.count({ where: { eventId: { in: events } } })).toBe(3);
    expect(await h.db.attendee.count({ where: { ticketTypeId: booked.id } })).toBe(1);

    // Its own event's copy is deleted with its attendees, as a single event's type is.
    dataOf(await gql(DELETE_TYPE, { id: booked.id, scope: 'THIS' }, users.editor));
    expect(await h.db.attendee.count({ where: { ticketTypeId: booked.id } })).toBe(0);
    dataOf(await gql(DELETE_TYPE, { id: original, scope: 'ALL' }, users.editor));
    expect(await h.db.ticketType.count({ where: { eventId: { in: events } } })).toBe(0);
  });

  it('a single event refuses a capacity below its places taken too', async () => {
    const event = dataOf(
      await gql(
        CREATE_SERIES,
        { input: { title: 'Talk', startDate: '2027-11-02 19:00:00', endDate: '2027-11-02 20:00:00' } },
        users.administrator,
      ),
    ).createEvent.databaseId as number;
    const type = dataOf(
      await gql(CREATE_TYPE, { eventId: event, input: { name: 'Seat', capacity: 4 } }, users.editor),
    ).createTicketType.id as number;
    await rsvp(h, { ticketTypeId: type, name: 'Di', email: 'di@example.org', guests: 2 });
    const answer = await gql(UPDATE_TYPE, { id: type, input: { capacity: 1 } }, users.editor);
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'CAPACITY_TAKEN',
      data: { events: [event] },
    });
    expect((await h.db.ticketType.findUniqueOrThrow({ where: { id: type } })).capacity).toBe(4);
  });
});
