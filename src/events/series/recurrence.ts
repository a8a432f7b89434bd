// A series' recurrence set (RFC 5545 §3.8.5): the lines clients send as Google Calendar's `recurrence`
// (`RRULE:…`, `EXDATE…:…`, `RDATE…:…`), read against the first event's zone and all-day flag, expanded by
// rrule-temporal into each occurrence's original start, and written back in one canonical spelling.
// Problems are values naming the line and the part, never exceptions: a write turns them into a 400
// naming `recurrence` (recurrenceInvalid) before anything is written. docs/reference/recurrence.md.
// This is the set's one entry point for the room; each job is a file of ./recurrence/.

export { FREQUENCIES, type Frequency, WEEKDAYS, type Weekday } from './recurrence/rule.js';
export {
  MAX_RECURRENCE_DATES,
  MAX_RECURRENCE_LINES,
  MAX_SERIES_OCCURRENCES,
  type Occurrence,
  type Recurrence,
  type RecurrenceProblemCode,
  type RecurrenceResult,
  type SeriesKind,
  recurrenceInvalid,
} from './recurrence/set.js';
export { canonicalRecurrence, parseRecurrence } from './recurrence/read-lines.js';
export { formatRecurrence } from './recurrence/write-lines.js';
export { excludesFirstStart, expandRecurrence } from './recurrence/expand.js';
export { continueFrom, endBefore, excludeOccurrence } from './recurrence/edits.js';
export { type RecurrencePattern, recurrenceFromPattern } from './recurrence/pattern-lines.js';
