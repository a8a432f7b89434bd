import type { Context } from '../../core/context/scope.js';
import type { Db } from '../../core/db/client.js';
import type { Media, Organizer, Venue } from '../../generated/sqlite/client.js';
import { type PostWhere, type Viewer, readableWhere } from '../../core/rules/permissions.js';
import { type Judged, assertReadable } from '../../core/rules/visibility.js';
import type { ArchivePage } from '../../core/db/queries/archive.js';
import type { LinkedKind } from './linked-lists.js';
import type { LinkedKey, LinkedRow } from './linked-posts.js';
import type { Tx } from '../../core/db/transactions.js';
import { inIdOrder } from '../../core/rules/ids.js';

// What a venue or organizer read may show, decided here for both kinds: single reads (by id, by slug),
// the rows of a list page, the change stream and the subscriptions' re-reads, and the writes' answers.
// The APIs hand a selection (a Pothos query: Prisma's `include` or `select`) and get rows back; none
// of them spells the visibility rule. A protected record's content is blanked by the fields
// (`passwordHides`), not here.

interface LinkedModels {
  venue: Venue;
  organizer: Organizer;
}

/** What the APIs select of a record: Prisma's `include` or `select`. */
interface LinkedSelection {
  include?: object;
  select?: object;
}

/** What the REST representation reads of a record: all of it, and its image. */
export const WITH_IMAGE = { include: { image: true } } as const;
export type WithImage<K extends LinkedKind> = LinkedModels[K] & { image: Media | null };

/** The calls made here, which both kinds' delegates answer alike. */
interface LinkedDelegate {
  findMany(args: object): Promise<LinkedRow[]>;
  findUnique(args: object): Promise<LinkedRow | null>;
  findUniqueOrThrow(args: object): Promise<LinkedRow>;
}

function delegate(db: Db | Tx, kind: LinkedKind): LinkedDelegate {
  return (kind === 'venue' ? db.venue : db.organizer) as unknown as LinkedDelegate;
}

/** The venues or organizers `viewer` may read (published, and the others their role opens). */
export function linkedVisibleTo(viewer: Viewer): PostWhere {
  return readableWhere(viewer);
}

/**
 * A venue or organizer by id or slug, as a single read shows it: missing → 404, not readable → 403
 * (the reference's checks, `assertReadable`).
 */
export async function readLinked<K extends LinkedKind, T = LinkedModels[K]>(
  ctx: Context,
  kind: K,
  key: LinkedKey,
  selection: LinkedSelection = {},
): Promise<Judged<T>> {
  const row = await delegate(ctx.db, kind).findUnique({ ...selection, where: key });
  return assertReadable(kind, row, 'id' in key ? key.id : key.slug, ctx.viewer) as unknown as Judged<T>;
}

/** The rows of a list page, in its order: the page's conditions (its visibility included) are the list's. */
export async function linkedPageRows<K extends LinkedKind, T = LinkedModels[K]>(
  ctx: Context,
  kind: K,
  page: Pick<ArchivePage<object, object>, 'where' | 'orderBy' | 'skip' | 'take'>,
  selection: LinkedSelection = {},
): Promise<T[]> {
  const { where, orderBy, skip, take } = page;
  return (await delegate(ctx.db, kind).findMany({ ...selection, where, orderBy, skip, take })) as T[];
}

/** These records as the viewer may read them now, in the order of `ids` (the others left out). */
export async function visibleLinked<K extends LinkedKind, T = LinkedModels[K]>(
  ctx: Context,
  kind: K,
  ids: readonly number[],
  selection: LinkedSelection = {},
): Promise<T[]> {
  if (!ids.length) return [];
  const rows = await delegate(ctx.db, kind).findMany({
    ...selection,
    where: { id: { in: [...ids] }, AND: [linkedVisibleTo(ctx.viewer)] },
  });
  return inIdOrder(ids, rows) as T[];
}

/**
 * The record a write just made or changed, read inside its transaction for its answer: the write's
 * own permission checks stand for visibility here.
 */
export function writtenLinked<K extends LinkedKind, T = LinkedModels[K]>(
  kind: K,
  selection: LinkedSelection = {},
) {
  return async (tx: Tx, id: number): Promise<T> =>
    (await delegate(tx, kind).findUniqueOrThrow({ ...selection, where: { id } })) as T;
}
