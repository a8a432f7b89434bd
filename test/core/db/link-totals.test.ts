import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshStatistics } from '../../../src/core/db/statistics.js';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import {
  createEvent,
  createEventsInBulk,
  createOrganizer,
  createTerm,
  createVenue,
} from '../../helpers/fixtures.js';

// A list filtered by one venue, organizer or term counts its total over that record's links
// (`countingLink`, core/db/queries/list-conditions.ts): the planner may then start from the links instead of
// probing them once per event of the window (#29, item 4). The totals stay those of the events: an
// event linked to several of the records asked, or to two terms, is counted once.

let h: Harness;
let ids: { venue: number; other: number; organizer: number; music: number; free: number };
const WINDOW = { start_date: '2034-03-01', end_date: '2034-03-31' };
// A year: the total starts from the links whatever the planner guesses.
const YEAR = { start_date: '2034-03-01', end_date: '2035-02-28' };

beforeAll(async () => {
  h = await startHarness();
  const [venue, other] = [await createVenue(h.db), await createVenue(h.db)];
  const organizer = await createOrganizer(h.db);
  const music = await createTerm(h.db, 'tribe_events_cat', 'Music link total');
  const free = await createTerm(h.db, 'post_tag', 'Free link total');
  ids = { venue: venue.id, other: other.id, organizer: organizer.id, music: music.id, free: free.id };
  // Many events in the window at as many other venues, a few each: a venue's events are a small part
  // of the window, as on a real calendar.
  for (let day = 1; day <= 30; day++)
    for (const hour of [9, 12, 15, 20])
      await createEventsInBulk(
        h.db,
        5,
        'Elsewhere',
        `2034-03-${String(day).padStart(2, '0')} ${String(hour).padStart(2, '0')}:00:00`,
      );
  const elsewhere = await h.db.event.findMany({ where: { title: { startsWith: 'Elsewhere' } } });
  const venues = await Promise.all(Array.from({ length: 100 }, () => createVenue(h.db)));
  await h.db.eventVenue.createMany({
    data: elsewhere.map((event, i) => ({ eventId: event.id, venueId: venues[i % venues.length]!.id })),
  });
  const day = (n: number) => `2034-03-${String(n).padStart(2, '0')} 18:00:00`;
  await createEvent(h.db, { start: day(1), venueIds: [venue.id], termIds: [music.id, free.id] });
  await createEvent(h.db, { start: day(2), venueIds: [venue.id, other.id], termIds: [music.id] });
  await createEvent(h.db, { start: day(3), venueIds: [venue.id], organizerIds: [organizer.id] });
  await createEvent(h.db, { start: day(4), venueIds: [other.id], organizerIds: [organizer.id] });
  await createEvent(h.db, { start: day(5), termIds: [free.id] });
  // Outside the window, and a draft: in no anonymous total.
  await createEvent(h.db, { start: '2034-04-02 18:00:00', venueIds: [venue.id], termIds: [music.id] });
  await createEvent(h.db, { start: day(6), status: 'draft', venueIds: [venue.id] });
  await refreshStatistics(h.db, h.config.databaseProvider);
});
afterAll(() => h.close());

async function total(query: Record<string, string>): Promise<number> {
  const res = await h.http
    .get(`${API}/events`)
    .query({ ...WINDOW, per_page: 2, ...query })
    .expect(200);
  expect(Number(res.headers['x-tec-total'])).toBe(res.body.total);
  return res.body.total as number;
}

describe('a total counted over the links of one record', () => {
  it('counts each event once, whatever else it is linked to, over a month and over a year', async () => {
    // Each query's total over the month and over the year, which adds the April event (venue, music)
    // and counts starting from the links.
    const cases: Array<[Record<string, string>, number, number]> = [
      [{ venue: String(ids.venue) }, 3, 4],
      [{ venue: String(ids.other) }, 2, 2],
      [{ venue: `${ids.venue},${ids.other}` }, 4, 5],
      [{ organizer: String(ids.organizer) }, 2, 2],
      [{ categories: 'music-link-total' }, 2, 3],
      [{ tags: String(ids.free) }, 2, 2],
      [{ categories: String(ids.music), tags: String(ids.free) }, 1, 1],
      [{ venue: String(ids.venue), organizer: String(ids.organizer) }, 1, 1],
      [{ venue: String(ids.venue), categories: String(ids.music) }, 2, 3],
      [{ venue: `${ids.venue},${ids.other}`, categories: String(ids.music) }, 2, 3],
    ];
    for (const [query, month, year] of cases) {
      expect(await total(query), `${JSON.stringify(query)} over the month`).toBe(month);
      expect(await total({ ...YEAR, ...query }), `${JSON.stringify(query)} over the year`).toBe(year);
    }
  });

  it('starts from the links over a window of months, and leaves a month to the planner', async () => {
    if (h.config.databaseProvider === 'postgresql') return;
    h.queries.length = 0;
    await total({ ...YEAR, categories: String(ids.music) });
    await total({ categories: String(ids.music) });
    const counts = h.queries.filter((sql) => /COUNT\(\*\)/.test(sql));
    // The year's: a missing event accepted (the join keeps its order); the month's: the planner's.
    expect(counts.map((sql) => /`j0`\.`id` IS NULL/.test(sql))).toEqual([true, false]);
  });

  it("counts over the venue's links on SQLite, starting from the few events it holds", async () => {
    const statements: Array<{ query: string; params: string }> = [];
    (h.db as unknown as { $on(event: 'query', listener: (e: (typeof statements)[0]) => void): void }).$on(
      'query',
      (e) => statements.push(e),
    );
    await total({ venue: String(ids.venue) });
    const counts = statements.filter(({ query }) => /COUNT\(\*\)/.test(query));
    expect(counts).toHaveLength(1);
    const [{ query, params }] = counts as [(typeof statements)[0]];
    // PostgreSQL's planner starts from the links of a `some` filter itself: its total counts events.
    if (h.config.databaseProvider === 'postgresql') return expect(query).toMatch(/FROM "public"\."Event"/);
    expect(query).toMatch(/FROM `main`\.`EventVenue`/);
    const values = (JSON.parse(params) as unknown[]).map((value) =>
      typeof value === 'boolean' ? Number(value) : value,
    );
    const rows = await h.db.$queryRawUnsafe<Array<{ detail: string }>>(
      `EXPLAIN QUERY PLAN ${query}`,
      ...values,
    );
    const steps = rows.map((row) => row.detail).filter((detail) => /^(SEARCH|SCAN)/.test(detail));
    // The venue holds few events, which the read names (`linkCondition`): the count starts from them,
    // each event's conditions read from the index by id, not from its row, then finds its link.
    expect(steps[0]).toMatch(/USING COVERING INDEX Event_id_list_idx \(id=/);
    expect(steps[1]).toMatch(/EventVenue/);
  });
});
