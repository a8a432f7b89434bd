import type { Context } from '../../core/context/scope.js';
import {
  type Dependencies,
  type EventFact,
  type EventWindow,
  LIST_FACTS,
} from '../../core/cache/dependencies.js';
import { searchTerms } from '../../core/rules/search.js';
import { FILTER_NAMES, filterDeclaration } from '../model/filter-catalog.js';
import { ApiError, invalidParams } from '../../core/errors/errors.js';
import { normalizePaging } from '../../core/rules/paging.js';
import { type Viewer, canRead } from '../../core/rules/permissions.js';
import { type Judged, judged } from '../../core/rules/visibility.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import { archivePage } from '../../core/db/queries/archive.js';
import { type CursorArgs, connectionPage, keysetWindow, sortKeysOf } from '../../core/db/queries/keyset.js';
import { countEventsWhere } from '../../core/db/queries/list-conditions.js';
import { countListed } from './list-counts.js';
import { nearestEventIds } from './events-geo.js';
import {
  type EventListFilter,
  type EventListOptions,
  type EffectiveEventFilter,
  type EventQuery,
  type ListTotal,
  DEFAULT_EVENT_ORDER,
  radiusName,
  resolveEventQuery,
} from './events-query.js';

// The event list's pages (`GET /events`, GraphQL `events`) over the query `events-query.ts` builds,
// each event judged for the viewer; and an event reached through another one.

/** One page of the list, with what the envelope, the headers and the links need. */
export async function eventArchive(
  ctx: Context,
  filter: EventListFilter,
  page: number | null | undefined,
  perPage: number | null | undefined,
  options: EventListOptions & { password?: string | null },
) {
  const paging = normalizePaging(page, perPage);
  const query = await resolveEventQuery(ctx, filter, options);
  const dependencies = loggedDependencies(ctx, query);
  const defaultOrder = query.orderBy === DEFAULT_EVENT_ORDER;
  const pageNotFound = () =>
    new ApiError(404, 'event-archive-page-not-found', 'The requested event archive page does not exist');
  const ordered = query.distances ? await nearestEventIds(ctx, query, radiusName(options)) : null;
  const count = ordered ? async () => (ordered as number[]).length : () => countEvents(ctx, query.total);
  const archive = await archivePage(query, paging, count, pageNotFound);
  const narrowable = defaultOrder && !ordered ? dependencies.windows[0]! : null;
  return {
    ...archive,
    effective: query.effective,
    password: options.password ?? null,
    /** Geo lists: the ids of this page, nearest first (the page is fetched by id). */
    ids: ordered ? ordered.slice(archive.skip, archive.skip + archive.take) : null,
    /** The list as logged, when a page of it in the default order may narrow it to its rows' keys. */
    narrowable,
    /** How a narrowable page's total is counted again, for a kept answer that shows it. */
    recount: narrowable && !options.password ? recountOf(ctx, query.total) : null,
  };
}

/**
 * The list's total counted again, holding only what counting needs (a cached answer may keep it): its
 * condition as it is then (an index asked again names the events it finds then).
 */
function recountOf(
  { db, config }: Pick<Context, 'db' | 'config'>,
  { where, through, whereAgain, buckets }: ListTotal,
): { recount: () => Promise<number>; holds: unknown } {
  return {
    recount: async () => countEvents({ db, config }, { where: await whereAgain(), through, buckets }),
    // What `whereAgain` keeps is this read's condition without the events it named: `where` bounds it.
    holds: [where],
  };
}

export type EventArchive = Awaited<ReturnType<typeof eventArchive>>;

/** The list's total, counted by the index (a bucketed default window counts its buckets). */
function countEvents(
  ctx: Pick<Context, 'db' | 'config'>,
  { where, through, buckets }: Pick<ListTotal, 'where' | 'through' | 'buckets'>,
): Promise<number> {
  return buckets
    ? countListed(ctx.db, ctx.config.databaseProvider, buckets)
    : countEventsWhere(ctx.db, where, through);
}

/**
 * What a list's membership depends on, noted in the read log: its date window (an event outside it,
 * before and after a write, changes nothing in it), the records its filters name and the families its
 * lookups read.
 */
function loggedDependencies(ctx: Context, { effective, termIds }: EventQuery): Dependencies {
  const window = windowOf(effective, termIds);
  // Term filters name terms by slug or id; a geo filter reads every venue's coordinates.
  const kinds = [
    ...(effective.categories || effective.tags ? (['term'] as const) : []),
    ...(effective.near || effective.geoloc ? (['venue'] as const) : []),
  ];
  const named = [
    ...(effective.venues ?? []).map((id) => ['venue', id] as const),
    ...(effective.organizers ?? []).map((id) => ['organizer', id] as const),
    ...(effective.postParent !== null ? [['event', effective.postParent] as const] : []),
  ];
  ctx.reads?.eventList(window);
  for (const kind of kinds) ctx.reads?.family(kind);
  for (const [kind, id] of named) ctx.reads?.named(kind, id);
  return { records: named.map(([kind, id]) => `${kind}:${id}`), kinds, windows: [window] };
}

/** What the list's membership and order read: every list's facts, its filters', and D21's `password`. */
function factsOf(effective: EffectiveEventFilter): EventFact[] {
  const facts = new Set<EventFact>(LIST_FACTS);
  for (const name of FILTER_NAMES) {
    if (!isApplied(effective[name])) continue;
    const declaration = filterDeclaration(name);
    for (const fact of declaration.facts) facts.add(fact);
    if (declaration.onWithheld) facts.add('password');
  }
  return [...facts];
}

const isApplied = (value: unknown) =>
  value !== null && value !== undefined && value !== false && !(Array.isArray(value) && !value.length);

function windowOf(effective: EffectiveEventFilter, termIds: number[][]): EventWindow {
  const later = (a: string | null, b: string | null) => (a === null ? b : b === null || a > b ? a : b);
  const earlier = (a: string | null, b: string | null) => (a === null ? b : b === null || a < b ? a : b);
  return {
    startFrom: later(effective.startDate, effective.startsAfter),
    startTo: effective.startsBefore,
    endFrom: effective.endsAfter,
    endTo: earlier(effective.endDate, effective.endsBefore),
    facts: factsOf(effective),
    statuses: effective.status?.statuses ?? null,
    terms: termIds,
    venues: effective.venues,
    organizers: effective.organizers,
    ...(effective.search ? { search: searchTerms(effective.search) } : {}),
  };
}

/** The columns the event list orders by (start, or publication with `include`), as cursors carry them. */
const EVENT_SORT_KINDS = { localStart: 'text', publishedAt: 'date', id: 'int' } as const;

/**
 * One cursor page of the list (GraphQL `eventsConnection`): the same filters, order and verdicts as
 * `eventArchive`, bounded by the cursor instead of an offset; the total is counted only when asked.
 * A list near a point is ordered by distance, which no cursor can hold: it pages by number only.
 */
export async function eventConnection<T extends ListedEvent>(
  ctx: Context,
  filter: EventListFilter,
  args: CursorArgs,
  options: EventListOptions & { password?: string | null },
  find: (args: {
    where: Prisma.EventWhereInput;
    orderBy: Prisma.EventOrderByWithRelationInput[];
    take: number;
  }) => Promise<T[]>,
) {
  const query = await resolveEventQuery(ctx, filter, options);
  const dependencies = loggedDependencies(ctx, query);
  if (query.distances) throw invalidParams({ near: 'Not with cursors: page a list near a point by number.' });
  const keys = sortKeysOf(query.orderBy, EVENT_SORT_KINDS);
  const window = keysetWindow(keys, args);
  const rows = await find({
    where: window.bounds.length ? { AND: [query.where, ...window.bounds] } : query.where,
    orderBy: window.orderBy,
    take: window.take,
  });
  // A forward page in the default order holds the list from just after its cursor (or its first row)
  // to the last row fetched, the one that tells whether more follow included.
  if (query.orderBy === DEFAULT_EVENT_ORDER && !window.backward && !window.beforeKey) {
    const [afterStart, afterId] = window.afterKey ?? [];
    narrowToPage(
      ctx,
      dependencies.windows[0]!,
      typeof afterStart === 'string' && typeof afterId === 'number'
        ? [{ id: afterId, localStart: afterStart }, ...rows]
        : rows,
    );
  }
  return {
    ...connectionPage(keys, window, rows, (row) => judged(row, ctx.viewer, options.password)),
    totalCount: () => countEvents(ctx, query.total),
  };
}

interface ListedEvent {
  id: number;
  status: string;
  password: string | null;
  authorId: number | null;
}

/**
 * Fetches the page (by id for geo lists, keeping their order), each event judged: a password-protected
 * one is listed with its content withheld unless the request's password or the viewer's rights open it.
 */
export async function eventPageItems<T extends ListedEvent>(
  ctx: Context,
  archive: EventArchive,
  find: (args: {
    where: Prisma.EventWhereInput;
    orderBy?: Prisma.EventOrderByWithRelationInput[];
    skip?: number;
    take?: number;
  }) => Promise<T[]>,
): Promise<Array<Judged<T>>> {
  let rows: T[];
  if (archive.ids) {
    const byId = new Map((await find({ where: { id: { in: archive.ids } } })).map((row) => [row.id, row]));
    rows = archive.ids.map((id) => byId.get(id)).filter((row): row is T => row !== undefined);
  } else {
    rows = await find({
      where: archive.where,
      orderBy: archive.orderBy,
      skip: archive.skip,
      take: archive.take,
    });
    narrowToPage(ctx, archive.narrowable, rows, archive);
  }
  return rows.map((row) => judged(row, ctx.viewer, archive.password));
}

/**
 * Tells the read log that the answer shows only this page of the list: its first and last rows' keys
 * in the default order (when the selection read the start; an empty page keeps the whole list). A
 * cursor page passes its cursor's key first: nothing at or before it is on the page. A numbered page
 * (`archive`) also says whether it is full, and how the total it shows is counted again.
 */
function narrowToPage(
  ctx: Context,
  window: EventWindow | null,
  rows: ReadonlyArray<{ id: number; localStart?: unknown }>,
  archive?: EventArchive,
): void {
  const first = rows[0];
  const last = rows[rows.length - 1];
  if (!window || !ctx.reads || typeof first?.localStart !== 'string' || typeof last?.localStart !== 'string')
    return;
  const full = rows.length === archive?.take;
  ctx.reads.narrowEventList(
    window,
    { first: [first.localStart, first.id], last: [last.localStart, last.id], ...(full && { full }) },
    full && archive.recount ? { ...archive.recount, ...archive.paging } : undefined,
  );
}

/**
 * An event reached through another one (its parent): hidden when the viewer may not read it, blanked
 * when it is password-protected.
 */
export function linkedEvent<T extends ListedEvent>(event: T | null, viewer: Viewer): Judged<T> | null {
  if (!event || !canRead(viewer, event)) return null;
  return judged(event, viewer);
}
