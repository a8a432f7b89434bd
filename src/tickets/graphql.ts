import type { Attendee as AttendeeRow } from '../generated/sqlite/client.js';
import { contentWithheld } from '../core/rules/visibility.js';
import { builder } from '../core/graphql/schema/builder.js';
import { SHOWS_COLUMNS } from '../core/graphql/schema/common.js';
import { Event } from '../events/graphql.js';
import { RecurrenceScopeEnum } from '../events/graphql-writes.js';
import { attendee, attendeeConnection } from './reservations/attendees.js';
import { ATTENDEE_STATUSES, TICKET_KINDS, type AttendeeStatus, type TicketKind } from './model.js';
import type { Availability } from './reservations/places.js';
import {
  type Confirmation,
  attendeeByToken,
  cancelReservation,
  checkIn,
  eraseAttendee,
  reserve,
  updateReservation,
} from './reservations/reservations.js';
import { onSale } from './reservations/sales.js';
import {
  type TicketTypeView,
  availabilityOf,
  createTicketType,
  deleteTicketType,
  localBound,
  ticketType,
  ticketTypesOf,
  updateTicketType,
} from './types/ticket-types.js';

// The public GraphQL API of tickets: an event's types and their availability (anyone who may see the
// event), reservations by token (the attendee), the attendee list and check-in (editors and above).
// Refusals carry their code in `extensions.code`: SOLD_OUT, SALES_CLOSED, TOO_MANY, INVALID_TOKEN…

const describe = <T extends string>(values: readonly T[], text: Record<T, string>) =>
  Object.fromEntries(values.map((value) => [value, { description: text[value] }])) as Record<
    T,
    { description: string }
  >;

const TicketKindEnum = builder.enumType('TicketKind', {
  description: 'What a ticket type is: a free RSVP, or a ticket with a price shown (payment is not handled)',
  values: describe(TICKET_KINDS, { RSVP: 'A free reservation', TICKET: 'A ticket with a price for display' }),
});

export const AttendeeStatusEnum = builder.enumType('AttendeeStatus', {
  description: 'Where a reservation stands',
  values: describe(ATTENDEE_STATUSES, {
    GOING: 'Holds its places',
    NOT_GOING: 'Answered that they will not come (holds no place)',
    WAITLISTED: 'Waiting for a place; promoted in arrival order when one is released',
    CANCELLED: 'Cancelled through its link (holds no place)',
    CHECKED_IN: 'Arrived: checked in at the door',
  }),
});

const TicketAvailability = builder.objectRef<Availability>('TicketAvailability').implement({
  description: 'How many places a ticket type has left: counts only, never who reserved them',
  fields: (t) => ({
    capacity: t.exposeInt('capacity', {
      nullable: true,
      description: 'Places in all (its own limit, else the shared one it draws from); null: unlimited',
    }),
    available: t.exposeInt('available', { nullable: true, description: 'Places left; null: unlimited' }),
    soldOut: t.exposeBoolean('soldOut', { description: 'Whether no place is left' }),
    waitlist: t.exposeInt('waitlist', { description: 'Reservations waiting for a place' }),
  }),
});

export const TicketType = builder.objectRef<TicketTypeView>('TicketType').implement({
  description: "An RSVP or ticket an event offers, with its capacity and sales window (in the event's zone)",
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Numeric id (the same as in the REST API)' }),
    eventId: t.exposeInt('eventId', { description: 'The event it belongs to' }),
    kind: t.field({
      type: TicketKindEnum,
      description: 'RSVP or TICKET',
      resolve: (type) => type.kind as TicketKind,
    }),
    name: t.exposeString('name', { description: 'The name shown to attendees' }),
    description: t.exposeString('description', { description: 'Free text ("" if none)' }),
    price: t.exposeString('price', { description: 'The price as shown, a decimal string ("" for an RSVP)' }),
    currency: t.exposeString('currency', { description: 'ISO 4217 code ("" for an RSVP)' }),
    capacity: t.exposeInt('capacity', {
      nullable: true,
      description: 'Its own place limit; null: unlimited',
    }),
    sharedCapacityId: t.exposeInt('sharedCapacityId', {
      nullable: true,
      description: 'The shared capacity it also draws from, if any',
    }),
    salesStart: t.string({
      nullable: true,
      description: 'When sales open, wall-clock in the event zone "YYYY-MM-DD HH:mm:ss"; null: already open',
      resolve: (type) => localBound(type.salesStart, type.timezone),
    }),
    salesEnd: t.string({
      nullable: true,
      description: 'When sales close, wall-clock in the event zone; null: at the end of the event',
      resolve: (type) => localBound(type.salesEnd, type.timezone),
    }),
    salesStartUtc: t.expose('salesStart', {
      type: 'DateTime',
      nullable: true,
      description: 'When sales open (UTC)',
    }),
    salesEndUtc: t.expose('salesEnd', {
      type: 'DateTime',
      nullable: true,
      description: 'When sales close (UTC)',
    }),
    maxPerRequest: t.exposeInt('maxPerRequest', { description: 'Places one reservation may take at most' }),
    waitlist: t.exposeBoolean('waitlist', {
      description: 'Whether reservations beyond capacity wait for a place',
    }),
    onSale: t.boolean({
      description:
        'Whether it can be reserved now (inside its window, its event not over, trashed or canceled)',
      resolve: (type, _args, ctx) => {
        // A sales window opens and closes at any minute: an answer showing it is never shared.
        ctx.reads?.readClock();
        return onSale(type, type.event, new Date());
      },
    }),
    availability: t.field({
      type: TicketAvailability,
      description: 'Places left and the waitlist: anyone who may see the type may see these counts',
      resolve: async (type, _args, ctx) => (await availabilityOf(ctx, [type])).get(type.id)!,
    }),
  }),
});

const Attendee = builder.objectRef<AttendeeRow>('Attendee').implement({
  description: 'A reservation: seen by editors and administrators, and by its attendee through its token',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Numeric id' }),
    eventId: t.exposeInt('eventId', { description: 'The event' }),
    ticketTypeId: t.exposeInt('ticketTypeId', { description: 'The ticket type' }),
    name: t.exposeString('name', { description: 'Who reserved ("" once erased)' }),
    email: t.exposeString('email', { description: 'Their e-mail address ("" once erased)' }),
    guests: t.exposeInt('guests', { description: 'Places it takes (the attendee and their guests)' }),
    status: t.field({
      type: AttendeeStatusEnum,
      description: 'Where it stands',
      resolve: (a) => a.status as AttendeeStatus,
    }),
    checkInCode: t.exposeString('checkInCode', {
      description: "The ticket's code (its QR code), scanned at check-in",
    }),
    erased: t.exposeBoolean('erased', { description: 'Whether its personal data was removed' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was made (UTC)' }),
  }),
});

const RsvpConfirmation = builder.objectRef<Confirmation>('RsvpConfirmation').implement({
  description: 'A reservation made, with its secret token (shown only here)',
  fields: (t) => ({
    attendee: t.field({ type: Attendee, description: 'The reservation', resolve: (c) => c.attendee }),
    token: t.exposeString('token', {
      description:
        'Reads, changes and cancels the reservation (`attendeeByToken`, `updateRsvp`, `cancelRsvp`) until the event ends; keep it secret',
    }),
  }),
});

const AttendeeConnection = builder.connectionObject(
  { type: Attendee, name: 'AttendeeConnection', description: 'A page of attendees in arrival order' },
  { name: 'AttendeeEdge', description: 'An attendee and its cursor' },
);

const TicketTypeInput = builder.inputType('TicketTypeInput', {
  description: 'A ticket type as written; absent fields keep their value on update',
  fields: (t) => ({
    kind: t.field({ type: TicketKindEnum, description: 'RSVP (default) or TICKET' }),
    name: t.string({ description: 'Required on creation; at most 200 characters' }),
    description: t.string({ description: 'At most 5,000 characters' }),
    price: t.string({ description: 'A decimal such as "12.50" ("" for none)' }),
    currency: t.string({ description: 'ISO 4217 code such as "EUR"' }),
    capacity: t.int({ description: 'Its own place limit; null: unlimited' }),
    sharedCapacityId: t.int({ description: 'Also draw from this shared capacity of the same event' }),
    newSharedCapacity: t.int({ description: 'Create a shared capacity of this size and draw from it' }),
    salesStart: t.string({
      description: 'Wall-clock in the event zone "YYYY-MM-DD HH:mm:ss"; null: open now',
    }),
    salesEnd: t.string({ description: 'Wall-clock in the event zone; null: until the event ends' }),
    maxPerRequest: t.int({ description: 'Places one reservation may take, 1–50 (default 10)' }),
    waitlist: t.boolean({ description: 'Queue reservations beyond capacity (default false)' }),
  }),
});

const RsvpInput = builder.inputType('RsvpInput', {
  description: 'A reservation',
  fields: (t) => ({
    ticketTypeId: t.int({ required: true, description: 'The ticket type' }),
    name: t.string({ required: true, description: 'Who reserves, 1–200 characters' }),
    email: t.string({ required: true, description: 'Their e-mail address' }),
    guests: t.int({ description: 'Places, 1 to the type’s maxPerRequest (default 1)' }),
    password: t.string({ description: 'The password of a password-protected event' }),
  }),
});

const UpdateRsvpInput = builder.inputType('UpdateRsvpInput', {
  description: 'A change of a reservation; absent fields keep their value',
  fields: (t) => ({
    name: t.string({ description: 'Who reserves' }),
    guests: t.int({ description: 'Places' }),
    attending: t.boolean({ description: 'false: not going (places released); true: going again' }),
  }),
});

/** What of the event its ticket fields read, whatever the document selected. */
const TICKET_EVENT_SELECT = {
  id: true,
  timezone: true,
  endsAt: true,
  status: true,
  eventStatus: true,
  password: true,
  authorId: true,
};

builder.prismaObjectField(Event, 'ticketTypes', (t) =>
  t.field({
    select: TICKET_EVENT_SELECT,
    type: [TicketType],
    description: 'Its RSVPs and tickets; none on a password-protected event read without its password',
    extensions: { [SHOWS_COLUMNS]: ['tickets'] },
    resolve: async (event, _args, ctx) => {
      const withheld = contentWithheld(event);
      return (await ticketTypesOf(ctx, [{ ...event, contentWithheld: withheld }])).get(event.id) ?? [];
    },
  }),
);

builder.prismaObjectField(Event, 'attendees', (t) =>
  t.connection(
    {
      type: Attendee,
      select: TICKET_EVENT_SELECT,
      description: 'Its attendees in arrival order (editors and administrators; rest_forbidden otherwise)',
      extensions: { [SHOWS_COLUMNS]: ['tickets'] },
      args: {
        status: t.arg({ type: AttendeeStatusEnum, description: 'Only those with this status' }),
        ticketTypeId: t.arg.int({ description: 'Only those of this ticket type' }),
      },
      resolve: (event, { status, ticketTypeId, ...args }, ctx) =>
        attendeeConnection(ctx, { eventId: event.id, status, ticketTypeId }, args),
    },
    AttendeeConnection,
  ),
);

builder.queryFields((t) => ({
  ticketType: t.field({
    type: TicketType,
    description: 'A ticket type by id. Errors: TICKET_NOT_FOUND (404), event-password-protected (403)',
    args: {
      id: t.arg.int({ required: true, description: 'The ticket type id' }),
      password: t.arg.string({ description: 'The password of a password-protected event' }),
    },
    resolve: (_root, { id, password }, ctx) => ticketType(ctx, id, password),
  }),
  attendeeByToken: t.field({
    type: Attendee,
    description:
      'A reservation by its token (the attendee). Errors: INVALID_TOKEN (403) for any unknown or expired token',
    args: { token: t.arg.string({ required: true, description: 'The token of the confirmation' }) },
    resolve: (_root, { token }, ctx) => attendeeByToken(ctx, token),
  }),
  attendee: t.field({
    type: Attendee,
    description:
      'An attendee by id (editors and administrators). Errors: rest_forbidden (401/403), ATTENDEE_NOT_FOUND (404)',
    args: { id: t.arg.int({ required: true, description: 'The attendee id' }) },
    resolve: (_root, { id }, ctx) => attendee(ctx, id),
  }),
}));

const TYPE_SCOPE =
  "On an occurrence of a series: its type only, its and the later occurrences' copies (no split), or every occurrence's; exceptions keep theirs. A first event's types are the whole series'";

builder.mutationFields((t) => ({
  rsvp: t.field({
    type: RsvpConfirmation,
    description:
      'Reserves places. Errors: SOLD_OUT (409), SALES_CLOSED (409), TOO_MANY (400), rest_invalid_param (400), TICKET_NOT_FOUND (404), event-password-protected (403)',
    args: { input: t.arg({ type: RsvpInput, required: true, description: 'The reservation' }) },
    resolve: (_root, { input }, ctx) => reserve(ctx, input),
  }),
  updateRsvp: t.field({
    type: Attendee,
    description:
      'Changes a reservation by its token. Errors: INVALID_TOKEN (403), SOLD_OUT (409), TOO_MANY (400), RSVP_CLOSED (409)',
    args: {
      token: t.arg.string({ required: true, description: 'The token of the confirmation' }),
      input: t.arg({ type: UpdateRsvpInput, required: true, description: 'What changes' }),
    },
    resolve: (_root, { token, input }, ctx) => updateReservation(ctx, token, input),
  }),
  cancelRsvp: t.field({
    type: Attendee,
    description:
      'Cancels a reservation by its token; the first waitlisted reservation that fits takes its places',
    args: { token: t.arg.string({ required: true, description: 'The token of the confirmation' }) },
    resolve: (_root, { token }, ctx) => cancelReservation(ctx, token),
  }),
  checkInAttendee: t.field({
    type: Attendee,
    description:
      'Checks an attendee in by their check-in code (editors and administrators). Errors: NOT_CHECKABLE (409)',
    args: { code: t.arg.string({ required: true, description: "The ticket's check-in code" }) },
    resolve: (_root, { code }, ctx) => checkIn(ctx, code),
  }),
  eraseAttendee: t.field({
    type: Attendee,
    description:
      "Removes an attendee's name and e-mail, keeping the count: by id (editors and administrators) or by token",
    args: {
      id: t.arg.int({ description: 'The attendee id (editors and administrators)' }),
      token: t.arg.string({ description: 'The token of the confirmation (the attendee)' }),
    },
    // A token sent, even empty, is the attendee's path (an empty one is INVALID_TOKEN).
    resolve: (_root, { id, token }, ctx) =>
      eraseAttendee(ctx, token !== null && token !== undefined ? { token } : { id: id ?? 0 }),
  }),
  createTicketType: t.field({
    type: TicketType,
    description: 'Adds a ticket type to an event (editors and administrators)',
    args: {
      eventId: t.arg.int({ required: true, description: 'The event' }),
      input: t.arg({ type: TicketTypeInput, required: true, description: 'The type' }),
      scope: t.arg({ type: RecurrenceScopeEnum, defaultValue: 'this', description: TYPE_SCOPE }),
    },
    resolve: (_root, { eventId, input, scope }, ctx) =>
      createTicketType(ctx, eventId, input, scope ?? 'this'),
  }),
  updateTicketType: t.field({
    type: TicketType,
    description:
      'Changes a ticket type (editors and administrators). Errors: CAPACITY_TAKEN (409) below the places a copy in scope holds',
    args: {
      id: t.arg.int({ required: true, description: 'The ticket type id' }),
      input: t.arg({ type: TicketTypeInput, required: true, description: 'What changes' }),
      scope: t.arg({ type: RecurrenceScopeEnum, defaultValue: 'this', description: TYPE_SCOPE }),
    },
    resolve: (_root, { id, input, scope }, ctx) => updateTicketType(ctx, id, input, scope ?? 'this'),
  }),
  deleteTicketType: t.field({
    type: TicketType,
    description:
      'Deletes a ticket type with its attendees, answering it as it was (editors and administrators). Errors: TYPE_HAS_ATTENDEES (409) when the scope reaches several events and a copy has attendees',
    args: {
      id: t.arg.int({ required: true, description: 'The ticket type id' }),
      scope: t.arg({ type: RecurrenceScopeEnum, defaultValue: 'this', description: TYPE_SCOPE }),
    },
    resolve: (_root, { id, scope }, ctx) => deleteTicketType(ctx, id, scope ?? 'this'),
  }),
}));
