import { DateTime } from 'luxon';
import { WALL_CLOCK, eventSchedule } from '../../core/rules/dates.js';
import { missingParams } from '../../core/errors/errors.js';
import type { EventValues } from './event-input.js';

// When an event takes place and when it is published: the rules WordPress and TEC apply to the dates
// of a write.

interface StoredSchedule {
  timezone: string;
  localStart: string;
  localEnd: string;
  allDay: boolean;
}

/**
 * The stored start, end, zone and all-day flag after a write, or null when the write leaves them alone.
 * A zone change re-reads the stored wall-clock in the new zone (D10); an update keeps the event's zone
 * unless it names one (D11); one date alone is applied (D12); all-day stretches to 00:00:00–23:59:59;
 * an end before the start becomes the start, in local and UTC alike (D14).
 */
export function scheduleOf(input: EventValues, existing: StoredSchedule | null, siteTimezone: string) {
  const touched = input.start || input.end || input.timezone !== undefined || input.allDay !== undefined;
  if (existing && !touched) return null;
  const zone = input.timezone ?? existing?.timezone ?? siteTimezone;
  const stored = (wall: string | undefined) =>
    wall ? DateTime.fromFormat(wall, WALL_CLOCK, { zone }) : null;
  let start = (input.start ?? stored(existing?.localStart))?.setZone(zone).startOf('second');
  let end = (input.end ?? stored(existing?.localEnd))?.setZone(zone).startOf('second');
  if (!start || !end) throw missingParams([!start ? 'startDate' : 'endDate']);
  const allDay = input.allDay ?? existing?.allDay ?? false;
  if (allDay) {
    start = start.startOf('day');
    end = end.endOf('day').startOf('second');
  }
  if (end < start) end = start;
  return { ...eventSchedule(start.toJSDate(), end.toJSDate(), zone), allDay };
}

/** WordPress' scheduling: a published post dated in the future is `future`; a `future` one due now is published. */
export function publicationStatus(status: string, publishedAt: Date, now: Date): string {
  if (status === 'publish' && publishedAt > now) return 'future';
  if (status === 'future' && publishedAt <= now) return 'publish';
  return status;
}
