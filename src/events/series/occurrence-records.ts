import type { WriteScope } from '../../core/db/transactions.js';
import type { Occurrence } from './recurrence.js';
import { type RecurrenceScope, SERIES_COLUMNS, seriesRole } from './series-place.js';
import type { ChildRow, FirstEvent, scheduler } from './series-rows.js';

// The records other rooms keep per occurrence (the tickets room: its ticket types, copied from the
// series, and its own attendees). That room registers how it copies them to new occurrences; this module
// says which event each new occurrence copies from and, for a write of such records with a scope, which
// events of the series it reaches. Events never import those rooms (docs/internals/architecture.md).

/** A new occurrence of a series and the event of the series it copies per-event records from. */
export interface NewOccurrence {
  id: number;
  localStart: string;
  localEnd: string;
  status: string;
  timezone: string;
  from: { id: number; localStart: string };
}

type OccurrenceCopier = (w: WriteScope, created: readonly NewOccurrence[]) => Promise<void>;

const copiers: OccurrenceCopier[] = [];

/** Registers what a room copies to every occurrence a series write or the horizon creates. */
export function copyToNewOccurrences(copier: OccurrenceCopier): void {
  if (!copiers.includes(copier)) copiers.push(copier);
}

/** Runs every registered copier over the occurrences a write just created. */
export async function copyToNew(w: WriteScope, created: readonly NewOccurrence[]): Promise<void> {
  if (created.length) for (const copier of copiers) await copier(w, created);
}

/**
 * Which event a new slot copies from: the nearest earlier event of the series that still follows it
 * (the first event, or a regular occurrence whose slot the set keeps), so that an edit of "this and
 * following" reaches the slots the horizon adds later. Exceptions are detached: never copied from.
 */
export function templatesFor(
  first: FirstEvent,
  children: readonly ChildRow[],
  wanted: ReadonlySet<number>,
  scheduleOf: ReturnType<typeof scheduler>,
): (slot: Occurrence) => { id: number; localStart: string } {
  const candidates = [
    { at: first.startsAt.getTime(), id: first.id, localStart: first.localStart },
    ...children
      .filter((child) => !child.isException && wanted.has(child.originalStart.getTime()))
      .map((child) => ({
        at: child.originalStart.getTime(),
        id: child.id,
        // A regular occurrence stands in its slot (the whole-series edit just rescheduled it there).
        localStart: scheduleOf({ startsAt: child.originalStart }).localStart,
      })),
  ].sort((a, b) => a.at - b.at);
  return (slot) => {
    const at = slot.startsAt.getTime();
    // The last candidate before the slot (binary search: a series has thousands of them).
    let low = 0;
    let high = candidates.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (candidates[middle]!.at < at) low = middle;
      else high = middle - 1;
    }
    const { id, localStart } = candidates[low]!;
    return { id, localStart };
  };
}

/** An event of a series as a scoped write of its per-event records reaches it. */
export interface ScopedEvent {
  id: number;
  localStart: string;
  localEnd: string;
  status: string;
  timezone: string;
}

const SCOPED_SELECT = {
  ...SERIES_COLUMNS,
  id: true,
  localStart: true,
  localEnd: true,
  status: true,
  timezone: true,
} as const;

/**
 * The events a write of per-event records (ticket types) on `eventId` reaches, that event first, as the
 * event edits' scopes do: on an occurrence, `this` (default) is that occurrence, `following` it and the
 * later regular occurrences (no split: the series stays one), `all` the first event and every regular
 * occurrence; a first event's records are the whole series' (`all`, as an edit of its fields); a single
 * event is alone. Exceptions (detached by an edit of "this occurrence") keep their own, and so do the
 * cancelled (trashed) occurrences of a running series. Beyond one event, the first event's row is locked,
 * as the horizon locks it to create occurrences: none is created meanwhile without the records.
 */
export async function eventsInScope(
  w: WriteScope,
  eventId: number,
  scope: RecurrenceScope = 'this',
): Promise<ScopedEvent[]> {
  const { tx } = w;
  const event = await tx.event.findUniqueOrThrow({ where: { id: eventId }, select: SCOPED_SELECT });
  const role = seriesRole(event);
  const reach = role === 'first' ? 'all' : role === 'occurrence' ? scope : 'this';
  if (reach === 'this') return [event];
  const firstId = role === 'first' ? event.id : event.postParentId!;
  await w.lockRows('Event', [firstId]);
  const first = await tx.event.findUniqueOrThrow({ where: { id: firstId }, select: SCOPED_SELECT });
  const later = reach === 'following' ? { gt: event.originalStart! } : { not: null };
  const occurrences = await tx.event.findMany({
    where: {
      postParentId: firstId,
      originalStart: later,
      isException: false,
      ...(first.status === 'trash' ? {} : { status: { not: 'trash' } }),
    },
    select: SCOPED_SELECT,
    orderBy: { originalStart: 'asc' },
  });
  const others = [...(reach === 'all' ? [first] : []), ...occurrences].filter((row) => row.id !== event.id);
  return [event, ...others];
}
