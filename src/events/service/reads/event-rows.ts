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

// Events with every scalar, the ids they link to and the records a selection shows (the image, the
// author; the venues, organizers and terms with theirs), a page of them in one statement on both
// databases: a row per event, its families as JSON arrays. A row per link instead (every column of
// every family, mostly nulls) cost more to decode than the statements it replaced. The page's
// conditions are the plain ones `whereSql` writes; Prisma reads the others.

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

/** What a plan's statement selects and joins, written once per plan and database. */
interface Statement {
  plan: ReadPlan | null;
  author: Shape | null;
  image: Shape | null;
  /** Each family's JSON column (`f1`…): its links as the plan shows them, or their ids alone. */
  families: Array<{ family: LinkFamily; column: string; shape: Shape | null }>;
  selected: Prisma.Sql;
  joins: Prisma.Sql;
}

/** The JSON functions of each database. */
const JSON_SQL = {
  postgresql: { object: 'json_build_object', array: 'json_agg' },
  sqlite: { object: 'json_object', array: 'json_group_array' },
} as const;

/** Statements by database, plan and whether they read every family's ids (`allLinks`). */
const statements = new Map<string, WeakMap<ReadPlan, Statement>>();
const unplanned = new Map<string, Statement>();

function statementFor(
  shows: ReadPlan | 'row' | null,
  provider: DatabaseProvider,
  allLinks: boolean,
): Statement {
  const key = `${provider} ${allLinks}`;
  if (shows === 'row' || !shows?.statementReads) {
    let statement = unplanned.get(key);
    if (!statement) unplanned.set(key, (statement = statementOf(null, provider, allLinks)));
    return statement;
  }
  let byPlan = statements.get(key);
  if (!byPlan) statements.set(key, (byPlan = new WeakMap()));
  let statement = byPlan.get(shows);
  if (!statement) byPlan.set(shows, (statement = statementOf(shows, provider, allLinks)));
  return statement;
}

/**
 * The statement's columns: the event's, its image's and author's (one row each: the drivers type
 * them), and one JSON array per family, each link an object with its record (and the record's image
 * or parent) inside, so that a page is one row per event, never a row per link. `#` carries a link's
 * record id and `_` a nested record's (null when it has none), whatever the selection asks for.
 * PostgreSQL's `json_build_object` takes at most 100 arguments: a record of ~27 columns takes 56
 * (`test/events/event-reads.test.ts` reads every column of every family on both databases).
 */
function statementOf(plan: ReadPlan | null, provider: DatabaseProvider, allLinks: boolean): Statement {
  const { object, array } = JSON_SQL[provider];
  const author = plan?.author ?? null;
  const image = plan?.image ?? null;
  const pairs = (alias: string, fields: readonly string[]) =>
    fields.map((field) => `'${field}', ${alias}."${field}"`);
  const families = LINK_FAMILIES.flatMap(
    (family, index): Array<Statement['families'][number] & { sql: string }> => {
      const shape = plan?.links.find((link) => link.family === family)?.shape ?? null;
      if (!shape && !allLinks) return [];
      const column = `f${index + 1}`;
      const order = `ORDER BY l."position", l."${family.key}"`;
      const from = `FROM "${family.table}" l`;
      if (!shape)
        return [
          {
            family,
            column,
            shape,
            sql: `(SELECT ${array}(l."${family.key}" ${order}) ${from} WHERE l."eventId" = e."id") AS "${column}"`,
          },
        ];
      const record = shape.relations[family.record] ?? null;
      const nested = record?.relations[family.nested.key] ?? null;
      const n = family.nested;
      const recordSql = record
        ? [
            `'${family.record}', ${object}(${[
              ...pairs('r', record.fields),
              ...(nested
                ? [`'${n.key}', ${object}(${['\'_\', n."id"', ...pairs('n', nested.fields)].join(', ')})`]
                : []),
            ].join(', ')})`,
          ]
        : [];
      const link = `${object}(${[`'#', l."${family.key}"`, ...pairs('l', shape.fields), ...recordSql].join(', ')})`;
      const joins = [
        ...(record ? [`JOIN "${family.recordTable}" r ON r."id" = l."${family.key}"`] : []),
        ...(nested ? [`LEFT JOIN "${n.table}" n ON n."id" = r."${n.column}"`] : []),
      ].join(' ');
      return [
        {
          family,
          column,
          shape,
          sql: `(SELECT ${array}(${link} ${order}) ${from} ${joins} WHERE l."eventId" = e."id") AS "${column}"`,
        },
      ];
    },
  );
  const selected = [
    columns('e', EVENT_SCALAR_LIST, 'e_'),
    ...(image ? [`m."id" AS "m_id"`, columns('m', image.fields, 'm_')] : []),
    ...(author ? [`a."id" AS "a_id"`, columns('a', author.fields, 'a_')] : []),
    ...families.map((one) => one.sql),
  ].join(', ');
  return {
    plan,
    author,
    image,
    families: families.map(({ family, column, shape }) => ({ family, column, shape })),
    selected: Prisma.raw(selected),
    joins: Prisma.raw(
      [
        ...(image ? [`LEFT JOIN "Media" m ON m."id" = e."imageId"`] : []),
        ...(author ? [`LEFT JOIN "User" a ON a."id" = e."authorId"`] : []),
      ].join(' '),
    ),
  };
}

/** A date as JSON gives it: PostgreSQL's text has no zone (the column holds UTC), SQLite's has one. */
const dateOf = (value: unknown) =>
  typeof value === 'number'
    ? new Date(value)
    : new Date(/(?:Z|[+-]\d\d:\d\d)$/i.test(String(value)) ? String(value) : `${String(value)}Z`);

/** `shape`'s fields of a record read as JSON, in Prisma's types. */
function fromJson(json: Row, shape: Shape): Row {
  const record = pick(json, shape.fields, '');
  for (const [field, kind] of Object.entries(shape.conversions)) {
    const value = record[field];
    if (value === null || value === undefined) continue;
    record[field] = kind === 'date' ? dateOf(value) : value === true || value === 1;
  }
  for (const [key, nested] of Object.entries(shape.relations)) {
    const inner = json[key] as Row | null;
    record[key] = inner === null || inner._ === null ? null : fromJson(inner, nested);
  }
  return record;
}

/**
 * The page's events (see `EventRows`), in the page's order, each shown as `shows` reads it: a plan of
 * the event's scalars and families, `'row'` for every scalar, null for nothing. `allLinks`: the ids of
 * the families not shown too (`EventRows.links`; otherwise only the shown families' are).
 */
export async function eventRows(
  db: Pick<Db, '$queryRaw'>,
  provider: DatabaseProvider,
  page: EventPage,
  shows: ReadPlan | 'row' | null,
  allLinks = false,
): Promise<EventRows[]> {
  const { plan, author, image, families, selected, joins } = statementFor(shows, provider, allLinks);
  const rows = await db.$queryRaw<Row[]>`WITH t AS (
      SELECT e."id", ROW_NUMBER() OVER (ORDER BY ${page.order}) AS "o" FROM "Event" e
      WHERE ${page.where} ORDER BY ${page.order} ${limits(page, provider)})
    SELECT ${selected} FROM t JOIN "Event" e ON e."id" = t."id" ${joins}
    ORDER BY t."o"`;
  return rows.map((row) => {
    const event = pick(row, EVENT_SCALAR_LIST, 'e_') as unknown as Event;
    const links: LinkedIds = { terms: [], venues: [], organizers: [] };
    const shown = shownOf(event, row);
    for (const { family, column, shape } of families) {
      const value = row[column];
      const list = (typeof value === 'string' ? JSON.parse(value) : (value ?? [])) as unknown[];
      const ids = links[family.relation as keyof LinkedIds];
      if (!shape) {
        ids.push(...(list as number[]));
        continue;
      }
      const record = shape.relations[family.record];
      const shownLinks = (list as Row[]).map((json) => {
        ids.push(json['#'] as number);
        const link = pick(json, shape.fields, '');
        if (record) link[family.record] = fromJson(json[family.record] as Row, record);
        return link;
      });
      if (shown) shown[family.relation] = shownLinks;
    }
    return { event, links, shown };
  });

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
    true,
  );
  return found ?? null;
}
