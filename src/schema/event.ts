import { eventFeedUrl } from './rest/event.js';
import { webcalUrl } from '../services/ical.js';
import { builder } from './builder.js';
import {
  Author,
  type InputFieldBuilder,
  PageInfo,
  PostStatus,
  type PostStatusValue,
  timezoneAbbr,
  IF_MATCH_DESCRIPTION,
  VERSION_DESCRIPTION,
  withIfMatch,
} from './common.js';
import { recordVersion } from '../domain/versions.js';
import { CreateOrganizerInput, organizerBody } from './organizer.js';
import { CreateVenueInput, venueBody } from './venue.js';
import { invalidParams } from '../domain/errors.js';
import { EVENT_STATUSES, type EventStatusValue } from '../domain/event-status.js';
import { permalink } from '../domain/urls.js';
import { assertReadable } from '../domain/visibility.js';
import type { EventField, EventInput, LinkRef, TermRef } from '../services/event-input.js';
import { REQUEST_PASSWORD_DEPRECATION, withheldEventFields } from './event-content.js';
import { createEvent, deleteEvent, updateEvent } from '../services/event-writes.js';
import { type EventArchive, eventArchive, eventPageItems, linkedEvent } from '../services/events.js';

export const EventStatus = builder.enumType('EventStatus', {
  description: 'Whether the event takes place as listed (TEC event status; not the post status)',
  values: EVENT_STATUSES,
});

export const Event = builder.prismaObject('Event', {
  description:
    'An event. Its content (description, links, flags) is withheld from a request without the password of a ' +
    'password-protected event: read it through `content(password:)`, which a normalised client cache keys by ' +
    'the password it was read with.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    version: t.string({ description: VERSION_DESCRIPTION, resolve: (event) => recordVersion(event) }),
    // "" for a draft or pending event created without one (as WordPress shows its empty post_name).
    slug: t.string({ resolve: (event) => event.slug ?? '' }),
    title: t.exposeString('title'),
    status: t.field({ type: PostStatus, resolve: (event) => event.status as PostStatusValue }),
    url: t.string({ resolve: (event, _args, ctx) => permalink(ctx.urls, 'event', event) }),
    startDate: t.expose('startsAt', { type: 'DateTime' }),
    endDate: t.expose('endsAt', { type: 'DateTime' }),
    localStartDate: t.exposeString('localStart', {
      description: 'Wall-clock start in the event time zone',
    }),
    localEndDate: t.exposeString('localEnd', { description: 'Wall-clock end in the event time zone' }),
    timezone: t.exposeString('timezone'),
    timezoneAbbr: t.string({ resolve: timezoneAbbr }),
    eventStatus: t.field({
      type: EventStatus,
      resolve: (event) => event.eventStatus as EventStatusValue,
    }),
    publishedAt: t.expose('publishedAt', { type: 'DateTime' }),
    modifiedAt: t.expose('modifiedAt', { type: 'DateTime' }),
    author: t.relation('author', { nullable: true, type: Author }),
    // The same fields as `content`, withheld by the request's password: kept for one release.
    ...withheldEventFields(t, REQUEST_PASSWORD_DEPRECATION),
  }),
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
    'The filters of the REST list `GET /events`. Without any date filter the list shows events ' +
    'starting from yesterday 00:00 and ending within 24 months (site time zone).',
  fields: (t) => ({
    startDate: t.string({ description: dateInput('Events starting at or after') }),
    endDate: t.string({ description: dateInput('Events ending at or before') }),
    startsBefore: t.string({ description: dateInput('Events starting before') }),
    startsAfter: t.string({ description: dateInput('Events starting after') }),
    endsBefore: t.string({ description: dateInput('Events ending before') }),
    endsAfter: t.string({ description: dateInput('Events ending after') }),
    strictDates: t.boolean({
      description:
        'Use the given times as they are; by default dates cover whole days (start 00:00:00, others 23:59:59)',
    }),
    search: t.string({ description: 'Every word must appear in the title, excerpt or description' }),
    categories: t.stringList({ description: 'Category slugs or ids (any of them)' }),
    tags: t.stringList({ description: 'Tag slugs or ids (any of them)' }),
    venues: t.intList({ description: 'Venue ids (any of them)' }),
    organizers: t.intList({ description: 'Organizer ids (any of them)' }),
    featured: t.boolean(),
    eventStatus: t.field({ type: [EventStatus], description: 'Events with one of these event statuses' }),
    status: t.field({
      type: [PostStatus],
      description: 'Statuses other than publish need an account that may edit events',
    }),
    include: t.intList({
      description: 'Only these events, ordered by publication date; date filters are ignored',
    }),
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
      resolve: (query, page, _args, ctx) =>
        eventPageItems(ctx, page, (args) => ctx.db.event.findMany({ ...query, ...args })),
    }),
    pageInfo: t.field({
      type: PageInfo,
      resolve: (page) => ({ ...page.paging, total: page.total, totalPages: page.totalPages }),
    }),
    icsUrl: t.string({
      description: 'This query (without paging) as an iCalendar subscription (webcal://)',
      resolve: (page, _a, ctx) => eventFeedUrl(page, ctx),
    }),
  }),
});

builder.prismaObjectField(Event, 'icsUrl', (t) =>
  t.string({
    description: 'The event as an iCalendar file (webcal://)',
    resolve: (event, _a, ctx) => webcalUrl(`${ctx.urls.api}/events/${event.id}.ics`),
  }),
);

builder.queryFields((t) => ({
  event: t.prismaField({
    type: Event,
    nullable: true,
    description:
      'An event by id; null (with an error entry saying why) when it does not exist or you may not read it',
    args: { id: t.arg.int({ required: true }), password: t.arg.string() },
    resolve: async (query, _root, { id, password }, ctx) =>
      assertReadable(
        'event',
        await ctx.db.event.findUnique({ ...query, where: { id } }),
        id,
        ctx.viewer,
        password,
      ),
  }),
  eventBySlug: t.prismaField({
    type: Event,
    nullable: true,
    description:
      'An event by slug; null (with an error entry saying why) when it does not exist or you may not read it',
    args: { slug: t.arg.string({ required: true }), password: t.arg.string() },
    resolve: async (query, _root, { slug, password }, ctx) =>
      assertReadable(
        'event',
        await ctx.db.event.findUnique({ ...query, where: { slug } }),
        slug,
        ctx.viewer,
        password,
      ),
  }),
  events: t.field({
    type: EventPage,
    args: {
      filter: t.arg({ type: EventFilter }),
      page: t.arg.int(),
      perPage: t.arg.int(),
      password: t.arg.string({
        description: 'Shows the content of password-protected events with this password',
      }),
    },
    resolve: (_root, { filter, page, perPage, password }, ctx) =>
      eventArchive(ctx, filter ?? {}, page, perPage, { password }),
  }),
}));

// Writes: typed inputs whose fields are the domain input's (`services/event-input.ts`), so that the
// service's errors name the fields as the client wrote them.

const writeDateInput = (what: string) =>
  `${what}: ISO 8601 (an offset is honoured), "Y-m-d H:i:s", a Unix timestamp or an English phrase ("tomorrow 9am"); read in the event time zone`;

const EventTermInput = builder.inputType('EventTermInput', {
  description:
    'A category or tag, by id or by name (one of them); an unknown name creates the term (editors only)',
  fields: (t) => ({ id: t.int(), name: t.string() }),
});

const EventVenueInput = builder.inputType('EventVenueInput', {
  description:
    'An existing venue (id), or one to create (create); a venue with the same name (and description) is reused',
  fields: (t) => ({ id: t.int(), create: t.field({ type: CreateVenueInput }) }),
});

const EventOrganizerInput = builder.inputType('EventOrganizerInput', {
  description:
    'An existing organizer (id), or one to create (create); an organizer with the same name (and description) is reused',
  fields: (t) => ({ id: t.int(), create: t.field({ type: CreateOrganizerInput }) }),
});

function eventInputFields(t: InputFieldBuilder, create: boolean) {
  return {
    title: t.string({ required: create, description: 'Not empty' }),
    startDate: t.string({ required: create, description: writeDateInput('Start') }),
    endDate: t.string({
      required: create,
      description: writeDateInput('End; an end before the start becomes the start'),
    }),
    timezone: t.string({
      description:
        'IANA name (America/New_York) or UTC±H[:MM]; default: the site zone (create) or the event zone (update)',
    }),
    allDay: t.boolean({
      description: 'Stretches the event to 00:00:00 of its first day and 23:59:59 of its last',
    }),
    description: t.string({ description: 'HTML; plain text is put in paragraphs' }),
    excerpt: t.string({ description: 'HTML; plain text is put in paragraphs' }),
    slug: t.string({ description: 'Made unique among events (-2, -3, …)' }),
    status: t.field({
      type: PostStatus,
      description:
        'Scaled back to pending (or draft) for those who may not publish; future with a future date schedules',
    }),
    authorId: t.int({ description: 'An existing user; only editors may name someone else' }),
    date: t.string({ description: 'Publication date in the event time zone (any accepted date format)' }),
    dateUtc: t.string({ description: 'Publication date in UTC' }),
    image: t.string({
      description: 'An image media id, or an http(s) image URL (needs the upload capability); "" removes it',
    }),
    cost: t.stringList({
      description:
        'Costs with an optional currency symbol ("$10", "20 €", "10 - 20", "Free"); [] clears them',
    }),
    website: t.string({ description: 'A URL; "" clears it' }),
    showMap: t.boolean(),
    showMapLink: t.boolean(),
    hideFromListings: t.boolean({ description: 'Readable by id, never listed' }),
    sticky: t.boolean(),
    featured: t.boolean(),
    eventStatus: t.field({
      type: EventStatus,
      description: 'Scheduled (the default), canceled or postponed',
    }),
    eventStatusReason: t.string({
      description: 'Why it is canceled or postponed; kept only while it is (cleared when scheduled)',
    }),
    categories: t.field({ type: [EventTermInput], description: 'Replaces the categories; [] removes them' }),
    tags: t.field({ type: [EventTermInput], description: 'Replaces the tags; [] removes them' }),
    venues: t.field({
      type: [EventVenueInput],
      description: 'Replaces the venues, in order; [] removes them',
    }),
    organizers: t.field({
      type: [EventOrganizerInput],
      description: 'Replaces the organizers, in order; [] removes them',
    }),
    postParentId: t.int({ description: 'The parent event; 0 removes it' }),
  };
}

const password = (t: InputFieldBuilder) =>
  t.string({
    description: 'Hides the event content from those who may not edit it, unless they give it; "" removes it',
  });

const CreateEventInput = builder.inputType('CreateEventInput', {
  fields: (t) => ({ ...eventInputFields(t, true), password: password(t) }),
});

const UpdateEventInput = builder.inputType('UpdateEventInput', {
  description: 'Only the fields given change; null leaves a field unchanged',
  fields: (t) => ({ ...eventInputFields(t, false), password: password(t) }),
});

const UpdateEventBySlugInput = builder.inputType('UpdateEventBySlugInput', {
  description: 'Only the fields given change; null leaves a field unchanged (the password is set by id)',
  fields: (t) => eventInputFields(t, false),
});

type Maybe<T> = T | null | undefined;
type VenueFields = Parameters<typeof venueBody>[0];
type OrganizerFields = Parameters<typeof organizerBody>[0];

interface EventInputFields {
  title?: Maybe<string>;
  startDate?: Maybe<string>;
  endDate?: Maybe<string>;
  timezone?: Maybe<string>;
  allDay?: Maybe<boolean>;
  description?: Maybe<string>;
  excerpt?: Maybe<string>;
  slug?: Maybe<string>;
  status?: Maybe<PostStatusValue>;
  authorId?: Maybe<number>;
  date?: Maybe<string>;
  dateUtc?: Maybe<string>;
  image?: Maybe<string>;
  cost?: Maybe<string[]>;
  website?: Maybe<string>;
  showMap?: Maybe<boolean>;
  showMapLink?: Maybe<boolean>;
  hideFromListings?: Maybe<boolean>;
  sticky?: Maybe<boolean>;
  featured?: Maybe<boolean>;
  eventStatus?: Maybe<EventStatusValue>;
  eventStatusReason?: Maybe<string>;
  categories?: Maybe<Array<{ id?: Maybe<number>; name?: Maybe<string> }>>;
  tags?: Maybe<Array<{ id?: Maybe<number>; name?: Maybe<string> }>>;
  venues?: Maybe<Array<{ id?: Maybe<number>; create?: Maybe<VenueFields> }>>;
  organizers?: Maybe<Array<{ id?: Maybe<number>; create?: Maybe<OrganizerFields> }>>;
  postParentId?: Maybe<number>;
  password?: Maybe<string>;
}

/** `{id}` or `{create}` entries → link references; exactly one of them per entry. */
function linkRefs<Fields>(
  field: 'venues' | 'organizers',
  entries: Maybe<Array<{ id?: Maybe<number>; create?: Maybe<Fields> }>>,
  body: (fields: Fields) => Record<string, unknown>,
): LinkRef[] | undefined {
  if (!entries) return undefined;
  return entries.map((entry) => {
    const hasId = entry.id !== null && entry.id !== undefined;
    if (hasId === Boolean(entry.create))
      throw invalidParams({ [field]: 'Each entry gives either id or create.' });
    return hasId
      ? { kind: 'id', id: entry.id!, inObject: true }
      : { kind: 'fields', body: body(entry.create as Fields) };
  });
}

function termRefs(entries: EventInputFields['categories']): TermRef[] | undefined {
  return entries?.map((entry) =>
    entry.id !== null && entry.id !== undefined
      ? { kind: 'id', id: entry.id }
      : { kind: 'name', name: entry.name ?? '' },
  );
}

/**
 * The typed input → the domain input: the input fields carry the domain's names, so errors name them
 * as the client wrote them. null means "unchanged"; `postParentId: 0` removes the parent.
 */
// Every input field is a domain field of the same name (a compile error otherwise).
const sameNames: Exclude<keyof EventInputFields, EventField> extends never ? true : never = true;
void sameNames;

function eventInput(fields: EventInputFields): EventInput {
  const { categories, tags, venues, organizers, postParentId, ...plain } = fields;
  const input: EventInput = Object.fromEntries(
    Object.entries(plain).filter(([, value]) => value !== null && value !== undefined),
  );
  if (postParentId !== null && postParentId !== undefined) input.postParentId = postParentId || null;
  if (categories) input.categories = termRefs(categories);
  if (tags) input.tags = termRefs(tags);
  if (venues) input.venues = linkRefs('venues', venues, venueBody);
  if (organizers) input.organizers = linkRefs('organizers', organizers, organizerBody);
  return input;
}

builder.mutationFields((t) => ({
  createEvent: t.prismaField({
    type: Event,
    description: 'Creates an event (contributors: as a draft or pending)',
    args: { input: t.arg({ type: CreateEventInput, required: true }) },
    resolve: (query, _root, { input }, ctx) =>
      createEvent(ctx, eventInput(input), (tx, id) =>
        tx.event.findUniqueOrThrow({ ...query, where: { id } }),
      ),
  }),
  updateEvent: t.prismaField({
    type: Event,
    args: {
      id: t.arg.int({ required: true }),
      input: t.arg({ type: UpdateEventInput, required: true }),
      ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }),
    },
    resolve: (query, _root, { id, input, ifMatch }, ctx) =>
      updateEvent(
        withIfMatch(ctx, ifMatch),
        { id },
        eventInput(input),
        (tx, eventId) => tx.event.findUniqueOrThrow({ ...query, where: { id: eventId } }),
        { passwordAllowed: true },
      ),
  }),
  updateEventBySlug: t.prismaField({
    type: Event,
    args: {
      slug: t.arg.string({ required: true }),
      input: t.arg({ type: UpdateEventBySlugInput, required: true }),
      ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }),
    },
    resolve: (query, _root, { slug, input, ifMatch }, ctx) =>
      updateEvent(
        withIfMatch(ctx, ifMatch),
        { slug },
        eventInput(input),
        (tx, eventId) => tx.event.findUniqueOrThrow({ ...query, where: { id: eventId } }),
        { passwordAllowed: false },
      ),
  }),
  deleteEvent: t.prismaField({
    type: Event,
    description:
      'Moves the event to the trash (a second time: 410 event-is-in-trash); force: deletes it for good (editors)',
    args: {
      id: t.arg.int({ required: true }),
      force: t.arg.boolean({ defaultValue: false }),
      ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }),
    },
    resolve: (query, _root, { id, force, ifMatch }, ctx) =>
      deleteEvent(withIfMatch(ctx, ifMatch), { id }, force ?? false, (tx, eventId) =>
        tx.event.findUniqueOrThrow({ ...query, where: { id: eventId } }),
      ),
  }),
  deleteEventBySlug: t.prismaField({
    type: Event,
    description: 'As deleteEvent, by slug',
    args: {
      slug: t.arg.string({ required: true }),
      force: t.arg.boolean({ defaultValue: false }),
      ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }),
    },
    resolve: (query, _root, { slug, force, ifMatch }, ctx) =>
      deleteEvent(withIfMatch(ctx, ifMatch), { slug }, force ?? false, (tx, eventId) =>
        tx.event.findUniqueOrThrow({ ...query, where: { id: eventId } }),
      ),
  }),
}));
