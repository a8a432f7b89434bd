import { builder } from '../core/graphql/schema/builder.js';
import { Event } from '../events/graphql.js';
import { Organizer } from '../places/graphql-organizer.js';
import { Category } from '../terms/graphql-category.js';
import { Tag } from '../terms/graphql-tag.js';
import { Venue } from '../places/graphql-venue.js';
import type { Context } from '../core/context/context.js';
import { ApiError } from '../core/errors/errors.js';
import type { FeedChange, FeedKind } from './change-feed.js';
import {
  type ChangeView,
  eventChangeView,
  linkedChangeView,
  termChangeView,
  ticketsChangeView,
} from './change-views.js';
import { ticketTypesShown } from './ticket-changes.js';
import { TicketType } from '../tickets/graphql.js';
import { eventForTickets } from '../tickets/reservations/reservations.js';
import { visibleEvent } from '../events/service/event-access.js';
import { visibleLinked } from '../places/service/linked-access.js';
import type { LinkedKind } from '../places/service/linked-lists.js';
import { visibleTerm } from '../terms/term-reads.js';
import { CATEGORY, TAG } from '../terms/terms.js';
import type { InputFieldRef } from '@pothos/core';
import {
  type EventListFilter,
  SUBSCRIPTION_FILTERS,
  type SubscriptionFilterName,
  filterDeclaration,
} from '../events/model/filter-catalog.js';
import type { RecordOperation as Operation } from '../core/db/transactions.js';

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

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

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
const verdicts = new WeakMap<FeedChange, Map<string, Promise<boolean>>>();

function inView(change: FeedChange, view: string, probe: () => Promise<boolean>): Promise<boolean> {
  let byView = verdicts.get(change);
  if (!byView) verdicts.set(change, (byView = new Map()));
  let verdict = byView.get(view);
  if (!verdict) byView.set(view, (verdict = probe()));
  return verdict;
}

/**
 * A subscription of `kind`: its `view` says which of some ids the subscriber sees now (readable and
 * matching its filter); `named` are the ids its filter names, seeded into its view when visible.
 */
async function watch(
  ctx: Context,
  kind: FeedKind,
  view: ChangeView,
  named: readonly number[] | null,
  password: string | null,
  /** Records whose disappearance is no secret (terms): tombstones even for records not in the view. */
  publicTombstone: (id: number) => boolean = () => false,
): Promise<AsyncIterableIterator<Delivery>> {
  const feed = feedOf(ctx);
  const client = ctx.client ?? 'unknown';
  const seen = new Set<number>(named?.length ? await view.visibleIds([...new Set(named)]) : []);
  return feed.subscribe(kind, client, ctx.viewer.userId, async (change): Promise<Delivery | null> => {
    const visible =
      change.operation !== 'deleted' &&
      (await inView(change, view.key, async () => (await view.visibleIds([change.id])).length > 0));
    if (visible) {
      seen.delete(change.id);
      seen.add(change.id);
      if (seen.size > MAX_REMEMBERED) seen.delete(seen.values().next().value as number);
    } else if (!seen.delete(change.id) && !publicTombstone(change.id)) return null;
    // Only records' changes reach these subscriptions (`created` … `deleted`).
    return { id: change.id, operation: change.operation as Operation, visible, password };
  });
}

interface AvailabilityDelivery {
  eventId: number;
  password: string | null;
}

const TicketAvailabilityChange = builder
  .objectRef<AvailabilityDelivery>('TicketAvailabilityChange')
  .implement({
    description: "An event's ticket types after a change of its tickets (a reservation, a type written)",
    fields: (t) => ({
      eventId: t.exposeInt('eventId', { description: 'The event' }),
      ticketTypes: t.field({
        type: [TicketType],
        description:
          'Its ticket types as they are now, each with its availability (counts only, never who reserved)',
        resolve: async ({ eventId, password }, _args, ctx) =>
          (await ticketTypesShown(ctx, eventId, password)) ?? [],
      }),
    }),
  });

const EventChangeFilter = builder.inputType('EventChangeFilter', {
  description:
    'Any of the values of each field; fields combine with AND. Filters on venues, organizers, ' +
    'categories and tags never match a password-protected event you cannot unlock.',
  // Some of the list's own filters, as declared (`events/model/event-filters.ts`), applied as the list applies them.
  fields: (t) => ({
    ids: t.intList({ description: 'Only these events (hidden-from-listings ones included)' }),
    ...(Object.fromEntries(
      SUBSCRIPTION_FILTERS.map((name) => {
        const { kind, description } = filterDeclaration(name);
        return [name, kind === 'intList' ? t.intList({ description }) : t.stringList({ description })];
      }),
    ) as { [K in SubscriptionFilterName]: InputFieldRef<Types, EventListFilter[K]> }),
  }),
});

/** What every change type says: which record, and what happened to it. */
function changeFields(t: PothosSchemaTypes.ObjectFieldBuilder<Types, Delivery>) {
  return {
    id: t.exposeInt('id', { description: 'The numeric id of the changed record' }),
    operation: t.field({
      type: ChangeOperation,
      description: 'What happened to it',
      resolve: (change) => change.operation,
    }),
  };
}

const EventChange = builder.objectRef<Delivery>('EventChange').implement({
  description: 'A committed change to an event you may see',
  fields: (t) => ({
    ...changeFields(t),
    event: t.prismaField({
      type: Event,
      nullable: true,
      description: `The event as it is now, as a query would show it to you; ${LEFT_VIEW}`,
      resolve: (query, change, _args, ctx) =>
        change.visible ? visibleEvent(ctx, change.id, query, change.password) : null,
    }),
  }),
});

/** The change type and subscription of venues or organizers (`type`: the kind's object type). */
function linkedChanges(
  kind: LinkedKind,
  name: string,
  article: string,
  type: typeof Venue | typeof Organizer,
) {
  const Change = builder.objectRef<Delivery>(`${name}Change`).implement({
    description: `A committed change to ${article} you may see`,
    fields: (t) => ({
      ...changeFields(t),
      [kind]: t.prismaField({
        type,
        nullable: true,
        description: `The ${kind} as it is now; ${LEFT_VIEW}`,
        resolve: async (query, change, _args, ctx) =>
          change.visible ? ((await visibleLinked(ctx, kind, [change.id], query))[0] ?? null) : null,
      }),
    }),
  });
  builder.subscriptionField(`${kind}Changed`, (t) =>
    t.field({
      type: Change,
      description: `${name}s created, changed, trashed or deleted from now on, as you may see them`,
      args: { ids: t.arg.intList({ description: `Only these ${kind}s` }) },
      subscribe: async (_root, args, ctx) => {
        feedOf(ctx).assertRoom(ctx.client ?? 'unknown');
        return watch(ctx, kind, linkedChangeView(ctx, kind, args.ids), args.ids ?? null, null);
      },
      resolve: (change) => change,
    }),
  );
}
linkedChanges('venue', 'Venue', 'a venue', Venue);
linkedChanges('organizer', 'Organizer', 'an organizer', Organizer);

const TermChange = builder.objectRef<Delivery>('TermChange').implement({
  description: 'A committed change to a category or tag',
  fields: (t) => ({
    ...changeFields(t),
    category: t.prismaField({
      type: Category,
      nullable: true,
      description: `The category as it is now (null for a tag); ${LEFT_VIEW}`,
      resolve: (query, change, _args, ctx) =>
        change.visible ? visibleTerm(ctx, CATEGORY, change.id, query) : null,
    }),
    tag: t.prismaField({
      type: Tag,
      nullable: true,
      description: `The tag as it is now (null for a category); ${LEFT_VIEW}`,
      resolve: (query, change, _args, ctx) =>
        change.visible ? visibleTerm(ctx, TAG, change.id, query) : null,
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
      const view = await eventChangeView(ctx, filter ?? {}, password ?? null);
      return watch(ctx, 'event', view, filter?.ids ?? null, password ?? null);
    },
    resolve: (change) => change,
  }),
  ticketAvailability: t.field({
    type: TicketAvailabilityChange,
    description:
      "An event's ticket types and their availability after each change of its tickets, from now on. An event you may not see is TICKET_NOT_FOUND, as an unknown one; a protected one needs its password",
    args: {
      eventId: t.arg.int({ required: true, description: 'The event' }),
      password: t.arg.string({ description: 'The password of a password-protected event' }),
    },
    subscribe: async (_root, { eventId, password }, ctx) => {
      const feed = feedOf(ctx);
      const client = ctx.client ?? 'unknown';
      feed.assertRoom(client);
      // The ticket paths' own refusals: unknown or invisible → 404, protected without its password → 403.
      await eventForTickets(ctx, eventId, password);
      const view: ChangeView = ticketsChangeView(ctx, password ?? null);
      const delivery = { eventId, password: password ?? null };
      return feed.subscribe('tickets', client, ctx.viewer.userId, async (change) =>
        change.id === eventId &&
        (await inView(change, view.key, async () => (await view.visibleIds([eventId])).length > 0))
          ? delivery
          : null,
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
      const taxonomy = args.kind ? (args.kind === 'category' ? CATEGORY : TAG) : null;
      return watch(
        ctx,
        'term',
        termChangeView(ctx, taxonomy, args.ids),
        args.ids ?? null,
        null,
        // Terms are public: a deletion is told to all, unless the filter may not have covered the term.
        (id) => !args.kind && (!args.ids?.length || args.ids.includes(id)),
      );
    },
    resolve: (change) => change,
  }),
}));
