import { describe, expect, it } from 'vitest';
import { instantFromWallClock, wallClock } from '../src/core/rules/dates.js';
import {
  CATEGORY_TAXONOMY,
  type SampleOptions,
  generateSampleData,
} from '../scripts/sample-data/generate.js';
import { ZoneClock } from '../scripts/sample-data/zone-clock.js';

const options: SampleOptions = {
  seed: 7,
  now: new Date('2026-11-22T00:00:00Z'),
  events: 3000,
  venues: 60,
  organizers: 75,
};
const data = generateSampleData(options);
const events = data.events.map((b) => b.event);
const DAY_MS = 86_400_000;

describe('sample data generator', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    expect(generateSampleData(options)).toEqual(data);
    const other = generateSampleData({ ...options, seed: 8 });
    expect(other.events.map((b) => b.event.title)).not.toEqual(events.map((e) => e.title));
  });

  it('stores each local wall-clock as the UTC instant read in the event zone', () => {
    for (const e of events) {
      expect(e.localStart, `event ${e.id}`).toBe(wallClock(e.startsAt, e.timezone));
      expect(e.localEnd, `event ${e.id}`).toBe(wallClock(e.endsAt, e.timezone));
    }
    expect(new Set(events.map((e) => e.timezone)).size).toBeGreaterThanOrEqual(5);
  });

  it('ends no earlier than it starts, within a month back and 18 months ahead', () => {
    const now = options.now.getTime();
    for (const e of events) {
      expect(e.endsAt.getTime()).toBeGreaterThanOrEqual(e.startsAt.getTime());
      expect(e.localEnd >= e.localStart).toBe(true);
      expect(e.startsAt.getTime()).toBeGreaterThan(now - 32 * DAY_MS);
      expect(e.startsAt.getTime()).toBeLessThan(now + 551 * DAY_MS);
    }
  });

  it('gives all-day events whole local days', () => {
    const allDay = events.filter((e) => e.allDay);
    expect(allDay.length).toBeGreaterThan(0);
    for (const e of allDay) {
      expect(e.localStart.slice(11)).toBe('00:00:00');
      expect(e.localEnd.slice(11)).toBe('23:59:59');
    }
  });

  it('keeps slugs unique', () => {
    for (const rows of [events, data.venues, data.organizers]) {
      expect(new Set(rows.map((r) => r.slug)).size).toBe(rows.length);
    }
    expect(new Set(data.terms.map((t) => `${t.taxonomy}/${t.slug}`)).size).toBe(data.terms.length);
  });

  it('stores costs as sorted comma-joined numbers, with a currency only when there is a cost', () => {
    for (const e of events) {
      expect(e.cost).toMatch(/^(\d+(,\d+)*)?$/);
      const values = e.cost ? e.cost.split(',').map(Number) : [];
      expect(values).toEqual([...values].sort((a, b) => a - b));
      if (!e.cost) expect([e.currencySymbol, e.currencyPosition]).toEqual(['', '']);
    }
    expect(new Set(events.map((e) => e.currencySymbol))).toEqual(new Set(['$', '€', '']));
  });

  it('links only to generated rows, at positions 0..n', () => {
    const ids = (rows: { id: number }[]): Set<number> => new Set(rows.map((r) => r.id));
    const [venues, organizers, terms] = [ids(data.venues), ids(data.organizers), ids(data.terms)];
    for (const b of data.events) {
      expect(b.venues.length).toBeLessThanOrEqual(1);
      expect(b.organizers.length).toBeLessThanOrEqual(3);
      expect(b.terms.length).toBeLessThanOrEqual(3);
      for (const link of [...b.venues, ...b.organizers, ...b.terms]) expect(link.eventId).toBe(b.event.id);
      b.venues.forEach((l) => expect(venues.has(l.venueId)).toBe(true));
      b.organizers.forEach((l, i) => expect([organizers.has(l.organizerId), l.position]).toEqual([true, i]));
      b.terms.forEach((l, i) => expect([terms.has(l.termId), l.position]).toEqual([true, i]));
    }
    const categories = data.terms.filter((t) => t.taxonomy === CATEGORY_TAXONOMY);
    expect(categories.some((t) => t.parentId !== null)).toBe(true);
  });
});

describe('ZoneClock', () => {
  // Repeated hours are left out: luxon resolves them from the offset in force today, so its answer
  // changes with the season. The generator draws no time inside one (00:00 or 09:00–21:45).
  it('agrees with the domain date functions, DST gaps included', () => {
    const cases: Array<[string, string]> = [
      ['America/New_York', '2027-03-14 02:30:00'], // gap: moves forward
      ['America/New_York', '2027-11-07 12:00:00'],
      ['Europe/Paris', '2027-03-28 02:15:00'],
      ['Australia/Sydney', '2027-04-04 00:00:00'],
      ['Australia/Sydney', '2027-10-03 02:30:00'],
      ['Asia/Tokyo', '2027-06-01 09:00:00'],
    ];
    for (const [zone, wall] of cases) {
      const clock = new ZoneClock(zone);
      const instant = clock.instant(Date.parse(`${wall.replace(' ', 'T')}Z`));
      expect(instant, `${zone} ${wall}`).toEqual(instantFromWallClock(wall, zone));
      expect(clock.wall(instant)).toBe(wallClock(instant, zone));
    }
  });
});
