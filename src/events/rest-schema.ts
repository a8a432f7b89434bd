import type { GraphQLResolveInfo } from 'graphql';
import { type SubGraph, builder } from '../core/graphql/schema/builder.js';
import { type Lookup, LOOKUPS, keyOf, lookupArgs } from '../core/graphql/schema/common.js';
import {
  eventJsonLd,
  presentEmbeddedTerm,
  presentImage,
  presentOrganizer,
  presentVenue,
  type Representation,
  texturize,
} from './rest-present.js';
import { dateDetails, postDateOf, wallClock, zoneAbbreviation } from '../core/rules/dates.js';
import { costValues, formatCost } from '../core/graphql/cost.js';
import { archiveLinks } from '../core/rules/paging.js';
import { type EventArchive, eventArchive, eventPageItems } from './service/events.js';
import { findEvents } from './service/event-reads.js';
import type { EventListFilter } from './service/events-query.js';
import { ECHO_ORDER, FILTER_NAMES, REST_PARAMS, echoOf, filterDeclaration } from './model/filter-catalog.js';
import { FEED_DEFAULT_LIMIT, FEED_MAX_LIMIT, type Feed, eventFeed, eventsFeed, webcalUrl } from './ical.js';
import { createEvent, deleteEvent, updateEvent } from './service/event-writes.js';
import { EVENT_LINK_PARAMS, EVENT_PARAMS, readEventBody } from './rest-body.js';
import { SHAPES, jsonShape } from '../core/rest/discovery/tec-schemas.js';
import { RECORD_VERSION_KEY } from '../core/rest/route-table.js';
import { recordVersion } from '../core/rules/versions.js';
import { type ParamNames, namingParams } from '../core/rest/param-names.js';
import { globalId, permalink } from '../core/rules/urls.js';
import { NOT_FOUND, contentWithheld, passwordHides, readableLinks } from '../core/rules/visibility.js';
import { hidingMissing } from '../core/rules/permissions.js';
import { invalidParams } from '../core/errors/errors.js';
import { type DeclaredName, type FieldDeclaration, declaredEntries, placed } from './model/event-fields.js';
import type { Event, Media, Organizer, Term, Venue } from '../generated/sqlite/client.js';
import type { SiteUrls } from '../core/rules/urls.js';
import { canRead } from '../core/rules/permissions.js';
import type { Context } from '../core/context/context.js';
import { readEvent, writtenEvent } from './service/event-access.js';
import { readScope, seriesLines } from './series/event-series.js';

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

/** What every REST event reads: the shape (`eventShape`) is made of the event and all of these. */
const SHAPE_INCLUDE = {
  image: true,
  terms: { orderBy: { position: 'asc' }, include: { term: true } },
  ...linkedRecords,
} as const;

/** An event as the REST shape reads it: its row, its verdict, and the records it embeds. */
type ShapedRow = Event & {
  contentWithheld?: boolean;
  image: Media | null;
  terms: Array<{ term: Term }>;
  venues: Array<{ venue: Venue & { image: Media | null } }>;
  organizers: Array<{ organizer: Organizer & { image: Media | null } }>;
};

/**
 * The computed keys of the REST event, in one pure function of its inputs: the rows (the event, its
 * image, venues, organizers and terms), the viewer's verdicts on them (the event's content withheld or
 * not, each linked record readable or not and scrubbed or not), the site's addresses and zone, and the
 * representation. `shapeKey` spells every one of those inputs; what is not here is read from the row
 * by the field itself (flags, declared fields, ids).
 */
function eventShape(e: ShapedRow, ctx: Context, as: Representation) {
  const zone = ctx.config.siteTimezone;
  const urls = ctx.urls;
  const withheld = contentWithheld(e);
  const localStart = wallClock(e.startsAt, e.timezone);
  const localEnd = wallClock(e.endsAt, e.timezone);
  const utcStart = wallClock(e.startsAt, 'UTC');
  const utcEnd = wallClock(e.endsAt, 'UTC');
  const url = permalink(urls, 'event', e);
  const venues = readableLinks(
    ctx.viewer,
    e.venues.map((link) => link.venue),
  );
  const organizers = readableLinks(
    ctx.viewer,
    e.organizers.map((link) => link.organizer),
  );
  const shownVenues = venues.map((venue) => presentVenue(venue, urls, zone, as, ctx.viewer));
  return {
    global_id: globalId(urls, e.id),
    global_id_lineage: [globalId(urls, e.id)],
    date: postDateOf(e, zone),
    date_utc: wallClock(e.publishedAt, 'UTC'),
    modified: wallClock(e.modifiedAt, zone),
    modified_utc: wallClock(e.modifiedAt, 'UTC'),
    url,
    rest_url: `${urls.api}/events/${e.id}`,
    title: texturize(e.title),
    description: withheld ? '' : texturize(e.description),
    excerpt: withheld ? '' : texturize(e.excerpt),
    image: withheld ? false : presentImage(e.image),
    start_date: localStart,
    start_date_details: dateDetails(localStart),
    end_date: localEnd,
    end_date_details: dateDetails(localEnd),
    utc_start_date: utcStart,
    utc_start_date_details: dateDetails(utcStart),
    utc_end_date: utcEnd,
    utc_end_date_details: dateDetails(utcEnd),
    timezone_abbr: zoneAbbreviation(e.startsAt, e.timezone),
    cost: withheld ? '' : formatCost(e),
    cost_details: withheld
      ? { currency_symbol: '', currency_code: '', currency_position: '', values: [] }
      : {
          currency_symbol: e.currencySymbol,
          currency_code: e.currencyCode,
          currency_position: e.currencyPosition,
          values: costValues(e.cost),
        },
    website: withheld ? '' : e.website || url,
    categories: withheld ? [] : embeddedTerms(e.terms, 'tribe_events_cat', urls),
    tags: withheld ? [] : embeddedTerms(e.terms, 'post_tag', urls),
    venue: withheld ? [] : shownVenues.length === 1 ? shownVenues[0] : shownVenues,
    organizer: withheld
      ? []
      : organizers.map((organizer) => presentOrganizer(organizer, urls, zone, as, ctx.viewer)),
    recurrence: seriesLines(e),
    // A password-protected event has no JSON-LD, even for whoever gave the password (as the reference);
    // nor has a series' first event whose start its set excludes: it does not happen then.
    json_ld:
      as === 'single' && !e.password && !e.startExcluded ? eventJsonLd(e, venues, organizers, urls) : null,
  };
}

type EventShape = ReturnType<typeof eventShape>;

/**
 * Every input of `eventShape`, spelled: the versions of the rows (a post's `modifiedAt` moves on every
 * write; a term's version is its own fields, its count beside it; media rows never change), which
 * records the event links (a deleted venue drops its link without touching the event), the viewer's
 * verdicts, the addresses (the language segment is part of them) and the zone.
 */
function shapeKey(e: ShapedRow, ctx: Context, as: Representation): string {
  const viewer = ctx.viewer;
  const verdicts = (post: Venue | Organizer) =>
    `${post.id}.${post.modifiedAt.getTime()}.${canRead(viewer, post) ? 1 : 0}${passwordHides(viewer, post) ? 1 : 0}`;
  return [
    as,
    ctx.urls.site,
    ctx.urls.globalIdBase,
    ctx.config.siteTimezone,
    e.id,
    e.modifiedAt.getTime(),
    contentWithheld(e) ? 1 : 0,
    e.imageId ?? '',
    e.venues.map((link) => verdicts(link.venue)).join(','),
    e.organizers.map((link) => verdicts(link.organizer)).join(','),
    e.terms.map(({ term }) => `${term.id}.${term.eventCount}.${recordVersion(term)}`).join(','),
  ].join('|');
}

/** The shapes made for this request's rows (each field reads one key of it). */
const shapesOfRows = new WeakMap<object, Partial<Record<Representation, EventShape>>>();

/** A field's resolver: its key of the event's shape, made once per row and kept across requests. */
const shaped =
  <K extends keyof EventShape>(key: K) =>
  (e: object, _args: unknown, ctx: Context, info: GraphQLResolveInfo): EventShape[K] => {
    const row = e as ShapedRow;
    const as = representationOf(info);
    let shapes = shapesOfRows.get(row);
    if (!shapes) shapesOfRows.set(row, (shapes = {}));
    let shape = shapes[as];
    if (!shape) {
      const make = () => eventShape(row, ctx, as);
      shape = shapes[as] = ctx.shapes ? ctx.shapes.shaped(shapeKey(row, ctx, as), make) : make();
    }
    return shape[key];
  };

/** An event as the REST shape reads it, for what a room adds to it. */
export type TecEventRow = ShapedRow;

/**
 * What a room adds to a single event's JSON-LD, as Event Tickets filters TEC's
 * (`tribe_json_ld_event_object`): keys replacing or following the shape's (the tickets' `offers`).
 * It reads what `shapeKey` does not spell, so it runs for each request, after the kept shape.
 */
export type JsonLdPart = (
  event: TecEventRow,
  jsonLd: Readonly<Record<string, unknown>>,
  ctx: Context,
) => Promise<Record<string, unknown> | undefined>;

const jsonLdParts: JsonLdPart[] = [];

/** Registers a room's part of the JSON-LD (at schema build time, once). */
export function addJsonLdPart(part: JsonLdPart): void {
  jsonLdParts.push(part);
}

async function jsonLdOf(e: object, ctx: Context, info: GraphQLResolveInfo) {
  const shapedLd = shaped('json_ld')(e, undefined, ctx, info);
  if (!shapedLd) return shapedLd;
  let jsonLd: Record<string, unknown> = shapedLd;
  for (const part of jsonLdParts) {
    const added = await part(e as ShapedRow, jsonLd, ctx);
    // A key the shape has keeps its place (JSON-LD `offers` stays where TEC puts it).
    if (added) jsonLd = { ...jsonLd, ...added };
  }
  return jsonLd;
}

/**
 * The keys shared by the list and single representations (the single one adds `json_ld`); a room
 * adds its own after them (the tickets' `ticketed` and `tickets`, `src/tickets/event-shape.ts`).
 */
export const TecEventFields = builder.prismaInterface('Event', {
  variant: 'TecEventFields',
  ...REST,
  fields: (t) => {
    // Blanked (null) in lists for a password-protected event without its password (docs/reference.md §4.3).
    const flag = (key: 'allDay' | 'showMap' | 'showMapLink' | 'hideFromListings' | 'sticky' | 'featured') =>
      t.boolean({ nullable: true, resolve: (e) => (contentWithheld(e) ? null : e[key]) });
    // A declared field (`events/model/event-fields.ts`) as the reference shows its kind: blanked when withheld.
    const declared = (name: DeclaredName, field: FieldDeclaration) => {
      const blank = (e: Parameters<typeof contentWithheld>[0]) => field.withheld && contentWithheld(e);
      return field.kind === 'flag'
        ? t.boolean({ nullable: true, resolve: (e) => (blank(e) ? null : (e[name] as boolean)) })
        : t.string({ resolve: (e) => (blank(e) ? '' : String(e[name])) });
    };
    return placed(
      {
        id: t.exposeInt('id'),
        global_id: t.string({ resolve: shaped('global_id') }),
        global_id_lineage: t.stringList({ resolve: shaped('global_id_lineage') }),
        author: t.string({ resolve: (e) => String(e.authorId ?? 0) }),
        status: t.exposeString('status'),
        date: t.string({ resolve: shaped('date') }),
        date_utc: t.string({ resolve: shaped('date_utc') }),
        modified: t.string({ resolve: shaped('modified') }),
        modified_utc: t.string({ resolve: shaped('modified_utc') }),
        url: t.string({ resolve: shaped('url') }),
        rest_url: t.string({ resolve: shaped('rest_url') }),
        // Rendered as WordPress renders them (wptexturize); GraphQL keeps the raw text.
        title: t.string({ resolve: shaped('title') }),
        description: t.string({ resolve: shaped('description') }),
        excerpt: t.string({ resolve: shaped('excerpt') }),
        slug: t.string({ resolve: (e) => e.slug ?? '' }),
        image: t.field({
          type: 'JSON',
          extensions: jsonShape(SHAPES.image),
          select: { image: true },
          resolve: shaped('image'),
        }),
        all_day: flag('allDay'),
        start_date: t.string({ resolve: shaped('start_date') }),
        start_date_details: t.field({ type: DateDetails, resolve: shaped('start_date_details') }),
        end_date: t.string({ resolve: shaped('end_date') }),
        end_date_details: t.field({ type: DateDetails, resolve: shaped('end_date_details') }),
        utc_start_date: t.string({ resolve: shaped('utc_start_date') }),
        utc_start_date_details: t.field({
          type: DateDetails,
          resolve: shaped('utc_start_date_details'),
        }),
        utc_end_date: t.string({ resolve: shaped('utc_end_date') }),
        utc_end_date_details: t.field({ type: DateDetails, resolve: shaped('utc_end_date_details') }),
        timezone: t.exposeString('timezone'),
        timezone_abbr: t.string({ resolve: shaped('timezone_abbr') }),
        cost: t.string({ resolve: shaped('cost') }),
        cost_details: t.field({ type: CostDetails, resolve: shaped('cost_details') }),
        website: t.string({ resolve: shaped('website') }),
        categories: t.field({
          type: 'JSON',
          extensions: jsonShape(SHAPES.eventTerms),
          select: { terms: { orderBy: { position: 'asc' }, include: { term: true } } },
          resolve: shaped('categories'),
        }),
        tags: t.field({
          type: 'JSON',
          extensions: jsonShape(SHAPES.eventTerms),
          select: { terms: { orderBy: { position: 'asc' }, include: { term: true } } },
          resolve: shaped('tags'),
        }),
        venue: t.field({
          type: 'JSON',
          description: 'One venue → object; several → array; none → []',
          extensions: jsonShape(SHAPES.eventVenue),
          select: { venues: linkedRecords.venues },
          resolve: shaped('venue'),
        }),
        organizer: t.field({
          type: 'JSON',
          extensions: jsonShape(SHAPES.eventOrganizers),
          select: { organizers: linkedRecords.organizers },
          resolve: shaped('organizer'),
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
        recurrence: t.stringList({ resolve: shaped('recurrence') }),
      },
      declaredEntries('rest', declared),
    );
  },
});

/** Names compared regardless of case and accents; one collator, not one built per comparison. */
const byTermName = new Intl.Collator('en', { sensitivity: 'base' });

/** Term shape (a), in the order the event lists them; counts are stored on the term. */
/** By name, as WordPress's `wp_get_object_terms` returns them (not in the order they were linked). */
function embeddedTerms(links: Array<{ term: Term }>, taxonomy: string, urls: SiteUrls) {
  return links
    .map((link) => link.term)
    .filter((term) => term.taxonomy === taxonomy)
    .sort((a, b) => byTermName.compare(a.name, b.name) || a.id - b.id)
    .map((term) => presentEmbeddedTerm(term, term.eventCount, urls));
}

export const TecEvent = builder.prismaObject('Event', {
  variant: 'TecEvent',
  ...REST,
  include: SHAPE_INCLUDE,
  interfaces: [TecEventFields],
  fields: () => ({}),
});

export const TecSingleEvent = builder.prismaObject('Event', {
  variant: 'TecSingleEvent',
  ...REST,
  include: SHAPE_INCLUDE,
  interfaces: [TecEventFields],
  fields: (t) => ({
    [RECORD_VERSION_KEY]: t.string({ nullable: true, resolve: (event) => recordVersion(event) }),
    // No JSON-LD for a password-protected event, nor a first event whose start is excluded (`eventShape`).
    json_ld: t.field({
      type: 'JSON',
      extensions: jsonShape('TecEventJsonLd'),
      nullable: true,
      select: { image: true, ...linkedRecords },
      resolve: (event, _args, ctx, info) => jsonLdOf(event, ctx, info),
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

// Writes (POST /events, POST|PUT|PATCH|DELETE /events/{id} and /events/by-slug/{slug}): the flat TEC
// body as JSON, read into the domain input (`events/rest-body.ts`), errors named as its parameters;
// they answer in the list representation (no json_ld). Updates and deletes are declared once for both
// routes, the lookup as data.
builder.mutationFields((t) => ({
  tecCreateEvent: t.prismaField({
    ...REST,
    type: TecEvent,
    args: { input: t.arg({ type: 'JSON' }) },
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
        args: { ...restEventKey(lookup), input: t.arg({ type: 'JSON' }), ...restScopeArg },
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
