import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import {
  isValidTimezone,
  isoWithOffset,
  parseDateInput,
  startOfLocalDay,
  zoneAbbreviation,
} from '../../../src/core/rules/dates.js';

// Date inputs as docs/reference/filters.md lists them, read in a zone; relative phrases count from
// `now`.

// Wednesday 2026-03-04 10:30 in New York (EST), four days before DST starts (2026-03-08).
const NOW = new Date('2026-03-04T15:30:00Z');
const NY = 'America/New_York';
const read = (input: string | number, zone = NY) =>
  parseDateInput(input, zone, NOW)?.toFormat('yyyy-MM-dd HH:mm:ss ZZ') ?? null;

describe('parseDateInput', () => {
  it('reads Y-m-d H:i:s, Y-m-d and ISO 8601 without offset as wall-clock in the zone', () => {
    expect(read('2026-05-01 10:00:00')).toBe('2026-05-01 10:00:00 -04:00');
    expect(read('2026-05-01 10:00')).toBe('2026-05-01 10:00:00 -04:00');
    expect(read('2026-01-15')).toBe('2026-01-15 00:00:00 -05:00');
    expect(read('2026-05-01T10:00:00')).toBe('2026-05-01 10:00:00 -04:00');
  });

  it('honours an explicit offset (D13) and Unix timestamps, shown in the zone', () => {
    expect(read('2026-05-01T10:00:00+02:00')).toBe('2026-05-01 04:00:00 -04:00');
    expect(read('2026-05-01T10:00:00Z')).toBe('2026-05-01 06:00:00 -04:00');
    expect(read('1777644000')).toBe('2026-05-01 10:00:00 -04:00');
    expect(read(1777644000)).toBe('2026-05-01 10:00:00 -04:00');
  });

  it('reads English phrases as strtotime does: named days at midnight, relative units keeping the time', () => {
    expect(read('tomorrow')).toBe('2026-03-05 00:00:00 -05:00');
    expect(read('yesterday')).toBe('2026-03-03 00:00:00 -05:00');
    expect(read('today')).toBe('2026-03-04 00:00:00 -05:00');
    expect(read('now')).toBe('2026-03-04 10:30:00 -05:00');
    expect(read('next wednesday 4pm')).toBe('2026-03-11 16:00:00 -04:00');
    expect(read('tomorrow 9am')).toBe('2026-03-05 09:00:00 -05:00');
    expect(read('yesterday 23:59')).toBe('2026-03-03 23:59:00 -05:00');
    expect(read('-1 week')).toBe('2026-02-25 10:30:00 -05:00');
  });

  // PHP strtotime (ext/date timelib "relative text" weekday rules): `next` = the first one after today,
  // bare/`this` = today or the coming one, `last` = the last one before today — on every weekday.
  it.each([
    ['2026-11-23T12:00:00Z', 'next wednesday', '2026-11-25'], // Monday
    ['2026-11-24T12:00:00Z', 'next wednesday', '2026-11-25'], // Tuesday
    ['2026-11-25T12:00:00Z', 'next wednesday', '2026-12-02'], // Wednesday
    ['2026-11-26T12:00:00Z', 'next wednesday', '2026-12-02'], // Thursday
    ['2026-11-25T12:00:00Z', 'wednesday', '2026-11-25'],
    ['2026-11-25T12:00:00Z', 'this wednesday', '2026-11-25'],
    ['2026-11-23T12:00:00Z', 'monday', '2026-11-23'],
    ['2026-11-23T12:00:00Z', 'last monday', '2026-11-16'],
    ['2026-11-23T12:00:00Z', 'last sunday', '2026-11-22'],
    ['2026-11-29T12:00:00Z', 'next monday', '2026-11-30'], // Sunday
  ])('from %s, "%s" is %s', (now, phrase, day) => {
    expect(parseDateInput(phrase, 'UTC', new Date(now))?.toFormat('yyyy-MM-dd HH:mm')).toBe(`${day} 00:00`);
    expect(parseDateInput(`${phrase} 4pm`, 'UTC', new Date(now))?.toFormat('yyyy-MM-dd HH:mm')).toBe(
      `${day} 16:00`,
    );
  });

  it('refuses dates outside the years 1000–9999 (both databases store and print those alike)', () => {
    expect(read('0999-12-31 10:00:00')).toBeNull();
    expect(read('10000-01-01')).toBeNull();
    expect(read(-62135596800)).toBeNull();
    expect(read('1000-01-02 00:00:00')).toBe('1000-01-02 00:00:00 -04:56');
  });

  it('keeps the wall-clock across a DST change for day and week units', () => {
    // 10:30 EST + 5 weeks = 10:30 EDT (the UTC offset changes on 2026-03-08)
    expect(read('+5 weeks')).toBe('2026-04-08 10:30:00 -04:00');
    expect(read('+1 day', 'Europe/Paris')).toBe('2026-03-05 16:30:00 +01:00');
  });

  it('moves a wall-clock time inside a DST gap forward', () => {
    expect(read('2026-03-08 02:30:00')).toBe('2026-03-08 03:30:00 -04:00');
  });

  it('reads in fixed-offset zones', () => {
    expect(read('2026-05-01 10:00:00', 'UTC+2')).toBe('2026-05-01 10:00:00 +02:00');
    expect(read('tomorrow', 'UTC-3:30')).toBe('2026-03-05 00:00:00 -03:30');
  });

  it('refuses what is not a date, or only partly one', () => {
    for (const input of [
      'before my birthday',
      'foo tomorrow',
      'tomorrow-ish',
      '',
      '   ',
      '2026-13-45',
      '2026-05-01 25:00:00',
      'x'.repeat(200),
    ]) {
      expect([input, read(input)]).toEqual([input, null]);
    }
    expect(parseDateInput(Number.NaN, NY)).toBeNull();
  });
});

describe('time zones', () => {
  it('accepts IANA names and UTC±H[:MM], nothing else', () => {
    for (const zone of ['UTC', 'America/New_York', 'Asia/Kolkata', 'UTC+2', 'UTC-3:30', 'UTC+14'])
      expect([zone, isValidTimezone(zone)]).toEqual([zone, true]);
    for (const zone of ['EST', 'GMT+2', 'UTC+15', 'UTC+2.5', 'Mars/Olympus', 'utc+2', ''])
      expect([zone, isValidTimezone(zone)]).toEqual([zone, false]);
  });

  it('names the abbreviation in force at the instant, as PHP does', () => {
    const winter = new Date('2026-01-15T12:00:00Z');
    const summer = new Date('2026-07-15T12:00:00Z');
    expect([zoneAbbreviation(winter, NY), zoneAbbreviation(summer, NY)]).toEqual(['EST', 'EDT']);
    expect([zoneAbbreviation(winter, 'Europe/Paris'), zoneAbbreviation(summer, 'Europe/Paris')]).toEqual([
      'CET',
      'CEST',
    ]);
    expect(zoneAbbreviation(summer, 'Europe/London')).toBe('BST');
    expect(zoneAbbreviation(summer, 'UTC')).toBe('UTC');
    expect(zoneAbbreviation(summer, 'UTC+2')).toBe('UTC+2');
    expect(zoneAbbreviation(summer, 'Europe/Istanbul')).toBe('+03');
    expect(zoneAbbreviation(summer, 'Asia/Kathmandu')).toBe('+0545');
  });
});

// The arithmetic paths must say what luxon says, transitions included: luxon is the reference here.
describe('isoWithOffset and startOfLocalDay', () => {
  const zones = [
    'UTC',
    'UTC+2',
    'UTC-3:30',
    'America/New_York',
    'Europe/Paris',
    'Australia/Sydney',
    'Australia/Lord_Howe', // a half-hour DST shift
    'Asia/Kolkata',
    'Pacific/Chatham', // +12:45 / +13:45
    'America/Santiago', // DST changes at midnight: some local days start at 01:00
    'America/Havana', // so do these
    'Asia/Beirut',
    'America/Sao_Paulo',
  ];
  const luxonIso = (instant: Date, zone: string) =>
    DateTime.fromJSDate(instant, { zone }).toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
  const luxonStartOfDay = (instant: Date, zone: string) =>
    DateTime.fromFormat(
      DateTime.fromJSDate(instant, { zone }).startOf('day').toFormat('yyyy-MM-dd HH:mm:ss'),
      'yyyy-MM-dd HH:mm:ss',
      { zone },
    ).toJSDate();

  it.each(zones)('agree with luxon every 293 minutes over two years, in %s', (zone) => {
    const from = Date.UTC(2015, 0, 1);
    for (let ms = from; ms < from + 2 * 366 * 86_400_000; ms += 293 * 60_000) {
      const instant = new Date(ms);
      expect(isoWithOffset(instant, zone)).toBe(luxonIso(instant, zone));
      expect(startOfLocalDay(instant, zone).getTime()).toBe(luxonStartOfDay(instant, zone).getTime());
    }
  });

  it('agree with luxon around each transition of the year, every 5 minutes', () => {
    let transitions = 0;
    for (const zone of zones) {
      const year = DateTime.fromObject({ year: 2026 }, { zone });
      // The days whose offset changes, then the hour it changes in.
      const changes = Array.from({ length: 366 }, (_, day) => year.plus({ days: day }))
        .filter((day) => day.offset !== day.plus({ days: 1 }).offset)
        .map((day) => Array.from({ length: 25 }, (_, hour) => day.plus({ hours: hour })))
        .map((hours) => hours.find((at) => at.offset !== at.plus({ hours: 1 }).offset)!);
      for (const at of changes) {
        transitions++;
        for (let minute = -90; minute <= 150; minute += 5) {
          const instant = at.plus({ minutes: minute }).toJSDate();
          expect(isoWithOffset(instant, zone)).toBe(luxonIso(instant, zone));
          expect(startOfLocalDay(instant, zone).getTime()).toBe(luxonStartOfDay(instant, zone).getTime());
        }
      }
    }
    // Not vacuous: about two a year in each of the zones that keep summer time.
    expect(transitions).toBeGreaterThanOrEqual(12);
  });
});
