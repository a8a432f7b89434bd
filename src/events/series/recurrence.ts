import { Temporal } from 'temporal-polyfill';
import { DATE_YEARS, isValidTimezone } from '../../core/rules/dates.js';
import { type ApiError, invalidParams } from '../../core/errors/errors.js';
import {
  DAY_MS,
  FREQUENCIES,
  type Frequency,
  type RecurrenceRule,
  type Slot,
  WEEKDAYS,
  type Weekday,
  type WeekdayNum,
  formatWeekdayNum,
  ruleInstances,
} from './recurrence-rule.js';

// A series' recurrence set (RFC 5545 §3.8.5): the lines clients send as Google Calendar's `recurrence`
// (`RRULE:…`, `EXDATE…:…`, `RDATE…:…`), read against the first event's zone and all-day flag, expanded by
// rrule-temporal into each occurrence's original start, and written back in one canonical spelling.
// Problems are values naming the line and the part, never exceptions: a write turns them into a 400
// naming `recurrence` (recurrenceInvalid) before anything is written. docs/reference/recurrence.md.

export {
  FREQUENCIES,
  type Frequency,
  type RecurrenceRule,
  WEEKDAYS,
  type Weekday,
  type WeekdayNum,
} from './recurrence-rule.js';

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

export interface RecurrenceProblem {
  code: RecurrenceProblemCode;
  message: string;
  /** The index of the line at fault in what the client sent, when one is. */
  line?: number;
}

export type RecurrenceResult<T> = { ok: true; value: T } | { ok: false; problem: RecurrenceProblem };

const success = <T>(value: T): RecurrenceResult<T> => ({ ok: true, value });
const failure = (
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

/** Thrown inside the parser only, caught at its edge and returned as a problem. */
class LineProblem extends Error {
  constructor(
    readonly code: RecurrenceProblemCode,
    message: string,
  ) {
    super(message);
  }
}

const malformed = (message: string) => new LineProblem('malformed', message);

// ---- Zones -------------------------------------------------------------------------------------------

/** The Temporal zone id of a stored zone name: IANA names as they are, `UTC+2` as `+02:00`. */
function temporalZone(name: string): string {
  const offset = /^UTC([+-])(\d{1,2})(?::(\d{2}))?$/.exec(name);
  if (!offset) return name;
  return `${offset[1]}${offset[2]!.padStart(2, '0')}:${offset[3] ?? '00'}`;
}

function zoneIsKnown(name: string): boolean {
  if (!isValidTimezone(name)) return false;
  try {
    Temporal.Now.zonedDateTimeISO(temporalZone(name));
    return true;
  } catch {
    return false;
  }
}

// ---- Reading lines -----------------------------------------------------------------------------------

interface ContentLine {
  name: string;
  params: Map<string, string>;
  value: string;
}

/** `NAME;PARAM=value;…:value` (RFC 5545 §3.1); a quoted parameter value may hold `:` and `;`. */
function splitContentLine(line: string): ContentLine {
  let index = 0;
  const readUntil = (stops: string) => {
    let text = '';
    let quoted = false;
    while (index < line.length && (quoted || !stops.includes(line[index]!))) {
      if (line[index] === '"') quoted = !quoted;
      else text += line[index];
      index++;
    }
    if (quoted) throw malformed('A quoted parameter value is not closed.');
    return text;
  };
  const name = readUntil(';:').toUpperCase();
  const params = new Map<string, string>();
  while (line[index] === ';') {
    index++;
    const param = readUntil(';:');
    const equals = param.indexOf('=');
    if (equals <= 0) throw malformed(`Parameter "${param}" is not NAME=value.`);
    const key = param.slice(0, equals).toUpperCase();
    if (params.has(key)) throw malformed(`Parameter ${key} appears twice.`);
    params.set(key, param.slice(equals + 1));
  }
  if (line[index] !== ':') throw malformed('A line is NAME[;PARAM=value]:value (no ":" found).');
  return { name, params, value: line.slice(index + 1) };
}

function inYearRange(year: number): boolean {
  return year >= DATE_YEARS.min && year <= DATE_YEARS.max;
}

function readDate(text: string): Temporal.PlainDate {
  const match = /^(\d{4})(\d{2})(\d{2})$/.exec(text);
  if (!match) throw malformed(`"${text}" is not a date (YYYYMMDD).`);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (!inYearRange(year)) throw malformed(`"${text}": years ${DATE_YEARS.min}–${DATE_YEARS.max} only.`);
  try {
    return Temporal.PlainDate.from({ year, month, day }, { overflow: 'reject' });
  } catch {
    throw malformed(`"${text}" is not a calendar date.`);
  }
}

function readDateTime(text: string): { dateTime: Temporal.PlainDateTime; utc: boolean } {
  const match = /^(\d{8})T(\d{2})(\d{2})(\d{2})(Z?)$/.exec(text);
  if (!match) throw malformed(`"${text}" is not a date-time (YYYYMMDDTHHMMSS, Z for UTC).`);
  const date = readDate(match[1]!);
  const [hour, minute, second] = [Number(match[2]), Number(match[3]), Number(match[4])];
  if (hour > 23 || minute > 59 || second > 59) throw malformed(`"${text}" is not a time of day.`);
  return { dateTime: date.toPlainDateTime({ hour, minute, second }), utc: match[5] === 'Z' };
}

/** The values of an RDATE or EXDATE line, of the kind the series' start is (DATE or DATE-TIME). */
function readDateList(line: ContentLine, kind: SeriesKind): RecurrenceDate[] {
  for (const key of line.params.keys()) {
    if (key !== 'TZID' && key !== 'VALUE')
      throw malformed(`${line.name} takes TZID and VALUE only, not ${key}.`);
  }
  const valueType = line.params.get('VALUE')?.toUpperCase();
  if (valueType === 'PERIOD') throw new LineProblem('unsupported', 'RDATE;VALUE=PERIOD is not supported.');
  if (valueType !== undefined && valueType !== 'DATE' && valueType !== 'DATE-TIME')
    throw malformed(`VALUE=${valueType}: DATE or DATE-TIME only.`);
  const zone = line.params.get('TZID');
  if (zone !== undefined && !zoneIsKnown(zone))
    throw new LineProblem('unknown-zone', `TZID=${zone} is not a known IANA time zone.`);
  if (line.value === '') throw malformed(`${line.name} has no value.`);
  return line.value.split(',').map((text): RecurrenceDate => {
    const isDate = /^\d{8}$/.test(text);
    if (isDate !== (valueType === 'DATE') && valueType !== undefined)
      throw malformed(`"${text}" is not a ${valueType} value.`);
    if (isDate) {
      if (zone !== undefined) throw malformed(`TZID does not apply to a date ("${text}").`);
      if (!kind.allDay)
        throw malformed(
          `"${text}" is a date: this series starts at a time of day, so its dates are date-times.`,
        );
      return { type: 'date', date: readDate(text) };
    }
    const { dateTime, utc } = readDateTime(text);
    if (kind.allDay)
      throw malformed(`"${text}" is a date-time: this all-day series takes dates (VALUE=DATE:YYYYMMDD).`);
    if (utc && zone !== undefined) throw malformed(`"${text}" is in UTC: TZID does not apply to it.`);
    if (utc) return { type: 'utc', instant: dateTime.toZonedDateTime('UTC').toInstant() };
    return zone === undefined ? { type: 'floating', dateTime } : { type: 'zoned', dateTime, zone };
  });
}

const RULE_PARTS = [
  'FREQ',
  'INTERVAL',
  'COUNT',
  'UNTIL',
  'BYSECOND',
  'BYMINUTE',
  'BYHOUR',
  'BYDAY',
  'BYMONTHDAY',
  'BYYEARDAY',
  'BYWEEKNO',
  'BYMONTH',
  'BYSETPOS',
  'WKST',
] as const;
type RulePart = (typeof RULE_PARTS)[number];

/** A comma-separated list of integers in [min, max], zero excluded where `signed`; sorted, deduplicated. */
function readIntegers(part: string, text: string, min: number, max: number, signed = false): number[] {
  const values = text.split(',').map((item) => {
    if (!/^[+-]?\d{1,3}$/.test(item)) throw malformed(`${part}=${text}: "${item}" is not an integer.`);
    const value = Number(item);
    const magnitude = Math.abs(value);
    if (signed ? magnitude < min || magnitude > max : value < min || value > max)
      throw malformed(`${part}=${text}: ${item} is outside ${signed ? `±${min}…±${max}` : `${min}…${max}`}.`);
    return value;
  });
  return [...new Set(values)].sort((a, b) => a - b);
}

function readWeekday(part: string, text: string): Weekday {
  const weekday = text.toUpperCase();
  if (!(WEEKDAYS as readonly string[]).includes(weekday))
    throw malformed(`${part}: "${text}" is not a weekday (MO…SU).`);
  return weekday as Weekday;
}

function readPositiveInteger(part: string, text: string, max: number): number {
  if (!/^\d{1,7}$/.test(text) || Number(text) < 1 || Number(text) > max)
    throw malformed(`${part}=${text}: a whole number from 1 to ${max} is expected.`);
  return Number(text);
}

/** RRULE's value (RFC 5545 §3.3.10), with the RFC's constraints between parts. */
function readRule(value: string, kind: SeriesKind): RecurrenceRule {
  const parts = new Map<RulePart, string>();
  for (const item of value.split(';')) {
    if (item === '') continue; // a trailing ";" as some clients write
    const equals = item.indexOf('=');
    const name = (equals < 0 ? item : item.slice(0, equals)).toUpperCase();
    if (!(RULE_PARTS as readonly string[]).includes(name))
      throw new LineProblem('unsupported', `RRULE part ${name} is not supported.`);
    if (equals < 0 || equals === item.length - 1) throw malformed(`RRULE part ${name} has no value.`);
    if (parts.has(name as RulePart)) throw malformed(`RRULE part ${name} appears twice.`);
    parts.set(name as RulePart, item.slice(equals + 1));
  }
  const freq = parts.get('FREQ')?.toUpperCase();
  if (freq === undefined) throw malformed('RRULE needs FREQ.');
  if (freq === 'SECONDLY' || freq === 'MINUTELY')
    throw new LineProblem('unsupported', `FREQ=${freq} is not accepted: HOURLY at most.`);
  if (!(FREQUENCIES as readonly string[]).includes(freq)) throw malformed(`FREQ=${freq} is not a frequency.`);
  const frequency = freq as Frequency;
  const list = (part: RulePart, read: (text: string) => number[]) => {
    const text = parts.get(part);
    return text === undefined ? [] : read(text);
  };
  const rule: RecurrenceRule = {
    frequency,
    interval: parts.has('INTERVAL') ? readPositiveInteger('INTERVAL', parts.get('INTERVAL')!, 9_999) : 1,
    count: parts.has('COUNT') ? readPositiveInteger('COUNT', parts.get('COUNT')!, 1_000_000) : null,
    until: null,
    bySecond: list('BYSECOND', (text) => readIntegers('BYSECOND', text, 0, 59)),
    byMinute: list('BYMINUTE', (text) => readIntegers('BYMINUTE', text, 0, 59)),
    byHour: list('BYHOUR', (text) => readIntegers('BYHOUR', text, 0, 23)),
    byDay: parts.has('BYDAY') ? readByDay(parts.get('BYDAY')!) : [],
    byMonthDay: list('BYMONTHDAY', (text) => readIntegers('BYMONTHDAY', text, 1, 31, true)),
    byYearDay: list('BYYEARDAY', (text) => readIntegers('BYYEARDAY', text, 1, 366, true)),
    byWeekNo: list('BYWEEKNO', (text) => readIntegers('BYWEEKNO', text, 1, 53, true)),
    byMonth: list('BYMONTH', (text) => readIntegers('BYMONTH', text, 1, 12)),
    bySetPos: list('BYSETPOS', (text) => readIntegers('BYSETPOS', text, 1, 366, true)),
    weekStart: parts.has('WKST') ? readWeekday('WKST', parts.get('WKST')!) : 'MO',
  };
  const until = parts.get('UNTIL');
  if (until !== undefined) rule.until = readUntil(until, kind);
  checkRuleConstraints(rule, parts, kind);
  return rule;
}

function readByDay(text: string): WeekdayNum[] {
  const seen = new Set<string>();
  const values: WeekdayNum[] = [];
  for (const item of text.split(',')) {
    const match = /^([+-]?\d{1,2})?([A-Za-z]{2})$/.exec(item);
    if (!match)
      throw malformed(`BYDAY=${text}: "${item}" is not a weekday with an optional ordinal (TU, -1FR).`);
    const ordinal = match[1] === undefined ? null : Number(match[1]);
    if (ordinal !== null && (ordinal === 0 || Math.abs(ordinal) > 53))
      throw malformed(`BYDAY=${text}: the ordinal of "${item}" is outside ±1…±53.`);
    const value = { ordinal, weekday: readWeekday('BYDAY', match[2]!) };
    const key = formatWeekdayNum(value);
    if (!seen.has(key)) values.push(value);
    seen.add(key);
  }
  return values.sort(
    (a, b) =>
      WEEKDAYS.indexOf(a.weekday) - WEEKDAYS.indexOf(b.weekday) || (a.ordinal ?? 0) - (b.ordinal ?? 0),
  );
}

/**
 * UNTIL: a UTC date-time; a floating one (no `Z`), read on the series' wall clock; or a date (for a timed
 * series: through that day in the series' zone). A timed series keeps it as the instant in UTC.
 */
function readUntil(text: string, kind: SeriesKind): NonNullable<RecurrenceRule['until']> {
  if (/^\d{8}$/.test(text)) {
    const date = readDate(text);
    if (kind.allDay) return { type: 'date', date };
    // The last second of that local day, in UTC: the form RFC 5545 requires beside a zoned start.
    const nextDay = date.add({ days: 1 }).toZonedDateTime({ timeZone: temporalZone(kind.timezone) });
    return { type: 'utc', instant: nextDay.toInstant().subtract({ seconds: 1 }) };
  }
  if (kind.allDay) throw malformed(`UNTIL=${text}: an all-day series ends on a date (UNTIL=YYYYMMDD).`);
  const { dateTime, utc } = readDateTime(text);
  // RFC 5545 §3.3.10 wants UTC beside a zoned start, but feeds write a floating UNTIL there: libical and
  // Google Calendar read it on the event's wall clock, and so does this (a gap moves it forward, a
  // repeated hour takes its first pass, as a floating RDATE).
  const zoned = dateTime.toZonedDateTime(utc ? 'UTC' : temporalZone(kind.timezone));
  return { type: 'utc', instant: zoned.toInstant() };
}

/** RFC 5545 §3.3.10's rules on which parts go together, and the all-day series' limits. */
function checkRuleConstraints(rule: RecurrenceRule, parts: Map<RulePart, string>, kind: SeriesKind): void {
  const { frequency } = rule;
  if (rule.count !== null && rule.until !== null) throw malformed('COUNT and UNTIL do not go together.');
  if (rule.byWeekNo.length && frequency !== 'YEARLY') throw malformed('BYWEEKNO goes with FREQ=YEARLY only.');
  if (rule.byYearDay.length && ['DAILY', 'WEEKLY', 'MONTHLY'].includes(frequency))
    throw malformed(`BYYEARDAY does not go with FREQ=${frequency}.`);
  if (rule.byMonthDay.length && frequency === 'WEEKLY')
    throw malformed('BYMONTHDAY does not go with FREQ=WEEKLY.');
  if (rule.byDay.some((day) => day.ordinal !== null)) {
    if (frequency !== 'MONTHLY' && frequency !== 'YEARLY')
      throw malformed(`BYDAY with an ordinal (-1FR) goes with FREQ=MONTHLY or YEARLY, not ${frequency}.`);
    if (frequency === 'YEARLY' && rule.byWeekNo.length)
      throw malformed('BYDAY with an ordinal does not go with BYWEEKNO.');
    if (frequency === 'MONTHLY' && rule.byDay.some((day) => Math.abs(day.ordinal ?? 0) > 5))
      throw malformed('In a monthly rule a BYDAY ordinal is within ±1…±5.');
  }
  const months = rule.byMonth.length ? rule.byMonth : [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
  const longest = Math.max(
    ...months.map((month) => [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!),
  );
  if (rule.byMonthDay.length && rule.byMonthDay.every((day) => Math.abs(day) > longest))
    throw malformed(`BYMONTHDAY=${parts.get('BYMONTHDAY')} never falls in BYMONTH=${parts.get('BYMONTH')}.`);
  const others = [...parts.keys()].filter((part) => part.startsWith('BY') && part !== 'BYSETPOS');
  if (rule.bySetPos.length && others.length === 0) throw malformed('BYSETPOS needs another BYxxx part.');
  if (kind.allDay) {
    if (frequency === 'HOURLY')
      throw new LineProblem('unsupported', 'An all-day series repeats daily at most.');
    const timed = (['BYHOUR', 'BYMINUTE', 'BYSECOND'] as const).filter((part) => parts.has(part));
    if (timed.length) throw malformed(`${timed.join(', ')} do not apply to an all-day series.`);
  }
}

/**
 * Reads and checks a series' lines (Google Calendar's `recurrence` style) against the first event's zone
 * and all-day flag. At most one RRULE (RFC 5545 deprecates several; RDATE adds dates to one rule).
 */
export function parseRecurrence(lines: readonly string[], kind: SeriesKind): RecurrenceResult<Recurrence> {
  if (lines.length > MAX_RECURRENCE_LINES)
    return failure(
      'too-many-dates',
      `At most ${MAX_RECURRENCE_LINES} lines (one RRULE, RDATE and EXDATE values).`,
    );
  const recurrence: Recurrence = { rule: null, rdates: [], exdates: [] };
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    const at = (message: string) => `recurrence[${index}]: ${message}`;
    if (line.length > MAX_RECURRENCE_LINE_LENGTH)
      return failure(
        'too-many-dates',
        at(`a line has at most ${MAX_RECURRENCE_LINE_LENGTH} characters.`),
        index,
      );
    try {
      const content = splitContentLine(line);
      switch (content.name) {
        case 'RRULE':
          if (content.params.size) throw malformed('RRULE takes no parameters.');
          if (recurrence.rule)
            throw new LineProblem('unsupported', 'One RRULE per series (add dates with RDATE).');
          recurrence.rule = readRule(content.value, kind);
          break;
        case 'RDATE':
        case 'EXDATE': {
          const target = content.name === 'RDATE' ? recurrence.rdates : recurrence.exdates;
          target.push(...readDateList(content, kind));
          if (target.length > MAX_RECURRENCE_DATES)
            throw new LineProblem(
              'too-many-dates',
              `At most ${MAX_RECURRENCE_DATES} ${content.name} values per series.`,
            );
          break;
        }
        case 'DTSTART':
        case 'DTEND':
          throw new LineProblem(
            'unsupported',
            `${content.name} is the event's own start and end, not a recurrence line.`,
          );
        default:
          throw new LineProblem(
            'unsupported',
            `${content.name || 'An empty name'} is not a recurrence line (RRULE, RDATE, EXDATE).`,
          );
      }
    } catch (error) {
      if (!(error instanceof LineProblem)) throw error;
      return failure(error.code, at(error.message), index);
    }
  }
  recurrence.rdates = uniqueSorted(recurrence.rdates);
  recurrence.exdates = uniqueSorted(recurrence.exdates);
  return success(recurrence);
}

// ---- Writing lines -----------------------------------------------------------------------------------

const pad = (value: number, width = 2) => String(value).padStart(width, '0');
const icsDate = (date: Temporal.PlainDate) => `${pad(date.year, 4)}${pad(date.month)}${pad(date.day)}`;
const icsDateTime = (dateTime: Temporal.PlainDateTime) =>
  `${icsDate(dateTime.toPlainDate())}T${pad(dateTime.hour)}${pad(dateTime.minute)}${pad(dateTime.second)}`;
const icsUtc = (instant: Temporal.Instant) =>
  `${icsDateTime(instant.toZonedDateTimeISO('UTC').toPlainDateTime())}Z`;

/** The value as written on its line, and the parameters that line carries. */
function formatDate(value: RecurrenceDate): { params: string; text: string } {
  switch (value.type) {
    case 'date':
      return { params: ';VALUE=DATE', text: icsDate(value.date) };
    case 'utc':
      return { params: '', text: icsUtc(value.instant) };
    case 'zoned':
      return { params: `;TZID=${value.zone}`, text: icsDateTime(value.dateTime) };
    case 'floating':
      return { params: '', text: icsDateTime(value.dateTime) };
  }
}

/** A total order on values of one kind, for sorting and deduplicating (not chronology across kinds). */
function sortKey(value: RecurrenceDate): string {
  const { params, text } = formatDate(value);
  // Dates, then floating, then each zone, then UTC: the order lines are written in.
  const group =
    value.type === 'date'
      ? '0'
      : value.type === 'floating'
        ? '1'
        : value.type === 'zoned'
          ? `2${params}`
          : '3';
  return `${group}|${text}`;
}

function uniqueSorted(values: RecurrenceDate[]): RecurrenceDate[] {
  const byKey = new Map(values.map((value) => [sortKey(value), value]));
  return [...byKey.keys()].sort().map((key) => byKey.get(key)!);
}

function formatRule(rule: RecurrenceRule): string {
  const parts = [`FREQ=${rule.frequency}`];
  if (rule.until)
    parts.push(`UNTIL=${rule.until.type === 'date' ? icsDate(rule.until.date) : icsUtc(rule.until.instant)}`);
  if (rule.count !== null) parts.push(`COUNT=${rule.count}`);
  if (rule.interval !== 1) parts.push(`INTERVAL=${rule.interval}`);
  const lists: Array<[string, Array<number | string>]> = [
    ['BYSECOND', rule.bySecond],
    ['BYMINUTE', rule.byMinute],
    ['BYHOUR', rule.byHour],
    ['BYDAY', rule.byDay.map(formatWeekdayNum)],
    ['BYMONTHDAY', rule.byMonthDay],
    ['BYYEARDAY', rule.byYearDay],
    ['BYWEEKNO', rule.byWeekNo],
    ['BYMONTH', rule.byMonth],
    ['BYSETPOS', rule.bySetPos],
  ];
  for (const [name, values] of lists) if (values.length) parts.push(`${name}=${values.join(',')}`);
  if (rule.weekStart !== 'MO') parts.push(`WKST=${rule.weekStart}`);
  return `RRULE:${parts.join(';')}`;
}

function formatDates(name: 'RDATE' | 'EXDATE', values: RecurrenceDate[]): string[] {
  const lines = new Map<string, string[]>();
  for (const value of uniqueSorted(values)) {
    const { params, text } = formatDate(value);
    lines.set(params, [...(lines.get(params) ?? []), text]);
  }
  return [...lines].map(([params, texts]) => `${name}${params}:${texts.join(',')}`);
}

/**
 * The canonical lines of a recurrence set, the `recurrence` every event of the series shows: RRULE
 * (FREQ, UNTIL or COUNT, INTERVAL, BYxxx in RFC 5545 order, lists sorted), then one RDATE and one EXDATE
 * line per kind of value (dates, floating, each TZID, UTC), values sorted and deduplicated.
 */
export function formatRecurrence(recurrence: Recurrence): string[] {
  return [
    ...(recurrence.rule ? [formatRule(recurrence.rule)] : []),
    ...formatDates('RDATE', recurrence.rdates),
    ...formatDates('EXDATE', recurrence.exdates),
  ];
}

/** Lines as a client sent them → the same set in canonical form (or the problem). */
export function canonicalRecurrence(lines: readonly string[], kind: SeriesKind): RecurrenceResult<string[]> {
  const parsed = parseRecurrence(lines, kind);
  return parsed.ok ? success(formatRecurrence(parsed.value)) : parsed;
}

// ---- Expansion ---------------------------------------------------------------------------------------

/** `2026-03-08 02:30:00` → a PlainDateTime. */
function plainFromWall(wall: string): Temporal.PlainDateTime {
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
function toExpansionZoned(value: RecurrenceDate, zone: string): Temporal.ZonedDateTime {
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
export const MAX_RECURRENCE_PERIODS = 50_000;

export interface ExpandOptions {
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

// ---- Edits -------------------------------------------------------------------------------------------

/** Whether a value names an instant before the occurrence (its date before the occurrence's, all-day). */
function isBefore(value: RecurrenceDate, occurrence: Occurrence, kind: SeriesKind): boolean {
  if (value.type === 'date')
    return Temporal.PlainDate.compare(value.date, plainFromWall(occurrence.localStart).toPlainDate()) < 0;
  return (
    toExpansionZoned(value, temporalZone(kind.timezone)).epochMilliseconds < occurrence.startsAt.getTime()
  );
}

/**
 * The EXDATE that removes one occurrence: its date (all-day); else its wall clock with the series' TZID,
 * or its UTC instant where that wall clock would name another instant (the second pass of a repeated
 * hour) or the zone is a fixed offset.
 */
export function exdateFor(occurrence: Occurrence, kind: SeriesKind): RecurrenceDate {
  const wall = plainFromWall(occurrence.localStart);
  if (kind.allDay) return { type: 'date', date: wall.toPlainDate() };
  const instant = Temporal.Instant.fromEpochMilliseconds(occurrence.startsAt.getTime());
  const zone = temporalZone(kind.timezone);
  const named = zone === kind.timezone && kind.timezone !== 'UTC';
  if (named && wall.toZonedDateTime(zone).toInstant().equals(instant))
    return { type: 'zoned', dateTime: wall, zone: kind.timezone };
  return { type: 'utc', instant };
}

/** The set without one occurrence (deleting one instance): an EXDATE, so regeneration keeps it away. */
export function excludeOccurrence(
  recurrence: Recurrence,
  occurrence: Occurrence,
  kind: SeriesKind,
): RecurrenceResult<Recurrence> {
  const exdates = uniqueSorted([...recurrence.exdates, exdateFor(occurrence, kind)]);
  if (exdates.length > MAX_RECURRENCE_DATES)
    return failure('too-many-dates', `recurrence: at most ${MAX_RECURRENCE_DATES} EXDATE values per series.`);
  return success({ ...recurrence, exdates });
}

/**
 * The set ended just before an occurrence ("this and following" keeps this part): UNTIL one second
 * before it in UTC (the day before, all-day) in place of COUNT, an earlier UNTIL kept, and the RDATEs and
 * EXDATEs from the occurrence on dropped. Ending at the first start leaves no rule instance but the
 * first start itself, which every series has: a split there is an edit of the whole series.
 */
export function endBefore(recurrence: Recurrence, occurrence: Occurrence, kind: SeriesKind): Recurrence {
  const keep = (values: RecurrenceDate[]) => values.filter((value) => isBefore(value, occurrence, kind));
  let rule = recurrence.rule;
  if (rule) {
    const until: NonNullable<RecurrenceRule['until']> = kind.allDay
      ? { type: 'date', date: plainFromWall(occurrence.localStart).toPlainDate().subtract({ days: 1 }) }
      : {
          type: 'utc',
          instant: Temporal.Instant.fromEpochMilliseconds(occurrence.startsAt.getTime() - 1000),
        };
    const earlier = rule.until && compareUntil(rule.until, until) <= 0 ? rule.until : until;
    rule = { ...rule, count: null, until: earlier };
  }
  return { rule, rdates: keep(recurrence.rdates), exdates: keep(recurrence.exdates) };
}

function compareUntil(
  a: NonNullable<RecurrenceRule['until']>,
  b: NonNullable<RecurrenceRule['until']>,
): number {
  if (a.type === 'date' && b.type === 'date') return Temporal.PlainDate.compare(a.date, b.date);
  if (a.type === 'utc' && b.type === 'utc') return Temporal.Instant.compare(a.instant, b.instant);
  return 0;
}

/**
 * The other half of a "this and following" split: the same rule from the occurrence on, its COUNT less
 * the rule instances before it (EXDATEd ones included, as COUNT counts them), with the RDATEs and EXDATEs
 * from the occurrence on. The new series' first start is the occurrence's.
 */
export function continueFrom(
  recurrence: Recurrence,
  occurrence: Occurrence,
  start: SeriesStart,
): RecurrenceResult<Recurrence> {
  const later = (values: RecurrenceDate[]) => values.filter((value) => !isBefore(value, occurrence, start));
  const rule = recurrence.rule;
  let count = rule?.count ?? null;
  if (rule && count !== null) {
    const before = expandRecurrence({ rule, rdates: [], exdates: [] }, start, {
      horizon: occurrence.startsAt,
      cap: Number.MAX_SAFE_INTEGER,
    });
    if (!before.ok) return before;
    count = Math.max(1, count - before.value.length);
  }
  return success({
    rule: rule && { ...rule, count },
    rdates: later(recurrence.rdates),
    exdates: later(recurrence.exdates),
  });
}

// ---- Structured input --------------------------------------------------------------------------------

/**
 * A form's recurrence, in the style of Microsoft Graph's patternedRecurrence but in RFC 5545 terms:
 * it becomes an RRULE line read by the same rules as the textual form, so both give the same lines.
 */
export interface RecurrencePattern {
  frequency: string;
  interval?: number | null;
  /** Weekdays, each with an optional ordinal: `TU`, `1MO`, `-1FR`. */
  byDay?: readonly string[] | null;
  byMonthDay?: readonly number[] | null;
  byMonth?: readonly number[] | null;
  bySetPos?: readonly number[] | null;
  weekStart?: string | null;
  count?: number | null;
  /** `YYYY-MM-DD` (through that day in the series' zone) or an ISO 8601 instant with offset or `Z`. */
  until?: string | null;
  /**
   * Starts added to the rule's (RDATE) and removed from them (EXDATE): `YYYY-MM-DD` for an all-day
   * series; else a wall clock `YYYY-MM-DDTHH:MM[:SS]` in the series' zone or an instant with offset or `Z`.
   */
  rdates?: readonly string[] | null;
  exdates?: readonly string[] | null;
}

/** The RRULE line of a pattern (unchecked: parseRecurrence checks it). */
export function patternLine(pattern: RecurrencePattern): RecurrenceResult<string> {
  const parts = [`FREQ=${pattern.frequency.trim().toUpperCase()}`];
  const add = (name: string, value: number | string | readonly (number | string)[] | null | undefined) => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value) && value.length === 0) return;
    parts.push(`${name}=${Array.isArray(value) ? value.join(',') : String(value)}`);
  };
  add('INTERVAL', pattern.interval);
  add('COUNT', pattern.count);
  if (pattern.until !== null && pattern.until !== undefined) {
    const text = pattern.until.trim();
    if (/^\d{4}-\d{2}-\d{2}$/.test(text)) add('UNTIL', text.replaceAll('-', ''));
    else {
      try {
        add('UNTIL', icsUtc(Temporal.Instant.from(text)));
      } catch {
        return failure(
          'malformed',
          `recurrence: until "${text}" is neither YYYY-MM-DD nor an instant with an offset.`,
        );
      }
    }
  }
  add('BYDAY', pattern.byDay);
  add('BYMONTHDAY', pattern.byMonthDay);
  add('BYMONTH', pattern.byMonth);
  add('BYSETPOS', pattern.bySetPos);
  add('WKST', pattern.weekStart);
  return success(`RRULE:${parts.join(';')}`);
}

/** An ISO 8601 date, wall clock or instant of a pattern → the value of an RDATE or EXDATE line. */
function patternDateLine(name: 'RDATE' | 'EXDATE', text: string): string | null {
  const value = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${name};VALUE=DATE:${value.replaceAll('-', '')}`;
  const wall = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (wall) return `${name}:${wall.slice(1, 4).join('')}T${wall[4]}${wall[5]}${wall[6] ?? '00'}`;
  try {
    return `${name}:${icsUtc(Temporal.Instant.from(value))}`;
  } catch {
    return null;
  }
}

/**
 * The lines of a pattern: its RRULE, then an RDATE or EXDATE line per date (unchecked: parseRecurrence
 * checks them), each labelled by the pattern's own name for the problems found in it.
 */
export function patternLines(
  pattern: RecurrencePattern,
): RecurrenceResult<Array<{ line: string; label: string }>> {
  const rule = patternLine(pattern);
  if (!rule.ok) return rule;
  const lines = [{ line: rule.value, label: '' }];
  for (const [name, key] of [
    ['RDATE', 'rdates'],
    ['EXDATE', 'exdates'],
  ] as const) {
    for (const [index, text] of (pattern[key] ?? []).entries()) {
      const line = patternDateLine(name, text);
      if (line === null)
        return failure(
          'malformed',
          `${key}[${index}]: "${text}" is neither YYYY-MM-DD, a wall clock YYYY-MM-DDTHH:MM[:SS] nor an instant with an offset.`,
        );
      lines.push({ line, label: `${key}[${index}]: ` });
    }
  }
  return success(lines);
}

/**
 * A structured pattern (plus any RDATE/EXDATE lines) → the recurrence set, checked as lines are; a
 * problem names the pattern's part (`rdates[2]`) instead of a line the client did not write.
 */
export function recurrenceFromPattern(
  pattern: RecurrencePattern,
  kind: SeriesKind,
  dateLines: readonly string[] = [],
): RecurrenceResult<Recurrence> {
  const lines = patternLines(pattern);
  if (!lines.ok) return lines;
  const labels = [...lines.value.map(({ label }) => label), ...dateLines.map(() => '')];
  const parsed = parseRecurrence([...lines.value.map(({ line }) => line), ...dateLines], kind);
  if (parsed.ok || parsed.problem.line === undefined) return parsed;
  const { line, message } = parsed.problem;
  return failure(parsed.problem.code, labels[line]! + message.replace(/^recurrence\[\d+\]: /, ''));
}
