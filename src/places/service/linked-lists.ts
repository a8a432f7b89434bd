import type { Context, Scope } from '../../core/context/scope.js';
import type { Db } from '../../core/db/client.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import { ApiError, invalidParams } from '../../core/errors/errors.js';
import { SEARCH_TOO_LONG, exceeds, searchTooLong, tooManyValues } from '../../core/rules/limits.js';
import { normalizePaging } from '../../core/rules/paging.js';
import { type Viewer, can, listableStatuses } from '../../core/rules/permissions.js';
import { contentOpenWhere, eventLinksAccess } from '../../core/rules/visibility.js';
import { archivePage } from '../../core/db/queries/archive.js';
import { type CursorArgs, connectionPage, keysetWindow, sortKeysOf } from '../../core/db/queries/keyset.js';
import { type SearchWhere, searchWhere } from '../../core/db/queries/text-search.js';

// The venue and organizer lists (docs/reference.md §8): the filters both kinds share, the page and the
// parameters that reproduce it; `venues.ts` and `organizers.ts` add `search` over their own fields.

const INVALID = 'Invalid parameter.';

export type LinkedKind = 'venue' | 'organizer';

/** The list filters (docs/reference.md §8); REST names them in snake_case, GraphQL in camelCase. */
export interface LinkedListFilter {
  search?: string | null;
  event?: number | null;
  hasEvents?: boolean | null;
  onlyWithUpcoming?: boolean | null;
  status?: string[] | null;
}

/** The filters as applied: echoed in `rest_url` and the paging links. */
export interface EffectiveLinkedFilter {
  search: string | null;
  event: number | null;
  hasEvents: boolean | null;
  onlyWithUpcoming: boolean;
  status: string[];
  /** Every status the viewer may list was asked for: echoed as `any`. */
  statusAny: boolean;
}

interface LinkedEventLink {
  eventId?: number;
  event?: Prisma.EventWhereInput;
}

/** A condition valid for both `Prisma.VenueWhereInput` and `Prisma.OrganizerWhereInput`. */
interface LinkedWhere {
  AND?: LinkedWhere[];
  id?: { in: number[] };
  OR?: LinkedWhere[];
  status?: string | { in: string[] };
  authorId?: number | null;
  password?: null;
  events?: { some: LinkedEventLink } | { none: LinkedEventLink };
}

/** A list's search, and the database it runs on (which decides how text is compared). */
interface SearchText {
  text: string;
  provider: Scope['config']['databaseProvider'];
}

/** Events that make a venue or organizer "have events": any but drafts and pending ones (trashed count). */
const COUNTED_EVENT: Prisma.EventWhereInput = { status: { notIn: ['draft', 'pending'] } };

/**
 * The candidates for a case-insensitive equality. PostgreSQL compares with `mode: "insensitive"`, which
 * the SQLite-typed client does not declare; SQLite's LIKE (Prisma's `contains`) ignores ASCII case, and
 * the caller then compares the candidates exactly.
 */
export function textMatch(provider: Scope['config']['databaseProvider'], text: string): Prisma.StringFilter {
  if (provider === 'postgresql') return { equals: text, mode: 'insensitive' } as Prisma.StringFilter;
  return { contains: text };
}

/**
 * Who may find password-protected records through `search` (their fields are scrubbed for others,
 * so matching on them would leak them): those who may edit them.
 */
function protectedSearchable(viewer: Viewer): LinkedWhere | null {
  if (can(viewer, 'edit_others_posts')) return null;
  if (can(viewer, 'edit_posts') && viewer.userId !== null)
    return { OR: [{ password: null }, { authorId: viewer.userId }] };
  return { password: null };
}

/**
 * The list conditions shared by both kinds; `withSearch` adds `search` over each kind's own fields.
 * `event` must name an existing event (else 400).
 */
async function linkedListQuery(
  scope: Pick<Context, 'db' | 'viewer' | 'config' | 'reads'>,
  filter: LinkedListFilter,
  now: Date = new Date(),
): Promise<{ where: LinkedWhere; search: SearchText | null; effective: EffectiveLinkedFilter }> {
  const { db, viewer } = scope;
  let eventLinks: ReturnType<typeof eventLinksAccess> = 'open';
  if (filter.event != null) {
    const event =
      filter.event > 0
        ? await db.event.findUnique({
            where: { id: filter.event },
            select: { status: true, authorId: true, password: true },
          })
        : null;
    eventLinks = eventLinksAccess(viewer, event);
    if (eventLinks === 'unknown') throw invalidParams({ event: INVALID });
  }
  if (searchTooLong(filter.search)) throw invalidParams({ search: SEARCH_TOO_LONG });
  if (exceeds(filter.status)) throw invalidParams({ status: tooManyValues() });
  const { statuses, ownOnlyBeyondPublish, any } = listableStatuses(viewer, filter.status);
  const and: LinkedWhere[] = [{ status: { in: statuses } }];
  if (ownOnlyBeyondPublish) and.push({ OR: [{ status: 'publish' }, { authorId: viewer.userId }] });
  if (filter.event != null) {
    and.push(
      eventLinks === 'withheld' ? { id: { in: [] } } : { events: { some: { eventId: filter.event } } },
    );
  }
  // Links of protected events the viewer cannot unlock do not count: they are blanked in the listing.
  const open = contentOpenWhere(viewer) as Prisma.EventWhereInput;
  if (filter.hasEvents === true) and.push({ events: { some: { event: { AND: [COUNTED_EVENT, open] } } } });
  if (filter.hasEvents === false) and.push({ events: { none: { event: { AND: [COUNTED_EVENT, open] } } } });
  if (filter.onlyWithUpcoming) {
    and.push({
      events: { some: { event: { AND: [{ status: { in: statuses }, startsAt: { gte: now } }, open] } } },
    });
  }
  // Which records pass these filters moves with the events (their links, status and dates).
  if (filter.event != null || filter.hasEvents != null || filter.onlyWithUpcoming)
    scope.reads?.family('events');
  const search = filter.search?.trim() || null;
  if (search) {
    const visible = protectedSearchable(viewer);
    if (visible) and.push(visible);
  }
  return {
    where: { AND: and },
    search: search ? { text: search, provider: scope.config.databaseProvider } : null,
    effective: {
      search,
      event: filter.event ?? null,
      hasEvents: filter.hasEvents ?? null,
      onlyWithUpcoming: filter.onlyWithUpcoming ?? false,
      status: statuses,
      statusAny: any,
    },
  };
}

/** Venue and organizer lists: newest first. */
const LINKED_ORDER = [{ publishedAt: 'desc' as const }, { id: 'desc' as const }];
const LINKED_SORT_KEYS = sortKeysOf(LINKED_ORDER, { publishedAt: 'date', id: 'int' });

/** One cursor page of a venue or organizer list (GraphQL `venuesConnection`, `organizersConnection`). */
async function linkedConnection<Where, Row extends object>(
  where: Where,
  args: CursorArgs,
  find: (args: { where: Where; orderBy: object[]; take: number }) => Promise<Row[]>,
  count: (where: Where) => Promise<number>,
) {
  const window = keysetWindow(LINKED_SORT_KEYS, args);
  const rows = await find({
    // Both kinds' where inputs take `AND` lists of conditions on their own columns.
    where: (window.bounds.length ? { AND: [where, ...window.bounds] } : where) as Where,
    orderBy: window.orderBy,
    take: window.take,
  });
  return { ...connectionPage(LINKED_SORT_KEYS, window, rows, (row) => row), totalCount: () => count(where) };
}

/** The effective filters as the reference echoes them after `page` (D2: every filter, so paging keeps them). */
export function linkedArchiveParams(
  perPage: number,
  effective: EffectiveLinkedFilter,
): Array<[string, string]> {
  const params: Array<[string, string]> = [['per_page', String(perPage)]];
  if (effective.search) params.push(['search', effective.search]);
  if (effective.event !== null) params.push(['event', String(effective.event)]);
  if (effective.hasEvents !== null) params.push(['has_events', String(effective.hasEvents)]);
  if (effective.onlyWithUpcoming) params.push(['only_with_upcoming', 'true']);
  params.push(['status', effective.statusAny ? 'any' : effective.status.join(',')]);
  return params;
}

/** The list conditions, plus `search` over `fields` (each kind names its own), as WordPress matches it. */
function withSearch<Field extends string>(
  query: { where: LinkedWhere; search: SearchText | null },
  fields: readonly Field[],
): LinkedWhere | { AND: [LinkedWhere, SearchWhere<Field>] } {
  const { search } = query;
  if (!search) return query.where;
  return { AND: [query.where, searchWhere(search.text, fields, search.provider)] };
}

/** A list's conditions as `withSearch` gives them over the kind's searched columns. */
type LinkedListWhere<Field extends string> = LinkedWhere | { AND: [LinkedWhere, SearchWhere<Field>] };

/** What a kind's lists differ by: its name, the columns `search` looks in, its table's queries. */
interface LinkedListSource<Row extends object, Field extends string> {
  kind: LinkedKind;
  searched: readonly Field[];
  count(db: Db, where: LinkedListWhere<Field>): Promise<number>;
  findMany(db: Db, args: { where: LinkedListWhere<Field>; orderBy: object[]; take: number }): Promise<Row[]>;
}

/** A kind's page (`archive`) and cursor page (`connection`) of its list, declared once for both kinds. */
export function linkedLists<Stored extends object, Field extends string>(
  source: LinkedListSource<Stored, Field>,
) {
  const { kind } = source;
  const list = async (
    scope: Pick<Context, 'db' | 'viewer' | 'config' | 'reads'>,
    filter: LinkedListFilter,
  ) => {
    const query = await linkedListQuery(scope, filter);
    return { where: withSearch(query, source.searched), effective: query.effective };
  };
  return {
    async archive(
      scope: Pick<Scope, 'db' | 'viewer' | 'config'>,
      filter: LinkedListFilter,
      page: number | null | undefined,
      perPage: number | null | undefined,
    ) {
      const { where, effective } = await list(scope, filter);
      const archive = await archivePage(
        { where, orderBy: [...LINKED_ORDER] },
        normalizePaging(page, perPage),
        (w) => source.count(scope.db, w),
        () =>
          new ApiError(
            404,
            `${kind}-archive-page-not-found`,
            `The requested ${kind} archive page does not exist`,
          ),
      );
      return { ...archive, effective };
    },
    /**
     * One cursor page: the list's filters and order (its visibility included), bounded by the cursor;
     * the rows loaded with the API's `selection`.
     */
    async connection<Row extends object = Stored>(
      scope: Pick<Scope, 'db' | 'viewer' | 'config'>,
      filter: LinkedListFilter,
      args: CursorArgs,
      selection: object = {},
    ) {
      const { db } = scope;
      const { where } = await list(scope, filter);
      const find = async (window: { where: LinkedListWhere<Field>; orderBy: object[]; take: number }) =>
        // The selection picks the columns and relations the API asked for: the rows are of its shape.
        (await source.findMany(db, { ...selection, ...window })) as unknown as Row[];
      return linkedConnection(where, args, find, (w) => source.count(db, w));
    },
  };
}
