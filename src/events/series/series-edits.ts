import { DateTime } from 'luxon';
import {
  type Recurrence,
  type RecurrencePattern,
  type SeriesKind,
  continueFrom,
  endBefore,
  excludeOccurrence,
  excludesFirstStart,
  formatRecurrence,
  parseRecurrence,
  recurrenceFromPattern,
} from './recurrence.js';
import { recount } from '../service/event-links.js';
import type { WriteScope } from '../../core/db/transactions.js';
import { seriesGroup } from './series-group.js';
import { type SeriesPlace, storedLines } from './series-place.js';
import {
  type ChildRow,
  type FirstEvent,
  loadChildren,
  loadFirst,
  orRefuse,
  recurrenceOf,
  slotOf,
} from './series-rows.js';
import { announce, announceListing, chunks, freeSlugs, linkedTerms, updateEach } from './series-batches.js';

// A series edited through one of its events, beside the sync (`event-series.ts`): its lines set, one
// occurrence excluded, the series ended (before an occurrence, or at its first event) or split, its
// occurrences removed with its first event, and the dates of a whole-series edit sent to an occurrence.

const isLines = (sent: readonly string[] | RecurrencePattern): sent is readonly string[] =>
  Array.isArray(sent);

/** The lines a client sent, checked against the series' zone and all-day flag, in canonical form. */
function checkedLines(lines: readonly string[], kind: SeriesKind): string[] {
  return formatRecurrence(orRefuse(parseRecurrence(lines, kind)));
}

/**
 * Stores a first event's set, sent as lines or as a pattern (canonical, checked against its zone and
 * all-day flag; a refusal names the field it was sent in).
 */
export async function setLines(
  w: WriteScope,
  eventId: number,
  sent: readonly string[] | RecurrencePattern,
): Promise<void> {
  const event = await w.tx.event.findUniqueOrThrow({
    where: { id: eventId },
    select: { timezone: true, allDay: true },
  });
  const canonical = isLines(sent)
    ? checkedLines(sent, event)
    : formatRecurrence(orRefuse(recurrenceFromPattern(sent, event), 'recurrencePattern'));
  await w.tx.event.update({ where: { id: eventId }, data: { recurrence: storedLines(canonical) } });
}

/**
 * Ends a series (`recurrence: []` or null on its first event): its occurrences are removed, the first
 * event stays as a single event.
 */
export async function endSeries(w: WriteScope, firstId: number): Promise<void> {
  const { tx } = w;
  w.group(seriesGroup(firstId));
  const children = await loadChildren(tx, firstId);
  const termIds = await linkedTerms(
    tx,
    children.map((child) => child.id),
  );
  for (const part of chunks(children.map((child) => child.id)))
    await tx.event.deleteMany({ where: { id: { in: part } } });
  for (const child of children) announce(w, child.id, 'deleted', child, null);
  const single = await tx.event.update({
    where: { id: firstId },
    data: { recurrence: null, startExcluded: false },
    select: { id: true, status: true, localStart: true, localEnd: true },
  });
  // A first event whose start its set excluded is listed again.
  announceListing(w, single);
  await recount(w, termIds);
}

/**
 * Every occurrence shows the series' lines and is versioned by its own row: when the lines change
 * without the rows (an EXDATE, a split), each row's version and revision move and it is announced.
 */
async function touchSeries(w: WriteScope, firstId: number, now: Date) {
  w.group(seriesGroup(firstId));
  const children = await loadChildren(w.tx, firstId);
  const { recurrence } = await w.tx.event.findUniqueOrThrow({
    where: { id: firstId },
    select: { recurrence: true },
  });
  for (const part of chunks(children.map((child) => child.id)))
    await w.tx.event.updateMany({
      where: { id: { in: part } },
      data: { recurrence, modifiedAt: now, revision: { increment: 1 } },
    });
  for (const child of children) announce(w, child.id, 'updated', child, child);
}

/** A series' first event row, its lines changed: it is written like any update (version, revision). */
async function rewriteLines(w: WriteScope, first: FirstEvent, recurrence: Recurrence, now: Date) {
  await w.tx.event.update({
    where: { id: first.id },
    data: {
      recurrence: storedLines(formatRecurrence(recurrence)),
      startExcluded: excludesFirstStart(recurrence, first),
      modifiedAt: now,
      revision: { increment: 1 },
    },
  });
  announce(w, first.id, 'updated', first, first);
}

/**
 * Deleting one occurrence: its slot becomes an EXDATE of the series, so no regeneration brings it back.
 * The caller trashes or deletes the row itself.
 */
export async function excludeFromSeries(w: WriteScope, occurrence: SeriesPlace, now: Date): Promise<void> {
  const first = await loadFirst(w.tx, occurrence.postParentId!);
  const slot = slotOf(occurrence.originalStart!, first.timezone);
  const recurrence = orRefuse(excludeOccurrence(recurrenceOf(first), slot, first));
  await rewriteLines(w, first, recurrence, now);
  await touchSeries(w, first.id, now);
}

/**
 * "This and following" on a delete: the series ends before the occurrence (UNTIL), and the occurrences
 * from it on are removed (trashed, or deleted with `force`) but the occurrence itself, left to the caller.
 */
export async function endSeriesBefore(
  w: WriteScope,
  occurrence: SeriesPlace,
  force: boolean,
  now: Date,
): Promise<void> {
  const { tx } = w;
  const first = await loadFirst(tx, occurrence.postParentId!);
  const slot = slotOf(occurrence.originalStart!, first.timezone);
  await rewriteLines(w, first, endBefore(recurrenceOf(first), slot, first), now);
  const children = await loadChildren(tx, first.id);
  const later = children.filter(
    (child) => child.originalStart >= slot.startsAt && child.id !== occurrence.id,
  );
  await removeRows(w, later, force, now);
  await touchSeries(w, first.id, now);
}

/** Trashes (or deletes, `force`) the occurrences of a series whose first event is trashed or deleted. */
export async function removeOccurrences(w: WriteScope, firstId: number, force: boolean, now: Date) {
  w.group(seriesGroup(firstId));
  await removeRows(w, await loadChildren(w.tx, firstId), force, now);
}

async function removeRows(w: WriteScope, rows: readonly ChildRow[], force: boolean, now: Date) {
  const { tx } = w;
  const targets = force ? rows : rows.filter((row) => row.status !== 'trash');
  if (!targets.length) return;
  const termIds = await linkedTerms(
    tx,
    targets.map((row) => row.id),
  );
  if (force) {
    for (const part of chunks(targets.map((row) => row.id)))
      await tx.event.deleteMany({ where: { id: { in: part } } });
    for (const row of targets) announce(w, row.id, 'deleted', row, null);
  } else {
    const wanted = targets.map((row) => (row.slug === null ? null : `${row.slug}__trashed`));
    const slugs = await freeSlugs(
      tx,
      wanted,
      targets.map((row) => row.id),
    );
    for (const part of chunks(targets.map((row) => row.id)))
      await tx.event.updateMany({
        where: { id: { in: part } },
        data: { status: 'trash', modifiedAt: now, revision: { increment: 1 } },
      });
    await updateEach(
      w,
      targets.flatMap((row, index) =>
        row.slug === null ? [] : [{ id: row.id, data: { slug: slugs[index]!, desiredSlug: row.slug } }],
      ),
    );
    for (const row of targets) announce(w, row.id, 'trashed', row, row);
  }
  await recount(w, termIds);
}

/**
 * "This and following" on an update: the series ends before the occurrence, which becomes the first
 * event of a new series (the same rule from there, or `lines`); the later occurrences move to it with
 * their ids. The caller then writes the input to it and syncs the new series as a whole.
 */
export async function splitAt(w: WriteScope, occurrence: SeriesPlace, now: Date): Promise<void> {
  const { tx } = w;
  const first = await loadFirst(tx, occurrence.postParentId!);
  const slot = slotOf(occurrence.originalStart!, first.timezone);
  const recurrence = recurrenceOf(first);
  const rest = orRefuse(continueFrom(recurrence, slot, first));
  await rewriteLines(w, first, endBefore(recurrence, slot, first), now);
  const later = (await loadChildren(tx, first.id)).filter(
    (child) => child.originalStart > slot.startsAt && child.id !== occurrence.id,
  );
  for (const part of chunks(later.map((child) => child.id)))
    await tx.event.updateMany({ where: { id: { in: part } }, data: { postParentId: occurrence.id } });
  await tx.event.update({
    where: { id: occurrence.id },
    data: {
      postParentId: null,
      originalStart: null,
      isException: false,
      recurrence: storedLines(formatRecurrence(rest)),
    },
  });
  await touchSeries(w, first.id, now);
}

/**
 * The dates of a whole-series edit sent to an occurrence (`scope: all`): the first event moves by as much
 * as the occurrence would, so "19:00 → 20:00" on any occurrence moves every one.
 */
export function shiftedToFirst(
  dates: { start?: DateTime; end?: DateTime },
  occurrence: { startsAt: Date; endsAt: Date },
  first: { startsAt: Date; endsAt: Date; timezone: string },
): { start?: DateTime; end?: DateTime } {
  const shift = (to: DateTime, from: Date, base: Date) =>
    DateTime.fromJSDate(new Date(base.getTime() + to.toMillis() - from.getTime()), { zone: first.timezone });
  return {
    ...(dates.start ? { start: shift(dates.start, occurrence.startsAt, first.startsAt) } : {}),
    ...(dates.end ? { end: shift(dates.end, occurrence.endsAt, first.endsAt) } : {}),
  };
}
