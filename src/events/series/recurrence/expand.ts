import { Temporal } from 'temporal-polyfill';
import { DAY_MS, type Frequency, type Slot, ruleInstances } from './rule.js';
import {
  MAX_SERIES_OCCURRENCES,
  type Occurrence,
  type Recurrence,
  type RecurrenceDate,
  type RecurrenceResult,
  type SeriesStart,
  failure,
  success,
  temporalZone,
} from './set.js';
import { pad } from './write-lines.js';

// Expanding a recurrence set into its occurrences' original starts up to the series' horizon, in the
// series' zone, within the caps that keep one series' cost bounded.

/** `2026-03-08 02:30:00` → a PlainDateTime. */
export function plainFromWall(wall: string): Temporal.PlainDateTime {
  return Temporal.PlainDateTime.from(wall.trim().replace(' ', 'T'));
}

/** The wall clock of an instant already shifted by its zone's offset (cheaper than reading fields). */
function shiftedWall(shiftedMs: number): string {
  return new Date(shiftedMs).toISOString().slice(0, 19).replace('T', ' ');
}

function wallOf(value: {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}) {
  return `${pad(value.year, 4)}-${pad(value.month)}-${pad(value.day)} ${pad(value.hour)}:${pad(value.minute)}:${pad(value.second)}`;
}

/**
 * Where a value sits in the expansion's zone: for a timed series its instant, read in the series' zone
 * (a zoned or floating wall clock in a DST gap moves forward, in a repeated hour takes the first pass,
 * as RFC 5545 §3.3.5 says); for an all-day one its date, at midnight UTC (dates expand in UTC).
 */
export function toExpansionZoned(value: RecurrenceDate, zone: string): Temporal.ZonedDateTime {
  switch (value.type) {
    case 'date':
      return value.date.toZonedDateTime({ timeZone: 'UTC' });
    case 'utc':
      return value.instant.toZonedDateTimeISO(zone);
    case 'zoned':
      return value.dateTime.toZonedDateTime(temporalZone(value.zone)).withTimeZone(zone);
    case 'floating':
      return value.dateTime.toZonedDateTime(zone);
  }
}

/** The first start in the expansion's zone: its instant for a timed series, its date at UTC midnight else. */
function expansionStart(start: SeriesStart, zone: string): Temporal.ZonedDateTime {
  const wall = plainFromWall(start.localStart);
  if (start.allDay) return wall.toPlainDate().toZonedDateTime({ timeZone: 'UTC' });
  if (start.startsAt)
    return Temporal.Instant.fromEpochMilliseconds(start.startsAt.getTime()).toZonedDateTimeISO(zone);
  return wall.toZonedDateTime(zone);
}

/** An all-day occurrence starts when its day begins in the series' zone (01:00 where midnight is skipped). */
function allDayOccurrence(date: Temporal.PlainDate, zone: string): Occurrence {
  const start = date.toZonedDateTime({ timeZone: zone });
  return { localStart: wallOf(start), startsAt: new Date(start.epochMilliseconds) };
}

const FREQUENCY_UNITS: Record<Frequency, string> = {
  YEARLY: 'years',
  MONTHLY: 'months',
  WEEKLY: 'weeks',
  DAILY: 'days',
  HOURLY: 'hours',
};
const PERIODS_PER_DAY: Record<Frequency, number> = {
  YEARLY: 1 / 365,
  MONTHLY: 1 / 28,
  WEEKLY: 1 / 7,
  DAILY: 1,
  HOURLY: 25,
};
/**
 * Periods the engine may walk (days of a daily rule: 137 years): enough for any series of events, and
 * a bound on the work a sparse rule started long ago costs (about a second here at the worst).
 */
const MAX_RECURRENCE_PERIODS = 50_000;

interface ExpandOptions {
  /** Occurrences starting before this instant are returned (the series' materialisation horizon). */
  horizon: Date;
  /** More occurrences than this before the horizon is a problem, not a truncation. */
  cap?: number;
}

/**
 * The original starts of a series' occurrences before the horizon, in order: (RRULE ∪ RDATE) − EXDATE,
 * with the first start always the rule's first instance (counted by COUNT, as RFC 5545 says), read in
 * the series' zone so a 19:00 series stays at 19:00 across DST. A generated local time a DST gap skips
 * is not an occurrence and does not count; COUNT bounds the RRULE only; EXDATE applies after COUNT.
 */
export function expandRecurrence(
  recurrence: Recurrence,
  start: SeriesStart,
  options: ExpandOptions,
): RecurrenceResult<Occurrence[]> {
  const cap = options.cap ?? MAX_SERIES_OCCURRENCES;
  const seriesZone = temporalZone(start.timezone);
  const zone = start.allDay ? 'UTC' : seriesZone;
  const dtstart = expansionStart(start, seriesZone);
  const horizonMs = options.horizon.getTime();
  // The last instant (timed) or day (all-day) before the horizon, as the rule's bound.
  const lastInstant = Temporal.Instant.fromEpochMilliseconds(horizonMs - 1);
  const last = start.allDay
    ? lastInstant.toZonedDateTimeISO(seriesZone).toPlainDate().toZonedDateTime({ timeZone: 'UTC' })
    : lastInstant.toZonedDateTimeISO(zone);
  if (Temporal.ZonedDateTime.compare(dtstart, last) > 0) return success([]);

  const rdates = recurrence.rdates.map((value) => toExpansionZoned(value, zone));
  if (rdates.some((value) => Temporal.ZonedDateTime.compare(value, dtstart) < 0))
    return failure('malformed', "recurrence: an RDATE comes before the series' first start.");
  const exdates = recurrence.exdates.map((value) => toExpansionZoned(value, zone));
  const rule = recurrence.rule;
  const ruleUntil = rule?.until
    ? rule.until.type === 'date'
      ? rule.until.date.toZonedDateTime({ timeZone: 'UTC' })
      : rule.until.instant.toZonedDateTimeISO(zone)
    : null;
  const until = ruleUntil && Temporal.ZonedDateTime.compare(ruleUntil, last) < 0 ? ruleUntil : last;
  // One rule instance past what the cap allows once every EXDATE removes one proves the cap exceeded,
  // so generation stops there instead of walking to the horizon.
  const enough = cap + exdates.length + 1;
  const spanDays = Math.max(0, (until.epochMilliseconds - dtstart.epochMilliseconds) / DAY_MS);
  const periods = Math.ceil(spanDays * PERIODS_PER_DAY[rule?.frequency ?? 'DAILY']) + 16;

  let instances: Slot[];
  try {
    instances = rule
      ? ruleInstances(rule, dtstart, until, {
          count: Math.min(rule.count ?? enough, enough),
          maxIterations: Math.min(Math.max(periods, 10_000), MAX_RECURRENCE_PERIODS),
        })
      : [dtstart];
  } catch {
    return failure(
      'too-complex',
      `recurrence: the rule needs more than ${MAX_RECURRENCE_PERIODS.toLocaleString('en-US')} ${FREQUENCY_UNITS[rule?.frequency ?? 'DAILY']} to reach the horizon; start the series later or make the rule simpler.`,
    );
  }

  // (RRULE ∪ RDATE) − EXDATE by instant, the EXDATEs after COUNT (an excluded instance still counts).
  const excluded = new Set(exdates.map((value) => value.epochMilliseconds));
  const set = new Map<number, Slot>();
  for (const instance of [...instances, ...rdates])
    if (!excluded.has(instance.epochMilliseconds)) set.set(instance.epochMilliseconds, instance);
  const occurrences: Occurrence[] = [];
  for (const instance of set.values()) {
    const startsAt = new Date(instance.epochMilliseconds);
    const occurrence = start.allDay
      ? allDayOccurrence(Temporal.PlainDate.from(startsAt.toISOString().slice(0, 10)), seriesZone)
      : { localStart: shiftedWall(instance.epochMilliseconds + instance.offsetNanoseconds / 1e6), startsAt };
    if (occurrence.startsAt.getTime() < horizonMs) occurrences.push(occurrence);
  }
  occurrences.sort((a, b) => a.startsAt.getTime() - b.startsAt.getTime());
  if (occurrences.length > cap)
    return failure(
      'too-many-occurrences',
      `recurrence: more than ${cap.toLocaleString('en-US')} occurrences before ${options.horizon.toISOString()}; end the series sooner (COUNT or UNTIL).`,
    );
  return success(occurrences);
}

/**
 * Whether the set leaves out the first start (an EXDATE on it, as RFC 5545 §3.8.5.3's "every Friday the
 * 13th" does): the first event then holds the series without happening at its start. Asked of the
 * expansion itself, up to just past the first start, so it is the very set the occurrences come from.
 */
export function excludesFirstStart(recurrence: Recurrence, start: SeriesStart & { startsAt: Date }): boolean {
  if (!recurrence.exdates.length) return false;
  const first = expandRecurrence(recurrence, start, { horizon: new Date(start.startsAt.getTime() + 1) });
  return first.ok && first.value.length === 0;
}
