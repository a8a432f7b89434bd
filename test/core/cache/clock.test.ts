import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dependsOnClock } from '../../../src/core/rules/dates.js';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent } from '../../helpers/fixtures.js';

// A list filtered by a phrase naming a time of day (`now`, `+2 hours`) depends on the clock, not only
// on the date the cache keys by: it is answered publicly but never stored; a phrase naming a day
// (`tomorrow`) or an absolute date is stored as usual. Decided at each edge from the arguments.

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ CALENDAR_CACHE: 'on' });
  await createEvent(h.db);
});
afterAll(() => h.close());

const twice = async (get: () => Promise<{ status: number; headers: Record<string, string> }>) => {
  const first = await get();
  const second = await get();
  expect([first.status, second.status]).toEqual([200, 200]);
  expect(first.headers['cache-control']).toBe('public, max-age=0, must-revalidate');
  return [first.headers['x-cache'], second.headers['x-cache']];
};

describe('answers that depend on the clock', () => {
  it.each(['now', '+2 hours', 'tomorrow 5pm'])(
    'REST start_date=%s: answered, never stored',
    async (phrase) => {
      const url = `${API}/events?start_date=${encodeURIComponent(phrase)}`;
      expect(await twice(() => h.http.get(url))).toEqual([undefined, undefined]);
    },
  );

  it.each(['tomorrow', '2030-01-01'])('REST start_date=%s: stored', async (date) => {
    const url = `${API}/events?start_date=${encodeURIComponent(date)}`;
    expect(await twice(() => h.http.get(url))).toEqual(['miss', 'hit']);
  });

  it('GraphQL: a phrase in the text or in the variables is never stored; a day is', async () => {
    const inText = '{ events(filter: { startDate: "now" }) { pageInfo { total } } }';
    expect(await twice(() => h.http.post('/graphql').send({ query: inText }))).toEqual([
      undefined,
      undefined,
    ]);
    const query = 'query($from: String) { events(filter: { startDate: $from }) { pageInfo { total } } }';
    const send = (from: string) => () => h.http.post('/graphql').send({ query, variables: { from } });
    expect(await twice(send('+2 hours'))).toEqual([undefined, undefined]);
    expect(await twice(send('tomorrow'))).toEqual(['miss', 'hit']);
  });
});

describe('dependsOnClock', () => {
  const monday10 = new Date('2026-11-23T10:00:00Z');
  it.each([
    ['now', true],
    ['+2 hours', true],
    ['next wednesday 4pm', true],
    ['tomorrow', false],
    ['next monday', false],
    ['2026-12-01 10:00:00', false],
    ['1764583200', false],
    ['', false],
  ])('%s → %s', (input, expected) => {
    expect(dependsOnClock(input, 'UTC', monday10)).toBe(expected);
  });
});
