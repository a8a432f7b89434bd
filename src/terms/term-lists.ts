import type { Scope } from '../core/context/scope.js';
import { Prisma, type Term } from '../generated/sqlite/client.js';
import { invalidParams } from '../core/errors/errors.js';
import { type Paging, normalizePaging, skipTake, totalPages } from '../core/rules/paging.js';
import { SEARCH_TOO_LONG, exceeds, searchTooLong, tooManyValues } from '../core/rules/limits.js';
import { eventLinksAccess } from '../core/rules/visibility.js';
import type { Taxonomy } from '../core/rules/urls.js';
import {
  type ConnectionPage,
  type CursorArgs,
  type SortKey,
  type Value,
  connectionPage,
  flip,
  keysetWindow,
} from '../core/db/queries/keyset.js';
import { isHierarchical } from './terms.js';
import { type TermSelection, visibleTerms } from './term-reads.js';

// Category and tag lists (docs/reference.md §2.4, §S4.5) for both APIs: the filters, checked all at once
// as WordPress does, one SQL statement for the count and one for the page's ids, and the parameters that
// reproduce the list (D2).

const INVALID = 'Invalid parameter.';

const TERM_ORDER_FIELDS = ['id', 'name', 'slug', 'count', 'term_group', 'description'] as const;
type TermOrderField = (typeof TERM_ORDER_FIELDS)[number];
type SortOrder = 'asc' | 'desc';

type Reader = Pick<Scope, 'db' | 'viewer'>;
/** The list filters both APIs share. */
export interface TermListFilter {
  search?: string | null;
  include?: number[] | null;
  exclude?: number[] | null;
  order?: string | null;
  orderby?: string | null;
  hideEmpty?: boolean | null;
  /** Categories only; `0` lists top-level categories. */
  parent?: number | null;
  post?: number | null;
  /** Alias of `post`; wins when both are given. */
  event?: number | null;
  slug?: string | null;
}

/** The filters as applied, echoed in `rest_url` and the paging links (D2). */
interface EffectiveTermFilter {
  search: string | null;
  include: number[];
  exclude: number[];
  order: SortOrder;
  orderby: TermOrderField;
  hideEmpty: boolean;
  parent: number | null;
  event: number | null;
  /** The event is protected and this viewer cannot unlock it: none of its terms are listed. */
  eventWithheld: boolean;
  /** The name the event was given under, echoed back as sent (`post` is WordPress's, `event` TEC's). */
  eventParam: 'event' | 'post';
  slug: string | null;
}

export interface TermArchive {
  /** The page's term ids, in list order. */
  ids: number[];
  paging: Paging;
  total: number;
  totalPages: number;
  effective: EffectiveTermFilter;
}

const nonBlank = (value: string | null | undefined): value is string =>
  typeof value === 'string' && value.trim() !== '';

/** Checks every filter value (all failures at once, as WordPress); unknown ids are invalid values. */
async function resolveListFilter(
  reader: Reader,
  taxonomy: Taxonomy,
  filter: TermListFilter,
): Promise<EffectiveTermFilter> {
  const bad: Record<string, string> = {};
  const given = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;

  if (given(filter.search) && !nonBlank(filter.search)) bad.search = INVALID;
  if (searchTooLong(filter.search)) bad.search = SEARCH_TOO_LONG;
  if (exceeds(filter.include)) bad.include = tooManyValues();
  if (exceeds(filter.exclude)) bad.exclude = tooManyValues();
  if (bad.search || bad.include || bad.exclude) throw invalidParams(bad);
  if (given(filter.slug) && !nonBlank(filter.slug)) bad.slug = INVALID;
  const order = given(filter.order) ? filter.order.trim().toLowerCase() : 'asc';
  if (order !== 'asc' && order !== 'desc') bad.order = INVALID;
  const orderby = given(filter.orderby) ? filter.orderby.trim().toLowerCase() : 'name';
  if (!(TERM_ORDER_FIELDS as readonly string[]).includes(orderby)) bad.orderby = INVALID;

  const include = [...new Set(filter.include ?? [])];
  const exclude = [...new Set(filter.exclude ?? [])];
  const parent = isHierarchical(taxonomy) && given(filter.parent) ? filter.parent : null;
  const listed = [...include, ...exclude, ...(parent ? [parent] : [])];
  if (listed.length) {
    const found = new Set(
      (
        await reader.db.term.findMany({
          where: { id: { in: listed.filter((id) => id > 0) }, taxonomy },
          select: { id: true },
        })
      ).map((term) => term.id),
    );
    if (include.some((id) => !found.has(id))) bad.include = INVALID;
    if (exclude.some((id) => !found.has(id))) bad.exclude = INVALID;
    if (parent !== null && parent !== 0 && !found.has(parent)) bad.parent = INVALID;
  }
  if (parent !== null && parent < 0) bad.parent = INVALID;

  const eventIds = { post: filter.post, event: filter.event };
  let eventWithheld = false;
  const askedEvents = Object.entries(eventIds).filter((entry): entry is [string, number] => given(entry[1]));
  if (askedEvents.length) {
    const events = await reader.db.event.findMany({
      where: { id: { in: askedEvents.map(([, id]) => id) } },
      select: { id: true, status: true, authorId: true, password: true },
    });
    for (const [param, id] of askedEvents) {
      const access = eventLinksAccess(reader.viewer, events.find((candidate) => candidate.id === id) ?? null);
      if (access === 'unknown') bad[param] = INVALID;
      if (access === 'withheld') eventWithheld = true;
    }
  }
  if (Object.keys(bad).length) throw invalidParams(bad);

  return {
    search: filter.search ?? null,
    include,
    exclude,
    order: order as SortOrder,
    orderby: orderby as TermOrderField,
    hideEmpty: filter.hideEmpty ?? true,
    parent,
    event: filter.event ?? filter.post ?? null,
    eventWithheld,
    eventParam: given(filter.event) ? 'event' : 'post',
    // Slugs are lower-case: `Music` finds `music`, as WordPress sanitises the value.
    slug: filter.slug?.trim().toLowerCase() ?? null,
  };
}

const ORDER_COLUMN: Record<TermOrderField, Prisma.Sql | null> = {
  id: Prisma.sql`t."id"`,
  name: Prisma.sql`LOWER(t."name")`,
  slug: Prisma.sql`t."slug"`,
  count: Prisma.sql`t."eventCount"`,
  // WordPress' term groups are unused: every term is in group 0, so the order is the tie-break's.
  term_group: null,
  description: Prisma.sql`LOWER(t."description")`,
};

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/**
 * `[WITH …] SELECT … FROM "Term" t WHERE …` of a term list. With `hide_empty`, a category stays
 * listed while one of its descendants has events (as WordPress shows hierarchical taxonomies); a tag
 * needs events of its own.
 */
function listSql(
  taxonomy: Taxonomy,
  filter: EffectiveTermFilter,
  select: Prisma.Sql,
  tail: Prisma.Sql = Prisma.empty,
  bounds: readonly Prisma.Sql[] = [],
): Prisma.Sql {
  const conditions: Prisma.Sql[] = [Prisma.sql`t."taxonomy" = ${taxonomy}`, ...bounds];
  if (filter.search) {
    // As WordPress: a substring of the name or of the slug, in any case.
    const pattern = `%${escapeLike(filter.search)}%`;
    conditions.push(
      Prisma.sql`(LOWER(t."name") LIKE LOWER(${pattern}) ESCAPE '\\' OR t."slug" LIKE LOWER(${pattern}) ESCAPE '\\')`,
    );
  }
  if (filter.include.length) conditions.push(Prisma.sql`t."id" IN (${Prisma.join(filter.include)})`);
  if (filter.exclude.length) conditions.push(Prisma.sql`t."id" NOT IN (${Prisma.join(filter.exclude)})`);
  if (filter.parent === 0) conditions.push(Prisma.sql`t."parentId" IS NULL`);
  else if (filter.parent !== null) conditions.push(Prisma.sql`t."parentId" = ${filter.parent}`);
  if (filter.eventWithheld) conditions.push(Prisma.sql`1 = 0`);
  if (filter.event !== null) {
    conditions.push(
      Prisma.sql`EXISTS (SELECT 1 FROM "EventTerm" x WHERE x."termId" = t."id" AND x."eventId" = ${filter.event})`,
    );
  }
  if (filter.slug) conditions.push(Prisma.sql`t."slug" = ${filter.slug}`);
  const hierarchicalHide = filter.hideEmpty && isHierarchical(taxonomy);
  if (hierarchicalHide) conditions.push(Prisma.sql`t."id" IN (SELECT id FROM visible)`);
  else if (filter.hideEmpty) conditions.push(Prisma.sql`t."eventCount" > 0`);

  // Terms with events, and every ancestor of one (UNION ends the walk even on bad data).
  const visible = Prisma.sql`WITH RECURSIVE visible(id) AS (
    SELECT "id" FROM "Term" WHERE "taxonomy" = ${taxonomy} AND "eventCount" > 0
    UNION
    SELECT up."parentId" FROM "Term" up JOIN visible v ON up."id" = v.id WHERE up."parentId" IS NOT NULL
  )`;
  return Prisma.sql`${hierarchicalHide ? visible : Prisma.empty}
    SELECT ${select} FROM "Term" t
    WHERE ${Prisma.join(conditions, ' AND ')}
    ${tail}`;
}

/** How many terms the list's filters match. */
async function countTerms(
  reader: Reader,
  taxonomy: Taxonomy,
  effective: EffectiveTermFilter,
): Promise<number> {
  const [{ total }] = await reader.db.$queryRaw<[{ total: number | bigint }]>(
    listSql(taxonomy, effective, Prisma.sql`COUNT(*) AS total`),
  );
  return Number(total);
}

/**
 * One page of categories or tags, `page` and `perPage` as the client gave them: validates the
 * filters, counts the matches, picks the page's ids.
 */
export async function termArchive(
  reader: Reader,
  taxonomy: Taxonomy,
  filter: TermListFilter,
  page: number | null | undefined,
  perPage: number | null | undefined,
): Promise<TermArchive> {
  const paging = normalizePaging(page, perPage);
  const effective = await resolveListFilter(reader, taxonomy, filter);
  const total = await countTerms(reader, taxonomy, effective);
  const { skip, take } = skipTake(paging);
  const direction = Prisma.raw(effective.order === 'desc' ? 'DESC' : 'ASC');
  const orderColumn = ORDER_COLUMN[effective.orderby];
  const rows = await reader.db.$queryRaw<Array<{ id: number | bigint }>>(
    listSql(
      taxonomy,
      effective,
      Prisma.sql`t."id" AS id`,
      Prisma.sql`ORDER BY ${orderColumn ? Prisma.sql`${orderColumn} ${direction}, ` : Prisma.empty}t."id" ASC LIMIT ${take} OFFSET ${skip}`,
    ),
  );
  const ids = rows.map((row) => Number(row.id));
  return { ids, paging, total, totalPages: totalPages(total, paging.perPage), effective };
}

/** How each sort key travels in a cursor (`term_group` orders by the id alone). */
const ORDER_KIND: Record<TermOrderField, SortKey['kind']> = {
  id: 'int',
  name: 'text',
  slug: 'text',
  count: 'int',
  term_group: 'int',
  description: 'text',
};

/** Rows strictly beyond `key` in the order of `columns`, as SQL (the keyset's Prisma conditions, written out). */
function beyondSql(columns: Prisma.Sql[], keys: SortKey[], key: Value[], forward: boolean): Prisma.Sql {
  const either = keys.map((sortKey, i) => {
    const operator = Prisma.raw(
      (forward ? sortKey.direction : flip(sortKey.direction)) === 'asc' ? '>' : '<',
    );
    const equal = keys.slice(0, i).map((_, j) => Prisma.sql`${columns[j]} = ${key[j]}`);
    return Prisma.sql`(${Prisma.join([...equal, Prisma.sql`${columns[i]} ${operator} ${key[i]}`], ' AND ')})`;
  });
  return Prisma.sql`(${Prisma.join(either, ' OR ')})`;
}

/**
 * One cursor page of categories or tags (GraphQL `categoriesConnection`, `tagsConnection`): the list's
 * filters and order, bounded by the cursor; nodes loaded with the selection the API asks for.
 */
export async function termConnection<T extends { id: number } = Term>(
  reader: Reader,
  taxonomy: Taxonomy,
  filter: TermListFilter,
  args: CursorArgs,
  selection: TermSelection = {},
): Promise<ConnectionPage<T> & { totalCount: () => Promise<number> }> {
  const effective = await resolveListFilter(reader, taxonomy, filter);
  const orderColumn = ORDER_COLUMN[effective.orderby];
  const keys: SortKey[] = [
    ...(orderColumn
      ? [{ field: 'sortKey', direction: effective.order, kind: ORDER_KIND[effective.orderby] } as const]
      : []),
    { field: 'id', direction: 'asc', kind: 'int' },
  ];
  const columns = [...(orderColumn ? [orderColumn] : []), Prisma.sql`t."id"`];
  const window = keysetWindow(keys, args);
  const bounds = [
    ...(window.afterKey ? [beyondSql(columns, keys, window.afterKey, true)] : []),
    ...(window.beforeKey ? [beyondSql(columns, keys, window.beforeKey, false)] : []),
  ];
  const order = keys.map((key, i) => {
    const direction = window.backward ? flip(key.direction) : key.direction;
    return Prisma.sql`${columns[i]} ${Prisma.raw(direction === 'asc' ? 'ASC' : 'DESC')}`;
  });
  const rows = await reader.db.$queryRaw<Array<{ id: number | bigint; sortKey?: unknown }>>(
    listSql(
      taxonomy,
      effective,
      Prisma.sql`t."id" AS id${orderColumn ? Prisma.sql`, ${orderColumn} AS "sortKey"` : Prisma.empty}`,
      Prisma.sql`ORDER BY ${Prisma.join(order, ', ')} LIMIT ${window.take}`,
      bounds,
    ),
  );
  const keyed = rows.map((row) => ({
    id: Number(row.id),
    sortKey: typeof row.sortKey === 'bigint' ? Number(row.sortKey) : row.sortKey,
  }));
  const page = connectionPage(keys, window, keyed, (row) => row.id);
  const terms = await visibleTerms<T>(
    reader,
    page.edges.map((edge) => edge.node),
    selection,
  );
  const byId = new Map(terms.map((term) => [term.id, term]));
  return {
    ...page,
    edges: page.edges.flatMap((edge) => {
      const term = byId.get(edge.node);
      return term ? [{ cursor: edge.cursor, node: term }] : [];
    }),
    totalCount: () => countTerms(reader, taxonomy, effective),
  };
}

/** Query-string pairs that reproduce the list (D2: every effective filter), `page` excluded. */
export function termListParams(archive: TermArchive, taxonomy: Taxonomy): Array<[string, string]> {
  const { effective: f, paging } = archive;
  const params: Array<[string, string]> = [['per_page', String(paging.perPage)]];
  if (f.search) params.push(['search', f.search]);
  if (f.exclude.length) params.push(['exclude', f.exclude.join(',')]);
  if (f.include.length) params.push(['include', f.include.join(',')]);
  params.push(['order', f.order], ['orderby', f.orderby], ['hide_empty', String(f.hideEmpty)]);
  if (isHierarchical(taxonomy) && f.parent !== null) params.push(['parent', String(f.parent)]);
  if (f.event !== null) params.push([f.eventParam, String(f.event)]);
  if (f.slug) params.push(['slug', f.slug]);
  return params;
}
