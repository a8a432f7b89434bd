import type { Context, KeepRecords } from '../../../core/context/scope.js';
import { type Dependencies, recordTag } from '../../../core/cache/dependencies.js';
import { type Event, Prisma } from '../../../generated/sqlite/client.js';
import {
  ATTACHING_KEYS,
  type EventSelection,
  type LinkFamily,
  type ReadPlan,
  type Row,
  type Shape,
  type Tree,
  columns,
  ident,
  pick,
  planOf,
} from './event-selection.js';
import { eventPage, eventRows } from './event-rows.js';

export type { EventSelection } from './event-selection.js';

// Reading events with the records they link to, as both APIs select them (a Pothos selection: Prisma's
// `include` or `select`). A selection of the event's scalars and the families `event-selection.ts`
// names, over a page of plain conditions (`whereSql`), is read in one statement on both databases
// (`event-rows.ts`), whatever the page size. Otherwise Prisma finds the events: PostgreSQL joins their
// relations into its one statement (relationJoins); without relation joins (SQLite) Prisma would send
// one statement per relation level (nine for a list's image, venue links, venues, their images, …), so
// each family is one joined statement of its own here.
// Where the response cache is on, rows of selections made only of these are kept by id and version
// (`ResponseCache.keepRecords`): a read then sends one statement for its ids, and reads only the rows
// not kept. A write's transaction reads without them (its `EventReader` has no `keepRecords`).

/** What reading events needs: the database (or a write's transaction) and its provider. */
type EventReader = Pick<Context, 'db' | 'config'>;

/** The links of these events as the shape asks for them, in link order, by event id. */
async function loadLinks(ctx: EventReader, family: LinkFamily, shape: Shape, eventIds: number[]) {
  const record = shape.relations[family.record];
  const nested = record?.relations[family.nested.key];
  const n = family.nested;
  const sql = Prisma.sql`SELECT ${Prisma.raw(
    [
      columns('l', family.link.scalars, 'l_'),
      ...(record ? [columns('r', record.fields, 'r_')] : []),
      ...(nested ? [`n."id" AS "n_id"`, columns('n', nested.fields, 'n_')] : []),
    ].join(', '),
  )}
    FROM ${ident(family.table)} l
    ${record ? Prisma.sql`JOIN ${ident(family.recordTable)} r ON r."id" = l.${ident(family.key)}` : Prisma.empty}
    ${nested ? Prisma.sql`LEFT JOIN ${ident(n.table)} n ON n."id" = r.${ident(n.column)}` : Prisma.empty}
    WHERE l."eventId" IN (${Prisma.join(eventIds)})
    ORDER BY l."eventId", l."position", l.${ident(family.key)}`;
  const byEvent = new Map<number, Row[]>();
  for (const row of await ctx.db.$queryRaw<Row[]>(sql)) {
    const link = pick(row, shape.fields, 'l_');
    if (record) {
      const linked = pick(row, record.fields, 'r_');
      if (nested) linked[n.key] = row.n_id === null ? null : pick(row, nested.fields, 'n_');
      link[family.record] = linked;
    }
    const eventId = row.l_eventId as number;
    const links = byEvent.get(eventId);
    if (links) links.push(link);
    else byEvent.set(eventId, [link]);
  }
  return byEvent;
}

/** The events' images by id (one statement). */
async function loadImages(ctx: EventReader, shape: Shape, imageIds: number[]) {
  if (!imageIds.length) return new Map<number, Row>();
  const rows = await ctx.db.$queryRaw<Row[]>`SELECT ${Prisma.raw(
    [`m."id" AS "m_id"`, columns('m', shape.fields, '')].join(', '),
  )} FROM "Media" m WHERE m."id" IN (${Prisma.join(imageIds)})`;
  return new Map(rows.map((row) => [row.m_id as number, pick(row, shape.fields, '')]));
}

/** The rows `args` finds, read by `plan`: with every key in `ATTACHING_KEYS`, asked for or not. */
async function readRows(
  ctx: EventReader,
  plan: ReadPlan,
  args: Omit<Prisma.EventFindManyArgs, 'select' | 'include'>,
): Promise<Row[]> {
  const page = plan.statementReads ? eventPage(args) : null;
  if (page)
    return (await eventRows(ctx.db, ctx.config.databaseProvider, page, plan)).map(({ event, shown }) => ({
      ...shown,
      id: event.id,
      imageId: event.imageId,
      modifiedAt: event.modifiedAt,
    }));
  const { mode, image, links } = plan;
  const attaching = (tree: Tree): Tree =>
    mode === 'select' ? { ...tree, ...Object.fromEntries(ATTACHING_KEYS.map((key) => [key, true])) } : tree;
  // PostgreSQL joins the families into Prisma's one statement.
  if (ctx.config.databaseProvider === 'postgresql' || (!image && !links.length))
    return (await ctx.db.event.findMany({
      ...args,
      [mode]: attaching(plan.whole),
    } as Prisma.EventFindManyArgs)) as Row[];
  const tree = attaching(plan.tree);
  const rows = (await ctx.db.event.findMany({ ...args, [mode]: tree } as Prisma.EventFindManyArgs)) as Row[];
  if (!rows.length) return rows;
  const eventIds = rows.map((row) => row.id as number);
  const imageIds = [...new Set(rows.map((row) => row.imageId as number | null))].filter(
    (imageId): imageId is number => imageId !== null,
  );
  const [images, ...linked] = await Promise.all([
    image ? loadImages(ctx, image, imageIds) : null,
    ...links.map(({ family, shape }) => loadLinks(ctx, family, shape, eventIds)),
  ]);
  for (const row of rows) {
    if (images) row.image = row.imageId === null ? null : (images.get(row.imageId as number) ?? null);
    links.forEach(({ family }, index) => {
      row[family.relation] = linked[index]!.get(row.id as number) ?? [];
    });
  }
  return rows;
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
 * `ctx.db.event.findMany({ ...selection, ...args })`, each relation family of the selection loaded by
 * one statement where Prisma would send one per level (see above). Where records are kept
 * (`ctx.keepRecords`), the rows come from them by id and version: one statement for the ids, the
 * families' statements only for the events not kept.
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
