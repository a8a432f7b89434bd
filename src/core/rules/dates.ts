import * as chrono from 'chrono-node';
import { DateTime, IANAZone, type Zone } from 'luxon';

// Dates leave the service in the reference's formats: `Y-m-d H:i:s` wall-clock strings in a given zone,
// zero-padded string details, ISO 8601 with offset in JSON-LD.

export const WALL_CLOCK = 'yyyy-MM-dd HH:mm:ss';

const zones = new Map<string, Zone>();

/** luxon's zone object for a name (IANA or `UTC±H`), made once: formatting is on every list's hot path. */
function zoneNamed(name: string): Zone {
  let zone = zones.get(name);
  if (!zone) {
    zone = DateTime.now().setZone(name).zone;
    zones.set(name, zone);
  }
  return zone;
}

const QUARTER_HOUR_MS = 15 * 60_000;
const offsets = new Map<string, number>();

/**
 * The zone's UTC offset (minutes) at an instant. Offsets only change on quarter-hour boundaries, so
 * they are memoised per zone and quarter hour: luxon computes them with Intl's formatToParts.
 */
function offsetAt(zone: string, ms: number): number {
  const key = `${zone}|${Math.floor(ms / QUARTER_HOUR_MS)}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    offset = zoneNamed(zone).offset(ms);
    if (offsets.size >= 100_000) offsets.clear();
    offsets.set(key, offset);
  }
  return offset;
}

export function wallClock(instant: Date, zone: string): string {
  const offset = offsetAt(zone, instant.getTime());
  if (!Number.isFinite(offset)) return DateTime.fromJSDate(instant, { zone }).toFormat(WALL_CLOCK);
  // The instant shifted by the zone's offset, read as UTC, is the wall-clock (much cheaper than toFormat).
  return new Date(instant.getTime() + offset * 60_000).toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * A post's publication date as a write sends it, WordPress's way (`post_date` and `post_date_gmt`):
 * `date` (read in `zone`) and `date_utc` sent together are each kept as given — the instant from
 * `date_utc`, the wall-clock of `date` in `postDate`; one alone sets the instant and `postDate: null`
 * (the wall-clock is then derived); neither changes nothing.
 */
export function publicationDates(
  local: DateTime | undefined,
  utc: DateTime | undefined,
  zone: string,
): { publishedAt?: Date; postDate?: string | null } {
  const instant = utc ?? local;
  if (!instant) return {};
  return {
    publishedAt: instant.toJSDate(),
    postDate: local && utc ? wallClock(local.toJSDate(), zone) : null,
  };
}

/** A post's `date`: the wall-clock kept as sent, else its instant's in the site zone. */
export function postDateOf(post: { publishedAt: Date; postDate: string | null }, siteZone: string): string {
  return post.postDate ?? wallClock(post.publishedAt, siteZone);
}

interface DateDetails {
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

// English locales whose short zone names are the tz database abbreviations PHP prints (EST, CEST, AEDT…).
const ABBREVIATION_LOCALES = ['en-US', 'en-GB', 'en-AU', 'en-NZ', 'en-IN', 'en-ZA'];

/** The zone's abbreviation at that instant, as PHP's `T` format: `EST`/`EDT`, `CET`/`CEST`, else `+03`. */
const abbreviations = new Map<string, string>();

/** The abbreviation depends only on the zone and its offset at the instant (EST vs EDT), so it is memoised. */
export function zoneAbbreviation(instant: Date, zone: string): string {
  if (zone === 'UTC') return 'UTC';
  const key = `${zone}|${offsetAt(zone, instant.getTime())}`;
  let abbreviation = abbreviations.get(key);
  if (abbreviation === undefined) {
    abbreviation = computeZoneAbbreviation(instant, zone);
    abbreviations.set(key, abbreviation);
  }
  return abbreviation;
}

function computeZoneAbbreviation(instant: Date, zone: string): string {
  const local = DateTime.fromJSDate(instant, { zone });
  if (!local.isValid) return '';
  // Fixed offsets (`UTC+2`) are named as given.
  if (local.zone.isUniversal) return local.zone.name;
  for (const locale of ABBREVIATION_LOCALES) {
    const name = local.setLocale(locale).offsetNameShort;
    if (name && /^[A-Z]{2,5}$/.test(name)) return name;
  }
  const numeric = local.toFormat('ZZZ');
  return local.offset % 60 === 0 ? numeric.slice(0, 3) : numeric;
}

/** `2026-12-01T10:00:00+01:00`: the instant as the wall clock in `zone` with that zone's offset. */
export function isoWithOffset(instant: Date, zone: string): string {
  const offset = offsetAt(zone, instant.getTime());
  if (!Number.isFinite(offset))
    return DateTime.fromJSDate(instant, { zone }).toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
  const local = new Date(instant.getTime() + offset * 60_000).toISOString().slice(0, 19);
  const minutes = Math.abs(offset);
  const hh = String(Math.floor(minutes / 60)).padStart(2, '0');
  const mm = String(minutes % 60).padStart(2, '0');
  return `${local}${offset < 0 ? '-' : '+'}${hh}:${mm}`;
}

const DAY_MS = 86_400_000;

/**
 * The instant the local day of `instant` begins in `zone`. Where the zone keeps one offset from a
 * day before that midnight to a day after (no transition near, so midnight exists and is not
 * repeated) it is plain arithmetic; around a transition luxon decides, as PHP would.
 */
export function startOfLocalDay(instant: Date, zone: string): Date {
  const offset = offsetAt(zone, instant.getTime());
  if (Number.isFinite(offset)) {
    const midnight = new Date(instant.getTime() + offset * 60_000).setUTCHours(0, 0, 0, 0);
    const guess = midnight - offset * 60_000;
    if (
      offsetAt(zone, guess - DAY_MS) === offset &&
      offsetAt(zone, guess) === offset &&
      offsetAt(zone, guess + DAY_MS) === offset
    )
      return new Date(guess);
  }
  return instantFromWallClock(startOfDayWall(instant, zone), zone);
}

/** A wall-clock string read in `zone` → the UTC instant (DST gaps move forward, as PHP does). */
export function instantFromWallClock(wall: string, zone: string): Date {
  return DateTime.fromFormat(wall, WALL_CLOCK, { zone }).toJSDate();
}

export function startOfDayWall(instant: Date, zone: string, offsetDays = 0): string {
  return DateTime.fromJSDate(instant, { zone })
    .plus({ days: offsetDays })
    .startOf('day')
    .toFormat(WALL_CLOCK);
}

export function endOfDayWall(instant: Date, zone: string, offsetMonths = 0): string {
  return DateTime.fromJSDate(instant, { zone })
    .plus({ months: offsetMonths })
    .endOf('day')
    .toFormat(WALL_CLOCK);
}

/** The stored form of an event's schedule: UTC instants plus the wall-clock in its own zone. */
export function eventSchedule(startsAt: Date, endsAt: Date, timezone: string) {
  return {
    startsAt,
    endsAt,
    timezone,
    localStart: wallClock(startsAt, timezone),
    localEnd: wallClock(endsAt, timezone),
  };
}

// ---- Date input (docs/reference/filters.md: dates) -----------------------------------------------
// What clients of the reference send: Unix timestamps, ISO 8601 with or without offset, `Y-m-d H:i:s`,
// `Y-m-d`, and English phrases PHP's strtotime() understands (`tomorrow`, `+5 weeks`,
// `next wednesday 4pm`). Phrases go through chrono; the whole input must be understood.

const UTC_OFFSET_ZONE = /^UTC[+-](\d{1,2})(?::([0-5]\d))?$/;
const MAX_DATE_INPUT = 100;

/** IANA names (`America/New_York`) and `UTC±H[:MM]` offsets (`UTC+2`, `UTC-3:30`); nothing else. */
export function isValidTimezone(zone: string): boolean {
  if (zone === 'UTC') return true;
  const offset = UTC_OFFSET_ZONE.exec(zone);
  if (offset) return Number(offset[1]) <= 14;
  return zone.includes('/') && IANAZone.isValidZone(zone);
}

const WEEKDAY_PHRASE =
  /^(?:(next|last|this)\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/i;
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/**
 * The day PHP's strtotime gives a weekday phrase (chrono's "next wednesday" on a Monday is the week
 * after): `wednesday`/`this wednesday` is today or the coming one, `next wednesday` the first one after
 * today, `last wednesday` the last one before today.
 */
function weekdayAsPhp(text: string, reference: DateTime): DateTime | null {
  const match = WEEKDAY_PHRASE.exec(text);
  if (!match) return null;
  const target = WEEKDAYS.indexOf(match[2]!.toLowerCase()) + 1;
  const modifier = match[1]?.toLowerCase();
  if (modifier === 'last') return reference.minus({ days: (reference.weekday - target + 7) % 7 || 7 });
  const ahead = (target - reference.weekday + 7) % 7;
  return reference.plus({ days: modifier === 'next' ? ahead || 7 : ahead });
}

function fromPhrase(text: string, zone: string, now: Date): DateTime | null {
  const reference = DateTime.fromJSDate(now, { zone });
  const [result] = chrono.en.parse(text, { instant: now, timezone: reference.offset });
  if (!result || result.index !== 0 || result.text.length !== text.length || result.end) return null;
  const start = result.start;
  // An explicit zone ("10:00 EST") or an exact duration ("+2 hours") names an instant.
  if (start.isCertain('timezoneOffset')) return DateTime.fromJSDate(start.date(), { zone });
  const tags = start.tags();
  let wall = DateTime.fromObject(
    {
      year: start.get('year') ?? reference.year,
      month: start.get('month') ?? reference.month,
      day: start.get('day') ?? reference.day,
      hour: start.get('hour') ?? 0,
      minute: start.get('minute') ?? 0,
      second: start.get('second') ?? 0,
    },
    { zone },
  );
  const weekday = weekdayAsPhp(text, reference);
  if (weekday) wall = wall.set({ year: weekday.year, month: weekday.month, day: weekday.day });
  if (tags.has('casualReference/midnight')) wall = reference.startOf('day');
  // PHP: relative units keep the time of day; days named without a time ("tomorrow", "next monday",
  // "May 5 2025") start at midnight.
  else if (!tags.has('result/relativeDate') && !start.isCertain('hour') && !tags.has('casualReference/now')) {
    wall = wall.startOf('day');
  }
  return wall.isValid ? wall : null;
}

/**
 * Whether a date input is a phrase naming a time of day relative to now (`now`, `+2 hours`,
 * `tomorrow 5pm`): what it filters depends on the clock, not only on the date, so an answer to it is
 * never stored. Absolute dates and phrases naming a day (`tomorrow`, `next monday`) do not.
 */
export function dependsOnClock(input: string, zone: string, now: Date = new Date()): boolean {
  const text = phraseText(input);
  if (text === null) return false;
  const moment = fromPhrase(text, zone, now);
  return moment !== null && !moment.equals(moment.startOf('day'));
}

/** The input as `fromPhrase` reads it, or null when it is no phrase (empty, too long, a number, ISO). */
function phraseText(input: string): string | null {
  const text = input.trim().replace(/\s+/g, ' ');
  if (text === '' || text.length > MAX_DATE_INPUT || /^[+-]?\d+$/.test(text)) return null;
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    if (DateTime.fromISO(text).isValid || DateTime.fromSQL(text).isValid) return null;
  }
  return text;
}

/**
 * A date input → that moment in `zone`, or null when it is not a date. Inputs without an offset are
 * wall-clock times in `zone`; relative phrases count from `now` as seen in `zone` (DST-aware).
 */
export function parseDateInput(
  input: string | number,
  zone: string,
  now: Date = new Date(),
): DateTime | null {
  const parsed = parseAnyDate(input, zone, now);
  return parsed && inStorableRange(parsed) ? parsed : null;
}

/** Years both databases store and print alike (PostgreSQL refuses some, SQLite prints others oddly). */
export const DATE_YEARS = { min: 1000, max: 9999 } as const;

function inStorableRange(date: DateTime): boolean {
  if (!date.isValid) return false;
  const utc = date.toUTC();
  return utc.year >= DATE_YEARS.min && utc.year <= DATE_YEARS.max;
}

function parseAnyDate(input: string | number, zone: string, now: Date): DateTime | null {
  if (typeof input === 'number') {
    return Number.isFinite(input) ? DateTime.fromSeconds(Math.trunc(input), { zone }) : null;
  }
  const text = input.trim().replace(/\s+/g, ' ');
  if (text === '' || text.length > MAX_DATE_INPUT) return null;
  if (/^[+-]?\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? DateTime.fromSeconds(seconds, { zone }) : null;
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const iso = DateTime.fromISO(text, { zone });
    if (iso.isValid) return iso;
    const sql = DateTime.fromSQL(text, { zone });
    if (sql.isValid) return sql;
  }
  return fromPhrase(text, zone, now);
}
