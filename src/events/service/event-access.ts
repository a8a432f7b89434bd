import type { Context } from '../../core/context/scope.js';
import type { Event, Prisma } from '../../generated/sqlite/client.js';
import { type Viewer, canRead, readableWhere } from '../../core/rules/permissions.js';
import { type Judged, assertReadable, judged } from '../../core/rules/visibility.js';
import { type EventSelection, findEvent, findEvents } from './reads/event-reads.js';
import { SLUGLESS } from './event-slugs.js';
import type { Tx } from '../../core/db/transactions.js';
import type { Db } from '../../core/db/client.js';
import { inIdOrder } from '../../core/rules/ids.js';

// What an event read outside the lists may show, decided here: single reads, the change stream, the
// subscriptions' re-reads and the writes' answers take their events from these functions, so none of
// their callers spells the visibility rule (`readableWhere`, `assertReadable`) or the content verdict
// (`judged`) itself. A list page is read with the conditions its query built (`events-query.ts`).

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
  return inIdOrder(ids, rows).map((row) => judged(row, ctx.viewer, password));
}

/**
 * An event by id or slug as a single read shows it: missing → 404, trashed or not readable → 403, a
 * protected one without its `password` → 403 (the reference's checks, `assertReadable`).
 * `unknownSlug`: the refusal of a slug that names no event to this viewer. WordPress gives drafts and
 * pending events no slug, so one the viewer may not read is no event to it (its readers still get it).
 */
export async function readEvent(
  ctx: Context,
  selection: EventSelection,
  key: { id: number } | { slug: string },
  password?: string | null,
  unknownSlug?: () => Error,
): Promise<Judged<Event>> {
  const event = await findEvent(ctx, selection, key);
  if ('slug' in key && unknownSlug && (!event || (SLUGLESS.has(event.status) && !canRead(ctx.viewer, event))))
    throw unknownSlug();
  return assertReadable('event', event, 'id' in key ? key.id : key.slug, ctx.viewer, password);
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
 * The event a write just made or changed, read inside its transaction for its answer (as a single
 * read reads it, in one statement): the write's own permission checks stand for
 * visibility here, and the write pipeline gives it its verdict.
 */
export function writtenEvent({ config }: Pick<Context, 'config'>, selection: EventSelection) {
  const load = async (tx: Tx, id: number): Promise<Event> => {
    const event = await findEvent({ db: tx as Db, config }, selection, { id });
    if (!event) throw new Error(`event ${id} went within its own write`);
    return event;
  };
  // The write may read the selection with the event before writing (`EventLoader.selection`).
  return Object.assign(load, { selection });
}
