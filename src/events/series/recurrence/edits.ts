import { Temporal } from 'temporal-polyfill';
import type { RecurrenceRule } from './rule.js';
import {
  MAX_RECURRENCE_DATES,
  type Occurrence,
  type Recurrence,
  type RecurrenceDate,
  type RecurrenceResult,
  type SeriesKind,
  type SeriesStart,
  failure,
  success,
  temporalZone,
} from './set.js';
import { expandRecurrence, plainFromWall, toExpansionZoned } from './expand.js';
import { uniqueSorted } from './write-lines.js';

// The edits a series' writes make to its set: one occurrence excluded (EXDATE), and the two halves of a
// "this and following" split, each a set that expands to the occurrences that half keeps.

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
function exdateFor(occurrence: Occurrence, kind: SeriesKind): RecurrenceDate {
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
