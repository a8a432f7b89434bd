import { type SubGraph, builder } from './builder.js';
import { type InputFieldBuilder, PostStatus, type PostStatusValue } from './common.js';
import { Event } from './event.js';
import { CreateOrganizerInput, organizerBody } from './organizer.js';
import { TecEvent } from './rest/event.js';
import { CreateVenueInput, venueBody } from './venue.js';
import { invalidParams } from '../domain/errors.js';
import { createEvent, deleteEvent, updateEvent } from '../services/event-writes.js';

// Event writes: the public mutations (typed camelCase inputs, mapped onto the flat body REST receives,
// so both APIs share one validation) and the REST root fields SOFA serves as
// POST /events, POST|PUT|PATCH|DELETE /events/{id} and /events/by-slug/{slug}.

const REST: { subGraphs: SubGraph[] } = { subGraphs: ['rest'] };

const dateInput = (what: string) =>
  `${what}: ISO 8601 (an offset is honoured), "Y-m-d H:i:s", a Unix timestamp or an English phrase ("tomorrow 9am"); read in the event time zone`;

const EventTermInput = builder.inputType('EventTermInput', {
  description: 'A category or tag, by id or by name (one of them); an unknown name creates the term (editors only)',
  fields: (t) => ({ id: t.int(), name: t.string() }),
});

const EventVenueInput = builder.inputType('EventVenueInput', {
  description: 'An existing venue (id), or one to create (create); a venue with the same name (and description) is reused',
  fields: (t) => ({ id: t.int(), create: t.field({ type: CreateVenueInput }) }),
});

const EventOrganizerInput = builder.inputType('EventOrganizerInput', {
  description: 'An existing organizer (id), or one to create (create); an organizer with the same name (and description) is reused',
  fields: (t) => ({ id: t.int(), create: t.field({ type: CreateOrganizerInput }) }),
});

function eventInputFields(t: InputFieldBuilder, create: boolean) {
  return {
    title: t.string({ required: create, description: 'Not empty' }),
    startDate: t.string({ required: create, description: dateInput('Start') }),
    endDate: t.string({ required: create, description: dateInput('End; an end before the start becomes the start') }),
    timezone: t.string({ description: 'IANA name (America/New_York) or UTC±H[:MM]; default: the site zone (create) or the event zone (update)' }),
    allDay: t.boolean({ description: 'Stretches the event to 00:00:00 of its first day and 23:59:59 of its last' }),
    description: t.string({ description: 'HTML; plain text is put in paragraphs' }),
    excerpt: t.string({ description: 'HTML; plain text is put in paragraphs' }),
    slug: t.string({ description: 'Made unique among events (-2, -3, …)' }),
    status: t.field({ type: PostStatus, description: 'Scaled back to pending (or draft) for those who may not publish; future with a future date schedules' }),
    authorId: t.int({ description: 'An existing user; only editors may name someone else' }),
    date: t.string({ description: 'Publication date in the event time zone (any accepted date format)' }),
    dateUtc: t.string({ description: 'Publication date in UTC' }),
    image: t.string({ description: 'An image media id, or an http(s) image URL (needs the upload capability); "" removes it' }),
    cost: t.stringList({ description: 'Costs with an optional currency symbol ("$10", "20 €", "10 - 20", "Free"); [] clears them' }),
    website: t.string({ description: 'A URL; "" clears it' }),
    showMap: t.boolean(),
    showMapLink: t.boolean(),
    hideFromListings: t.boolean({ description: 'Readable by id, never listed' }),
    sticky: t.boolean(),
    featured: t.boolean(),
    categories: t.field({ type: [EventTermInput], description: 'Replaces the categories; [] removes them' }),
    tags: t.field({ type: [EventTermInput], description: 'Replaces the tags; [] removes them' }),
    venues: t.field({ type: [EventVenueInput], description: 'Replaces the venues, in order; [] removes them' }),
    organizers: t.field({ type: [EventOrganizerInput], description: 'Replaces the organizers, in order; [] removes them' }),
    postParentId: t.int({ description: 'The parent event; 0 removes it' }),
  };
}

const password = (t: InputFieldBuilder) =>
  t.string({ description: 'Hides the event content from those who may not edit it, unless they give it; "" removes it' });

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
  categories?: Maybe<Array<{ id?: Maybe<number>; name?: Maybe<string> }>>;
  tags?: Maybe<Array<{ id?: Maybe<number>; name?: Maybe<string> }>>;
  venues?: Maybe<Array<{ id?: Maybe<number>; create?: Maybe<VenueFields> }>>;
  organizers?: Maybe<Array<{ id?: Maybe<number>; create?: Maybe<OrganizerFields> }>>;
  postParentId?: Maybe<number>;
  password?: Maybe<string>;
}

/** A list of `{id}` or `{create}` → the REST form; exactly one of them per entry. */
function linkedBody<Fields>(
  param: string,
  entries: Maybe<Array<{ id?: Maybe<number>; create?: Maybe<Fields> }>>,
  body: (fields: Fields) => Record<string, unknown>,
) {
  if (!entries) return undefined;
  return entries.map((entry) => {
    const hasId = entry.id !== null && entry.id !== undefined;
    if (hasId === Boolean(entry.create)) throw invalidParams({ [param]: 'Each entry gives either id or create.' });
    return hasId ? { id: entry.id } : body(entry.create as Fields);
  });
}

function termsBody(entries: EventInputFields['categories']) {
  return entries?.map((entry) => (entry.id !== null && entry.id !== undefined ? { id: entry.id } : { name: entry.name }));
}

/** GraphQL input → the flat body the REST routes receive (null means "not sent"). */
function eventBody(input: EventInputFields): Record<string, unknown> {
  const orUndefined = <T>(value: Maybe<T>) => value ?? undefined;
  return {
    title: input.title,
    start_date: input.startDate,
    end_date: input.endDate,
    timezone: input.timezone,
    all_day: input.allDay,
    description: input.description,
    excerpt: input.excerpt,
    slug: input.slug,
    status: input.status,
    author: input.authorId,
    date: input.date,
    date_utc: input.dateUtc,
    image: input.image,
    cost: input.cost,
    website: input.website,
    show_map: input.showMap,
    show_map_link: input.showMapLink,
    hide_from_listings: input.hideFromListings,
    sticky: input.sticky,
    featured: input.featured,
    categories: termsBody(input.categories),
    tags: termsBody(input.tags),
    venue: orUndefined(linkedBody('venues', input.venues, venueBody)),
    organizer: orUndefined(linkedBody('organizers', input.organizers, organizerBody)),
    post_parent: input.postParentId,
    password: input.password,
  };
}

builder.mutationFields((t) => ({
  createEvent: t.prismaField({
    type: Event,
    description: 'Creates an event (contributors: as a draft or pending)',
    args: { input: t.arg({ type: CreateEventInput, required: true }) },
    resolve: (query, _root, { input }, ctx) =>
      createEvent(ctx, eventBody(input), (tx, id) => tx.event.findUniqueOrThrow({ ...query, where: { id } }), { style: 'graphql' }),
  }),
  updateEvent: t.prismaField({
    type: Event,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateEventInput, required: true }) },
    resolve: (query, _root, { id, input }, ctx) =>
      updateEvent(ctx, { id }, eventBody(input), (tx, eventId) => tx.event.findUniqueOrThrow({ ...query, where: { id: eventId } }), {
        style: 'graphql',
        passwordAllowed: true,
      }),
  }),
  updateEventBySlug: t.prismaField({
    type: Event,
    args: { slug: t.arg.string({ required: true }), input: t.arg({ type: UpdateEventBySlugInput, required: true }) },
    resolve: (query, _root, { slug, input }, ctx) =>
      updateEvent(ctx, { slug }, eventBody(input), (tx, eventId) => tx.event.findUniqueOrThrow({ ...query, where: { id: eventId } }), {
        style: 'graphql',
        passwordAllowed: false,
      }),
  }),
  deleteEvent: t.prismaField({
    type: Event,
    description: 'Moves the event to the trash (a second time: 410 event-is-in-trash); force: deletes it for good (editors)',
    args: { id: t.arg.int({ required: true }), force: t.arg.boolean({ defaultValue: false }) },
    resolve: (query, _root, { id, force }, ctx) =>
      deleteEvent(ctx, { id }, force ?? false, (tx, eventId) => tx.event.findUniqueOrThrow({ ...query, where: { id: eventId } }), {
        style: 'graphql',
      }),
  }),
  deleteEventBySlug: t.prismaField({
    type: Event,
    description: 'As deleteEvent, by slug',
    args: { slug: t.arg.string({ required: true }), force: t.arg.boolean({ defaultValue: false }) },
    resolve: (query, _root, { slug, force }, ctx) =>
      deleteEvent(ctx, { slug }, force ?? false, (tx, eventId) => tx.event.findUniqueOrThrow({ ...query, where: { id: eventId } }), {
        style: 'graphql',
      }),
  }),
}));

// REST (the `rest` sub-graph): the flat TEC body as JSON; answers in the list representation (no json_ld).
builder.mutationFields((t) => ({
  tecCreateEvent: t.prismaField({
    ...REST,
    type: TecEvent,
    args: { input: t.arg({ type: 'JSON' }) },
    resolve: (query, _root, { input }, ctx) =>
      createEvent(ctx, input, (tx, id) => tx.event.findUniqueOrThrow({ ...query, where: { id } }), { passwordAllowed: true }),
  }),
  tecUpdateEvent: t.prismaField({
    ...REST,
    type: TecEvent,
    args: { id: t.arg.int({ required: true, description: 'the event post ID' }), input: t.arg({ type: 'JSON' }) },
    resolve: (query, _root, { id, input }, ctx) =>
      updateEvent(ctx, { id }, input, (tx, eventId) => tx.event.findUniqueOrThrow({ ...query, where: { id: eventId } }), {
        passwordAllowed: true,
      }),
  }),
  tecUpdateEventBySlug: t.prismaField({
    ...REST,
    type: TecEvent,
    args: { slug: t.arg.string({ required: true, description: 'the event post name' }), input: t.arg({ type: 'JSON' }) },
    resolve: (query, _root, { slug, input }, ctx) =>
      updateEvent(ctx, { slug }, input, (tx, eventId) => tx.event.findUniqueOrThrow({ ...query, where: { id: eventId } }), {
        passwordAllowed: false,
      }),
  }),
  tecDeleteEvent: t.prismaField({
    ...REST,
    type: TecEvent,
    args: {
      id: t.arg.int({ required: true, description: 'the event post ID' }),
      force: t.arg.boolean({ description: 'Deletes for good instead of trashing (editors and administrators)' }),
      password: t.arg.string({ description: 'Accepted as by the reference, and not needed' }),
    },
    resolve: (query, _root, { id, force }, ctx) =>
      deleteEvent(ctx, { id }, force ?? false, (tx, eventId) => tx.event.findUniqueOrThrow({ ...query, where: { id: eventId } })),
  }),
  tecDeleteEventBySlug: t.prismaField({
    ...REST,
    type: TecEvent,
    args: {
      slug: t.arg.string({ required: true, description: 'the event post name' }),
      force: t.arg.boolean({ description: 'Deletes for good instead of trashing (editors and administrators)' }),
    },
    resolve: (query, _root, { slug, force }, ctx) =>
      deleteEvent(ctx, { slug }, force ?? false, (tx, eventId) => tx.event.findUniqueOrThrow({ ...query, where: { id: eventId } })),
  }),
}));
