import { builder } from './builder.js';
import { Author, EventCost, Image, PageInfo, PostStatus, type PostStatusValue, timezoneAbbr } from './common.js';
import { Organizer } from './organizer.js';
import { Category, Tag } from './term.js';
import { Venue } from './venue.js';
import { ApiError } from '../domain/errors.js';
import { normalizePaging } from '../domain/paging.js';
import { permalink } from '../domain/urls.js';
import { assertReadable } from '../domain/visibility.js';
import { archivePage } from '../services/archive.js';
import { type EventListFilter, resolveEventListFilter } from '../services/events.js';

export const Event = builder.prismaObject('Event', {
  fields: (t) => ({
    id: t.exposeInt('id'),
    slug: t.exposeString('slug'),
    title: t.exposeString('title'),
    description: t.exposeString('description'),
    excerpt: t.exposeString('excerpt'),
    status: t.field({ type: PostStatus, resolve: (event) => event.status as PostStatusValue }),
    url: t.string({ resolve: (event, _args, ctx) => permalink(ctx.urls, 'event', event) }),
    startDate: t.expose('startsAt', { type: 'DateTime' }),
    endDate: t.expose('endsAt', { type: 'DateTime' }),
    localStartDate: t.exposeString('localStart', { description: 'Wall-clock start in the event time zone' }),
    localEndDate: t.exposeString('localEnd', { description: 'Wall-clock end in the event time zone' }),
    timezone: t.exposeString('timezone'),
    timezoneAbbr: t.string({ resolve: timezoneAbbr }),
    allDay: t.exposeBoolean('allDay'),
    cost: t.field({ type: EventCost, resolve: (event) => event }),
    website: t.string({ nullable: true, resolve: (event) => event.website || null }),
    showMap: t.exposeBoolean('showMap'),
    showMapLink: t.exposeBoolean('showMapLink'),
    hideFromListings: t.exposeBoolean('hideFromListings'),
    sticky: t.exposeBoolean('sticky'),
    featured: t.exposeBoolean('featured'),
    publishedAt: t.expose('publishedAt', { type: 'DateTime' }),
    modifiedAt: t.expose('modifiedAt', { type: 'DateTime' }),
    author: t.relation('author', { nullable: true, type: Author }),
    image: t.relation('image', { nullable: true, type: Image }),
    postParent: t.relation('postParent', { nullable: true }),
    venues: t.field({
      type: [Venue],
      select: (_args, _ctx, nested) => ({
        venues: { orderBy: { position: 'asc' }, select: { venue: nested(true) } },
      }),
      resolve: (event) => event.venues.map((link) => link.venue),
    }),
    organizers: t.field({
      type: [Organizer],
      select: (_args, _ctx, nested) => ({
        organizers: { orderBy: { position: 'asc' }, select: { organizer: nested(true) } },
      }),
      resolve: (event) => event.organizers.map((link) => link.organizer),
    }),
    // Both read the same `terms` selection (one query for the page); differing filters would make
    // Pothos load one of them per event.
    categories: t.field({
      type: [Category],
      select: (_args, _ctx, nested) => ({ terms: { orderBy: { position: 'asc' }, select: { term: nested(true) } } }),
      resolve: (event) => event.terms.map((link) => link.term).filter((term) => term.taxonomy === 'tribe_events_cat'),
    }),
    tags: t.field({
      type: [Tag],
      select: (_args, _ctx, nested) => ({ terms: { orderBy: { position: 'asc' }, select: { term: nested(true) } } }),
      resolve: (event) => event.terms.map((link) => link.term).filter((term) => term.taxonomy === 'post_tag'),
    }),
  }),
});

export const EventFilter = builder.inputType('EventFilter', {
  fields: (t) => ({
    startDate: t.string({ description: 'Events starting on or after this day (site time zone)' }),
    endDate: t.string({ description: 'Events ending on or before this day (site time zone)' }),
  }),
});

type EventArchive = Awaited<ReturnType<typeof eventArchive>>;

const EventPage = builder.objectRef<EventArchive>('EventPage').implement({
  fields: (t) => ({
    items: t.prismaField({
      type: [Event],
      resolve: (query, page, _args, ctx) =>
        ctx.db.event.findMany({ ...query, where: page.where, orderBy: page.orderBy, skip: page.skip, take: page.take }),
    }),
    pageInfo: t.field({
      type: PageInfo,
      resolve: (page) => ({ ...page.paging, total: page.total, totalPages: page.totalPages }),
    }),
  }),
});

export async function eventArchive(
  ctx: import('../context.js').Context,
  filter: EventListFilter,
  page: number | null | undefined,
  perPage: number | null | undefined,
) {
  const paging = normalizePaging(page, perPage);
  const query = resolveEventListFilter(filter, ctx.viewer, ctx.config.siteTimezone);
  const archive = await archivePage(query, paging, (where) => ctx.db.event.count({ where }), () =>
    new ApiError(404, 'event-archive-page-not-found', 'The requested event archive page does not exist'),
  );
  return { ...archive, effective: query.effective };
}

builder.queryFields((t) => ({
  event: t.prismaField({
    type: Event,
    args: { id: t.arg.int({ required: true }), password: t.arg.string() },
    resolve: async (query, _root, { id, password }, ctx) =>
      assertReadable('event', await ctx.db.event.findUnique({ ...query, where: { id } }), id, ctx.viewer, password),
  }),
  eventBySlug: t.prismaField({
    type: Event,
    args: { slug: t.arg.string({ required: true }), password: t.arg.string() },
    resolve: async (query, _root, { slug, password }, ctx) =>
      assertReadable('event', await ctx.db.event.findUnique({ ...query, where: { slug } }), slug, ctx.viewer, password),
  }),
  events: t.field({
    type: EventPage,
    args: { filter: t.arg({ type: EventFilter }), page: t.arg.int(), perPage: t.arg.int() },
    resolve: (_root, { filter, page, perPage }, ctx) => eventArchive(ctx, filter ?? {}, page, perPage),
  }),
}));
