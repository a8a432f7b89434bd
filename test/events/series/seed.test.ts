import { afterAll, beforeAll, expect, it } from 'vitest';
import { defaultCounts } from '../../../scripts/sample-data/generate.js';
import { seedDatabase } from '../../../scripts/sample-data/seed.js';
import { type Harness, startHarness } from '../../helpers/harness.js';

// The seed has series as a real calendar does: weekly, monthly by position (the last Friday), and one
// with an exception and a cancelled instance (an EXDATE), made by the series service.

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

it('seeds three series, one with an exception and a cancelled instance', async () => {
  const counts = await seedDatabase(h.db, h.config.databaseProvider, {
    seed: 7,
    now: new Date('2026-11-22T00:00:00Z'),
    events: 30,
    ...defaultCounts(30),
    reset: false,
  });
  const firsts = await h.db.event.findMany({
    where: { recurrence: { not: null }, originalStart: null },
    orderBy: { id: 'asc' },
    select: { id: true, recurrence: true },
  });
  expect(firsts.map((first) => first.recurrence!.split('\n')[0])).toEqual([
    'RRULE:FREQ=WEEKLY;COUNT=26',
    'RRULE:FREQ=MONTHLY;COUNT=12;BYDAY=-1FR',
    'RRULE:FREQ=WEEKLY;COUNT=10;INTERVAL=2',
  ]);
  expect(firsts[2]!.recurrence).toMatch(/\nEXDATE/);
  expect(counts.occurrences).toBe(25 + 11 + 9);
  expect(await h.db.event.count()).toBe(30 + counts.occurrences);
  const third = await h.db.event.findMany({
    where: { postParentId: firsts[2]!.id },
    orderBy: { originalStart: 'asc' },
  });
  expect(third.filter((event) => event.isException)).toHaveLength(1);
  expect(third.filter((event) => event.status === 'trash')).toHaveLength(1);
  // Occurrences have the author the seed gives every post.
  expect(await h.db.event.count({ where: { authorId: null } })).toBe(0);
});
