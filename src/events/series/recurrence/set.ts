import { Temporal } from 'temporal-polyfill';
import { isValidTimezone } from '../../../core/rules/dates.js';
import { type ApiError, invalidParams } from '../../../core/errors/errors.js';
import type { RecurrenceRule } from './rule.js';

// A series' recurrence set as the service holds it: its shapes, its limits, its problems (values, never
// exceptions) and the zone its lines are read in; what every step of reading, writing and expanding shares.

/** Occurrences one series may have before its horizon; past it the series is refused, never cut. */
export const MAX_SERIES_OCCURRENCES = 10_000;
/** RDATE values, and EXDATE values, one series may hold (each cancelled instance is one EXDATE). */
export const MAX_RECURRENCE_DATES = 1_000;
/** Lines one `recurrence` may have: one RRULE and a line per RDATE or EXDATE value at most. */
export const MAX_RECURRENCE_LINES = 1 + 2 * MAX_RECURRENCE_DATES;
/** Characters in one line: every date of a property fits on one line. */
export const MAX_RECURRENCE_LINE_LENGTH = 20 * MAX_RECURRENCE_DATES;

/**
 * A date or date-time as a line gives it. `floating` (no zone, no `Z`) is read in the series' own zone,
 * so it keeps its wall clock when the series moves to another zone, as the event's start does.
 */
export type RecurrenceDate =
  | { type: 'date'; date: Temporal.PlainDate }
  | { type: 'utc'; instant: Temporal.Instant }
  | { type: 'zoned'; dateTime: Temporal.PlainDateTime; zone: string }
  | { type: 'floating'; dateTime: Temporal.PlainDateTime };

/** A series' recurrence set: at most one RRULE (none: the first start and the RDATEs), RDATEs, EXDATEs. */
export interface Recurrence {
  rule: RecurrenceRule | null;
  rdates: RecurrenceDate[];
  exdates: RecurrenceDate[];
}

/** What the lines are read against: the first event's zone and whether it lasts whole days. */
export interface SeriesKind {
  timezone: string;
  allDay: boolean;
}

/** The first event's start as stored: wall clock `YYYY-MM-DD HH:MM:SS` in its zone. */
export interface SeriesStart extends SeriesKind {
  localStart: string;
  /** The stored instant, when known: it tells which pass of a repeated (fall-back) hour the start is. */
  startsAt?: Date;
}

/** One occurrence's original start: the slot the recurrence set gives it. */
export interface Occurrence {
  localStart: string;
  startsAt: Date;
}

export type RecurrenceProblemCode =
  'malformed' | 'unsupported' | 'unknown-zone' | 'too-many-dates' | 'too-many-occurrences' | 'too-complex';

interface RecurrenceProblem {
  code: RecurrenceProblemCode;
  message: string;
  /** The index of the line at fault in what the client sent, when one is. */
  line?: number;
}

export type RecurrenceResult<T> = { ok: true; value: T } | { ok: false; problem: RecurrenceProblem };

export const success = <T>(value: T): RecurrenceResult<T> => ({ ok: true, value });
export const failure = (
  code: RecurrenceProblemCode,
  message: string,
  line?: number,
): { ok: false; problem: RecurrenceProblem } => ({
  ok: false,
  problem: line === undefined ? { code, message } : { code, message, line },
});

/** The 400 a write answers a problem with: `recurrence` named, the problem's code and line in details. */
export function recurrenceInvalid(problem: RecurrenceProblem, param = 'recurrence'): ApiError {
  return invalidParams(
    { [param]: problem.message },
    {
      [param]: {
        code: `recurrence-${problem.code}`,
        message: problem.message,
        data: problem.line === undefined ? {} : { line: problem.line },
      },
    },
  );
}

/** The Temporal zone id of a stored zone name: IANA names as they are, `UTC+2` as `+02:00`. */
export function temporalZone(name: string): string {
  const offset = /^UTC([+-])(\d{1,2})(?::(\d{2}))?$/.exec(name);
  if (!offset) return name;
  return `${offset[1]}${offset[2]!.padStart(2, '0')}:${offset[3] ?? '00'}`;
}

export function zoneIsKnown(name: string): boolean {
  if (!isValidTimezone(name)) return false;
  try {
    Temporal.Now.zonedDateTimeISO(temporalZone(name));
    return true;
  } catch {
    return false;
  }
}
