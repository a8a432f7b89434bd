import type { EventSpan } from '../../core/cache/dependencies.js';
import { type Occurrence, type Recurrence, excludesFirstStart } from './recurrence.js';
import type { RecurrenceField } from '../service/event-input.js';
import { recount } from '../service/event-links.js';
import type { WriteScope } from '../../core/db/transactions.js';
import { seriesGroup } from './series-group.js';
import {
  type ChildRow,
  type FirstEvent,
  SERIES_WIDE,
  type SeriesSettings,
  laterSlots,
  loadChildren,
  loadFirst,
  recurrenceOf,
  scheduler,
  seriesValues,
} from './series-rows.js';
import {
  type Value,
  announce,
  announceListing,
  chunks,
  copyLinks,
  freeSlugs,
  insertEvents,
  linkedTerms,
  updateEach,
} from './series-batches.js';
import { copyToNew, templatesFor } from './occurrence-records.js';

// Recurring events (docs/reference/recurrence.md, docs/guide/series.md): a series is its first event
// plus recurrence lines (`Event.recurrence`); every later occurrence is an event of its own whose
// `postParentId` is the first event and whose `originalStart` is the slot the rule gave it, so lists,
// filters, feeds, the change stream and the caches treat it as any event. The writes in
// `event-writes.ts` call the series writers inside their transaction. This one, the sync, turns the
// first event's values and lines into occurrence rows (created, updated or removed in batches) and
// announces every row it touches; the edits through one event (split, end, exclusion) are
// `series-edits.ts`. A refused set throws a 400 naming `recurrence`, so nothing is written.

interface SyncOptions {
  now: Date;
  settings: SeriesSettings;
  /**
   * `all`: the whole series takes the first event's values (exceptions keep theirs, but the series-wide
   * status, password and listing flag) and links when `relink`; `extend`: only the slots the horizon
   * newly reaches are created (the periodic extension), nothing else is touched.
   */
  mode: 'all' | 'extend';
  relink?: boolean;
  /** The field the set was just sent in, named by a refusal (past the cap). */
  field?: RecurrenceField;
}

/**
 * Brings the occurrence rows of a series in line with its first event: missing slots created, rows of
 * slots the set no longer has removed (a trashed one stays: a cancelled instance), the others updated
 * (`all`). Each row keeps its id while its slot exists. Returns the ids it created, changed or removed.
 */
export async function syncSeries(w: WriteScope, firstId: number, options: SyncOptions): Promise<number[]> {
  const { tx } = w;
  w.group(seriesGroup(firstId));
  const first = await loadFirst(tx, firstId);
  const slots = laterSlots(first, options.settings, options.now, options.field);
  // A write to the whole series may change its set or its first start (the extension changes neither).
  if (options.mode === 'all') await markStart(w, first, recurrenceOf(first));
  const children = await loadChildren(tx, firstId);
  const byTime = new Map(children.map((child) => [child.originalStart.getTime(), child]));
  const wanted = new Set(slots.map((slot) => slot.startsAt.getTime()));
  const missing = slots.filter((slot) => !byTime.has(slot.startsAt.getTime()));
  const touched: number[] = [];
  const termIds: number[] = [];

  if (options.mode === 'all') {
    const gone = children.filter(
      (child) => !wanted.has(child.originalStart.getTime()) && child.status !== 'trash',
    );
    if (gone.length) {
      termIds.push(
        ...(await linkedTerms(
          tx,
          gone.map((child) => child.id),
        )),
      );
      for (const part of chunks(gone.map((child) => child.id)))
        await tx.event.deleteMany({ where: { id: { in: part } } });
      for (const child of gone) announce(w, child.id, 'deleted', child, null);
      touched.push(...gone.map((child) => child.id));
    }
    const kept = children.filter((child) => wanted.has(child.originalStart.getTime()));
    touched.push(...(await updateKept(w, first, kept, options)));
    if (options.relink) {
      const regular = kept.filter((child) => !child.isException).map((child) => child.id);
      termIds.push(...(await copyLinks(tx, first.id, regular, true)));
    }
  }

  if (missing.length) {
    const scheduleOf = scheduler(first);
    // Taken before the rows are written: the events the new occurrences copy per-event records from.
    const templates = templatesFor(first, children, wanted, scheduleOf);
    const slugs = await freeSlugs(tx, occurrenceSlugs(first, missing, daysWithSeveral(slots)));
    const values = seriesValues(first);
    const modifiedAt = options.now;
    const created = await insertEvents(
      tx,
      missing.map((slot, index) => {
        const slug = slugs[index]!;
        return {
          ...values,
          ...scheduleOf(slot),
          slug,
          desiredSlug: first.status === 'trash' ? (slug?.replace(/__trashed$/, '') ?? '') : null,
          postParentId: first.id,
          originalStart: slot.startsAt,
          modifiedAt,
        };
      }),
    );
    for (const row of created) announce(w, row.id, 'created', null, row);
    termIds.push(
      ...(await copyLinks(
        tx,
        first.id,
        created.map((row) => row.id),
        false,
      )),
    );
    touched.push(...created.map((row) => row.id));
    await copyToNew(
      w,
      created.map((row, index) => ({
        id: row.id,
        localStart: row.localStart,
        localEnd: row.localEnd,
        status: first.status,
        timezone: first.timezone,
        from: templates(missing[index]!),
      })),
    );
  }
  if (termIds.length) await recount(w, termIds);
  return touched;
}

/** `first-slug-2027-01-05`, with the time where the series has several occurrences on one day. */
function occurrenceSlugs(
  first: FirstEvent,
  slots: readonly Occurrence[],
  sameDay: Set<string>,
): Array<string | null> {
  if (first.slug === null) return slots.map(() => null);
  const base = first.slug.replace(/__trashed(-\d+)?$/, '');
  return slots.map((slot) => {
    const day = slot.localStart.slice(0, 10);
    const suffix = sameDay.has(day) ? `${day}-${slot.localStart.slice(11, 16).replace(':', '')}` : day;
    return `${base}-${suffix}${first.status === 'trash' ? '__trashed' : ''}`;
  });
}

function daysWithSeveral(slots: readonly Occurrence[]): Set<string> {
  const seen = new Set<string>();
  const several = new Set<string>();
  for (const slot of slots) {
    const day = slot.localStart.slice(0, 10);
    if (seen.has(day)) several.add(day);
    seen.add(day);
  }
  return several;
}

/**
 * The kept occurrences after an edit of the whole series: the regular ones take the series' values in one
 * statement (and their times where the length changed), the exceptions only the series-wide columns;
 * each row's slug follows its status into and out of the trash.
 */
async function updateKept(
  w: WriteScope,
  first: FirstEvent,
  kept: readonly ChildRow[],
  options: SyncOptions,
): Promise<number[]> {
  if (!kept.length) return [];
  const { tx } = w;
  const regular = kept.filter((child) => !child.isException);
  const exceptions = kept.filter((child) => child.isException);
  const stamp = { modifiedAt: options.now, revision: { increment: 1 } };
  const values = seriesValues(first);
  for (const part of chunks(regular.map((child) => child.id)))
    await tx.event.updateMany({ where: { id: { in: part } }, data: { ...values, ...stamp } });
  const wide = Object.fromEntries(SERIES_WIDE.map((name) => [name, first[name]]));
  for (const part of chunks(exceptions.map((child) => child.id)))
    await tx.event.updateMany({ where: { id: { in: part } }, data: { ...wide, ...stamp } });

  const scheduleOf = scheduler(first);
  const after = new Map<number, EventSpan>();
  const moved: Array<{ id: number; data: Record<string, Value> }> = [];
  for (const child of regular) {
    const schedule = scheduleOf({ startsAt: child.originalStart });
    after.set(child.id, schedule);
    if (schedule.localStart !== child.localStart || schedule.localEnd !== child.localEnd)
      moved.push({ id: child.id, data: schedule });
  }
  await updateEach(w, moved);
  await followStatus(w, first, kept);
  for (const child of kept)
    announce(
      w,
      child.id,
      first.status === 'trash' ? 'trashed' : 'updated',
      child,
      after.get(child.id) ?? child,
    );
  return kept.map((child) => child.id);
}

/** Occurrence slugs into the trash (`…__trashed`, the old one kept) and out of it, as one event's do. */
async function followStatus(w: WriteScope, first: FirstEvent, rows: readonly ChildRow[]): Promise<void> {
  const { tx } = w;
  const trashing = first.status === 'trash';
  const moving = rows.filter((row) => (row.status === 'trash') !== trashing && (row.slug ?? row.desiredSlug));
  if (!moving.length) return;
  const wanted = moving.map((row) => (trashing ? `${row.slug}__trashed` : row.desiredSlug || null));
  const slugs = await freeSlugs(
    tx,
    wanted,
    moving.map((row) => row.id),
  );
  await updateEach(
    w,
    moving.map((row, index) => ({
      id: row.id,
      data: { slug: slugs[index]!, desiredSlug: trashing ? row.slug : null },
    })),
  );
}

/**
 * Keeps a first event's `startExcluded` true to its set and its start, which a write to the whole series
 * may both change: a series whose set leaves out its first start is still held by the first event (its
 * id, values and lines, read by id), but no list holds it (`LISTED`). Written as derived state, in the
 * transaction of the write that moved the event's version.
 */
async function markStart(w: WriteScope, first: FirstEvent, recurrence: Recurrence): Promise<void> {
  const excluded = excludesFirstStart(recurrence, first);
  if (excluded === first.startExcluded) return;
  await w.tx.$executeRaw`UPDATE "Event" SET "startExcluded" = ${excluded} WHERE "id" = ${first.id}`;
  announceListing(w, first);
}
