import { builder } from './builder.js';
import { Event } from './event.js';
import { Organizer } from './organizer.js';
import { Category } from './category.js';
import { Tag } from './tag.js';
import { Venue } from './venue.js';
import type { Context } from '../context.js';
import { ApiError, invalidParams } from '../domain/errors.js';
import { exceeds, tooManyValues } from '../domain/limits.js';
import { type PostWhere, readableWhere } from '../domain/permissions.js';
import { contentOpenWhere, judged } from '../domain/visibility.js';
import type { Prisma } from '../generated/sqlite/client.js';
import type { FeedKind } from '../services/sync/change-feed.js';
import { CATEGORY, TAG } from '../services/terms/terms.js';
import { resolveTerms } from '../services/events/events-query.js';
import {
  EVENT_FILTERS,
  type FilterName,
  applyLookupFilter,
  onWithheld,
  termLookups,
  termWhere,
} from '../model/event-filters.js';
import type { Change, ChangeOperation as Operation } from '../services/transactions.js';

// GraphQL subscriptions (served over Server-Sent Events by yoga). The feed carries only
// {kind, id, operation}; every subscriber re-reads the record with its own viewer, so what it receives
// follows the rules of its queries: drafts only to those who may read them, a protected event's
// content blanked unless the subscriber may edit it or gave its `password`, filters on blanked fields
// never matching a protected event it cannot unlock (D21).
//
// Each subscription keeps a view: the records it has delivered (and, when the filter names ids, those
// of them visible when it began). A change to a record in the view that takes it out (deleted,
// trashed, no longer readable, no longer matching the filter) is delivered once, without content
// (`event: null`); a change to a record the subscriber cannot see and never saw is not delivered at
// all, so nothing tells that a draft exists or is being edited.

builder.subscriptionType({
  subGraphs: ['public'],
  description:
    'Live changes, served over Server-Sent Events at /graphql; each record is re-read as you may see it',
});

const ChangeOperation = builder.enumType('ChangeOperation', {
  description: 'What happened to the record',
  values: {
    created: { description: 'The record was created' },
    updated: { description: 'The record was changed (a change of status included)' },
    trashed: { description: 'The record was moved to the trash (it can still be restored)' },
    deleted: { description: 'The record was deleted permanently' },
  } satisfies Record<Operation, { description: string }>,
});

const TermKind = builder.enumType('TermKind', {
  description: 'The taxonomy of a term',
  values: {
    category: { description: 'Event categories' },
    tag: { description: 'Tags' },
  },
});

interface Delivery {
  id: number;
  operation: Operation;
  /** In the subscriber's view after the change: its content is read; otherwise it is a tombstone. */
  visible: boolean;
  password: string | null;
}

const LEFT_VIEW =
  'null when the record left this subscription’s view: deleted, trashed, no longer readable by you, ' +
  'or no longer matching the filter';

/** At most this many records remembered per subscription (the oldest are forgotten first). */
const MAX_REMEMBERED = 10_000;

function feedOf(ctx: Context) {
  if (!ctx.changes)
    throw new ApiError(400, 'subscriptions_unavailable', 'Subscriptions are served at /graphql.');
  return ctx.changes;
}

/**
 * Whether a change is in view, asked once per change for all the subscribers of this instance that
 * see the same way (`view`: the conditions their probes run, viewer included): a write heard by a
 * thousand anonymous subscribers costs one query here, not a thousand. Every subscriber receives the
 * same Change object from the feed, so it keys the shared answers and they go with it.
 */
const verdicts = new WeakMap<Change, Map<string, Promise<boolean>>>();

function inView(change: Change, view: string, probe: () => Promise<boolean>): Promise<boolean> {
  let byView = verdicts.get(change);
  if (!byView) verdicts.set(change, (byView = new Map()));
  let verdict = byView.get(view);
  if (!verdict) byView.set(view, (verdict = probe()));
  return verdict;
}

/**
 * A subscription of `kind`: `visibleIds` says which of some ids the subscriber sees now (readable and
 * matching its filter); `named` are the ids its filter names, seeded into its view when visible.
 */
async function watch(
  ctx: Context,
  kind: FeedKind,
  /** What `visibleIds` depends on besides the ids (its conditions), as a key. */
  view: string,
  visibleIds: (ids: number[]) => Promise<number[]>,
  named: readonly number[] | null,
  password: string | null,
  /** Records whose disappearance is no secret (terms): tombstones even for records not in the view. */
  publicTombstone: (id: number) => boolean = () => false,
): Promise<AsyncIterableIterator<Delivery>> {
  const feed = feedOf(ctx);
  const client = ctx.client ?? 'unknown';
  const seen = new Set<number>(named?.length ? await visibleIds([...new Set(named)]) : []);
  return feed.subscribe(kind, client, ctx.viewer.userId, async (change: Change): Promise<Delivery | null> => {
    const visible =
      change.operation !== 'deleted' &&
      (await inView(change, view, async () => (await visibleIds([change.id])).length > 0));
    if (visible) {
      seen.delete(change.id);
      seen.add(change.id);
      if (seen.size > MAX_REMEMBERED) seen.delete(seen.values().next().value as number);
    } else if (!seen.delete(change.id) && !publicTombstone(change.id)) return null;
    return { id: change.id, operation: change.operation, visible, password };
  });
}

/** Size limits of an id or slug list (the list filters' own), before any query. */
function checkSizes(lists: Record<string, readonly unknown[] | null | undefined>): void {
  const reasons: Record<string, string> = {};
  for (const [name, values] of Object.entries(lists)) if (exceeds(values)) reasons[name] = tooManyValues();
  if (Object.keys(reasons).length) throw invalidParams(reasons);
}

const ids = (rows: Array<{ id: number }>) => rows.map((row) => row.id);

const EventChangeFilter = builder.inputType('EventChangeFilter', {
  description:
    'Any of the values of each field; fields combine with AND. Filters on venues, organizers, ' +
    'categories and tags never match a password-protected event you cannot unlock.',
  // The list's own filters, as declared (`model/event-filters.ts`).
  fields: (t) => ({
    ids: t.intList({ description: 'Only these events (hidden-from-listings ones included)' }),
    venues: t.intList({ description: EVENT_FILTERS.venues.description }),
    organizers: t.intList({ description: EVENT_FILTERS.organizers.description }),
    categories: t.stringList({ description: EVENT_FILTERS.categories.description }),
    tags: t.stringList({ description: EVENT_FILTERS.tags.description }),
  }),
});

type EventChangeFilterValue = (typeof EventChangeFilter)['$inferInput'];

/** The event conditions of a filter, validated as the list validates its own (unknown ids → 400). */
async function eventConditions(
  ctx: Context,
  filter: EventChangeFilterValue,
  password: string | null,
): Promise<Prisma.EventWhereInput[]> {
  checkSizes(filter);
  const viewer = ctx.viewer;
  const conditions: Prisma.EventWhereInput[] = [readableWhere(viewer) as Prisma.EventWhereInput];
  // Hidden from listings: readable by id, so delivered only to a subscription naming it.
  conditions.push(filter.ids?.length ? { id: { in: filter.ids } } : { hideFromListings: false });
  // Venues and organizers checked and matched as the list does (`model/event-filters.ts`).
  const [venues, organizers, terms] = await Promise.all([
    applyLookupFilter('venues', filter.venues, ctx),
    applyLookupFilter('organizers', filter.organizers, ctx),
    resolveTerms(ctx, termLookups(filter)),
  ]);
  const categories = filter.categories?.length ? [...new Set(terms.ids.categories)] : null;
  const tags = filter.tags?.length ? [...new Set(terms.ids.tags)] : null;
  const unknown: Record<string, string> = {};
  for (const param of terms.unknown) unknown[param] = 'Invalid parameter.';
  const looked = { venues, organizers };
  for (const [name, applied] of Object.entries(looked))
    if (applied && 'reason' in applied) unknown[name] = applied.reason;
  if (Object.keys(unknown).length) throw invalidParams(unknown);
  for (const applied of Object.values(looked))
    if (applied && 'where' in applied && applied.where) conditions.push(applied.where);
  if (categories) conditions.push(termWhere(categories));
  if (tags) conditions.push(termWhere(tags));
  // D21: a filter on what a protected event's listing blanks never matches it for who cannot unlock it.
  const applied = {
    venues: venues && 'effective' in venues ? venues.effective : null,
    organizers: organizers && 'effective' in organizers ? organizers.effective : null,
    categories,
    tags,
  };
  if (Object.entries(applied).some(([name, value]) => onWithheld(name as FilterName, value)))
    conditions.push(contentOpenWhere(viewer, password) as Prisma.EventWhereInput);
  return conditions;
}

const EventChange = builder.objectRef<Delivery>('EventChange').implement({
  description: 'A committed change to an event you may see',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The numeric id of the changed record' }),
    operation: t.field({
      type: ChangeOperation,
      description: 'What happened to it',
      resolve: (change) => change.operation,
    }),
    event: t.prismaField({
      type: Event,
      nullable: true,
      description: `The event as it is now, as a query would show it to you; ${LEFT_VIEW}`,
      resolve: async (query, change, _args, ctx) => {
        if (!change.visible) return null;
        const event = await ctx.db.event.findFirst({
          ...query,
          where: { AND: [{ id: change.id }, readableWhere(ctx.viewer) as Prisma.EventWhereInput] },
        });
        return event && judged(event, ctx.viewer, change.password);
      },
    }),
  }),
});

/** Venue or organizer subscriptions: readable records, optionally only some ids. */
function linkedPostConditions(ctx: Context, named: readonly number[] | null | undefined): PostWhere[] {
  checkSizes({ ids: named });
  return [readableWhere(ctx.viewer), ...(named?.length ? [{ id: { in: [...named] } }] : [])];
}

const VenueChange = builder.objectRef<Delivery>('VenueChange').implement({
  description: 'A committed change to a venue you may see',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The numeric id of the changed record' }),
    operation: t.field({
      type: ChangeOperation,
      description: 'What happened to it',
      resolve: (change) => change.operation,
    }),
    venue: t.prismaField({
      type: Venue,
      nullable: true,
      description: `The venue as it is now; ${LEFT_VIEW}`,
      resolve: (query, change, _args, ctx) =>
        change.visible
          ? ctx.db.venue.findFirst({ ...query, where: { id: change.id, ...readableWhere(ctx.viewer) } })
          : null,
    }),
  }),
});

const OrganizerChange = builder.objectRef<Delivery>('OrganizerChange').implement({
  description: 'A committed change to an organizer you may see',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The numeric id of the changed record' }),
    operation: t.field({
      type: ChangeOperation,
      description: 'What happened to it',
      resolve: (change) => change.operation,
    }),
    organizer: t.prismaField({
      type: Organizer,
      nullable: true,
      description: `The organizer as it is now; ${LEFT_VIEW}`,
      resolve: (query, change, _args, ctx) =>
        change.visible
          ? ctx.db.organizer.findFirst({ ...query, where: { id: change.id, ...readableWhere(ctx.viewer) } })
          : null,
    }),
  }),
});

const TermChange = builder.objectRef<Delivery>('TermChange').implement({
  description: 'A committed change to a category or tag',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The numeric id of the changed record' }),
    operation: t.field({
      type: ChangeOperation,
      description: 'What happened to it',
      resolve: (change) => change.operation,
    }),
    category: t.prismaField({
      type: Category,
      nullable: true,
      description: `The category as it is now (null for a tag); ${LEFT_VIEW}`,
      resolve: (query, change, _args, ctx) =>
        change.visible
          ? ctx.db.term.findFirst({ ...query, where: { id: change.id, taxonomy: CATEGORY } })
          : null,
    }),
    tag: t.prismaField({
      type: Tag,
      nullable: true,
      description: `The tag as it is now (null for a category); ${LEFT_VIEW}`,
      resolve: (query, change, _args, ctx) =>
        change.visible ? ctx.db.term.findFirst({ ...query, where: { id: change.id, taxonomy: TAG } }) : null,
    }),
  }),
});

builder.subscriptionFields((t) => ({
  eventChanged: t.field({
    type: EventChange,
    description:
      'Events created, changed, trashed or deleted from now on, as you may see them (see EventChange.event)',
    args: {
      filter: t.arg({ type: EventChangeFilter, description: 'Only changes to events matching this filter' }),
      password: t.arg.string({
        description: 'Shows the content of password-protected events with this password',
      }),
    },
    subscribe: async (_root, { filter, password }, ctx) => {
      feedOf(ctx).assertRoom(ctx.client ?? 'unknown');
      const conditions = await eventConditions(ctx, filter ?? {}, password ?? null);
      return watch(
        ctx,
        'event',
        JSON.stringify(conditions),
        async (wanted) =>
          ids(
            await ctx.db.event.findMany({
              where: { AND: [{ id: { in: wanted } }, ...conditions] },
              select: { id: true },
            }),
          ),
        filter?.ids ?? null,
        password ?? null,
      );
    },
    resolve: (change) => change,
  }),
  venueChanged: t.field({
    type: VenueChange,
    description: 'Venues created, changed, trashed or deleted from now on, as you may see them',
    args: { ids: t.arg.intList({ description: 'Only these venues' }) },
    subscribe: async (_root, args, ctx) => {
      feedOf(ctx).assertRoom(ctx.client ?? 'unknown');
      const conditions = linkedPostConditions(ctx, args.ids);
      return watch(
        ctx,
        'venue',
        JSON.stringify(conditions),
        async (wanted) =>
          ids(
            await ctx.db.venue.findMany({
              where: { AND: [{ id: { in: wanted } }, ...(conditions as Prisma.VenueWhereInput[])] },
              select: { id: true },
            }),
          ),
        args.ids ?? null,
        null,
      );
    },
    resolve: (change) => change,
  }),
  organizerChanged: t.field({
    type: OrganizerChange,
    description: 'Organizers created, changed, trashed or deleted from now on, as you may see them',
    args: { ids: t.arg.intList({ description: 'Only these organizers' }) },
    subscribe: async (_root, args, ctx) => {
      feedOf(ctx).assertRoom(ctx.client ?? 'unknown');
      const conditions = linkedPostConditions(ctx, args.ids);
      return watch(
        ctx,
        'organizer',
        JSON.stringify(conditions),
        async (wanted) =>
          ids(
            await ctx.db.organizer.findMany({
              where: { AND: [{ id: { in: wanted } }, ...(conditions as Prisma.OrganizerWhereInput[])] },
              select: { id: true },
            }),
          ),
        args.ids ?? null,
        null,
      );
    },
    resolve: (change) => change,
  }),
  termChanged: t.field({
    type: TermChange,
    description: 'Categories and tags created, changed or deleted from now on',
    args: {
      kind: t.arg({ type: TermKind, description: 'Only categories, or only tags' }),
      ids: t.arg.intList({ description: 'Only these terms' }),
    },
    subscribe: async (_root, args, ctx) => {
      feedOf(ctx).assertRoom(ctx.client ?? 'unknown');
      checkSizes({ ids: args.ids });
      const where: Prisma.TermWhereInput[] = [];
      if (args.kind) where.push({ taxonomy: args.kind === 'category' ? CATEGORY : TAG });
      if (args.ids?.length) where.push({ id: { in: args.ids } });
      return watch(
        ctx,
        'term',
        JSON.stringify(where),
        async (wanted) =>
          ids(
            await ctx.db.term.findMany({
              where: { AND: [{ id: { in: wanted } }, ...where] },
              select: { id: true },
            }),
          ),
        args.ids ?? null,
        null,
        // Terms are public: a deletion is told to all, unless the filter may not have covered the term.
        (id) => !args.kind && (!args.ids?.length || args.ids.includes(id)),
      );
    },
    resolve: (change) => change,
  }),
}));
