import { type Event, Prisma } from '../../../generated/sqlite/client.js';
import type { Db } from '../../../core/db/client.js';
import type { DatabaseProvider } from '../../../core/config/config.js';
import { orderSql, whereSql } from '../../../core/db/queries/where-sql.js';
import {
  type EventSelection,
  EVENT_SCALARS,
  EVENT_SCALAR_LIST,
  LINK_FAMILIES,
  type LinkFamily,
  type ReadPlan,
  type Shape,
  type Row,
  columns,
  pick,
  planOf,
} from './event-selection.js';

// Events with every scalar, the ids they link to and the records a selection shows (the image; the
// venues, organizers and terms with theirs), a page of them in one statement on both databases. The
// statement lists each event, then one row per link (`k`), each joined to its own record's table: a
// row per link, never their product, each column a table's own (so both drivers type it), in the
// page's order. The page's conditions are the plain ones `whereSql` writes; Prisma reads the others.

/** The ids an event links to, by family, in link order. */
export interface LinkedIds {
  terms: number[];
  venues: number[];
  organizers: number[];
}

export interface EventRows {
  /** Every scalar of the event. */
  event: Event;
  links: LinkedIds;
  /**
   * The event as the selection reads it (as `findEvent` would), when the selection asks for nothing but
   * the event's scalars, its image and the families above; null otherwise (or without a selection).
   */
  shown: Row | null;
}

/** Which events, in which order: conditions and order over the event's columns (alias `e`). */
export interface EventPage {
  where: Prisma.Sql;
  order: Prisma.Sql;
  skip?: number;
  take?: number;
}

/** `findMany`'s arguments as a page of this statement, or null when Prisma must write them. */
export function eventPage(args: {
  where?: unknown;
  orderBy?: unknown;
  skip?: number;
  take?: number;
  [other: string]: unknown;
}): EventPage | null {
  const { where: given, orderBy, skip, take, ...other } = args;
  if (Object.values(other).some((value) => value !== undefined)) return null;
  if ((take !== undefined && take < 0) || (skip !== undefined && skip < 0)) return null;
  const where = whereSql(given, 'e', EVENT_SCALARS);
  const order = orderSql(orderBy, 'e', EVENT_SCALARS);
  return where && order ? { where, order, skip, take } : null;
}

const limits = ({ skip, take }: EventPage, provider: DatabaseProvider) => {
  const offset = skip ? Prisma.sql` OFFSET ${skip}` : Prisma.empty;
  if (take !== undefined) return Prisma.sql`LIMIT ${take}${offset}`;
  // SQLite takes an offset only after a limit; PostgreSQL refuses a negative one.
  return skip ? (provider === 'sqlite' ? Prisma.sql`LIMIT -1${offset}` : offset) : Prisma.empty;
};

/** What a plan's statement selects and joins, written once per plan. */
interface Statement {
  plan: ReadPlan | null;
  author: Shape | null;
  image: Shape | null;
  families: Array<{
    family: LinkFamily;
    f: number;
    shape: Shape | null;
    record: Shape | null;
    nested: Shape | null;
  }>;
  selected: Prisma.Sql;
  links: Prisma.Sql;
  joins: Prisma.Sql;
}

const statements = new WeakMap<ReadPlan, Statement>();
const WITHOUT_PLAN = statementOf(null);

function statementFor(shows: ReadPlan | 'row' | null): Statement {
  if (shows === 'row' || !shows?.statementReads) return WITHOUT_PLAN;
  let statement = statements.get(shows);
  if (!statement) statements.set(shows, (statement = statementOf(shows)));
  return statement;
}

function statementOf(plan: ReadPlan | null): Statement {
  const author = plan?.author ?? null;
  const image = plan?.image ?? null;
  const families = LINK_FAMILIES.map((family, index) => {
    const shape = plan?.links.find((link) => link.family === family)?.shape ?? null;
    const record = shape?.relations[family.record] ?? null;
    return { family, f: index + 1, shape, record, nested: record?.relations[family.nested.key] ?? null };
  });
  const selected = [
    `k."f" AS "k_f"`,
    `k."eid" AS "k_eid"`,
    `k."rid" AS "k_rid"`,
    `k."pos" AS "k_pos"`,
    columns('e', EVENT_SCALAR_LIST, 'e_'),
    ...(image ? [`m."id" AS "m_id"`, columns('m', image.fields, 'm_')] : []),
    ...(author ? [`a."id" AS "a_id"`, columns('a', author.fields, 'a_')] : []),
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
      `UNION ALL SELECT ${f}, l."eventId", l."${family.key}", l."position", t."o" FROM "${family.table}" l JOIN t ON l."eventId" = t."id"`,
  );
  return {
    plan,
    author,
    image,
    families,
    selected: Prisma.raw(selected),
    links: Prisma.raw(links.join(' ')),
    joins: Prisma.raw(
      [
        ...(image ? [`LEFT JOIN "Media" m ON m."id" = e."imageId"`] : []),
        ...(author ? [`LEFT JOIN "User" a ON a."id" = e."authorId"`] : []),
        ...joins,
      ].join(' '),
    ),
  };
}

/**
 * The page's events (see `EventRows`), in the page's order, each shown as `shows` reads it: a plan of
 * the event's scalars and families, `'row'` for every scalar, null for nothing.
 */
export async function eventRows(
  db: Pick<Db, '$queryRaw'>,
  provider: DatabaseProvider,
  page: EventPage,
  shows: ReadPlan | 'row' | null,
): Promise<EventRows[]> {
  const { plan, author, image, families, selected, links, joins } = statementFor(shows);
  const rows = await db.$queryRaw<Row[]>`WITH t AS (
      SELECT e."id", ROW_NUMBER() OVER (ORDER BY ${page.order}) AS "o" FROM "Event" e
      WHERE ${page.where} ORDER BY ${page.order} ${limits(page, provider)})
    SELECT ${selected}
    FROM (SELECT 0 AS "f", t."id" AS "eid", t."id" AS "rid", 0 AS "pos", t."o" AS "o" FROM t ${links}) k
    LEFT JOIN "Event" e ON k."f" = 0 AND e."id" = k."rid"
    ${joins}
    ORDER BY k."o", k."f", k."pos", k."rid"`;

  const found: EventRows[] = [];
  let shownLinks = new Map<string, Row[]>();
  const finish = () => {
    const last = found.at(-1);
    if (!last?.shown || !plan) return;
    for (const { family } of plan.links) last.shown[family.relation] = shownLinks.get(family.relation) ?? [];
  };
  for (const row of rows) {
    if (Number(row.k_f) === 0) {
      finish();
      shownLinks = new Map();
      const event = pick(row, EVENT_SCALAR_LIST, 'e_') as unknown as Event;
      found.push({ event, links: { terms: [], venues: [], organizers: [] }, shown: shownOf(event, row) });
      continue;
    }
    const current = found.at(-1)!;
    const { family, f, shape, record, nested } = families[Number(row.k_f) - 1]!;
    const id = Number(row.k_rid);
    current.links[family.relation as keyof LinkedIds].push(id);
    if (!shape) continue;
    const values: Row = { eventId: current.event.id, [family.key]: id, position: Number(row.k_pos) };
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
  finish();
  return found;

  function shownOf(event: Event, row: Row): Row | null {
    if (shows === 'row') return { ...(event as unknown as Row) };
    if (!plan) return null;
    const scalars =
      plan.mode === 'include'
        ? EVENT_SCALAR_LIST
        : EVENT_SCALAR_LIST.filter((key) => plan.tree[key] === true);
    const shown = pick(event as unknown as Row, scalars, '');
    if (image) shown.image = row.m_id === null ? null : pick(row, image.fields, 'm_');
    if (author) shown.author = row.a_id === null ? null : pick(row, author.fields, 'a_');
    return shown;
  }
}

/**
 * One event by id or slug for a write (every scalar, its links, and what `selection` shows), so that
 * a write which changes none of them answers without reading them again. It does not lock: on
 * PostgreSQL the caller locks the row first, in a statement of its own, so that this one sees what the
 * last writer of the event committed.
 */
export async function findEventToWrite(
  db: Pick<Db, '$queryRaw'>,
  provider: DatabaseProvider,
  where: { id: number } | { slug: string },
  selection?: EventSelection,
): Promise<EventRows | null> {
  const target = 'id' in where ? Prisma.sql`e."id" = ${where.id}` : Prisma.sql`e."slug" = ${where.slug}`;
  // A selection of no relation (`{}`) reads every scalar, as Prisma reads it.
  const shows = !selection ? null : selection.include || selection.select ? planOf(selection) : 'row';
  const [found] = await eventRows(
    db,
    provider,
    { where: target, order: Prisma.raw('e."id"'), take: 1 },
    shows,
  );
  return found ?? null;
}
