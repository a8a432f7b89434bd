import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent } from '../../helpers/fixtures.js';

// A window's end bounds the events' ends (`end_date`, `ends_before`); the list also bounds their
// starts by the day after it (an event starts before it ends), so the list index reads the window
// and not the rest of the calendar. The answers are those of the end bound alone: an event whose
// wall-clock end falls before its start (a clock turned back) is still found.

let h: Harness;
let ids: { march: number; april: number; fallBack: number };

beforeAll(async () => {
  h = await startHarness();
  const march = await createEvent(h.db, { start: '2034-03-30 22:00:00', hours: 1 });
  const april = await createEvent(h.db, { start: '2034-03-31 23:30:00', hours: 1 });
  // 01:30 EDT, then 40 minutes: 01:10 EST, the wall clock of its end before that of its start.
  const fallBack = await createEvent(h.db, {
    start: '2034-11-05 01:30:00',
    timezone: 'America/New_York',
    fields: {
      startsAt: new Date('2034-11-05T05:30:00Z'),
      endsAt: new Date('2034-11-05T06:10:00Z'),
      localStart: '2034-11-05 01:30:00',
      localEnd: '2034-11-05 01:10:00',
    },
  });
  ids = { march: march.id, april: april.id, fallBack: fallBack.id };
});
afterAll(() => h.close());

async function listed(query: Record<string, string>): Promise<number[]> {
  const res = await h.http.get(`${API}/events`).query(query).expect(200);
  return (res.body.events as Array<{ id: number }>).map((event) => event.id);
}

describe("the window's end", () => {
  it('bounds the starts the list index reads by the day after it', async () => {
    h.queries.length = 0;
    expect(await listed({ start_date: '2034-03-01', end_date: '2034-03-31' })).toEqual([ids.march]);
    // The page's statement (the total is summed from the list counts: whole days).
    const count = h.queries.find((sql) => /[`"]localEnd[`"] <= /.test(sql))!;
    expect(count).toMatch(/[`"]localEnd[`"] <= \S+ AND .*[`"]localStart[`"] < /);
    if (h.config.databaseProvider === 'postgresql') return;
    const values = Array<null>(count.split('?').length - 1).fill(null);
    const plan = await h.db.$queryRawUnsafe<Array<{ detail: string }>>(
      `EXPLAIN QUERY PLAN ${count}`,
      ...values,
    );
    expect(plan.map((row) => row.detail).join('\n')).toMatch(/localStart>\? AND localStart<\?/);
  });

  it('finds what the end bound alone finds, a clock turned back included', async () => {
    expect(await listed({ start_date: '2034-03-31', end_date: '2034-04-01' })).toEqual([ids.april]);
    const night = { start_date: '2034-11-05 00:00:00', strict_dates: 'true' };
    expect(await listed({ ...night, end_date: '2034-11-05 01:20:00' })).toEqual([ids.fallBack]);
    expect(await listed({ ...night, ends_before: '2034-11-05 01:20:00' })).toEqual([ids.fallBack]);
    expect(await listed({ ...night, end_date: '2034-11-05 01:00:00' })).toEqual([]);
  });
});
