import { DateTime } from 'luxon';
import { namesOnSeries } from '../../events/model/event-fields.js';
import { type EventFields, stableJson } from '../records.js';
import type { EventItem, EventRecord } from './item-records.js';

// TEC's occurrences of one event (`post_parent`) assembled into one series: its lines (given, or an
// RDATE of the starts), each occurrence's slot, and whether it is an exception to the first event.

const WALL = 'yyyy-MM-dd HH:mm:ss';

/** The instant a start stands for: its wall clock in its zone (a whole day: the day's start in `zone`). */
function startOf(fields: EventFields, zone: string): DateTime | null {
  const at = fields.allDay
    ? DateTime.fromFormat(fields.start.slice(0, 10), 'yyyy-MM-dd', { zone })
    : DateTime.fromFormat(fields.start, WALL, { zone: fields.timezone });
  return at.isValid ? at : null;
}

function lengthOf(fields: EventFields): number | null {
  const start = DateTime.fromFormat(fields.start, WALL, { zone: fields.timezone });
  const end = DateTime.fromFormat(fields.end, WALL, { zone: fields.timezone });
  return start.isValid && end.isValid ? end.toMillis() - start.toMillis() : null;
}

/** What an occurrence that is no exception shares with its first event (its slot gives its times). */
function seriesContent(fields: EventFields): string {
  const {
    start: _start,
    end: _end,
    status: _status,
    passwordProtected: _protected,
    recurrence: _lines,
    occurrence: _slot,
    declared,
    ...own
  } = fields;
  // The series-wide fields are the first event's, whatever an occurrence says.
  const wide = new Set<string>(namesOnSeries('series-wide'));
  const ownDeclared = Object.fromEntries(Object.entries(declared).filter(([name]) => !wide.has(name)));
  return stableJson({ ...own, declared: ownDeclared, length: lengthOf(fields) });
}

/** One RDATE line of the occurrences' starts: UTC instants, or dates for a whole-day series. */
function rdateLine(allDay: boolean, starts: DateTime[]): string {
  const values = [
    ...new Set(
      starts.map((at) => (allDay ? at.toFormat('yyyyMMdd') : at.toUTC().toFormat("yyyyMMdd'T'HHmmss'Z'"))),
    ),
  ].sort();
  return allDay ? `RDATE;VALUE=DATE:${values.join(',')}` : `RDATE:${values.join(',')}`;
}

/**
 * TEC's occurrences (`post_parent`: the series' first event at the source) arrive as one series: the
 * first event carries the source's lines (another instance of this service gives them), else an RDATE
 * of every other occurrence's start (TEC's API gives no rule; the starts are exact); each occurrence
 * names its slot (its start) and whether its content differs from the first event's (an exception).
 * An occurrence whose first event is not listed stays a plain event. Returns the occurrences.
 */
export function assembleSeries(items: readonly EventItem[]): Set<EventRecord> {
  const firsts = new Map(items.filter((item) => item.parent === null).map((item) => [item.record.key, item]));
  const bySeries = new Map<string, Array<{ record: EventRecord; start: DateTime }>>();
  for (const item of items) {
    const first = item.parent === null ? undefined : firsts.get(item.parent);
    const start = first && startOf(item.record.fields, first.record.fields.timezone);
    if (!first || !start) continue;
    const members = bySeries.get(first.record.key) ?? [];
    members.push({ record: item.record, start });
    bySeries.set(first.record.key, members);
  }
  const occurrences = new Set<EventRecord>();
  for (const first of firsts.values()) {
    const members = bySeries.get(first.record.key) ?? [];
    if (!members.length && !first.lines.length) continue;
    const { fields } = first.record;
    const firstStart = startOf(fields, fields.timezone);
    const others = members.filter((member) => member.start.toMillis() !== firstStart?.toMillis());
    fields.recurrence = first.lines.length
      ? first.lines
      : others.length
        ? [
            rdateLine(
              fields.allDay,
              others.map((member) => member.start),
            ),
          ]
        : [];
    const content = seriesContent(fields);
    for (const { record, start } of members) {
      record.fields.occurrence = {
        series: first.record.key,
        slot: start.toUTC().toISO()!,
        exception: seriesContent(record.fields) !== content,
      };
      occurrences.add(record);
    }
  }
  return occurrences;
}
