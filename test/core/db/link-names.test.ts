import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_LINKS, conditionsNow, linkCondition } from '../../../src/core/db/queries/list-conditions.js';
import { eventSearchCondition } from '../../../src/core/db/queries/text-search.js';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent, createEventsInBulk, createOrganizer, createVenue } from '../../helpers/fixtures.js';

// A list filtered by venue or organizer names, on SQLite, the events linked to them (`linkCondition`):
// a correlated `EXISTS` made SQLite test every event of the window when the records hold few. Named
// only when they are few; past that, and on PostgreSQL, the list keeps the relation's condition. Either
// way the list is the one the relation's condition gives.

let h: Harness;
let sqlite: boolean;
let smallVenue: number;
let largeVenue: number;
let organizer: number;
const LARGE = 300;

beforeAll(async () => {
  h = await startHarness();
  sqlite = h.config.databaseProvider === 'sqlite';
  smallVenue = (await createVenue(h.db)).id;
  largeVenue = (await createVenue(h.db)).id;
  organizer = (await createOrganizer(h.db)).id;
  await createEventsInBulk(h.db, 400, 'Unlinked', '2035-03-10 10:00:00');
  for (let day = 1; day <= 6; day++)
    await createEvent(h.db, {
      start: `2035-03-${String(day * 4).padStart(2, '0')} 19:00:00`,
      venueIds: [smallVenue],
      organizerIds: day % 2 ? [organizer] : [],
      // One in the trash and one draft: the list's other conditions still apply to named events.
      status: day === 5 ? 'trash' : day === 6 ? 'draft' : 'publish',
    });
  await createEventsInBulk(h.db, LARGE, 'Crowded', '2035-03-12 10:00:00');
  const crowded = await h.db.event.findMany({
    where: { title: { startsWith: 'Crowded' } },
    select: { id: true },
  });
  await h.db.eventVenue.createMany({
    data: crowded.map(({ id }) => ({ eventId: id, venueId: largeVenue, position: 0 })),
  });
});
afterAll(() => h.close());

/** What the read applies for a venue filter: the events named, or the relation's own condition. */
async function readCondition(venue: number) {
  const [applied] = await conditionsNow(h.db, [
    linkCondition(EVENT_LINKS.venues, [venue], h.config.databaseProvider),
  ]);
  return applied as { id?: { in: number[] }; venues?: unknown };
}

/** A REST list's ids and total, against the events the relation's condition finds. */
async function listAgainstRelation(query: Record<string, string | number>, where: object) {
  const res = await h.http
    .get(`${API}/events`)
    .query({ start_date: '2035-03-01', end_date: '2035-03-31', per_page: 50, ...query })
    .expect(200);
  const expected = await h.db.event.findMany({
    where: { AND: [where, { status: 'publish', localStart: { gte: '2035-03-01 00:00:00' } }] },
    select: { id: true },
    orderBy: [{ localStart: 'asc' }, { id: 'asc' }],
  });
  expect(res.body.events.map((event: { id: number }) => event.id)).toEqual(
    expected.slice(0, 50).map((event) => event.id),
  );
  expect(res.headers['x-tec-total']).toBe(String(expected.length));
}

describe('lists filtered by venue or organizer', () => {
  it('name the linked events of records that hold few, on SQLite only', async () => {
    const small = await readCondition(smallVenue);
    if (sqlite) expect([...new Set(small.id?.in)].length).toBe(6);
    else expect(small.venues).toBeDefined();
    // Past the limit the relation's condition stays: naming would cost more than testing the window.
    expect((await readCondition(largeVenue)).venues).toBeDefined();
  });

  it('name a search and a busy venue together past the venue limit: the search is worth naming', async () => {
    const provider = h.config.databaseProvider;
    const [applied] = await conditionsNow(h.db, [
      eventSearchCondition('Crowded', provider),
      linkCondition(EVENT_LINKS.venues, [largeVenue], provider),
    ]);
    const named = (applied as { id?: { in: number[] } }).id?.in;
    if (sqlite) expect(new Set(named).size).toBe(LARGE);
    else expect(named).toBeUndefined();
    await listAgainstRelation(
      { venue: largeVenue, search: 'Crowded' },
      { venues: { some: { venueId: largeVenue } }, title: { contains: 'Crowded' } },
    );
  });

  it('list what the relation finds, named or not, alone and together', async () => {
    const atVenue = (venue: number) => ({ venues: { some: { venueId: venue } } });
    await listAgainstRelation({ venue: smallVenue }, atVenue(smallVenue));
    await listAgainstRelation({ venue: largeVenue }, atVenue(largeVenue));
    await listAgainstRelation({ organizer }, { organizers: { some: { organizerId: organizer } } });
    await listAgainstRelation(
      { venue: `${smallVenue},${largeVenue}`, organizer },
      {
        venues: { some: { venueId: { in: [smallVenue, largeVenue] } } },
        organizers: { some: { organizerId: organizer } },
      },
    );
  });

  it('follow the links written since the last read', async () => {
    const moved = await createEvent(h.db, { start: '2035-03-30 19:00:00', venueIds: [smallVenue] });
    await listAgainstRelation({ venue: smallVenue }, { venues: { some: { venueId: smallVenue } } });
    await h.db.eventVenue.deleteMany({ where: { eventId: moved.id } });
    await listAgainstRelation({ venue: smallVenue }, { venues: { some: { venueId: smallVenue } } });
  });
});
