import { Temporal } from 'temporal-polyfill';
import { type Recurrence, type RecurrenceResult, type SeriesKind, failure, success } from './set.js';
import { parseRecurrence } from './read-lines.js';
import { icsUtc } from './write-lines.js';

// A structured recurrence (a form's pattern) turned into the lines clients send, then read by the same
// rules, so both forms give the same set and a problem names the pattern's part.

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
function patternLine(pattern: RecurrencePattern): RecurrenceResult<string> {
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
function patternLines(pattern: RecurrencePattern): RecurrenceResult<Array<{ line: string; label: string }>> {
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
