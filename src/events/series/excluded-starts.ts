import type { Db } from '../../core/db/client.js';
import { excludesFirstStart, parseRecurrence } from './recurrence.js';

// Rows written before `startExcluded` existed carry its default, false: a series whose set leaves out
// its first start would still list its first event there. Run at start, before any request: it marks
// those first events from their lines (the series writer keeps the flag true from then on). What it
// reads is the few first events whose lines hold an EXDATE and that are not marked yet.

/** Marks every first event whose set excludes its start; returns how many it marked. */
export async function markExcludedStarts(db: Db): Promise<number> {
  const candidates = await db.event.findMany({
    where: {
      recurrence: { contains: 'EXDATE' },
      startExcluded: false,
      OR: [{ postParentId: null }, { originalStart: null }],
    },
    select: { id: true, timezone: true, allDay: true, localStart: true, startsAt: true, recurrence: true },
  });
  const ids = candidates
    .filter((first) => {
      const parsed = parseRecurrence(first.recurrence!.split('\n'), first);
      return parsed.ok && excludesFirstStart(parsed.value, first);
    })
    .map((first) => first.id);
  if (ids.length) await db.event.updateMany({ where: { id: { in: ids } }, data: { startExcluded: true } });
  return ids.length;
}
