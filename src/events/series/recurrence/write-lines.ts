import type { Temporal } from 'temporal-polyfill';
import { type RecurrenceRule, formatWeekdayNum } from './rule.js';
import type { Recurrence, RecurrenceDate } from './set.js';

// Writing a recurrence set back as lines, in one canonical spelling (RFC 5545 order, values sorted and
// deduplicated), so equal sets show equal `recurrence` lines; the iCalendar date forms are shared.

export const pad = (value: number, width = 2) => String(value).padStart(width, '0');
const icsDate = (date: Temporal.PlainDate) => `${pad(date.year, 4)}${pad(date.month)}${pad(date.day)}`;
const icsDateTime = (dateTime: Temporal.PlainDateTime) =>
  `${icsDate(dateTime.toPlainDate())}T${pad(dateTime.hour)}${pad(dateTime.minute)}${pad(dateTime.second)}`;
export const icsUtc = (instant: Temporal.Instant) =>
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

export function uniqueSorted(values: RecurrenceDate[]): RecurrenceDate[] {
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
