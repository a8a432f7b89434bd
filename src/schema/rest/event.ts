import type { GraphQLResolveInfo } from 'graphql';
import { type SubGraph, builder } from '../builder.js';
import { eventArchive } from '../event.js';
import { eventJsonLd, presentEmbeddedTerm, presentImage, presentOrganizer, presentVenue, type Representation } from './present.js';
import { dateDetails, wallClock, zoneAbbreviation } from '../../domain/dates.js';
import { costValues, formatCost } from '../../domain/cost.js';
import { archiveLinks } from '../../domain/paging.js';
import { globalId, permalink } from '../../domain/urls.js';
import { assertReadable } from '../../domain/visibility.js';
import type { Term } from '../../generated/sqlite/client.js';
import type { Context } from '../../context.js';

// The event as The Events Calendar's REST API v1 returns it (reference §1.1): snake_case keys in the
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
  const local = (instant: 'startsAt' | 'endsAt') => (e: { startsAt: Date; endsAt: Date; timezone: string }) =>
    wallClock(e[instant], e.timezone);
  const utc = (instant: 'startsAt' | 'endsAt') => (e: { startsAt: Date; endsAt: Date }) => wallClock(e[instant], 'UTC');
  return {
    id: t.exposeInt('id'),
    global_id: t.string({ resolve: (e, _a, ctx) => globalId(ctx.urls, e.id) }),
    global_id_lineage: t.stringList({ resolve: (e, _a, ctx) => [globalId(ctx.urls, e.id)] }),
    author: t.string({ resolve: (e) => String(e.authorId ?? 0) }),
    status: t.exposeString('status'),
    date: t.string({ resolve: (e, _a, ctx) => wallClock(e.publishedAt, ctx.config.siteTimezone) }),
    date_utc: t.string({ resolve: (e) => wallClock(e.publishedAt, 'UTC') }),
    modified: t.string({ resolve: (e, _a, ctx) => wallClock(e.modifiedAt, ctx.config.siteTimezone) }),
    modified_utc: t.string({ resolve: (e) => wallClock(e.modifiedAt, 'UTC') }),
    url: t.string({ resolve: (e, _a, ctx) => permalink(ctx.urls, 'event', e) }),
    rest_url: t.string({ resolve: (e, _a, ctx) => `${ctx.urls.api}/events/${e.id}` }),
    title: t.exposeString('title'),
    description: t.exposeString('description'),
    excerpt: t.exposeString('excerpt'),
    slug: t.exposeString('slug'),
    image: t.field({ type: 'JSON', select: { image: true }, resolve: (e) => presentImage(e.image) }),
    all_day: t.exposeBoolean('allDay'),
    start_date: t.string({ resolve: local('startsAt') }),
    start_date_details: t.field({ type: DateDetails, resolve: (e) => dateDetails(local('startsAt')(e)) }),
    end_date: t.string({ resolve: local('endsAt') }),
    end_date_details: t.field({ type: DateDetails, resolve: (e) => dateDetails(local('endsAt')(e)) }),
    utc_start_date: t.string({ resolve: utc('startsAt') }),
    utc_start_date_details: t.field({ type: DateDetails, resolve: (e) => dateDetails(utc('startsAt')(e)) }),
    utc_end_date: t.string({ resolve: utc('endsAt') }),
    utc_end_date_details: t.field({ type: DateDetails, resolve: (e) => dateDetails(utc('endsAt')(e)) }),
    timezone: t.exposeString('timezone'),
    timezone_abbr: t.string({ resolve: (e) => zoneAbbreviation(e.startsAt, e.timezone) }),
    cost: t.string({ resolve: formatCost }),
    cost_details: t.field({
      type: CostDetails,
      resolve: (e) => ({
        currency_symbol: e.currencySymbol,
        currency_code: e.currencyCode,
        currency_position: e.currencyPosition,
        values: costValues(e.cost),
      }),
    }),
    website: t.string({ resolve: (e, _a, ctx) => e.website || permalink(ctx.urls, 'event', e) }),
    show_map: t.exposeBoolean('showMap'),
    show_map_link: t.exposeBoolean('showMapLink'),
    hide_from_listings: t.exposeBoolean('hideFromListings'),
    sticky: t.exposeBoolean('sticky'),
    featured: t.exposeBoolean('featured'),
    categories: t.field({
      type: 'JSON',
      select: { terms: { orderBy: { position: 'asc' }, include: { term: true } } },
      resolve: (e, _a, ctx) => embeddedTerms(e.terms, 'tribe_events_cat', ctx),
    }),
    tags: t.field({
      type: 'JSON',
      select: { terms: { orderBy: { position: 'asc' }, include: { term: true } } },
      resolve: (e, _a, ctx) => embeddedTerms(e.terms, 'post_tag', ctx),
    }),
    venue: t.field({
      type: 'JSON',
      description: 'One venue → object; several → array; none → []',
      select: { venues: linkedRecords.venues },
      resolve: (e, _a, ctx, info) => {
        const as = representationOf(info);
        const venues = e.venues.map((link) => presentVenue(link.venue, ctx.urls, ctx.config.siteTimezone, as));
        return venues.length === 1 ? venues[0] : venues;
      },
    }),
    organizer: t.field({
      type: 'JSON',
      select: { organizers: linkedRecords.organizers },
      resolve: (e, _a, ctx, info) =>
        e.organizers.map((link) =>
          presentOrganizer(link.organizer, ctx.urls, ctx.config.siteTimezone, representationOf(info)),
        ),
    }),
    custom_fields: t.field({ type: 'JSON', resolve: () => [] }),
  };
  },
});

async function embeddedTerms(
  links: Array<{ term: Term }>,
  taxonomy: string,
  ctx: Context,
) {
  const terms = links.map((link) => link.term).filter((term) => term.taxonomy === taxonomy);
  const counts = await ctx.loaders.termEventCount.loadMany(terms.map((term) => term.id));
  return terms.map((term, i) => presentEmbeddedTerm(term, typeof counts[i] === 'number' ? counts[i] : 0, ctx.urls));
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
    json_ld: t.field({
      type: 'JSON',
      select: { image: true, ...linkedRecords },
      resolve: (e, _a, ctx) =>
        eventJsonLd(e, e.venues.map((link) => link.venue), e.organizers.map((link) => link.organizer), ctx.urls),
    }),
  }),
});

type EventArchive = Awaited<ReturnType<typeof eventArchive>>;

const TecEventList = builder.objectRef<EventArchive>('TecEventList').implement({
  ...REST,
  fields: (t) => ({
    events: t.prismaField({
      type: [TecEvent],
      resolve: (query, page, _args, ctx) =>
        ctx.db.event.findMany({ ...query, where: page.where, orderBy: page.orderBy, skip: page.skip, take: page.take }),
    }),
    rest_url: t.string({ resolve: (page, _a, ctx) => eventLinks(page, ctx).restUrl }),
    next_rest_url: t.string({ nullable: true, resolve: (page, _a, ctx) => eventLinks(page, ctx).nextRestUrl }),
    previous_rest_url: t.string({ nullable: true, resolve: (page, _a, ctx) => eventLinks(page, ctx).previousRestUrl }),
    total: t.int({ resolve: (page) => page.total }),
    total_pages: t.int({ resolve: (page) => page.totalPages }),
  }),
});

function eventLinks(page: EventArchive, ctx: Context) {
  const { effective, paging } = page;
  const params: Array<[string, string]> = [['per_page', String(paging.perPage)]];
  if (effective.startDate) params.push(['start_date', effective.startDate]);
  if (effective.endDate) params.push(['end_date', effective.endDate]);
  params.push(['status', effective.status.join(',')]);
  return archiveLinks(`${ctx.urls.api}/events/`, params, paging.page, page.totalPages);
}

builder.queryFields((t) => ({
  tecEvents: t.field({
    ...REST,
    type: TecEventList,
    args: {
      page: t.arg.int(),
      per_page: t.arg.int(),
      start_date: t.arg.string(),
      end_date: t.arg.string(),
    },
    resolve: (_root, args, ctx) =>
      eventArchive(ctx, { startDate: args.start_date, endDate: args.end_date }, args.page, args.per_page),
  }),
  tecEvent: t.prismaField({
    ...REST,
    type: TecSingleEvent,
    args: { id: t.arg.int({ required: true }), password: t.arg.string() },
    resolve: async (query, _root, { id, password }, ctx) =>
      assertReadable('event', await ctx.db.event.findUnique({ ...query, where: { id } }), id, ctx.viewer, password),
  }),
}));
