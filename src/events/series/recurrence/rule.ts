import { RRuleTemporal } from 'rrule-temporal';
import type { Temporal } from 'temporal-polyfill';

// A recurrence rule (RFC 5545 §3.3.10) as the service holds it, and how its instances are made from it:
// rrule-temporal generates them, and what it gets wrong is put right here. Reading and writing the
// lines, the set (RDATE, EXDATE) and the horizon are the other files of this folder.

export const FREQUENCIES = ['YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY', 'HOURLY'] as const;
export type Frequency = (typeof FREQUENCIES)[number];
export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A BYDAY value: `TU` (every Tuesday of the period, ordinal null) or `-1FR` (its last Friday). */
export interface WeekdayNum {
  ordinal: number | null;
  weekday: Weekday;
}

export interface RecurrenceRule {
  frequency: Frequency;
  interval: number;
  count: number | null;
  /** A UTC instant for a timed series, a date for an all-day one (RFC 5545 §3.3.10). */
  until: { type: 'utc'; instant: Temporal.Instant } | { type: 'date'; date: Temporal.PlainDate } | null;
  bySecond: number[];
  byMinute: number[];
  byHour: number[];
  byDay: WeekdayNum[];
  byMonthDay: number[];
  byYearDay: number[];
  byWeekNo: number[];
  byMonth: number[];
  bySetPos: number[];
  weekStart: Weekday;
}

export const DAY_MS = 86_400_000;

export function formatWeekdayNum(day: WeekdayNum): string {
  return `${day.ordinal ?? ''}${day.weekday}`;
}

// ---- Driving the library -----------------------------------------------------------------------------
// rrule-temporal generates the rule's instances; what it gets wrong is put right here, in one place, and
// test/events/series/libical-corpus.test.ts holds the cases (libical's regression corpus):
// - the first start is always the first instance (RFC 5545 §3.3.10), put here rather than trusted to the
//   library (it drops it where it misses a BYWEEKNO week, as week 53 of the year before);
// - every instance it gives is checked against the rule's BYxxx limits, which it can overlook (beside
//   BYYEARDAY it gives each listed day of the year, whatever BYDAY says);
// - a yearly BYWEEKNO rule steps week-numbering years, the library calendar years: it is started in the
//   first start's week-year and asked for every year, and INTERVAL is applied to week-years here;
// - so COUNT is counted here, over what is kept, asking the library again for more when checks dropped
//   some (rarely: only when it erred).

/** ISO weekday (Monday 1 … Sunday 7) of a day counted from 1970-01-01, a Thursday. */
const isoWeekday = (day: number) => ((((day + 3) % 7) + 7) % 7) + 1;
const WEEKDAY_NUMBER = Object.fromEntries(WEEKDAYS.map((weekday, index) => [weekday, index + 1])) as Record<
  Weekday,
  number
>;

/** The day week 1 of `year` begins: the first week starting on WKST with four days in the year. */
function weekOneStart(year: number, weekStart: number): number {
  const fourth = Date.UTC(year, 0, 4) / DAY_MS;
  return fourth - ((isoWeekday(fourth) - weekStart + 7) % 7);
}

/** A day's week-numbering year, its week number in it and how many weeks that year has (52 or 53). */
function weekOf(day: number, weekStart: number): { year: number; week: number; weeks: number } {
  let year = new Date(day * DAY_MS).getUTCFullYear();
  if (day < weekOneStart(year, weekStart)) year -= 1;
  else if (day >= weekOneStart(year + 1, weekStart)) year += 1;
  const first = weekOneStart(year, weekStart);
  return {
    year,
    week: Math.floor((day - first) / 7) + 1,
    weeks: (weekOneStart(year + 1, weekStart) - first) / 7,
  };
}

/** An instance, ours or the library's (its own Temporal: only these two are read across). */
export type Slot = Pick<Temporal.ZonedDateTime, 'epochMilliseconds' | 'offsetNanoseconds'>;

/** An instance's wall clock in its zone, as numbers (cheaper than Temporal's fields). */
interface Wall {
  /** Days since 1970-01-01. */
  day: number;
  year: number;
  month: number;
  date: number;
  hour: number;
  minute: number;
  second: number;
}

function wallNumbers(instance: Slot): Wall {
  const shifted = instance.epochMilliseconds + instance.offsetNanoseconds / 1e6;
  const at = new Date(shifted);
  return {
    day: Math.floor(shifted / DAY_MS),
    year: at.getUTCFullYear(),
    month: at.getUTCMonth() + 1,
    date: at.getUTCDate(),
    hour: at.getUTCHours(),
    minute: at.getUTCMinutes(),
    second: at.getUTCSeconds(),
  };
}

/** Whether `value` is one of `list`, each counted from the start (5) or the end (-1 of `size`: the last). */
const listed = (list: readonly number[], value: number, size: number) =>
  list.some((item) => item === value || size + item + 1 === value);

/**
 * What every instance of the rule satisfies, whatever it expands: its month, day of the month and of the
 * year, week number, weekday (an ordinal's weekday), hour, minute and second are among those listed.
 * Null when the rule lists none.
 */
function ruleLimits(rule: RecurrenceRule): ((wall: Wall) => boolean) | null {
  const checks: Array<(wall: Wall) => boolean> = [];
  const weekStart = WEEKDAY_NUMBER[rule.weekStart];
  if (rule.byMonth.length) checks.push((wall) => rule.byMonth.includes(wall.month));
  if (rule.byMonthDay.length)
    checks.push((wall) =>
      listed(rule.byMonthDay, wall.date, new Date(Date.UTC(wall.year, wall.month, 0)).getUTCDate()),
    );
  if (rule.byYearDay.length)
    checks.push((wall) => {
      const first = Date.UTC(wall.year, 0, 1) / DAY_MS;
      return listed(rule.byYearDay, wall.day - first + 1, Date.UTC(wall.year + 1, 0, 1) / DAY_MS - first);
    });
  if (rule.byWeekNo.length)
    checks.push((wall) => {
      const { week, weeks } = weekOf(wall.day, weekStart);
      return listed(rule.byWeekNo, week, weeks);
    });
  if (rule.byDay.length) {
    const weekdays = new Set(rule.byDay.map((day) => WEEKDAY_NUMBER[day.weekday]));
    checks.push((wall) => weekdays.has(isoWeekday(wall.day)));
  }
  if (rule.byHour.length) checks.push((wall) => rule.byHour.includes(wall.hour));
  if (rule.byMinute.length) checks.push((wall) => rule.byMinute.includes(wall.minute));
  if (rule.bySecond.length) checks.push((wall) => rule.bySecond.includes(wall.second));
  return checks.length ? (wall) => checks.every((check) => check(wall)) : null;
}

/**
 * How the library is driven for a rule: from which start, at which interval, with which extra options,
 * and which of its instances are kept.
 */
function libraryPlan(rule: RecurrenceRule, dtstart: Temporal.ZonedDateTime) {
  const limits = ruleLimits(rule);
  if (rule.frequency !== 'YEARLY' || !rule.byWeekNo.length)
    return {
      start: dtstart,
      interval: rule.interval,
      extra: {},
      keep: limits && ((instance: Slot) => limits(wallNumbers(instance))),
    };
  // Week-numbering years: the library's year Y gives the weeks of week-year Y. It starts in the first
  // start's week-year (Dec 31 of it, when the first start is in early January in the last week of the
  // year before: that day is in the same week), with the weekday it would take from the first start.
  const weekStart = WEEKDAY_NUMBER[rule.weekStart];
  const firstYear = weekOf(wallNumbers(dtstart).day, weekStart).year;
  const moved = firstYear < dtstart.year;
  return {
    start: moved ? dtstart.with({ year: firstYear, month: 12, day: 31 }) : dtstart,
    interval: 1,
    extra: moved && !rule.byDay.length ? { byDay: [WEEKDAYS[dtstart.dayOfWeek - 1]!] } : {},
    keep: (instance: Slot) => {
      const wall = wallNumbers(instance);
      return (
        (weekOf(wall.day, weekStart).year - firstYear) % rule.interval === 0 && (!limits || limits(wall))
      );
    },
  };
}

/**
 * The rule's instances up to `until`, the first start first, at most `count` of them (COUNT, or the cap's
 * bound). Throws when the library would walk more than `maxIterations` periods.
 */
export function ruleInstances(
  rule: RecurrenceRule,
  dtstart: Temporal.ZonedDateTime,
  until: Temporal.ZonedDateTime,
  { count, maxIterations }: { count: number; maxIterations: number },
): Slot[] {
  if (count <= 1 || until.epochMilliseconds <= dtstart.epochMilliseconds) return [dtstart];
  const plan = libraryPlan(rule, dtstart);
  for (let asked = count; ;) {
    const given = new RRuleTemporal({
      freq: rule.frequency,
      interval: plan.interval,
      count: asked,
      until,
      dtstart: plan.start,
      tzid: dtstart.timeZoneId,
      includeDtstart: false,
      cache: false,
      maxIterations,
      ...ruleOptions(rule),
      ...plan.extra,
    }).all();
    const later = given.filter(
      (instance) =>
        instance.epochMilliseconds > dtstart.epochMilliseconds && (!plan.keep || plan.keep(instance)),
    );
    // Enough kept, or the library has no more (it gave fewer than asked): done.
    if (later.length >= count - 1 || given.length < asked) return [dtstart, ...later.slice(0, count - 1)];
    asked = Math.max(2 * asked, asked + count - 1 - later.length);
  }
}

/** The rule's parts as the library's options, only those present (an absent key keeps its fast paths). */
function ruleOptions(rule: RecurrenceRule) {
  const lists = {
    byHour: rule.byHour,
    byMinute: rule.byMinute,
    bySecond: rule.bySecond,
    byDay: rule.byDay.map(formatWeekdayNum),
    byMonth: rule.byMonth,
    byMonthDay: rule.byMonthDay,
    byYearDay: rule.byYearDay,
    byWeekNo: rule.byWeekNo,
    bySetPos: rule.bySetPos,
  };
  const present = Object.fromEntries(Object.entries(lists).filter(([, values]) => values.length > 0));
  return rule.weekStart === 'MO' ? present : { ...present, wkst: rule.weekStart };
}
