import type { Context } from '../scope.js';
import type { Event, Prisma } from '../../generated/sqlite/client.js';
import { type Viewer, readableWhere } from '../../domain/permissions.js';
import { type Judged, judged } from '../../domain/visibility.js';
import { type EventSelection, findEvents } from './event-reads.js';
import type { Tx } from '../transactions.js';

// What an event read outside the lists may show, decided here: the change stream, the subscriptions'
// re-reads and the writes' answers take their events from these functions, so none of their callers
// spells the visibility rule (`readableWhere`) or the content verdict (`judged`) itself.

/** The events `viewer` may read (published, and the private and unpublished ones their role opens). */
export function eventsVisibleTo(viewer: Viewer): Prisma.EventWhereInput {
  return readableWhere(viewer) as Prisma.EventWhereInput;
}

/**
 * These events as the viewer may read them now, in the order of `ids` (those it may not read left
 * out), each with the verdict on its content for `password`.
 */
export async function visibleEvents(
  ctx: Context,
  ids: readonly number[],
  selection: EventSelection,
  password?: string | null,
): Promise<Array<Judged<Event>>> {
  if (!ids.length) return [];
  const rows = await findEvents<Event>(ctx, selection, {
    where: { AND: [{ id: { in: [...ids] } }, eventsVisibleTo(ctx.viewer)] },
  });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [judged(row, ctx.viewer, password)] : [];
  });
}

/** One event as the viewer may read it now, or null. */
export async function visibleEvent(
  ctx: Context,
  id: number,
  selection: EventSelection,
  password?: string | null,
): Promise<Judged<Event> | null> {
  const [event] = await visibleEvents(ctx, [id], selection, password);
  return event ?? null;
}

/**
 * The event a write just made or changed, read inside its transaction for its answer: the write's
 * own permission checks stand for visibility here, and the write pipeline gives it its verdict.
 */
export function writtenEvent(selection: EventSelection) {
  return (tx: Tx, id: number): Promise<Event> =>
    tx.event.findUniqueOrThrow({ ...selection, where: { id } } as Prisma.EventFindUniqueOrThrowArgs);
}
