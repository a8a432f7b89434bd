import { builder } from './builder.js';
import { Author, EventCost, Image, PageInfo, PostStatus, type PostStatusValue, timezoneAbbr } from './common.js';
import { Organizer } from './organizer.js';
import { Category, Tag } from './term.js';
import { Venue } from './venue.js';
import { permalink } from '../domain/urls.js';
import { assertReadable } from '../domain/visibility.js';
import { type EventArchive, contentWithheld, eventArchive, eventPageItems, linkedEvent } from '../services/events.js';

export const Event = builder.prismaObject('Event', {
  fields: (t) => {
    // A password-protected event listed without its password shows only its title, dates and links.
    const flag = (key: 'allDay' | 'showMap' | 'showMapLink' | 'hideFromListings' | 'sticky' | 'featured') =>
      t.boolean({
        nullable: true,
        description: 'null when the content is withheld (password-protected event listed without its password)',
        resolve: (event) => (contentWithheld(event) ? null : event[key]),
      });
    return {
      id: t.exposeInt('id'),
      slug: t.exposeString('slug'),
      title: t.exposeString('title'),
      description: t.string({ resolve: (event) => (contentWithheld(event) ? '' : event.description) }),
      excerpt: t.string({ resolve: (event) => (contentWithheld(event) ? '' : event.excerpt) }),
      status: t.field({ type: PostStatus, resolve: (event) => event.status as PostStatusValue }),
      contentWithheld: t.boolean({
        description: 'True when the event is password-protected and the request did not give its password',
        resolve: (event) => contentWithheld(event),
      }),
      url: t.string({ resolve: (event, _args, ctx) => permalink(ctx.urls, 'event', event) }),
      startDate: t.expose('startsAt', { type: 'DateTime' }),
      endDate: t.expose('endsAt', { type: 'DateTime' }),
      localStartDate: t.exposeString('localStart', { description: 'Wall-clock start in the event time zone' }),
      localEndDate: t.exposeString('localEnd', { description: 'Wall-clock end in the event time zone' }),
      timezone: t.exposeString('timezone'),
      timezoneAbbr: t.string({ resolve: timezoneAbbr }),
      allDay: flag('allDay'),
      cost: t.field({ type: EventCost, nullable: true, resolve: (event) => (contentWithheld(event) ? null : event) }),
      website: t.string({ nullable: true, resolve: (event) => (contentWithheld(event) ? null : event.website || null) }),
      showMap: flag('showMap'),
      showMapLink: flag('showMapLink'),
      hideFromListings: flag('hideFromListings'),
      sticky: flag('sticky'),
      featured: flag('featured'),
      publishedAt: t.expose('publishedAt', { type: 'DateTime' }),
      modifiedAt: t.expose('modifiedAt', { type: 'DateTime' }),
      author: t.relation('author', { nullable: true, type: Author }),
      image: t.field({
        type: Image,
        nullable: true,
        select: (_args, _ctx, nested) => ({ image: nested(true) }),
        resolve: (event) => (contentWithheld(event) ? null : event.image),
      }),
      venues: t.field({
        type: [Venue],
        select: (_args, _ctx, nested) => ({
          venues: { orderBy: { position: 'asc' }, select: { venue: nested(true) } },
        }),
        resolve: (event) => (contentWithheld(event) ? [] : event.venues.map((link) => link.venue)),
      }),
      organizers: t.field({
        type: [Organizer],
        select: (_args, _ctx, nested) => ({
          organizers: { orderBy: { position: 'asc' }, select: { organizer: nested(true) } },
        }),
        resolve: (event) => (contentWithheld(event) ? [] : event.organizers.map((link) => link.organizer)),
      }),
      // Both read the same `terms` selection (one query for the page); differing filters would make
      // Pothos load one of them per event.
      categories: t.field({
        type: [Category],
        select: (_args, _ctx, nested) => ({ terms: { orderBy: { position: 'asc' }, select: { term: nested(true) } } }),
        resolve: (event) =>
          contentWithheld(event) ? [] : event.terms.map((link) => link.term).filter((term) => term.taxonomy === 'tribe_events_cat'),
      }),
      tags: t.field({
        type: [Tag],
        select: (_args, _ctx, nested) => ({ terms: { orderBy: { position: 'asc' }, select: { term: nested(true) } } }),
        resolve: (event) =>
          contentWithheld(event) ? [] : event.terms.map((link) => link.term).filter((term) => term.taxonomy === 'post_tag'),
      }),
    };
  },
});

// The parent is shown only as its own single read would allow it (blanked if password-protected).
builder.prismaObjectField(Event, 'postParent', (t) =>
  t.field({
    type: Event,
    nullable: true,
    select: (_args, _ctx, nested) => ({ postParent: nested(true) }),
    resolve: (event, _args, ctx) => linkedEvent(event.postParent, ctx.viewer),
  }),
);

const EventNear = builder.inputType('EventNear', {
  description: 'Events whose venue lies within `radius` km of a point, nearest first',
  fields: (t) => ({
    lat: t.float({ required: true }),
    lng: t.float({ required: true }),
    radius: t.float({ description: 'Kilometres (default 50)' }),
  }),
});

const dateInput = (what: string) =>
  `${what}: ISO 8601, "Y-m-d H:i:s", a Unix timestamp or an English phrase ("tomorrow", "+5 weeks"); site time zone`;

export const EventFilter = builder.inputType('EventFilter', {
  description:
    'The filters of the REST list (tec-reference §5). Without any date filter the list shows events ' +
    'starting from yesterday 00:00 and ending within 24 months (site time zone).',
  fields: (t) => ({
    startDate: t.string({ description: dateInput('Events starting at or after') }),
    endDate: t.string({ description: dateInput('Events ending at or before') }),
    startsBefore: t.string({ description: dateInput('Events starting before') }),
    startsAfter: t.string({ description: dateInput('Events starting after') }),
    endsBefore: t.string({ description: dateInput('Events ending before') }),
    endsAfter: t.string({ description: dateInput('Events ending after') }),
    strictDates: t.boolean({
      description: 'Use the given times as they are; by default dates cover whole days (start 00:00:00, others 23:59:59)',
    }),
    search: t.string({ description: 'Every word must appear in the title, excerpt or description' }),
    categories: t.stringList({ description: 'Category slugs or ids (any of them)' }),
    tags: t.stringList({ description: 'Tag slugs or ids (any of them)' }),
    venues: t.intList({ description: 'Venue ids (any of them)' }),
    organizers: t.intList({ description: 'Organizer ids (any of them)' }),
    featured: t.boolean(),
    status: t.field({ type: [PostStatus], description: 'Statuses other than publish need an account that may edit events' }),
    include: t.intList({ description: 'Only these events, ordered by publication date; date filters are ignored' }),
    postParent: t.int({ description: 'Children of this event' }),
    geoloc: t.boolean({ description: 'true: only events whose venue has coordinates' }),
    near: t.field({ type: EventNear }),
    ticketed: t.boolean({ description: 'Only false is supported (there is no ticketing)' }),
  }),
});

const EventPage = builder.objectRef<EventArchive>('EventPage').implement({
  fields: (t) => ({
    items: t.prismaField({
      type: [Event],
      resolve: (query, page, _args, ctx) => eventPageItems(ctx, page, (args) => ctx.db.event.findMany({ ...query, ...args })),
    }),
    pageInfo: t.field({
      type: PageInfo,
      resolve: (page) => ({ ...page.paging, total: page.total, totalPages: page.totalPages }),
    }),
  }),
});

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
    args: {
      filter: t.arg({ type: EventFilter }),
      page: t.arg.int(),
      perPage: t.arg.int(),
      password: t.arg.string({ description: 'Shows the content of password-protected events with this password' }),
    },
    resolve: (_root, { filter, page, perPage, password }, ctx) =>
      eventArchive(ctx, filter ?? {}, page, perPage, { style: 'graphql', password }),
  }),
}));
