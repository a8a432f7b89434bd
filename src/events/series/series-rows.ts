import { DateTime } from 'luxon';
import type { Config } from '../../core/config/config.js';
import { DECLARED_NAMES, type DeclaredName, namesOnSeries } from '../model/event-fields.js';
import { eventSchedule, wallClock } from '../../core/rules/dates.js';
import {
  type Occurrence,
  type Recurrence,
  type RecurrenceResult,
  expandRecurrence,
  parseRecurrence,
  recurrenceInvalid,
} from './recurrence.js';
import type { RecurrenceField } from '../service/event-input.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import type { Tx } from '../../core/db/transactions.js';
import { linesOf } from './series-place.js';

// A series' rows as its writers read them: the first event (and which of its columns it decides for
// every occurrence) and its occurrences, with the slots and the times its set gives them.

export type SeriesSettings = Config['series'];

/**
 * Whether each column is the series' (copied from the first event to every occurrence an edit of the
 * whole series reaches) or the occurrence's own. Every column is listed (the compiler checks it): a new
 * column is a decision; a declared field's is its declaration's (`series`), both kinds being copied.
 */
const HAND_COPIED: Record<Exclude<Prisma.EventScalarFieldEnum, DeclaredName>, boolean> = {
  id: false,
  slug: false,
  desiredSlug: false,
  title: true,
  description: true,
  excerpt: true,
  status: true,
  password: true,
  authorId: true,
  publishedAt: true,
  postDate: true,
  modifiedAt: false,
  startsAt: false,
  endsAt: false,
  localStart: false,
  localEnd: false,
  timezone: true,
  allDay: true,
  cost: true,
  currencySymbol: true,
  currencyCode: true,
  currencyPosition: true,
  website: true,
  postParentId: false,
  imageId: true,
  eventStatus: true,
  eventStatusReason: true,
  revision: false,
  recurrence: true,
  originalStart: false,
  isException: false,
  startExcluded: false,
};
const COPIED_NAMES: Prisma.EventScalarFieldEnum[] = [
  ...(Object.keys(HAND_COPIED) as Array<keyof typeof HAND_COPIED>).filter((name) => HAND_COPIED[name]),
  ...DECLARED_NAMES,
];
/** What the first event decides for every occurrence, exceptions included. */
export const SERIES_WIDE = ['status', 'password', 'recurrence', ...namesOnSeries('series-wide')] as const;

const FIRST_SELECT = {
  ...Object.fromEntries(COPIED_NAMES.map((name) => [name, true])),
  id: true,
  slug: true,
  startsAt: true,
  endsAt: true,
  localStart: true,
  localEnd: true,
  startExcluded: true,
} as const;

type SeriesValues = Pick<Prisma.EventUncheckedCreateInput, (typeof COPIED_NAMES)[number]>;
export interface FirstEvent extends SeriesValues {
  id: number;
  slug: string | null;
  status: string;
  timezone: string;
  allDay: boolean;
  startsAt: Date;
  endsAt: Date;
  localStart: string;
  localEnd: string;
  recurrence: string | null;
  startExcluded: boolean;
}

export interface ChildRow {
  id: number;
  originalStart: Date;
  isException: boolean;
  status: string;
  slug: string | null;
  desiredSlug: string | null;
  localStart: string;
  localEnd: string;
  startsAt: Date;
  endsAt: Date;
}

const CHILD_SELECT = {
  id: true,
  originalStart: true,
  isException: true,
  status: true,
  slug: true,
  desiredSlug: true,
  localStart: true,
  localEnd: true,
  startsAt: true,
  endsAt: true,
} as const;

/** The first event's values of the columns every occurrence takes from it. */
export function seriesValues(first: FirstEvent): SeriesValues {
  return Object.fromEntries(
    COPIED_NAMES.map((name) => [name, first[name as keyof FirstEvent]]),
  ) as SeriesValues;
}

export async function loadFirst(tx: Tx, id: number): Promise<FirstEvent> {
  return (await tx.event.findUniqueOrThrow({ where: { id }, select: FIRST_SELECT })) as FirstEvent;
}

export async function loadChildren(tx: Tx, firstId: number): Promise<ChildRow[]> {
  return (await tx.event.findMany({
    where: { postParentId: firstId, originalStart: { not: null } },
    select: CHILD_SELECT,
    orderBy: { originalStart: 'asc' },
  })) as ChildRow[];
}

/** The value, or a refused set as a 400 naming the field it was sent in. */
export function orRefuse<T>(result: RecurrenceResult<T>, field: RecurrenceField = 'recurrence'): T {
  if (!result.ok) throw recurrenceInvalid(result.problem, field);
  return result.value;
}

export function recurrenceOf(first: FirstEvent): Recurrence {
  return orRefuse(parseRecurrence(linesOf(first.recurrence), first));
}

/** The slot of an occurrence as the recurrence functions take it. */
export function slotOf(originalStart: Date, timezone: string): Occurrence {
  return { localStart: wallClock(originalStart, timezone), startsAt: originalStart };
}

function horizonOf(settings: SeriesSettings, now: Date): Date {
  return DateTime.fromJSDate(now).plus({ months: settings.horizonMonths }).toJSDate();
}

/** The slots of the series after its first start, before the horizon (a refusal past the cap). */
export function laterSlots(
  first: FirstEvent,
  settings: SeriesSettings,
  now: Date,
  field?: RecurrenceField,
): Occurrence[] {
  const occurrences = orRefuse(
    expandRecurrence(
      recurrenceOf(first),
      {
        timezone: first.timezone,
        allDay: first.allDay,
        localStart: first.localStart,
        startsAt: first.startsAt,
      },
      { horizon: horizonOf(settings, now), cap: settings.maxOccurrences },
    ),
    field,
  );
  return occurrences.filter((slot) => slot.startsAt.getTime() !== first.startsAt.getTime());
}

/**
 * An occurrence's times: its slot and the first event's length (whole days for an all-day series, each
 * ending at the end of its last day), computed once per series: a series has thousands of slots.
 */
export function scheduler(first: FirstEvent): (slot: { startsAt: Date }) => ReturnType<typeof eventSchedule> {
  const zone = first.timezone;
  if (first.allDay) {
    const firstDay = (wall: string) => DateTime.fromFormat(wall.slice(0, 10), 'yyyy-MM-dd', { zone: 'UTC' });
    const days = Math.round(firstDay(first.localEnd).diff(firstDay(first.localStart), 'days').days);
    return (slot) => {
      const end = DateTime.fromJSDate(slot.startsAt, { zone }).plus({ days }).endOf('day').startOf('second');
      return eventSchedule(slot.startsAt, end.toJSDate(), zone);
    };
  }
  const length = first.endsAt.getTime() - first.startsAt.getTime();
  return (slot) => eventSchedule(slot.startsAt, new Date(slot.startsAt.getTime() + length), zone);
}
