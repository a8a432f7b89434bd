import type { GraphQLResolveInfo } from 'graphql';
import { type SubGraph, builder } from '../builder.js';
import {
  eventJsonLd,
  presentEmbeddedTerm,
  presentImage,
  presentOrganizer,
  presentVenue,
  type Representation,
  texturize,
} from './present.js';
import { dateDetails, postDateOf, wallClock, zoneAbbreviation } from '../../domain/dates.js';
import { costValues, formatCost } from '../../domain/cost.js';
import { archiveLinks } from '../../domain/paging.js';
import { type EventArchive, eventArchive, eventPageItems } from '../../services/events/events.js';
import { findEvents } from '../../services/events/event-reads.js';
import type { EventListFilter } from '../../services/events/events-query.js';
import { ECHO_ORDER, FILTER_NAMES, REST_PARAMS, filterDeclaration } from '../../model/event-filters.js';
import {
  FEED_DEFAULT_LIMIT,
  FEED_MAX_LIMIT,
  type Feed,
  eventFeed,
  eventsFeed,
  webcalUrl,
} from '../../services/sync/ical.js';
import { createEvent, deleteEvent, updateEvent } from '../../services/events/event-writes.js';
import { EVENT_LINK_PARAMS, EVENT_PARAMS, readEventBody } from '../../rest/bodies/event.js';
import { SHAPES, jsonShape } from '../../rest/tec-schemas.js';
import { RECORD_VERSION_KEY } from '../../rest/route-table.js';
import { recordVersion } from '../../domain/versions.js';
import { type ParamNames, namingParams } from '../../rest/param-names.js';
import { globalId, permalink } from '../../domain/urls.js';
import { NOT_FOUND, contentWithheld, readableLinks } from '../../domain/visibility.js';
import { hidingMissing } from '../../domain/permissions.js';
import { invalidParams } from '../../domain/errors.js';
import {
  type DeclaredName,
  type FieldDeclaration,
  declaredEntries,
  placed,
} from '../../model/event-fields.js';
import type { Term } from '../../generated/sqlite/client.js';
import type { Context } from '../../context.js';
import { readEvent, writtenEvent } from '../../services/events/event-access.js';
import { readScope, seriesLines } from '../../services/events/event-series.js';

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

// The event as The Events Calendar's REST API v1 returns it (docs/reference.md §1.1): snake_case keys in the
// reference's order. Fields resolve from the same Prisma selection as the public `Event` type.

const REST: { subGraphs: SubGraph[] } = { subGraphs: ['rest'] };

const DateDetails = builder.objectRef<ReturnType<typeof dateDetails>>('TecDateDetails').implement({
  ...REST,
  fields: (t) => ({
    year: t.exposeString('year'),
    month: t.exposeString('month'),
    day: t.exposeString('day'),
    hour: t.exposeString('hour'),
    minutes: t.exposeString('minutes'),
    seconds: t.exposeString('seconds'),
  }),
});

interface CostDetailsShape {
  currency_symbol: string;
  currency_code: string;
  currency_position: string;
  values: string[];
}

const CostDetails = builder.objectRef<CostDetailsShape>('TecCostDetails').implement({
  ...REST,
  fields: (t) => ({
    currency_symbol: t.exposeString('currency_symbol'),
    currency_code: t.exposeString('currency_code'),
    currency_position: t.exposeString('currency_position'),
    values: t.exposeStringList('values'),
  }),
});

const linkedRecords = {
  venues: { orderBy: { position: 'asc' }, include: { venue: { include: { image: true } } } },
  organizers: { orderBy: { position: 'asc' }, include: { organizer: { include: { image: true } } } },
} as const;

/** Embedded venues and organizers carry their own `json_ld` only inside a single event. */
function representationOf(info: GraphQLResolveInfo): Representation {
  return info.parentType.name === 'TecSingleEvent' ? 'single' : 'list';
}

/** The keys shared by the list and single representations (the single one adds `json_ld`). */
const TecEventFields = builder.prismaInterface('Event', {
  variant: 'TecEventFields',
  ...REST,
  fields: (t) => {
    const local =
      (instant: 'startsAt' | 'endsAt') => (e: { startsAt: Date; endsAt: Date; timezone: string }) =>
        wallClock(e[instant], e.timezone);
    const utc = (instant: 'startsAt' | 'endsAt') => (e: { startsAt: Date; endsAt: Date }) =>
      wallClock(e[instant], 'UTC');
    // Blanked (null) in lists for a password-protected event without its password (docs/reference.md §4.3).
    const flag = (key: 'allDay' | 'showMap' | 'showMapLink' | 'hideFromListings' | 'sticky' | 'featured') =>
      t.boolean({ nullable: true, resolve: (e) => (contentWithheld(e) ? null : e[key]) });
    // A declared field (`model/event-fields.ts`) as the reference shows its kind: blanked when withheld.
    const declared = (name: DeclaredName, field: FieldDeclaration) => {
      const blank = (e: Parameters<typeof contentWithheld>[0]) => field.withheld && contentWithheld(e);
      return field.kind === 'flag'
        ? t.boolean({ nullable: true, resolve: (e) => (blank(e) ? null : (e[name] as boolean)) })
        : t.string({ resolve: (e) => (blank(e) ? '' : String(e[name])) });
    };
    return placed(
      {
        id: t.exposeInt('id'),
        global_id: t.string({ resolve: (e, _a, ctx) => globalId(ctx.urls, e.id) }),
        global_id_lineage: t.stringList({ resolve: (e, _a, ctx) => [globalId(ctx.urls, e.id)] }),
        author: t.string({ resolve: (e) => String(e.authorId ?? 0) }),
        status: t.exposeString('status'),
        date: t.string({ resolve: (e, _a, ctx) => postDateOf(e, ctx.config.siteTimezone) }),
        date_utc: t.string({ resolve: (e) => wallClock(e.publishedAt, 'UTC') }),
        modified: t.string({ resolve: (e, _a, ctx) => wallClock(e.modifiedAt, ctx.config.siteTimezone) }),
        modified_utc: t.string({ resolve: (e) => wallClock(e.modifiedAt, 'UTC') }),
        url: t.string({ resolve: (e, _a, ctx) => permalink(ctx.urls, 'event', e) }),
        rest_url: t.string({ resolve: (e, _a, ctx) => `${ctx.urls.api}/events/${e.id}` }),
        // Rendered as WordPress renders them (wptexturize); GraphQL keeps the raw text.
        title: t.string({ resolve: (e) => texturize(e.title) }),
        description: t.string({ resolve: (e) => (contentWithheld(e) ? '' : texturize(e.description)) }),
        excerpt: t.string({ resolve: (e) => (contentWithheld(e) ? '' : texturize(e.excerpt)) }),
        slug: t.string({ resolve: (e) => e.slug ?? '' }),
        image: t.field({
          type: 'JSON',
          extensions: jsonShape(SHAPES.image),
          select: { image: true },
          resolve: (e) => (contentWithheld(e) ? false : presentImage(e.image)),
        }),
        all_day: flag('allDay'),
        start_date: t.string({ resolve: local('startsAt') }),
        start_date_details: t.field({ type: DateDetails, resolve: (e) => dateDetails(local('startsAt')(e)) }),
        end_date: t.string({ resolve: local('endsAt') }),
        end_date_details: t.field({ type: DateDetails, resolve: (e) => dateDetails(local('endsAt')(e)) }),
        utc_start_date: t.string({ resolve: utc('startsAt') }),
        utc_start_date_details: t.field({
          type: DateDetails,
          resolve: (e) => dateDetails(utc('startsAt')(e)),
        }),
        utc_end_date: t.string({ resolve: utc('endsAt') }),
        utc_end_date_details: t.field({ type: DateDetails, resolve: (e) => dateDetails(utc('endsAt')(e)) }),
        timezone: t.exposeString('timezone'),
        timezone_abbr: t.string({ resolve: (e) => zoneAbbreviation(e.startsAt, e.timezone) }),
        cost: t.string({ resolve: (e) => (contentWithheld(e) ? '' : formatCost(e)) }),
        cost_details: t.field({
          type: CostDetails,
          resolve: (e) =>
            contentWithheld(e)
              ? { currency_symbol: '', currency_code: '', currency_position: '', values: [] }
              : {
                  currency_symbol: e.currencySymbol,
                  currency_code: e.currencyCode,
                  currency_position: e.currencyPosition,
                  values: costValues(e.cost),
                },
        }),
        website: t.string({
          resolve: (e, _a, ctx) => (contentWithheld(e) ? '' : e.website || permalink(ctx.urls, 'event', e)),
        }),
        categories: t.field({
          type: 'JSON',
          extensions: jsonShape(SHAPES.eventTerms),
          select: { terms: { orderBy: { position: 'asc' }, include: { term: true } } },
          resolve: (e, _a, ctx) =>
            contentWithheld(e) ? [] : embeddedTerms(e.terms, 'tribe_events_cat', ctx),
        }),
        tags: t.field({
          type: 'JSON',
          extensions: jsonShape(SHAPES.eventTerms),
          select: { terms: { orderBy: { position: 'asc' }, include: { term: true } } },
          resolve: (e, _a, ctx) => (contentWithheld(e) ? [] : embeddedTerms(e.terms, 'post_tag', ctx)),
        }),
        venue: t.field({
          type: 'JSON',
          description: 'One venue → object; several → array; none → []',
          extensions: jsonShape(SHAPES.eventVenue),
          select: { venues: linkedRecords.venues },
          resolve: (e, _a, ctx, info) => {
            if (contentWithheld(e)) return [];
            const as = representationOf(info);
            const venues = readableLinks(
              ctx.viewer,
              e.venues.map((link) => link.venue),
            ).map((venue) => presentVenue(venue, ctx.urls, ctx.config.siteTimezone, as, ctx.viewer));
            return venues.length === 1 ? venues[0] : venues;
          },
        }),
        organizer: t.field({
          type: 'JSON',
          extensions: jsonShape(SHAPES.eventOrganizers),
          select: { organizers: linkedRecords.organizers },
          resolve: (e, _a, ctx, info) =>
            contentWithheld(e)
              ? []
              : readableLinks(
                  ctx.viewer,
                  e.organizers.map((link) => link.organizer),
                ).map((organizer) =>
                  presentOrganizer(
                    organizer,
                    ctx.urls,
                    ctx.config.siteTimezone,
                    representationOf(info),
                    ctx.viewer,
                  ),
                ),
        }),
        custom_fields: t.field({
          type: 'JSON',
          extensions: jsonShape(SHAPES.customFields),
          resolve: () => [],
        }),
        // TEC's event status, after the reference's keys (its REST API v1 does not show them).
        event_status: t.exposeString('eventStatus'),
        event_status_reason: t.string({ resolve: (e) => (contentWithheld(e) ? '' : e.eventStatusReason) }),
        // Extensions for series (docs/reference/recurrence.md): TEC Pro's parent, Google's recurrence.
        post_parent: t.int({ resolve: (e) => e.postParentId ?? 0 }),
        recurrence: t.stringList({ resolve: (e) => seriesLines(e) }),
      },
      declaredEntries('rest', declared),
    );
  },
});

/** Names compared regardless of case and accents; one collator, not one built per comparison. */
const byTermName = new Intl.Collator('en', { sensitivity: 'base' });

/** Term shape (a), in the order the event lists them; counts are stored on the term. */
/** By name, as WordPress's `wp_get_object_terms` returns them (not in the order they were linked). */
function embeddedTerms(links: Array<{ term: Term }>, taxonomy: string, ctx: Context) {
  return links
    .map((link) => link.term)
    .filter((term) => term.taxonomy === taxonomy)
    .sort((a, b) => byTermName.compare(a.name, b.name) || a.id - b.id)
    .map((term) => presentEmbeddedTerm(term, term.eventCount, ctx.urls));
}

export const TecEvent = builder.prismaObject('Event', {
  variant: 'TecEvent',
  ...REST,
  interfaces: [TecEventFields],
  fields: () => ({}),
});

export const TecSingleEvent = builder.prismaObject('Event', {
  variant: 'TecSingleEvent',
  ...REST,
  interfaces: [TecEventFields],
  fields: (t) => ({
    [RECORD_VERSION_KEY]: t.string({ nullable: true, resolve: (event) => recordVersion(event) }),
    // A password-protected event has no JSON-LD, even for whoever gave the password (as the reference).
    json_ld: t.field({
      type: 'JSON',
      extensions: jsonShape('TecEventJsonLd'),
      nullable: true,
      select: { image: true, ...linkedRecords },
      resolve: (e, _a, ctx) =>
        e.password
          ? null
          : eventJsonLd(
              e,
              readableLinks(
                ctx.viewer,
                e.venues.map((link) => link.venue),
              ),
              readableLinks(
                ctx.viewer,
                e.organizers.map((link) => link.organizer),
              ),
              ctx.urls,
            ),
    }),
  }),
});

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
  const add = (name: string, value: string | number | boolean | readonly (string | number)[] | null) => {
    if (value === null) return;
    if (typeof value === 'boolean') params.push([name, flagParam(value)]);
    else params.push([name, Array.isArray(value) ? value.join(',') : String(value)]);
  };
  for (const name of ECHO_ORDER) {
    const filter = filterDeclaration(name);
    if (name === 'status') add(REST_PARAMS.status, f.statusAny ? 'any' : f.status);
    else if (name === 'near') {
      if (f.near)
        for (const part of ['lat', 'lng', 'radius'] as const) add(REST_PARAMS[`near.${part}`], f.near[part]);
    } else if (name === 'strictDates') {
      if (f.strictDates) add(REST_PARAMS.strictDates, true);
    } else if (typeof filter.rest === 'string')
      add(filter.rest, f[name as keyof typeof f] as Parameters<typeof add>[1]);
  }
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
    tecEvent: t.prismaField({
      ...REST,
      type: TecSingleEvent,
      args: {
        id: t.arg.int({ required: true, description: 'the event post ID' }),
        password: t.arg.string({ description: 'The event password' }),
      },
      resolve: (query, _root, { id, password }, ctx) => readEvent(ctx, query, { id }, password),
    }),
    tecEventBySlug: t.prismaField({
      ...REST,
      type: TecSingleEvent,
      args: {
        slug: t.arg.string({ required: true, description: 'the event post name' }),
        password: t.arg.string({ description: 'The event password' }),
      },
      // A slug must name an event (docs/reference.md §3.2): an unknown one is an invalid parameter.
      resolve: (query, _root, { slug, password }, ctx) =>
        readEvent(ctx, query, { slug }, password, invalidSlug),
    }),
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
    tecEventFeed: t.field({
      ...REST,
      type: TecFeed,
      args: {
        id: t.arg.int({ required: true, description: 'the event post ID' }),
        password: t.arg.string({ description: 'The event password' }),
      },
      resolve: (_root, { id, password }, ctx) => eventFeed(ctx, { id }, password),
    }),
    tecEventBySlugFeed: t.field({
      ...REST,
      type: TecFeed,
      args: {
        slug: t.arg.string({ required: true, description: 'the event post name' }),
        password: t.arg.string({ description: 'The event password' }),
      },
      resolve: (_root, { slug, password }, ctx) => eventFeed(ctx, { slug }, password),
    }),
  };
});

// Writes (POST /events, POST|PUT|PATCH|DELETE /events/{id} and /events/by-slug/{slug}): the flat TEC
// body as JSON, read into the domain input (`rest/bodies/event.ts`), errors named as its parameters;
// they answer in the list representation (no json_ld).
builder.mutationFields((t) => ({
  tecCreateEvent: t.prismaField({
    ...REST,
    type: TecEvent,
    args: { input: t.arg({ type: 'JSON' }) },
    resolve: (query, _root, { input }, ctx) => {
      const { input: event, unreadable } = readEventBody(input);
      return namingEventParams(() =>
        createEvent(ctx, event, writtenEvent(query), {
          passwordAllowed: true,
          unreadable,
        }),
      );
    },
  }),
  tecUpdateEvent: t.prismaField({
    ...REST,
    type: TecEvent,
    args: {
      id: t.arg.int({ required: true, description: 'the event post ID' }),
      input: t.arg({ type: 'JSON' }),
      scope: t.arg.string({
        description: 'Extension: on an occurrence of a series, this (the default), following or all',
      }),
    },
    resolve: (query, _root, { id, input, scope }, ctx) =>
      onNamedEvent(ctx, 'edit', { id }, () =>
        namingEventParams(() => {
          const { input: event, unreadable } = readEventBody(input);
          return updateEvent(ctx, { id }, event, writtenEvent(query), {
            passwordAllowed: true,
            unreadable,
            scope: readScope(scope),
          });
        }),
      ),
  }),
  tecUpdateEventBySlug: t.prismaField({
    ...REST,
    type: TecEvent,
    args: {
      slug: t.arg.string({ required: true, description: 'the event post name' }),
      input: t.arg({ type: 'JSON' }),
      scope: t.arg.string({
        description: 'Extension: on an occurrence of a series, this (the default), following or all',
      }),
    },
    resolve: (query, _root, { slug, input, scope }, ctx) =>
      onNamedEvent(ctx, 'edit', { slug }, () =>
        namingEventParams(() => {
          const { input: event, unreadable } = readEventBody(input);
          return updateEvent(ctx, { slug }, event, writtenEvent(query), {
            passwordAllowed: false,
            unreadable,
            scope: readScope(scope),
          });
        }),
      ),
  }),
  tecDeleteEvent: t.prismaField({
    ...REST,
    type: TecEvent,
    args: {
      id: t.arg.int({ required: true, description: 'the event post ID' }),
      force: t.arg.boolean({
        description: 'Deletes for good instead of trashing (editors and administrators)',
      }),
      password: t.arg.string({ description: 'Accepted as by the reference, and not needed' }),
      scope: t.arg.string({
        description: 'Extension: on an occurrence of a series, this (the default), following or all',
      }),
    },
    resolve: (query, _root, { id, force, scope }, ctx) =>
      onNamedEvent(ctx, 'delete', { id }, () =>
        deleteEvent(ctx, { id }, force ?? false, writtenEvent(query), { scope: readScope(scope) }),
      ),
  }),
  tecDeleteEventBySlug: t.prismaField({
    ...REST,
    type: TecEvent,
    args: {
      slug: t.arg.string({ required: true, description: 'the event post name' }),
      force: t.arg.boolean({
        description: 'Deletes for good instead of trashing (editors and administrators)',
      }),
      scope: t.arg.string({
        description: 'Extension: on an occurrence of a series, this (the default), following or all',
      }),
    },
    resolve: (query, _root, { slug, force, scope }, ctx) =>
      onNamedEvent(ctx, 'delete', { slug }, () =>
        deleteEvent(ctx, { slug }, force ?? false, writtenEvent(query), { scope: readScope(scope) }),
      ),
  }),
}));
