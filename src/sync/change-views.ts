import type { Context } from '../core/context/scope.js';
import type { Prisma } from '../generated/sqlite/client.js';
import { invalidParams } from '../core/errors/errors.js';
import { exceeds, tooManyValues } from '../core/rules/limits.js';
import type { PostWhere } from '../core/rules/permissions.js';
import { contentOpenWhere } from '../core/rules/visibility.js';
import type { Taxonomy } from '../core/rules/urls.js';
import { type EventListFilter, SUBSCRIPTION_FILTERS } from '../events/model/filter-catalog.js';
import { eventsVisibleTo } from '../events/service/event-access.js';
import { applyFilters } from '../events/service/events-query.js';
import { LISTED } from '../core/db/queries/list-conditions.js';
import type { LinkedKind } from '../places/service/linked-lists.js';
import { linkedVisibleTo } from '../places/service/linked-access.js';
import { termsVisibleTo, visibleTermIds } from '../terms/term-reads.js';

// What a GraphQL subscription sees of the change feed: its view, the records it may be told about.
// A view answers which of some ids the subscriber sees now (readable by its viewer and matching its
// filter); its key names everything that answer depends on besides the ids, the viewer's visibility
// included, so that subscribers with the same key share one query per change.

export interface ChangeView {
  key: string;
  visibleIds(ids: number[]): Promise<number[]>;
}

/** The event subscription's filter: some of the list's own filters (`SUBSCRIPTION_FILTERS`), and ids. */
type EventChangeFilter = { ids?: number[] | null } & Pick<
  EventListFilter,
  (typeof SUBSCRIPTION_FILTERS)[number]
>;

/** Size limits of an id or slug list (the list filters' own), before any query. */
function checkSizes(lists: Record<string, readonly unknown[] | null | undefined>): void {
  const reasons: Record<string, string> = {};
  for (const [name, values] of Object.entries(lists)) if (exceeds(values)) reasons[name] = tooManyValues();
  if (Object.keys(reasons).length) throw invalidParams(reasons);
}

/** The events among some ids that meet all `conditions`. */
function eventView(ctx: Context, conditions: Prisma.EventWhereInput[]): ChangeView {
  return {
    key: JSON.stringify(conditions),
    visibleIds: async (wanted) =>
      (
        await ctx.db.event.findMany({
          where: { AND: [{ id: { in: wanted } }, ...conditions] },
          select: { id: true },
        })
      ).map((row) => row.id),
  };
}

/**
 * The events a subscription sees: readable by its viewer and matching its filter, validated as the
 * list validates its own (unknown ids → 400). Filters on what a protected event's listing blanks never
 * match it for who cannot unlock it (D21).
 */
export async function eventChangeView(
  ctx: Context,
  filter: EventChangeFilter,
  password: string | null,
): Promise<ChangeView> {
  checkSizes({ ...filter });
  const viewer = ctx.viewer;
  const conditions: Prisma.EventWhereInput[] = [eventsVisibleTo(viewer)];
  // Not listed (hidden from listings, a series' excluded first start): readable by id, so delivered
  // only to a subscription naming it.
  conditions.push(filter.ids?.length ? { id: { in: filter.ids } } : LISTED);
  // The list's filters, checked, looked up and matched as the list applies them (D21 included).
  const applied = await applyFilters(ctx, filter, { password, only: SUBSCRIPTION_FILTERS });
  conditions.push(...applied.where);
  return eventView(ctx, conditions);
}

/** The venues or organizers a subscription sees: readable by its viewer, only `named` when given. */
export function linkedChangeView(
  ctx: Context,
  kind: LinkedKind,
  named: readonly number[] | null | undefined,
): ChangeView {
  checkSizes({ ids: named });
  const conditions: PostWhere[] = [
    linkedVisibleTo(ctx.viewer),
    ...(named?.length ? [{ id: { in: [...named] } }] : []),
  ];
  const where = (wanted: number[]) => ({ AND: [{ id: { in: wanted } }, ...conditions] });
  return {
    key: JSON.stringify(conditions),
    visibleIds: async (wanted) =>
      (kind === 'venue'
        ? await ctx.db.venue.findMany({
            where: where(wanted) as Prisma.VenueWhereInput,
            select: { id: true },
          })
        : await ctx.db.organizer.findMany({
            where: where(wanted) as Prisma.OrganizerWhereInput,
            select: { id: true },
          })
      ).map((row) => row.id),
  };
}

/** The categories and tags a subscription sees: all of them, of one taxonomy or only `named` when given. */
export function termChangeView(
  ctx: Context,
  taxonomy: Taxonomy | null,
  named: readonly number[] | null | undefined,
): ChangeView {
  checkSizes({ ids: named });
  const conditions: Prisma.TermWhereInput[] = [];
  if (taxonomy) conditions.push(termsVisibleTo(taxonomy));
  if (named?.length) conditions.push({ id: { in: [...named] } });
  return {
    key: JSON.stringify(conditions),
    visibleIds: (wanted) => visibleTermIds(ctx, wanted, conditions),
  };
}

/**
 * The event whose tickets a subscription sees (`ticketAvailability`): readable by its viewer, and its
 * content open to it (a protected one needs its `password` or the right to edit it), as every ticket
 * path decides.
 */
export function ticketsChangeView(ctx: Context, password: string | null): ChangeView {
  const conditions: Prisma.EventWhereInput[] = [
    eventsVisibleTo(ctx.viewer),
    contentOpenWhere(ctx.viewer, password) as Prisma.EventWhereInput,
  ];
  return eventView(ctx, conditions);
}
