import { REST, builder } from '../core/graphql/schema/builder.js';
import { type Lookup, LOOKUPS, keyOf, lookupArgs } from '../core/graphql/schema/common.js';
import { archiveLinks } from '../core/rules/paging.js';
import { type EventArchive, eventArchive, eventPageItems } from './service/events.js';
import { findEvents } from './service/reads/event-reads.js';
import type { EventListFilter } from './service/events-query.js';
import { ECHO_ORDER, FILTER_NAMES, REST_PARAMS, echoOf, filterDeclaration } from './model/filter-catalog.js';
import { FEED_DEFAULT_LIMIT, FEED_MAX_LIMIT, type Feed, eventFeed, eventsFeed, webcalUrl } from './ical.js';
import { createEvent, deleteEvent, updateEvent } from './service/event-writes.js';
import { EVENT_BODY, EVENT_LINK_PARAMS, EVENT_PARAMS, readEventBody } from './rest-body.js';
import { restBodyType } from '../core/graphql/schema/rest-bodies.js';
import { type ParamNames, namingParams } from '../core/rest/param-names.js';
import { NOT_FOUND } from '../core/rules/visibility.js';
import { hidingMissing } from '../core/rules/permissions.js';
import { invalidParams } from '../core/errors/errors.js';
import type { Context } from '../core/context/context.js';
import { readEvent, writtenEvent } from './service/event-access.js';
import { readScope } from './series/series-place.js';
import { TecEvent, TecSingleEvent } from './rest-shape.js';

// The events' REST routes over the TEC sub-graph: the list with its filters, echo and paging links, the
// feeds, the single event and the writes, each answering in the shape of `rest-shape.ts`.

/** An event write, its errors under REST names (those of an inline venue or organizer too). */
const namingEventParams = <T>(run: () => Promise<T>) => namingParams(EVENT_PARAMS, run, EVENT_LINK_PARAMS);

/** The reference validates a slug before anything else: one that names no event it may show is a 400. */
const invalidSlug = () => invalidParams({ slug: 'Invalid parameter.' });
const MISSING_EVENT = NOT_FOUND.event(0).code;

/**
 * A write on the event a key names (D22): a caller who may not act on every event is refused whether
 * it exists or not; to one who may, an unknown id is a 404 and an unknown slug the reference's 400.
 */
const onNamedEvent = <T>(
  ctx: Context,
  action: 'edit' | 'delete',
  key: { id: number } | { slug: string },
  run: () => Promise<T>,
) => hidingMissing(ctx.viewer, action, MISSING_EVENT, run, 'slug' in key ? invalidSlug : undefined);

const TecEventList = builder.objectRef<EventArchive>('TecEventList').implement({
  ...REST,
  fields: (t) => ({
    events: t.prismaField({
      type: [TecEvent],
      resolve: (query, page, _args, ctx) => eventPageItems(ctx, page, (args) => findEvents(ctx, query, args)),
    }),
    rest_url: t.string({ resolve: (page, _a, ctx) => eventLinks(page, ctx).restUrl }),
    ical_url: t.string({
      description: 'The same query as an iCalendar subscription (webcal://)',
      resolve: (page, _a, ctx) => eventFeedUrl(page, ctx),
    }),
    next_rest_url: t.string({
      nullable: true,
      resolve: (page, _a, ctx) => eventLinks(page, ctx).nextRestUrl,
    }),
    previous_rest_url: t.string({
      nullable: true,
      resolve: (page, _a, ctx) => eventLinks(page, ctx).previousRestUrl,
    }),
    total: t.int({ resolve: (page) => page.total }),
    total_pages: t.int({ resolve: (page) => page.totalPages }),
  }),
});

const flagParam = (value: boolean) => (value ? '1' : '0');

/**
 * The effective query, in the reference's order (docs/reference.md §2.2); then, per D2, what the reference
 * forgets (categories, tags, geo, strict dates) so that `next_rest_url` pages the same query: every
 * declared filter (`ECHO_ORDER`). Never the password.
 */
function eventLinks(page: EventArchive, ctx: Context) {
  const { effective: f, paging } = page;
  const params: Array<[string, string]> = [['per_page', String(paging.perPage)]];
  for (const name of ECHO_ORDER)
    for (const [param, value] of echoOf(name, f[name]))
      params.push([
        param,
        typeof value === 'boolean'
          ? flagParam(value)
          : Array.isArray(value)
            ? value.join(',')
            : String(value),
      ]);
  return archiveLinks(`${ctx.urls.api}/events/`, params, paging.page, page.totalPages);
}

/** The list's query (without its paging) as a `webcal://` feed address. */
export function eventFeedUrl(page: EventArchive, ctx: Context): string {
  const query = new URL(eventLinks(page, ctx).restUrl).searchParams;
  query.delete('page');
  query.delete('per_page');
  const qs = query.toString();
  return webcalUrl(`${ctx.urls.api}/events.ics${qs ? `?${qs}` : ''}`);
}

const LIST_PARAM_NAMES: ParamNames = REST_PARAMS;

/** The REST arguments → the domain filter, through the declaration's names. */
function listFilter(args: Record<string, unknown>): EventListFilter {
  const filter: Record<string, unknown> = {};
  for (const name of FILTER_NAMES) {
    const { rest } = filterDeclaration(name);
    filter[name] =
      typeof rest === 'string'
        ? args[rest]
        : { lat: args[rest.lat], lng: args[rest.lng], radius: args[rest.radius] };
  }
  return filter as EventListFilter;
}

type ArgBuilder = Parameters<Parameters<typeof builder.queryFields>[0]>[0]['arg'];

/** One REST argument per declared filter (`near`: one per coordinate), in the declaration's order. */
function listArgs(arg: ArgBuilder) {
  const args: Record<string, ReturnType<ArgBuilder['string']>> = {};
  for (const name of FILTER_NAMES) {
    const filter = filterDeclaration(name);
    const { rest, restDescription: description } = filter;
    if (typeof rest !== 'string' || typeof description !== 'string') {
      const parts = description as { lat: string; lng: string; radius: string };
      for (const part of ['lat', 'lng', 'radius'] as const)
        args[(rest as typeof parts)[part]] = arg.float({ description: parts[part] }) as unknown as ReturnType<
          ArgBuilder['string']
        >;
      continue;
    }
    const options = { description };
    args[rest] = (
      filter.kind === 'string'
        ? arg.string(options)
        : filter.kind === 'boolean'
          ? arg.boolean(
              filter.restDefault === undefined ? options : { ...options, defaultValue: filter.restDefault },
            )
          : filter.kind === 'int'
            ? arg.int(options)
            : filter.kind === 'stringList'
              ? arg.stringList(options)
              : arg.intList(options)
    ) as ReturnType<ArgBuilder['string']>;
  }
  return args;
}

const TecFeed = builder.objectRef<Feed>('TecFeed').implement({
  ...REST,
  description: 'An iCalendar (RFC 5545) document and the file name it is served under',
  fields: (t) => ({
    calendar: t.exposeString('calendar'),
    filename: t.exposeString('filename'),
  }),
});

/** The route's key argument: `id` (the event post ID) or `slug` (its post name). */
const restEventKey = (lookup: Lookup) =>
  lookupArgs(lookup, lookup.by === 'id' ? 'the event post ID' : 'the event post name');
const passwordArg = builder.args((t) => ({ password: t.string({ description: 'The event password' }) }));
const restScopeArg = builder.args((t) => ({
  scope: t.string({
    description: 'Extension: on an occurrence of a series, this (the default), following or all',
  }),
}));

builder.queryFields((t) => {
  // The list's parameters; its feed (`/events.ics`) takes the same ones, `limit` in place of paging.
  const { page, per_page, ...filterArgs } = {
    page: t.arg.int({ description: 'The archive page to return', defaultValue: 1 }),
    per_page: t.arg.int({
      description: 'The number of events to return on each page (at most 50)',
      defaultValue: 10,
    }),
    ...listArgs(t.arg),
    password: t.arg.string({ description: 'Shows password-protected events it unlocks' }),
  };
  return {
    tecEvents: t.field({
      ...REST,
      type: TecEventList,
      args: { page, per_page, ...filterArgs },
      resolve: (_root, args, ctx) =>
        eventArchive(ctx, listFilter(args), args.page, args.per_page, {
          paramNames: LIST_PARAM_NAMES,
          password: args.password,
        }),
    }),
    // A slug must name an event (docs/reference.md §3.2): an unknown one is an invalid parameter.
    ...Object.fromEntries(
      LOOKUPS.map((lookup) => [
        `tecEvent${lookup.suffix}`,
        t.prismaField({
          ...REST,
          type: TecSingleEvent,
          args: { ...restEventKey(lookup), ...passwordArg },
          resolve: (query, _root, args, ctx) =>
            readEvent(
              ctx,
              query,
              keyOf(lookup, args),
              args.password,
              lookup.by === 'slug' ? invalidSlug : undefined,
            ),
        }),
      ]),
    ),
    tecEventsFeed: t.field({
      ...REST,
      type: TecFeed,
      args: {
        ...filterArgs,
        limit: t.arg.int({
          description: `The most events the feed holds (default ${FEED_DEFAULT_LIMIT}, at most ${FEED_MAX_LIMIT}), in list order`,
        }),
        expand: t.arg.boolean({
          description:
            'Extension: one VEVENT per occurrence of a series (TEC style), instead of one VEVENT with RRULE and one per exception',
        }),
      },
      resolve: (_root, args, ctx) =>
        eventsFeed(ctx, listFilter(args), args.limit, {
          paramNames: LIST_PARAM_NAMES,
          password: args.password,
          expand: args.expand,
        }),
    }),
    ...Object.fromEntries(
      LOOKUPS.map((lookup) => [
        `tecEvent${lookup.suffix}Feed`,
        t.field({
          ...REST,
          type: TecFeed,
          args: { ...restEventKey(lookup), ...passwordArg },
          resolve: (_root, args, ctx) => eventFeed(ctx, keyOf(lookup, args), args.password),
        }),
      ]),
    ),
  };
});

/** The flat TEC body of every event write (what a route requires or refuses is the service's check). */
const TecEventBody = restBodyType(
  'TecEventBody',
  'An event write body as WordPress sends it (password: by-id routes only)',
  EVENT_BODY,
);

// Writes (POST /events, POST|PUT|PATCH|DELETE /events/{id} and /events/by-slug/{slug}): the flat TEC
// body as `TecEventBody`, read into the domain input (`events/rest-body.ts`), errors named as its parameters;
// they answer in the list representation (no json_ld). Updates and deletes are declared once for both
// routes, the lookup as data.
builder.mutationFields((t) => ({
  tecCreateEvent: t.prismaField({
    ...REST,
    type: TecEvent,
    args: { input: t.arg({ type: TecEventBody }) },
    resolve: (query, _root, { input }, ctx) => {
      const { input: event, unreadable } = readEventBody(input);
      return namingEventParams(() =>
        createEvent(ctx, event, writtenEvent(ctx, query), {
          passwordAllowed: true,
          unreadable,
        }),
      );
    },
  }),
  ...Object.fromEntries(
    LOOKUPS.map((lookup) => [
      `tecUpdateEvent${lookup.suffix}`,
      t.prismaField({
        ...REST,
        type: TecEvent,
        args: { ...restEventKey(lookup), input: t.arg({ type: TecEventBody }), ...restScopeArg },
        resolve: (query, _root, args, ctx) => {
          const key = keyOf(lookup, args);
          return onNamedEvent(ctx, 'edit', key, () =>
            namingEventParams(() => {
              const { input: event, unreadable } = readEventBody(args.input);
              return updateEvent(ctx, key, event, writtenEvent(ctx, query), {
                // By slug, the password cannot be set.
                passwordAllowed: lookup.by === 'id',
                unreadable,
                scope: readScope(args.scope),
              });
            }),
          );
        },
      }),
    ]),
  ),
  ...Object.fromEntries(
    LOOKUPS.map((lookup) => [
      `tecDeleteEvent${lookup.suffix}`,
      t.prismaField({
        ...REST,
        type: TecEvent,
        args: {
          ...restEventKey(lookup),
          force: t.arg.boolean({
            description: 'Deletes for good instead of trashing (editors and administrators)',
          }),
          // The by-id route accepts the reference's `password`; the by-slug route has none.
          ...(lookup.by === 'id'
            ? { password: t.arg.string({ description: 'Accepted as by the reference, and not needed' }) }
            : {}),
          ...restScopeArg,
        },
        resolve: (query, _root, args, ctx) => {
          const key = keyOf(lookup, args);
          return onNamedEvent(ctx, 'delete', key, () =>
            deleteEvent(ctx, key, args.force ?? false, writtenEvent(ctx, query), {
              scope: readScope(args.scope),
            }),
          );
        },
      }),
    ]),
  ),
}));
