import type { Context, KeepRecords } from '../../core/context/scope.js';
import { hash } from 'node:crypto';
import { type Dependencies, recordTag } from '../../core/cache/dependencies.js';
import { type Event, Prisma } from '../../generated/sqlite/client.js';

// Reading events with the records they link to, as both APIs select them (a Pothos selection: Prisma's
// `include` or `select`). Without relation joins (SQLite) Prisma sends one statement per relation level:
// a list's image, venue links, venues, their images, organizer links, organizers, theirs, term links and
// terms were nine. Here each family the selection asks for (the event's image; its venues with their
// images; its organizers with theirs; its terms with their parents) is one joined statement, whatever the
// page size. PostgreSQL joins relations inside Prisma's own statement (relationJoins): it keeps that.
// A family whose selection asks for more than these statements load (a filter, another order, a relation
// beyond them) stays with Prisma, as does every other relation.
// Where the response cache is on, rows of selections made only of these are kept by id and version
// (`ResponseCache.keepRecords`): a read then sends one statement for its ids, and reads only the rows
// not kept. A write's transaction reads without them (its `EventReader` has no `keepRecords`).

/** What reading events needs: the database (or a write's transaction) and its provider. */
type EventReader = Pick<Context, 'db' | 'config'>;

type Tree = Record<string, unknown>;
export interface EventSelection {
  include?: Tree;
  select?: Tree;
}
type Row = Record<string, unknown>;

const isTree = (value: unknown): value is Tree =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A model as these statements read it: its scalars, and the relations they join. */
interface Model {
  scalars: readonly string[];
  relations: Readonly<Record<string, Model>>;
}
/** What a selection asks of a record: those of its scalars, and those relations. */
interface Shape {
  fields: readonly string[];
  relations: Record<string, Shape>;
}

const model = (fields: Record<string, string>, relations: Record<string, Model> = {}): Model => ({
  scalars: Object.freeze(Object.values(fields)),
  relations,
});
const MEDIA = model(Prisma.MediaScalarFieldEnum);

/**
 * The shape a Prisma selection of a record asks for (`true`, `{ select }` or `{ include }`), or null when
 * it asks for more than the model's scalars and relations (a filter, an order, another relation).
 */
function shapeOf(spec: unknown, of: Model): Shape | null {
  if (spec === true) return { fields: of.scalars, relations: {} };
  if (!isTree(spec)) return null;
  const { select, include, ...other } = spec;
  if (Object.keys(other).length || (select !== undefined && include !== undefined)) return null;
  const tree = select ?? include ?? {};
  if (!isTree(tree)) return null;
  const selected: string[] = [];
  const relations: Record<string, Shape> = {};
  for (const [key, value] of Object.entries(tree)) {
    if (value === false || value === undefined) continue;
    const relation = of.relations[key];
    if (relation) {
      const nested = shapeOf(value, relation);
      if (!nested) return null;
      relations[key] = nested;
    } else if (value === true && select !== undefined && of.scalars.includes(key)) selected.push(key);
    else return null;
  }
  return { fields: select === undefined ? of.scalars : selected, relations };
}

const pick = (row: Row, fields: readonly string[], prefix: string) => {
  const record: Row = {};
  for (const field of fields) record[field] = row[prefix + field];
  return record;
};

/** The links of an event to one kind of record: one joined statement (link, record, its relation). */
interface LinkFamily {
  /** The event's relation (`venues`), its link table and the key of the linked record in it. */
  relation: string;
  table: string;
  key: string;
  /** The record's field on the link, its table, and the one relation of the record joined with it. */
  record: string;
  recordTable: string;
  nested: { key: string; table: string; column: string };
  link: Model;
}

function linkFamily(
  relation: string,
  table: string,
  key: string,
  record: { name: string; table: string; model: Model },
  nested: { key: string; table: string; column: string },
): LinkFamily {
  return {
    relation,
    table,
    key,
    record: record.name,
    recordTable: record.table,
    nested,
    link: { scalars: ['eventId', key, 'position'], relations: { [record.name]: record.model } },
  };
}

const TERM = model(Prisma.TermScalarFieldEnum);
const LINK_FAMILIES: readonly LinkFamily[] = [
  linkFamily(
    'venues',
    'EventVenue',
    'venueId',
    { name: 'venue', table: 'Venue', model: model(Prisma.VenueScalarFieldEnum, { image: MEDIA }) },
    { key: 'image', table: 'Media', column: 'imageId' },
  ),
  linkFamily(
    'organizers',
    'EventOrganizer',
    'organizerId',
    {
      name: 'organizer',
      table: 'Organizer',
      model: model(Prisma.OrganizerScalarFieldEnum, { image: MEDIA }),
    },
    { key: 'image', table: 'Media', column: 'imageId' },
  ),
  linkFamily(
    'terms',
    'EventTerm',
    'termId',
    { name: 'term', table: 'Term', model: model(Prisma.TermScalarFieldEnum, { parent: TERM }) },
    { key: 'parent', table: 'Term', column: 'parentId' },
  ),
];

/** The links' shape when they are ordered by position (the only order these statements give). */
function linkShape(family: LinkFamily, spec: unknown): Shape | null {
  if (!isTree(spec)) return null;
  const { orderBy, ...rest } = spec;
  if (!isTree(orderBy) || Object.keys(orderBy).length !== 1 || orderBy.position !== 'asc') return null;
  return shapeOf(rest, family.link);
}

const ident = (name: string) => Prisma.raw(`"${name.replaceAll('"', '""')}"`);
const columns = (alias: string, scalars: readonly string[], prefix: string) =>
  scalars.map((name) => `${alias}."${name}" AS "${prefix}${name}"`).join(', ');

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

/** How a selection is read: its families apart, and what a kept record of it is keyed by. */
interface ReadPlan {
  mode: 'include' | 'select';
  /** The selection less the families below. */
  tree: Tree;
  image: Shape | null;
  links: Array<{ family: LinkFamily; shape: Shape }>;
  /**
   * The selection's hash, when every part of it is one of the event's scalars or a family above: its
   * records then show only rows whose writes name them (`recordDependencies`), and can be kept.
   */
  keptAs: string | null;
  /** The selection as given (Prisma reads it whole on PostgreSQL). */
  whole: Tree;
}

const EVENT_SCALARS = new Set<string>(Object.values(Prisma.EventScalarFieldEnum));
const plans = new WeakMap<EventSelection, ReadPlan | null>();

/** The plan of a selection (null: Prisma reads it as it is), worked out once per selection object. */
function planOf(selection: EventSelection): ReadPlan | null {
  let plan = plans.get(selection);
  if (plan === undefined) plans.set(selection, (plan = makePlan(selection)));
  return plan;
}

function makePlan(selection: EventSelection): ReadPlan | null {
  const mode = selection.include ? 'include' : selection.select ? 'select' : null;
  if (!mode) return null;
  const tree: Tree = { ...selection[mode] };
  let keepable = true;
  const image = tree.image === undefined || tree.image === false ? null : shapeOf(tree.image, MEDIA);
  if (image) delete tree.image;
  const links: ReadPlan['links'] = [];
  for (const family of LINK_FAMILIES) {
    const spec = tree[family.relation];
    const shape = spec === undefined || spec === false ? null : linkShape(family, spec);
    if (!shape) continue;
    links.push({ family, shape });
    delete tree[family.relation];
  }
  for (const [key, value] of Object.entries(tree))
    if (
      value !== false &&
      value !== undefined &&
      !(mode === 'select' && value === true && EVENT_SCALARS.has(key))
    )
      keepable = false;
  const keptAs = keepable ? hash('sha1', JSON.stringify(selection), 'base64url') : null;
  return { mode, tree, image, links, keptAs, whole: selection[mode]! };
}

/** The keys a read adds to a selection (families attach by them, kept records are keyed by them). */
const ATTACHING_KEYS = ['id', 'imageId', 'modifiedAt'] as const;

/** The rows `args` finds, read by `plan`: with every key in `ATTACHING_KEYS`, asked for or not. */
async function readRows(
  ctx: EventReader,
  plan: ReadPlan,
  args: Omit<Prisma.EventFindManyArgs, 'select' | 'include'>,
): Promise<Row[]> {
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

/** The ids an event links to, by family, in link order. */
interface LinkedIds {
  terms: number[];
  venues: number[];
  organizers: number[];
}

/** An event as a write reads it before writing: see `findEventToWrite`. */
interface EventToWrite {
  /** Every scalar of the event. */
  event: Event;
  links: LinkedIds;
  /**
   * The event as `selection` reads it (as `findEvent` would), when the selection asks for nothing but
   * the event's scalars, its image and the families above; null otherwise (or without a selection).
   */
  shown: Row | null;
}

const EVENT_SCALAR_LIST: readonly string[] = [...EVENT_SCALARS];

/**
 * One event by id or slug for a write, in one statement on both databases: every scalar of the row,
 * the ids it links to, and the records `selection` shows (its image; its venues, organizers and terms
 * with theirs), so that a write which changes none of them answers without reading them again. The
 * statement lists the event, then one row per link (`k`), each joined to its own record's table: a
 * row per link, never their product, each column a table's own (so both drivers type it). It does not
 * lock: on PostgreSQL the caller locks the row first, in a statement of its own, so that this one sees
 * what the last writer of the event committed.
 */
export async function findEventToWrite(
  db: Pick<EventReader['db'], '$queryRaw'>,
  where: { id: number } | { slug: string },
  selection?: EventSelection,
): Promise<EventToWrite | null> {
  const plan = selection ? planOf(selection) : null;
  const shows = plan?.keptAs ? plan : null;
  const image = shows?.image ?? null;
  const families = LINK_FAMILIES.map((family, index) => {
    const shape = shows?.links.find((link) => link.family === family)?.shape ?? null;
    const record = shape?.relations[family.record] ?? null;
    return { family, f: index + 1, shape, record, nested: record?.relations[family.nested.key] ?? null };
  });
  const target = 'id' in where ? Prisma.sql`"id" = ${where.id}` : Prisma.sql`"slug" = ${where.slug}`;
  const selected = [
    `k."f" AS "k_f"`,
    `k."rid" AS "k_rid"`,
    `k."pos" AS "k_pos"`,
    columns('e', EVENT_SCALAR_LIST, 'e_'),
    ...(image ? [`m."id" AS "m_id"`, columns('m', image.fields, 'm_')] : []),
    ...families.flatMap(({ f, record, nested }) => [
      ...(record ? [columns(`r${f}`, record.fields, `r${f}_`)] : []),
      ...(nested ? [`n${f}."id" AS "n${f}_id"`, columns(`n${f}`, nested.fields, `n${f}_`)] : []),
    ]),
  ].join(', ');
  // Each link's record (and the record's own image or parent) joins only its family's rows.
  const joins = families.flatMap(({ family, f, record, nested }) => [
    ...(record ? [`LEFT JOIN "${family.recordTable}" r${f} ON k."f" = ${f} AND r${f}."id" = k."rid"`] : []),
    ...(nested
      ? [`LEFT JOIN "${family.nested.table}" n${f} ON n${f}."id" = r${f}."${family.nested.column}"`]
      : []),
  ]);
  const links = families.map(
    ({ family, f }) =>
      `UNION ALL SELECT ${f}, l."${family.key}", l."position" FROM "${family.table}" l JOIN t ON l."eventId" = t."id"`,
  );
  const rows = await db.$queryRaw<Row[]>`WITH t AS (SELECT "id" FROM "Event" WHERE ${target})
    SELECT ${Prisma.raw(selected)}
    FROM (SELECT 0 AS "f", t."id" AS "rid", 0 AS "pos" FROM t ${Prisma.raw(links.join(' '))}) k
    LEFT JOIN "Event" e ON k."f" = 0 AND e."id" = k."rid"
    ${Prisma.raw([...(image ? [`LEFT JOIN "Media" m ON m."id" = e."imageId"`] : []), ...joins].join(' '))}
    ORDER BY k."f", k."pos", k."rid"`;
  const [first, ...linked] = rows;
  if (!first) return null;
  const event = pick(first, EVENT_SCALAR_LIST, 'e_') as unknown as Event;
  const ids: LinkedIds = { terms: [], venues: [], organizers: [] };
  const shownLinks = new Map<string, Row[]>();
  for (const row of linked) {
    const { family, f, shape, record, nested } = families[Number(row.k_f) - 1]!;
    const id = Number(row.k_rid);
    ids[family.relation as keyof LinkedIds].push(id);
    if (!shape) continue;
    const values: Row = { eventId: event.id, [family.key]: id, position: Number(row.k_pos) };
    const link = pick(values, shape.fields, '');
    if (record) {
      const shown = pick(row, record.fields, `r${f}_`);
      if (nested)
        shown[family.nested.key] = row[`n${f}_id`] === null ? null : pick(row, nested.fields, `n${f}_`);
      link[family.record] = shown;
    }
    const list = shownLinks.get(family.relation);
    if (list) list.push(link);
    else shownLinks.set(family.relation, [link]);
  }
  // A selection of no relation (`{}`) reads every scalar, as Prisma reads it.
  if (selection && !selection.include && !selection.select)
    return { event, links: ids, shown: { ...(event as unknown as Row) } };
  if (!shows) return { event, links: ids, shown: null };
  const scalars =
    shows.mode === 'include'
      ? EVENT_SCALAR_LIST
      : EVENT_SCALAR_LIST.filter((key) => shows.tree[key] === true);
  const shown = pick(event as unknown as Row, scalars, '');
  if (image) shown.image = first.m_id === null ? null : pick(first, image.fields, 'm_');
  for (const { family } of shows.links) shown[family.relation] = shownLinks.get(family.relation) ?? [];
  return { event, links: ids, shown };
}
