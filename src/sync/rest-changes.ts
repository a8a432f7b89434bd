import { builder, REST } from '../core/graphql/schema/builder.js';
import { TecEvent } from '../events/rest-shape.js';
import { presentOrganizer, presentVenue } from '../places/rest-present.js';
import { TecCategory, TecTag } from '../terms/rest-schema.js';
import { type RestSchema, jsonShape } from '../core/rest/discovery/json-shapes.js';
import { TEC_ORGANIZER, TEC_VENUE } from '../places/rest-doc-shapes.js';
import { type ChangePage, SYNC_PAGE_DEFAULT, SYNC_PAGE_MAX, readChanges } from './change-log.js';
import { visibleEvents } from '../events/service/event-access.js';
import { WITH_IMAGE, type WithImage, visibleLinked } from '../places/service/linked-access.js';
import { visibleTerms } from '../terms/term-reads.js';
import { CATEGORY, TAG } from '../terms/terms.js';
import { changedAttendees, changedTicketTypes } from './ticket-changes.js';
import { TICKET_SHAPES } from '../tickets/rest/docs.js';
import { presentTickets, ticketsRoot } from '../tickets/rest/shapes.js';

// `GET /changes?since=<token>`: the REST form of GraphQL `changes(since:)`, each record in the
// representation its own list route gives it; ticket types as `/calendar/tickets/v1/tickets` shows
// them, attendees without personal data (only editors read `/attendees`, and not from here).

const integers: RestSchema = { type: 'array', items: { type: 'integer' } };

const DELETED_KINDS = ['events', 'venues', 'organizers', 'categories', 'tags', 'tickets', 'attendees'];

const DELETED_SHAPE: RestSchema = {
  type: 'object',
  required: DELETED_KINDS,
  properties: Object.fromEntries(DELETED_KINDS.map((key) => [key, integers])),
};

const CHANGED_ATTENDEE: RestSchema = {
  type: 'object',
  description: 'An attendee as the change stream shows it: no name, e-mail, token or check-in code',
  required: ['id', 'post_id', 'ticket_id', 'attendee_status', 'guests', 'erased', 'rest_url'],
  properties: {
    id: { type: 'integer' },
    post_id: { type: 'integer', description: 'The event' },
    ticket_id: { type: 'integer', description: 'The ticket type' },
    attendee_status: {
      type: 'string',
      enum: ['going', 'not_going', 'waitlisted', 'cancelled', 'checked_in'],
      description: 'Where the reservation stands',
    },
    guests: { type: 'integer', description: 'Places it takes' },
    erased: { type: 'boolean', description: 'Whether its personal data was removed' },
    rest_url: { type: 'string', description: 'The attendee (editors and administrators)' },
  },
};

const TecChanges = builder.objectRef<ChangePage>('TecChanges').implement({
  ...REST,
  fields: (t) => ({
    events: t.prismaField({
      type: [TecEvent],
      resolve: (query, page, _a, ctx) => visibleEvents(ctx, page.changed.event, query),
    }),
    venues: t.field({
      type: ['JSON'],
      extensions: jsonShape(TEC_VENUE),
      resolve: async (page, _a, ctx) =>
        (await visibleLinked<'venue', WithImage<'venue'>>(ctx, 'venue', page.changed.venue, WITH_IMAGE)).map(
          (venue) => presentVenue(venue, ctx, 'list'),
        ),
    }),
    organizers: t.field({
      type: ['JSON'],
      extensions: jsonShape(TEC_ORGANIZER),
      resolve: async (page, _a, ctx) =>
        (
          await visibleLinked<'organizer', WithImage<'organizer'>>(
            ctx,
            'organizer',
            page.changed.organizer,
            WITH_IMAGE,
          )
        ).map((organizer) => presentOrganizer(organizer, ctx, 'list')),
    }),
    categories: t.prismaField({
      type: [TecCategory],
      resolve: (query, page, _a, ctx) => visibleTerms(ctx, page.changed.category, query, CATEGORY),
    }),
    tags: t.prismaField({
      type: [TecTag],
      resolve: (query, page, _a, ctx) => visibleTerms(ctx, page.changed.tag, query, TAG),
    }),
    tickets: t.field({
      type: ['JSON'],
      extensions: TICKET_SHAPES.ticket,
      description: 'Ticket types created or updated, of events whose tickets you may see',
      resolve: async (page, _a, ctx) => {
        const types = await changedTicketTypes(ctx, page.changed.ticket);
        if (!types.length) return [];
        // `is_available` reads the minute: such a page is not shared.
        ctx.reads?.readClock();
        return presentTickets(ctx, types);
      },
    }),
    attendees: t.field({
      type: ['JSON'],
      extensions: jsonShape(CHANGED_ATTENDEE),
      description: 'Attendees created or changed (no personal data), of events whose tickets you may see',
      resolve: async (page, _a, ctx) =>
        (await changedAttendees(ctx, page.changed.attendee)).map((attendee) => ({
          id: attendee.id,
          post_id: attendee.eventId,
          ticket_id: attendee.ticketTypeId,
          attendee_status: attendee.status.toLowerCase(),
          guests: attendee.guests,
          erased: attendee.erased,
          rest_url: `${ticketsRoot(ctx.urls)}/attendees/${attendee.id}`,
        })),
    }),
    deleted: t.field({
      type: 'JSON',
      extensions: jsonShape(DELETED_SHAPE),
      description: 'Ids to forget per type: deleted, trashed or no longer readable by the viewer',
      resolve: ({ deleted }) => ({
        events: deleted.event,
        venues: deleted.venue,
        organizers: deleted.organizer,
        categories: deleted.category,
        tags: deleted.tag,
        tickets: deleted.ticket,
        attendees: deleted.attendee,
      }),
    }),
    next: t.string({ resolve: (page) => page.next }),
    has_more: t.boolean({ resolve: (page) => page.hasMore }),
  }),
});

builder.queryField('tecChanges', (t) =>
  t.field({
    ...REST,
    type: TecChanges,
    args: {
      since: t.arg.string({
        description: 'The sync token of the previous answer (`next`); without it, a token for now',
      }),
      per_page: t.arg.int({
        description: `The number of changes to return on each page (at most ${SYNC_PAGE_MAX})`,
        defaultValue: SYNC_PAGE_DEFAULT,
      }),
    },
    resolve: (_root, { since, per_page }, ctx) => readChanges(ctx, since, per_page ?? SYNC_PAGE_DEFAULT),
  }),
);
