import type { Context, KeepRecords } from '../../../core/context/scope.js';
import { type Dependencies, recordTag } from '../../../core/cache/dependencies.js';
import { type Event, Prisma } from '../../../generated/sqlite/client.js';
import { ATTACHING_KEYS, type EventSelection, type ReadPlan, type Row, planOf } from './event-selection.js';
import { type EventRows, eventPage, eventRows } from './event-rows.js';
import { inIdOrder } from '../../../core/rules/ids.js';

export type { EventSelection } from './event-selection.js';

// Reading events with the records they link to, as both APIs select them (a Pothos selection: Prisma's
// `include` or `select`). A selection of the event's scalars, its image and author, and the families
// `event-selection.ts` names is read by one statement on both databases (`event-rows.ts`), whatever the
// page size: over the page's own conditions where `whereSql` writes them, otherwise over the ids Prisma
// finds for them (two statements). Any other selection is Prisma's (PostgreSQL joins relations into its
// one statement; SQLite sends one per relation level).
// Where the response cache is on, rows of selections made only of these are kept by id and version
// (`ResponseCache.keepRecords`): a read then sends one statement for its ids, and reads only the rows
// not kept. A write's transaction reads without them (its `EventReader` has no `keepRecords`).

/** What reading events needs: the database (or a write's transaction) and its provider. */
type EventReader = Pick<Context, 'db' | 'config'>;

/** The rows `args` finds, read by `plan`: with every key in `ATTACHING_KEYS`, asked for or not. */
async function readRows(
  ctx: EventReader,
  plan: ReadPlan,
  args: Omit<Prisma.EventFindManyArgs, 'select' | 'include'>,
): Promise<Row[]> {
  const { mode } = plan;
  if (!plan.statementReads) {
    const tree = plan.whole;
    const attaching =
      mode === 'select' ? { ...tree, ...Object.fromEntries(ATTACHING_KEYS.map((key) => [key, true])) } : tree;
    return (await ctx.db.event.findMany({ ...args, [mode]: attaching } as Prisma.EventFindManyArgs)) as Row[];
  }
  const provider = ctx.config.databaseProvider;
  const asShown = (found: EventRows[]): Row[] =>
    found.map(({ event, shown }) => ({
      ...shown,
      id: event.id,
      imageId: event.imageId,
      modifiedAt: event.modifiedAt,
    }));
  const page = eventPage(args);
  if (page) return asShown(await eventRows(ctx.db, provider, page, plan));
  // Conditions the page statement does not write (a search, a link filter): Prisma finds the ids.
  const ids = (await ctx.db.event.findMany({ ...args, select: { id: true } })).map(({ id }) => id);
  if (!ids.length) return [];
  const byIds = { where: Prisma.sql`e."id" IN (${Prisma.join(ids)})`, order: Prisma.raw('e."id"') };
  return inIdOrder(
    ids,
    asShown(await eventRows(ctx.db, provider, byIds, plan)) as Array<Row & { id: number }>,
  );
}

/**
 * The rows `args` finds, from the records kept by id and version: one statement for the ids and
 * versions, then the rows not kept read together (one statement per family) and kept.
 */
async function keptRows(
  ctx: EventReader,
  keepRecords: KeepRecords,
  plan: ReadPlan,
  args: Omit<Prisma.EventFindManyArgs, 'select' | 'include'>,
): Promise<Row[]> {
  const found = await ctx.db.event.findMany({ ...args, select: { id: true, modifiedAt: true } });
  const rows = await keepRecords<Row>(
    found.map(({ id, modifiedAt }) => `event ${plan.keptAs!} ${id} ${modifiedAt.getTime()}`),
    async (missing) => {
      const ids = missing.map((index) => found[index]!.id);
      const byId = new Map(
        (await readRows(ctx, plan, { where: { id: { in: ids } } })).map((row) => [row.id as number, row]),
      );
      return missing.map((index) => {
        const { id, modifiedAt } = found[index]!;
        const row = byId.get(id);
        if (!row) return undefined;
        // Written between the two statements: shown as it is now, kept under no older version.
        const current = (row.modifiedAt as Date).getTime() === modifiedAt.getTime();
        return { value: row, dependencies: current ? recordDependencies(row) : null };
      });
    },
  );
  // An event deleted between the two statements is left out, as a read a moment later would.
  return rows.filter((row): row is Row => row !== undefined);
}

/**
 * What a kept event row shows, as writes name it: the event, its linked venues and organizers (their
 * images are theirs), its terms and their parents, with their counts. Media rows never change. Null
 * when a link does not say which record it is (the selection did not read its key).
 */
function recordDependencies(row: Row): Dependencies | null {
  /** Each link's record id and record (as selected); null when one says neither. */
  const linked = (links: unknown, key: string, record: string) => {
    const found: Array<{ id: number; record: Row | undefined }> = [];
    for (const link of (links ?? []) as Row[]) {
      const shown = link[record] as Row | undefined;
      const id = (link[key] ?? shown?.id) as number | undefined;
      if (id === undefined) return null;
      found.push({ id, record: shown });
    }
    return found;
  };
  const venues = linked(row.venues, 'venueId', 'venue');
  const organizers = linked(row.organizers, 'organizerId', 'organizer');
  const terms = linked(row.terms, 'termId', 'term');
  if (!venues || !organizers || !terms) return null;
  const records = [recordTag('event', row.id as number)];
  for (const { id } of venues) records.push(recordTag('venue', id));
  for (const { id } of organizers) records.push(recordTag('organizer', id));
  for (const { id, record: term } of terms) {
    const parent = (term?.parentId ?? (term?.parent as Row | null | undefined)?.id) as
      number | null | undefined;
    if (term?.parent && parent === undefined) return null;
    for (const termId of parent === null || parent === undefined ? [id] : [id, parent])
      records.push(recordTag('term', termId), recordTag('term-count', termId));
  }
  return { records, kinds: [], windows: [] };
}

/**
 * `ctx.db.event.findMany({ ...selection, ...args })`, the page and its relation families read by one
 * statement where the selection allows (see above). Where records are kept (`ctx.keepRecords`), the
 * rows come from them by id and version: one statement for the ids, one more for the events not kept.
 */
export async function findEvents<T = Event>(
  ctx: EventReader & Pick<Context, 'keepRecords'>,
  selection: EventSelection,
  args: Omit<Prisma.EventFindManyArgs, 'select' | 'include'>,
): Promise<T[]> {
  const plan = planOf(selection);
  if (!plan)
    return (await ctx.db.event.findMany({ ...selection, ...args } as Prisma.EventFindManyArgs)) as T[];
  const { keepRecords } = ctx;
  const rows =
    keepRecords && plan.keptAs
      ? await keptRows(ctx, keepRecords, plan, args)
      : await readRows(ctx, plan, args);
  // The keys read only to attach families or key records go again, unless the selection asked for them.
  const unasked = plan.mode === 'select' ? ATTACHING_KEYS.filter((key) => plan.tree[key] !== true) : [];
  return rows.map((row) => {
    const copy = { ...row };
    for (const key of unasked) delete copy[key];
    return copy as T;
  });
}

/** One event by id or slug, read as `findEvents` reads a page. */
export async function findEvent(
  ctx: EventReader,
  selection: EventSelection,
  where: { id: number } | { slug: string },
): Promise<Event | null> {
  const [event] = await findEvents<Event>(ctx, selection, { where, take: 1 });
  return event ?? null;
}
