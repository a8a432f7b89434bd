import { DateTime } from 'luxon';
import type { Config } from '../../core/config/config.js';
import type { Db } from '../../core/db/client.js';
import { DATE_YEARS } from '../../core/rules/dates.js';
import type { EffectiveEventFilter, FilterName } from '../model/filter-catalog.js';

// The list counts (`EventListCount`, migration `event_list_counts`): the listed events (`LISTED`)
// counted by status and by the days of their local start and end, kept exact by the database's own
// triggers on every write of an event (`src/core/db/queries/list-counts.ts` folds PostgreSQL's deltas). A list's total whose conditions are all expressible over those
// buckets — whole-day bounds of the window, a set of statuses, nothing else — is a sum over the
// buckets in range (a few per day of the window, whatever the number of events) instead of a count of
// every matching index entry; any other total is counted as before (`countEventsWhere`).

/** The buckets a total sums: statuses, and inclusive ranges of start and end days (`YYYY-MM-DD`). */
export interface ListBuckets {
  statuses: readonly string[];
  startDays: readonly [from: string, to: string];
  endDays: readonly [from: string, to: string];
}

/** Past every day string, before every day string (the bounds a side without a condition takes). */
const FIRST_DAY = '0000-00-00';
const LAST_DAY = '9999-99-99';
const DAY_STARTS = ' 00:00:00';
const DAY_ENDS = ' 23:59:59';

/** The filters a bucketed total may have applied: the window's bounds, their rounding and the statuses. */
const BUCKETED: ReadonlySet<FilterName> = new Set<FilterName>([
  'startDate',
  'endDate',
  'startsBefore',
  'startsAfter',
  'endsBefore',
  'endsAfter',
  'strictDates',
  'status',
]);

/** The day `days` after `day`; past the stored years, a bound that holds every stored day. */
function shift(day: string, days: number): string {
  const shifted = DateTime.fromISO(day, { zone: 'UTC' }).plus({ days });
  if (shifted.year > DATE_YEARS.max) return LAST_DAY;
  if (shifted.year < DATE_YEARS.min) return FIRST_DAY;
  return shifted.toISODate() ?? LAST_DAY;
}

const later = (a: string, b: string) => (a > b ? a : b);
const earlier = (a: string, b: string) => (a < b ? a : b);

/**
 * The buckets whose sum is exactly the list's total, or null when a condition is not expressible over
 * them: a filter other than the window and the statuses, a bound inside a day (`strict_dates` at a
 * given time; inclusive `starts_before`/`ends_before`, which end a second before midnight), or a
 * viewer who lists others' events in one status only and their own in others (authors).
 *
 * The bounds as `event-filters.ts` applies them to the events' wall-clocks: `localStart >= D 00:00:00`
 * is a start day ≥ D, `> D 23:59:59` ≥ D + 1, `< D 00:00:00` ≤ D − 1; the same of `localEnd`,
 * and `<= D 23:59:59` ≤ D. An end bound also bounds the start (`localStart` before the day after it,
 * said by the filter for its index): an event never starts more than a day after it ends, so the
 * start day is at most the end day's next one, and the sum reads only the buckets of the window.
 */
export function listBuckets(
  effective: EffectiveEventFilter,
  ownOnlyBeyondPublish: boolean,
): ListBuckets | null {
  for (const name of Object.keys(effective) as FilterName[]) {
    if (!BUCKETED.has(name) && effective[name] !== null) return null;
  }
  const statuses = effective.status?.statuses;
  if (!statuses?.length) return null;
  if (ownOnlyBeyondPublish && statuses.some((status) => status !== 'publish')) return null;
  let [startFrom, startTo, endFrom, endTo] = [FIRST_DAY, LAST_DAY, FIRST_DAY, LAST_DAY];
  const at = (wall: string | null, time: string): string | null | undefined => {
    if (wall === null) return undefined;
    return wall.endsWith(time) ? wall.slice(0, 10) : null;
  };
  const bounds = [
    // [wall, the time it must fall on, what it bounds]
    [effective.startDate, DAY_STARTS, (day: string) => (startFrom = later(startFrom, day))],
    [effective.startsAfter, DAY_ENDS, (day: string) => (startFrom = later(startFrom, shift(day, 1)))],
    [effective.startsBefore, DAY_STARTS, (day: string) => (startTo = earlier(startTo, shift(day, -1)))],
    [
      effective.endDate,
      DAY_ENDS,
      (day: string) => {
        endTo = earlier(endTo, day);
        startTo = earlier(startTo, shift(day, 1));
      },
    ],
    [
      effective.endsBefore,
      DAY_STARTS,
      (day: string) => {
        endTo = earlier(endTo, shift(day, -1));
        startTo = earlier(startTo, day);
      },
    ],
    [effective.endsAfter, DAY_ENDS, (day: string) => (endFrom = later(endFrom, shift(day, 1)))],
  ] as const;
  for (const [wall, time, bound] of bounds) {
    const day = at(wall, time);
    if (day === null) return null;
    if (day !== undefined) bound(day);
  }
  return { statuses: [...statuses].sort(), startDays: [startFrom, startTo], endDays: [endFrom, endTo] };
}

/** The total of the listed events in the buckets: one statement, whatever the window. */
export async function countListed(
  db: Db,
  provider: Config['databaseProvider'],
  { statuses, startDays, endDays }: ListBuckets,
): Promise<number> {
  const mark = provider === 'postgresql' ? (n: number) => `$${n}` : () => '?';
  const statusMarks = statuses.map((_, i) => mark(i + 1)).join(', ');
  const n = statuses.length;
  const rows = await db.$queryRawUnsafe<Array<{ total: number | bigint | null }>>(
    `SELECT COALESCE(SUM("count"), 0) AS "total" FROM "EventListCount" WHERE "status" IN (${statusMarks})` +
      ` AND "startDay" >= ${mark(n + 1)} AND "startDay" <= ${mark(n + 2)}` +
      ` AND "endDay" >= ${mark(n + 3)} AND "endDay" <= ${mark(n + 4)}`,
    ...statuses,
    ...startDays,
    ...endDays,
  );
  return Number(rows[0]?.total ?? 0);
}
