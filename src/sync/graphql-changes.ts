import { builder } from '../core/graphql/schema/builder.js';
import { Event } from '../events/graphql.js';
import { Organizer } from '../places/graphql-organizer.js';
import { Category } from '../terms/graphql-category.js';
import { Tag } from '../terms/graphql-tag.js';
import { Venue } from '../places/graphql-venue.js';
import { type ChangePage, SYNC_PAGE_DEFAULT, SYNC_PAGE_MAX, readChanges } from './change-log.js';
import { visibleEvents } from '../events/service/event-access.js';
import { type AttendeeEntry, changedAttendees, changedTicketTypes } from './ticket-changes.js';
import { AttendeeStatusEnum, TicketType } from '../tickets/graphql.js';
import type { AttendeeStatus } from '../tickets/model.js';
import { visibleLinked } from '../places/service/linked-access.js';
import { visibleTerms } from '../terms/term-reads.js';
import { CATEGORY, TAG } from '../terms/terms.js';

// Incremental sync (`changes(since:)`), the GraphQL form of `GET /calendar/events/v1/changes`: per
// resource type, the records created or updated since the token as this viewer may read them now, the
// ids it can no longer read (deleted, trashed, unpublished), and the token to continue from. Ticket
// types and attendees come with them for events whose tickets the viewer may see (none of the others,
// not even as deleted); attendees without personal data.

const ChangedAttendee = builder.objectRef<AttendeeEntry>('ChangedAttendee').implement({
  description: 'An attendee as the change stream shows it: no name, e-mail, token or check-in code',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Numeric id' }),
    eventId: t.exposeInt('eventId', { description: 'The event' }),
    ticketTypeId: t.exposeInt('ticketTypeId', { description: 'The ticket type' }),
    status: t.field({
      type: AttendeeStatusEnum,
      description: 'Where it stands now',
      resolve: (attendee) => attendee.status as AttendeeStatus,
    }),
    guests: t.exposeInt('guests', { description: 'Places it takes' }),
    erased: t.exposeBoolean('erased', { description: 'Whether its personal data was removed' }),
  }),
});

const DeletedIds = builder.objectRef<ChangePage['deleted']>('DeletedIds').implement({
  description: 'Ids to forget: deleted, trashed or no longer readable by the viewer (possibly never seen)',
  fields: (t) => ({
    events: t.intList({ description: 'Event ids to forget', resolve: (ids) => ids.event }),
    venues: t.intList({ description: 'Venue ids to forget', resolve: (ids) => ids.venue }),
    organizers: t.intList({ description: 'Organizer ids to forget', resolve: (ids) => ids.organizer }),
    categories: t.intList({ description: 'Category ids to forget', resolve: (ids) => ids.category }),
    tags: t.intList({ description: 'Tag ids to forget', resolve: (ids) => ids.tag }),
    ticketTypes: t.intList({
      description: 'Ticket type ids to forget (deleted, with their attendees)',
      resolve: (ids) => ids.ticket,
    }),
    attendees: t.intList({
      description: 'Attendee ids to forget (their ticket type was deleted)',
      resolve: (ids) => ids.attendee,
    }),
  }),
});

const ChangeSet = builder.objectRef<ChangePage>('ChangeSet').implement({
  description: 'One page of the change stream; records in the order of their last change in the page',
  fields: (t) => ({
    events: t.prismaField({
      type: [Event],
      description: 'Events created or updated in this page, as you may read them now',
      resolve: (query, page, _a, ctx) => visibleEvents(ctx, page.changed.event, query),
    }),
    venues: t.prismaField({
      type: [Venue],
      description: 'Venues created or updated in this page, as you may read them now',
      resolve: (query, page, _a, ctx) => visibleLinked(ctx, 'venue', page.changed.venue, query),
    }),
    organizers: t.prismaField({
      type: [Organizer],
      description: 'Organizers created or updated in this page, as you may read them now',
      resolve: (query, page, _a, ctx) => visibleLinked(ctx, 'organizer', page.changed.organizer, query),
    }),
    categories: t.prismaField({
      type: [Category],
      description: 'Categories created or updated in this page, as you may read them now',
      resolve: (query, page, _a, ctx) => visibleTerms(ctx, page.changed.category, query, CATEGORY),
    }),
    tags: t.prismaField({
      type: [Tag],
      description: 'Tags created or updated in this page, as you may read them now',
      resolve: (query, page, _a, ctx) => visibleTerms(ctx, page.changed.tag, query, TAG),
    }),
    ticketTypes: t.field({
      type: [TicketType],
      description: 'Ticket types created or updated in this page, of events whose tickets you may see',
      resolve: (page, _a, ctx) => changedTicketTypes(ctx, page.changed.ticket),
    }),
    attendees: t.field({
      type: [ChangedAttendee],
      description:
        'Attendees created or changed in this page (no personal data), of events whose tickets you may see',
      resolve: (page, _a, ctx) => changedAttendees(ctx, page.changed.attendee),
    }),
    deleted: t.field({
      type: DeletedIds,
      description: 'Ids that are gone for you since the token',
      resolve: (page) => page.deleted,
    }),
    next: t.string({ description: 'The token to pass as `since` next time', resolve: (page) => page.next }),
    hasMore: t.boolean({
      description: 'More changes are waiting: ask again at once with `next`',
      resolve: (page) => page.hasMore,
    }),
  }),
});

builder.queryField('changes', (t) =>
  t.field({
    type: ChangeSet,
    description:
      'Incremental sync: what changed since the token (none: a token for now, no records). An expired token is an error with code sync_token_expired: read everything again and start without a token.',
    args: {
      since: t.arg.string({ description: 'The `next` of the previous page' }),
      perPage: t.arg.int({
        description: `Changes per page (1–${SYNC_PAGE_MAX})`,
        defaultValue: SYNC_PAGE_DEFAULT,
      }),
    },
    resolve: (_root, { since, perPage }, ctx) => readChanges(ctx, since, perPage ?? SYNC_PAGE_DEFAULT),
  }),
);
