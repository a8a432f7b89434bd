// Calendar days as `YYYY-MM-DD` strings, counted on UTC dates so that adding a day never meets a DST
// change; an instant becomes a day (or a wall-clock time) only through Intl in a named zone.

const DAY_MS = 86_400_000;

const pad = (n: number): string => String(n).padStart(2, '0');

function utcDate(day: string): Date {
  const [y = 1970, m = 1, d = 1] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d));
}

function dayOf(date: Date): string {
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

export function addDays(day: string, days: number): string {
  return dayOf(new Date(utcDate(day).getTime() + days * DAY_MS));
}

/** The first day of the month `months` after the one of `day`. */
export function addMonths(day: string, months: number): string {
  const date = utcDate(day);
  return dayOf(new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1)));
}

/** The same day of the month `months` later, clamped to that month's length. */
export function shiftMonths(day: string, months: number): string {
  const first = addMonths(day, months);
  const last = addDays(addMonths(first, 1), -1);
  const wanted = `${first.slice(0, 8)}${day.slice(8)}`;
  return wanted > last ? last : wanted;
}

export const monthOf = (day: string): string => `${day.slice(0, 8)}01`;

/** 0 (Sunday) … 6 (Saturday). */
export const weekdayOf = (day: string): number => utcDate(day).getUTCDay();

/** Days between two days (b − a). */
export const daysBetween = (a: string, b: string): number =>
  Math.round((utcDate(b).getTime() - utcDate(a).getTime()) / DAY_MS);

/** A day as a Date at noon UTC, to format it (with `timeZone: 'UTC'`) as a calendar date. */
export const noonOf = (day: string): Date => new Date(utcDate(day).getTime() + DAY_MS / 2);

/** Six weeks from the week of the month's first day: a grid whose height never changes. */
export function monthGrid(month: string, firstDayOfWeek: number): string[][] {
  const start = addDays(month, -((weekdayOf(month) - firstDayOfWeek + 7) % 7));
  return Array.from({ length: 6 }, (_, week) =>
    Array.from({ length: 7 }, (_, d) => addDays(start, week * 7 + d)),
  );
}

const wallFormats = new Map<string, Intl.DateTimeFormat>();

/** `YYYY-MM-DD HH:MM:SS` of an instant in a zone. */
export function wallClock(instant: Date | string | number, zone: string): string {
  let format = wallFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    wallFormats.set(zone, format);
  }
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(new Date(instant))) parts[part.type] = part.value;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

export const dayIn = (instant: Date | string | number, zone: string): string =>
  wallClock(instant, zone).slice(0, 10);

/** An IANA zone Intl accepts, else null ("UTC+2", as events may carry, becomes "+02:00"). */
export function intlZone(zone: string): string | null {
  let known = zones.get(zone);
  if (known === undefined) zones.set(zone, (known = checkZone(zone)));
  return known;
}

// Intl objects are slow to make (a zone's rules are loaded each time): each is made once.
const zones = new Map<string, string | null>();

function checkZone(zone: string): string | null {
  const offset = /^UTC([+-])(\d{1,2})(?::?(\d\d))?$/.exec(zone);
  const candidate = offset ? `${offset[1]}${pad(Number(offset[2]))}:${offset[3] ?? '00'}` : zone;
  try {
    new Intl.DateTimeFormat('en', { timeZone: candidate });
    return candidate;
  } catch {
    return null;
  }
}

/** The first day of the week in a locale: 0 (Sunday) … 6; Monday when the browser cannot say. */
export function firstDayOfWeek(locale: string): number {
  let day = firstDays.get(locale);
  if (day === undefined) firstDays.set(locale, (day = readFirstDay(locale)));
  return day;
}

const firstDays = new Map<string, number>();

function readFirstDay(locale: string): number {
  try {
    const info = new Intl.Locale(locale) as Intl.Locale & {
      getWeekInfo?: () => { firstDay: number };
      weekInfo?: { firstDay: number };
    };
    const firstDay = (info.getWeekInfo?.() ?? info.weekInfo)?.firstDay;
    if (firstDay) return firstDay % 7;
  } catch {
    // an invalid tag: the default below
  }
  return 1;
}
