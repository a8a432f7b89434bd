import { eventFeedUrl } from './rest-schema.js';
import { webcalUrl } from './ical.js';
import { builder } from '../core/graphql/schema/builder.js';
import { recordIdOf } from '../core/graphql/schema/global-ids.js';
import {
  Author,
  pageInfoField,
  PostStatus,
  type PostStatusValue,
  timezoneAbbr,
  showing,
  ID_DESCRIPTION,
  PAGE_DESCRIPTION,
  PER_PAGE_DESCRIPTION,
  VERSION_DESCRIPTION,
} from '../core/graphql/schema/common.js';
import { recordVersion } from '../core/rules/versions.js';
import { EVENT_STATUSES, type EventStatusValue } from './model/event-status.js';
import { permalink } from '../core/rules/urls.js';
import { placed } from './model/event-fields.js';
import type { InputFieldRef } from '@pothos/core';
import type { FilterEnum } from './model/filter-shapes.js';
import {
  type EventListFilter,
  FILTER_NAMES,
  type FilterName,
  filterDeclaration,
} from './model/filter-catalog.js';
import { choiceEnum, declaredObjectFields } from './graphql-fields.js';
import { REQUEST_PASSWORD_DEPRECATION, withheldEventFields } from './graphql-content.js';
import { findEvents } from './service/reads/event-reads.js';
import {
  type EventArchive,
  eventArchive,
  eventConnection,
  eventPageItems,
  linkedEvent,
} from './service/events.js';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { readEvent, visibleEvent } from './service/event-access.js';
import { type SeriesRef, seriesExceptions, seriesLines, seriesOf } from './series/series-place.js';

// The event as GraphQL shows it (the `Event` node, its series, its feed links) and its reads: one event,
// the page and the connection, filtered by `EventFilter`. Its writes are `graphql-writes.ts`.

export const EventStatus = builder.enumType('EventStatus', {
  description: 'Whether the event takes place as listed (TEC event status; not the post status)',
  values: {
    scheduled: { description: 'Takes place as listed (the default)' },
    canceled: { description: 'Canceled; `eventStatusReason` may say why' },
    postponed: { description: 'Postponed to a date not yet known; `eventStatusReason` may say why' },
  } satisfies Record<(typeof EVENT_STATUSES)[number], { description: string }>,
});

export const Event = builder.prismaNode('Event', {
  id: { field: 'id' },
  findUnique: (id) => ({ id: recordIdOf(id) }),
  nullable: true,
  description:
    'An event. Its content (description, links, flags) is withheld from a request without the password of a ' +
    'password-protected event: read it through `content(password:)`, which a normalised client cache keys by ' +
    'the password it was read with.',
  fields: (t) => {
    const fields = {
      databaseId: t.exposeInt('id', { description: ID_DESCRIPTION }),
      version: t.string({
        description: VERSION_DESCRIPTION,
        extensions: showing('modifiedAt'),
        resolve: (event) => recordVersion(event),
      }),
      // "" for a draft or pending event created without one (as WordPress shows its empty post_name).
      slug: t.string({
        description:
          'The URL-friendly name, unique among events; "" for a draft or pending event saved without one',
        extensions: showing('slug'),
        resolve: (event) => event.slug ?? '',
      }),
      title: t.exposeString('title', { description: 'The title' }),
      status: t.field({
        type: PostStatus,
        description: 'The post status (publish, draft, …): who may see it',
        extensions: showing('status'),
        resolve: (event) => event.status as PostStatusValue,
      }),
      url: t.string({
        description: "The absolute URL of the event's page on the website",
        extensions: showing('id', 'slug', 'status'),
        resolve: (event, _args, ctx) => permalink(ctx.urls, 'event', event),
      }),
      startDate: t.expose('startsAt', {
        type: 'DateTime',
        description: 'When it starts, as an instant (UTC)',
      }),
      endDate: t.expose('endsAt', { type: 'DateTime', description: 'When it ends, as an instant (UTC)' }),
      localStartDate: t.exposeString('localStart', {
        description: 'Wall-clock start in the event time zone, "YYYY-MM-DD HH:MM:SS"',
      }),
      localEndDate: t.exposeString('localEnd', {
        description: 'Wall-clock end in the event time zone, "YYYY-MM-DD HH:MM:SS"',
      }),
      timezone: t.exposeString('timezone', {
        description:
          'The event time zone: an IANA name (e.g. "Europe/Paris") or a fixed offset such as "UTC+2"',
      }),
      timezoneAbbr: t.string({
        description: 'The time zone abbreviation at the start, e.g. "CEST" ("+03" when the zone has none)',
        extensions: showing('startsAt', 'timezone'),
        resolve: timezoneAbbr,
      }),
      eventStatus: t.field({
        type: EventStatus,
        description: 'Whether it takes place as listed, is canceled or postponed',
        extensions: showing('eventStatus'),
        resolve: (event) => event.eventStatus as EventStatusValue,
      }),
      publishedAt: t.expose('publishedAt', {
        type: 'DateTime',
        description: 'Publication date (UTC); in the future for a scheduled event',
      }),
      modifiedAt: t.expose('modifiedAt', { type: 'DateTime', description: 'When it was last changed (UTC)' }),
      author: t.relation('author', {
        nullable: true,
        type: Author,
        description: 'The user who wrote it; null when it has no author (e.g. the user was removed)',
        extensions: showing('authorId'),
      }),
      // The same fields as `content`, withheld by the request's password: kept for one release.
      ...withheldEventFields(t, REQUEST_PASSWORD_DEPRECATION),
    };
    return placed<unknown>(fields, declaredObjectFields(t, false)) as typeof fields;
  },
});

// The parent is shown only as its own single read would allow it (blanked if password-protected).
builder.prismaObjectField(Event, 'postParent', (t) =>
  t.field({
    type: Event,
    nullable: true,
    description:
      'The parent event; null when none or when you may not read it (a protected parent has its content withheld)',
    extensions: showing('postParentId'),
    select: (_args, _ctx, nested) => ({ postParent: nested(true) }),
    resolve: (event, _args, ctx) => linkedEvent(event.postParent, ctx.viewer),
  }),
);

const EventNear = builder.inputType('EventNear', {
  description: 'Events whose venue lies within `radius` km of a point, nearest first',
  fields: (t) => ({
    lat: t.float({ required: true, description: 'Latitude in decimal degrees (-90 to 90)' }),
    lng: t.float({ required: true, description: 'Longitude in decimal degrees (-180 to 180)' }),
    radius: t.float({ description: 'Kilometres (default 50)' }),
  }),
});

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The enums the filters type their words with. */
const FILTER_ENUMS = {
  PostStatus,
  EventStatus,
  AttendanceMode: choiceEnum('attendanceMode'),
} satisfies Record<FilterEnum, unknown>;

const EventFilter = builder.inputType('EventFilter', {
  description:
    'The filters of the REST list `GET /events`. Without any date filter the list shows events ' +
    'starting from yesterday 00:00 and ending within 24 months (site time zone).',
  // One field per declared filter (`events/model/event-filters.ts`), typed as its kind.
  fields: (t) => {
    const field = (name: FilterName) => {
      const filter = filterDeclaration(name);
      const options = { description: filter.description };
      if (filter.enum) return t.field({ type: [FILTER_ENUMS[filter.enum]], ...options });
      switch (filter.kind) {
        case 'string':
          return t.string(options);
        case 'boolean':
          return t.boolean(options);
        case 'int':
          return t.int(options);
        case 'stringList':
          return t.stringList(options);
        case 'intList':
          return t.intList(options);
        case 'near':
          return t.field({ type: EventNear, ...options });
      }
    };
    // Each field reads its filter's domain value (an enum's words are among the domain's strings).
    return Object.fromEntries(FILTER_NAMES.map((name) => [name, field(name)])) as {
      [K in FilterName]: InputFieldRef<Types, EventListFilter[K]>;
    };
  },
});

const EventPage = builder.objectRef<EventArchive>('EventPage').implement({
  description: 'One page of events',
  fields: (t) => ({
    items: t.prismaField({
      type: [Event],
      description:
        'The events of this page, by start date (publication date with `include`, distance with `near`)',
      resolve: (query, page, _args, ctx) => eventPageItems(ctx, page, (args) => findEvents(ctx, query, args)),
    }),
    pageInfo: pageInfoField(t),
    icsUrl: t.string({
      description: 'This query (without paging) as an iCalendar subscription (webcal://)',
      resolve: (page, _a, ctx) => eventFeedUrl(page, ctx),
    }),
  }),
});

builder.prismaObjectField(Event, 'icsUrl', (t) =>
  t.string({
    description: 'The event as an iCalendar file (webcal://)',
    extensions: showing('id'),
    resolve: (event, _a, ctx) => webcalUrl(`${ctx.urls.api}/events/${event.id}.ics`),
  }),
);

builder.queryFields((t) => ({
  event: t.prismaField({
    type: Event,
    nullable: true,
    description:
      'An event by id; null (with an error entry saying why) when it does not exist or you may not read it',
    args: {
      id: t.arg.int({ required: true, description: 'The event id' }),
      password: t.arg.string({ description: 'The password of a password-protected event' }),
    },
    resolve: async (query, _root, { id, password }, ctx) => readEvent(ctx, query, { id }, password),
  }),
  eventBySlug: t.prismaField({
    type: Event,
    nullable: true,
    description:
      'An event by slug; null (with an error entry saying why) when it does not exist or you may not read it',
    args: {
      slug: t.arg.string({ required: true, description: 'The event slug' }),
      password: t.arg.string({ description: 'The password of a password-protected event' }),
    },
    resolve: async (query, _root, { slug, password }, ctx) => readEvent(ctx, query, { slug }, password),
  }),
  events: t.field({
    type: EventPage,
    description:
      'Events as the REST list shows them: upcoming by start date, without hidden-from-listings ones; a page past the last is event-archive-page-not-found (404)',
    args: {
      filter: t.arg({ type: EventFilter, description: 'Which events; the default date window when absent' }),
      page: t.arg.int({ description: PAGE_DESCRIPTION }),
      perPage: t.arg.int({ description: PER_PAGE_DESCRIPTION }),
      password: t.arg.string({
        description: 'Shows the content of password-protected events with this password',
      }),
    },
    resolve: (_root, { filter, page, perPage, password }, ctx) =>
      eventArchive(ctx, filter ?? {}, page, perPage, { password }),
  }),
}));

const EventConnection = builder.connectionObject(
  { type: Event, name: 'EventConnection', description: 'A page of events with cursors' },
  { name: 'EventEdge', description: 'An event and its cursor' },
);

builder.queryFields((t) => ({
  eventsConnection: t.connection(
    {
      type: Event,
      description:
        'The events of `events` (same filters, order and visibility) as a Relay connection: cursor paging that neither skips nor repeats records inserted between two pages. Not with `near` (ordered by distance: use `events`)',
      args: {
        filter: t.arg({
          type: EventFilter,
          description: 'Which events; the default date window when absent',
        }),
        password: t.arg.string({
          description: 'Shows the content of password-protected events with this password',
        }),
      },
      resolve: async (_root, { filter, password, ...cursorArgs }, ctx, info) => {
        const query = queryFromInfo({ context: ctx, info, path: ['edges', 'node'], typeName: 'Event' });
        return eventConnection(ctx, filter ?? {}, cursorArgs, { password }, (args) =>
          findEvents(ctx, query, args),
        );
      },
    },
    EventConnection,
  ),
}));

// Series (docs/reference/recurrence.md): every event of a series names it; the series lists its
// occurrences as any event list does.

const EventSeries = builder.objectRef<SeriesRef>('EventSeries').implement({
  description:
    'A recurring event: its first event and RFC 5545 lines; each later occurrence is an event of its own',
  fields: (t) => ({
    id: t.id({
      description: 'A Relay id of the series',
      resolve: (series) => encodeGlobalID('EventSeries', series.id),
    }),
    first: t.prismaField({
      type: Event,
      nullable: true,
      description: "The first event, which holds the series' values; null when you may not read it",
      resolve: (query, series, _args, ctx) => visibleEvent(ctx, series.id, query),
    }),
    recurrence: t.stringList({
      description: 'The canonical RRULE, RDATE and EXDATE lines',
      resolve: (s) => s.lines,
    }),
    timezone: t.string({
      description: "The zone the lines are read in (the first event's)",
      resolve: (s) => s.timezone,
    }),
    occurrences: t.connection(
      {
        type: Event,
        description: 'The occurrences after the first event, by start, as the viewer may read them',
        args: {
          from: t.arg.string({
            description: 'Starting at or after (as the `startDate` filter); default: any',
          }),
          to: t.arg.string({ description: 'Ending at or before (as the `endDate` filter); default: any' }),
        },
        resolve: async (series, { from, to, ...cursorArgs }, ctx, info) => {
          const query = queryFromInfo({ context: ctx, info, path: ['edges', 'node'], typeName: 'Event' });
          const filter = { postParent: series.id, startDate: from ?? SERIES_FROM, endDate: to ?? SERIES_TO };
          return eventConnection(ctx, filter, cursorArgs, {}, (args) => findEvents(ctx, query, args));
        },
      },
      EventConnection,
    ),
    exceptions: t.prismaField({
      type: [Event],
      description: 'The occurrences written on their own (their slot kept in `originalStart`)',
      resolve: (query, series, _args, ctx) => seriesExceptions(ctx, series.id, query),
    }),
  }),
});

/** The widest window the list filters take: a series' occurrences by default. */
const SERIES_FROM = '1000-01-01 00:00:00';
const SERIES_TO = '9999-12-31 23:59:59';

builder.prismaObjectFields(Event, (t) => ({
  recurrence: t.stringList({
    description: 'The lines of its series (RRULE, RDATE, EXDATE); [] for an event in no series',
    resolve: (event) => seriesLines(event),
  }),
  series: t.field({
    type: EventSeries,
    nullable: true,
    description: 'Its series; null for an event in none',
    resolve: (event) => seriesOf(event),
  }),
  originalStart: t.field({
    type: 'DateTime',
    nullable: true,
    description:
      "The slot its series gave it (kept when the occurrence is moved); the first event's start for the first; null outside a series",
    resolve: (event) => event.originalStart ?? (seriesOf(event) ? event.startsAt : null),
  }),
  isException: t.exposeBoolean('isException', {
    description: 'An occurrence written on its own: edits of the whole series leave its values',
  }),
  startExcluded: t.exposeBoolean('startExcluded', {
    description:
      "A series' first event whose recurrence set leaves out its own start (an EXDATE on it): it holds the series' values and lines, read by id, but does not happen then, so no list, feed or `EventSeries.occurrences` holds it",
  }),
}));
