import { afterAll, beforeAll, expect, it } from 'vitest';
import { defaultCounts, planSeries } from '../../../scripts/sample-data/generate.js';
import { seedDatabase } from '../../../scripts/sample-data/seed.js';
import { type Harness, startHarness } from '../../helpers/harness.js';

// `seriesPercent` (the bench's `--series`): that share of the seeded events are members of series
// (weekly and monthly by position, with exceptions and cancelled instances), the total unchanged.

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

it('plans series whose counts add up to the members asked for', () => {
  for (const members of [0, 1, 2, 40, 333]) {
    const plans = planSeries(42, members);
    const counts = plans.map((plan) => Number(/COUNT=(\d+)/.exec(plan.lines[0]!)![1]));
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(members < 2 ? 0 : members);
    expect(counts.every((count) => count >= 2)).toBe(true);
  }
  const plans = planSeries(42, 400);
  expect(plans.some((plan) => plan.lines[0]!.startsWith('RRULE:FREQ=WEEKLY'))).toBe(true);
  expect(plans.some((plan) => /FREQ=MONTHLY;.*BYDAY=(-1FR|2TU|1MO|3TH)/.test(plan.lines[0]!))).toBe(true);
});

it('seeds a fifth of 200 events as series members, with exceptions and cancelled instances', async () => {
  const counts = await seedDatabase(h.db, h.config.databaseProvider, {
    seed: 7,
    now: new Date('2026-11-22T00:00:00Z'),
    events: 200,
    ...defaultCounts(200),
    seriesPercent: 20,
    reset: false,
  });
  const sampleOccurrences = 25 + 11 + 9;
  expect(counts.events + counts.occurrences).toBe(200 + sampleOccurrences);
  const firsts = await h.db.event.findMany({
    where: { recurrence: { not: null }, originalStart: null },
    orderBy: { id: 'asc' },
    select: { id: true },
  });
  const planned = firsts.slice(3).map((first) => first.id);
  const occurrences = await h.db.event.count({ where: { postParentId: { in: planned } } });
  expect(planned.length + occurrences).toBe(40);
  const edited = await h.db.event.count({ where: { postParentId: { in: planned }, isException: true } });
  const cancelled = await h.db.event.count({ where: { postParentId: { in: planned }, status: 'trash' } });
  expect(edited).toBeGreaterThan(0);
  expect(cancelled).toBeGreaterThan(0);
});
