import { DateTime } from 'luxon';
import type { Prisma } from '../generated/sqlite/client.js';
import { WALL_CLOCK, endOfDayWall, startOfDayWall } from '../domain/dates.js';
import { invalidParams } from '../domain/errors.js';
import { type Viewer, listableStatuses } from '../domain/permissions.js';

/** The list filters both APIs share (REST names them in snake_case, GraphQL in camelCase). */
export interface EventListFilter {
  startDate?: string | null;
  endDate?: string | null;
  status?: string[] | null;
}

/** The filters as the list actually applied them: echoed in `rest_url` and the paging links. */
export interface EffectiveEventFilter {
  startDate: string | null;
  endDate: string | null;
  status: string[];
}

const DATE_FORMATS = [WALL_CLOCK, 'yyyy-MM-dd HH:mm', 'yyyy-MM-dd'];

/** Parses a date filter in the site zone; whole-day rounding as the reference's non-strict mode. */
function dayBound(input: string, zone: string, bound: 'start' | 'end'): string | null {
  const trimmed = input.trim();
  let parsed = DateTime.fromISO(trimmed, { zone });
  for (const format of DATE_FORMATS) {
    if (parsed.isValid) break;
    parsed = DateTime.fromFormat(trimmed, format, { zone });
  }
  if (!parsed.isValid && /^\d+$/.test(trimmed)) parsed = DateTime.fromSeconds(Number(trimmed), { zone });
  if (!parsed.isValid) return null;
  return (bound === 'start' ? parsed.startOf('day') : parsed.endOf('day')).toFormat(WALL_CLOCK);
}

export function resolveEventListFilter(
  filter: EventListFilter,
  viewer: Viewer,
  siteZone: string,
  now: Date = new Date(),
): { where: Prisma.EventWhereInput; orderBy: Prisma.EventOrderByWithRelationInput[]; effective: EffectiveEventFilter } {
  const bad: Record<string, string> = {};
  const startDate = filter.startDate
    ? dayBound(filter.startDate, siteZone, 'start')
    : startOfDayWall(now, siteZone, -1);
  const endDate = filter.endDate ? dayBound(filter.endDate, siteZone, 'end') : endOfDayWall(now, siteZone, 24);
  if (startDate === null) bad.start_date = 'Invalid parameter.';
  if (endDate === null) bad.end_date = 'Invalid parameter.';
  if (Object.keys(bad).length) throw invalidParams(bad);

  const { statuses: status, ownOnlyBeyondPublish } = listableStatuses(viewer, filter.status);
  const where: Prisma.EventWhereInput = {
    status: { in: status },
    ...(ownOnlyBeyondPublish ? { OR: [{ status: 'publish' }, { authorId: viewer.userId }] } : {}),
    hideFromListings: false,
    localStart: { gte: startDate as string },
    localEnd: { lte: endDate as string },
  };
  return {
    where,
    orderBy: [{ localStart: 'asc' }, { id: 'asc' }],
    effective: { startDate, endDate, status },
  };
}
