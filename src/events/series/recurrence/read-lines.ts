import { Temporal } from 'temporal-polyfill';
import { DATE_YEARS } from '../../../core/rules/dates.js';
import {
  FREQUENCIES,
  type Frequency,
  type RecurrenceRule,
  WEEKDAYS,
  type Weekday,
  type WeekdayNum,
  formatWeekdayNum,
} from './rule.js';
import {
  MAX_RECURRENCE_DATES,
  MAX_RECURRENCE_LINES,
  MAX_RECURRENCE_LINE_LENGTH,
  type Recurrence,
  type RecurrenceDate,
  type RecurrenceProblemCode,
  type RecurrenceResult,
  type SeriesKind,
  failure,
  success,
  temporalZone,
  zoneIsKnown,
} from './set.js';
import { formatRecurrence, uniqueSorted } from './write-lines.js';

// Reading a series' lines (RFC 5545 content lines: RRULE, RDATE, EXDATE) into its recurrence set, every
// part checked against the first event's zone and all-day flag; a fault is a problem naming its line.

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

/** Lines as a client sent them → the same set in canonical form (or the problem). */
export function canonicalRecurrence(lines: readonly string[], kind: SeriesKind): RecurrenceResult<string[]> {
  const parsed = parseRecurrence(lines, kind);
  return parsed.ok ? success(formatRecurrence(parsed.value)) : parsed;
}
