import { DateTime } from 'luxon';

// Dates leave the service in the reference's formats: `Y-m-d H:i:s` wall-clock strings in a given zone,
// zero-padded string details, ISO 8601 with offset in JSON-LD.

export const WALL_CLOCK = 'yyyy-MM-dd HH:mm:ss';

export function wallClock(instant: Date, zone: string): string {
  return DateTime.fromJSDate(instant, { zone }).toFormat(WALL_CLOCK);
}

export interface DateDetails {
  year: string;
  month: string;
  day: string;
  hour: string;
  minutes: string;
  seconds: string;
}

/** `2026-12-01 10:00:00` → `{year: "2026", month: "12", ...}` (strings, as the reference). */
export function dateDetails(wall: string): DateDetails {
  const [year = '', month = '', day = '', hour = '', minutes = '', seconds = ''] = wall.split(/[- :]/);
  return { year, month, day, hour, minutes, seconds };
}

export function zoneAbbreviation(instant: Date, zone: string): string {
  if (zone === 'UTC') return 'UTC';
  return DateTime.fromJSDate(instant, { zone }).setLocale('en-US').offsetNameShort ?? '';
}

export function isoWithOffset(instant: Date, zone: string): string {
  return DateTime.fromJSDate(instant, { zone }).toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
}

/** A wall-clock string read in `zone` → the UTC instant (DST gaps move forward, as PHP does). */
export function instantFromWallClock(wall: string, zone: string): Date {
  return DateTime.fromFormat(wall, WALL_CLOCK, { zone }).toJSDate();
}

export function startOfDayWall(instant: Date, zone: string, offsetDays = 0): string {
  return DateTime.fromJSDate(instant, { zone }).plus({ days: offsetDays }).startOf('day').toFormat(WALL_CLOCK);
}

export function endOfDayWall(instant: Date, zone: string, offsetMonths = 0): string {
  return DateTime.fromJSDate(instant, { zone }).plus({ months: offsetMonths }).endOf('day').toFormat(WALL_CLOCK);
}

/** The stored form of an event's schedule: UTC instants plus the wall-clock in its own zone. */
export function eventSchedule(startsAt: Date, endsAt: Date, timezone: string) {
  return { startsAt, endsAt, timezone, localStart: wallClock(startsAt, timezone), localEnd: wallClock(endsAt, timezone) };
}
