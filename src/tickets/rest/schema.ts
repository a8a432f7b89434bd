import { invalidParams, missingParams } from '../../core/errors/errors.js';
import { builder, REST } from '../../core/graphql/schema/builder.js';
import { restBodyType } from '../../core/graphql/schema/rest-bodies.js';
import { readBody } from '../../core/rest/body-fields.js';
import { CHECK_IN_BODY, RSVP_BODY, RSVP_CHANGE_BODY } from './bodies.js';
import type { Context } from '../../core/context/scope.js';
import { attendee, attendeesCsv, kindsOf, listAttendees } from '../reservations/attendees.js';
import { ATTENDEE_STATUSES, type AttendeeStatus } from '../model.js';
import { isRecordId } from '../../core/rules/ids.js';
import {
  attendeeByToken,
  cancelReservation,
  checkIn,
  eraseAttendee,
  reserve,
  updateReservation,
} from '../reservations/reservations.js';
import { TICKET_SHAPES } from './docs.js';
import { presentAttendee, presentTickets, ticketsRoot } from './shapes.js';
import { ticketType, visibleTicketTypes } from '../types/ticket-types.js';

// The operations SOFA serves under `/calendar/tickets/v1` (rest-map/tickets.ts): Event Tickets'
// archive and single shapes, an RSVP by POST and the check-in (`qr`); our extensions: the attendee
// list as CSV, and an attendee's own reservation by its token (`/rsvp`, the token in a header).

const PER_PAGE = { default: 10, max: 50 };

function paging(page: number | null | undefined, perPage: number | null | undefined) {
  const reasons: Record<string, string> = {};
  const p = page ?? 1;
  const n = perPage ?? PER_PAGE.default;
  if (!Number.isInteger(p) || p < 1) reasons.page = 'A page number from 1.';
  if (!Number.isInteger(n) || n < 1 || n > PER_PAGE.max) reasons.per_page = `From 1 to ${PER_PAGE.max}.`;
  if (Object.keys(reasons).length) throw invalidParams(reasons);
  return { page: p, perPage: n, offset: (p - 1) * n };
}

async function presentAttendees(ctx: Context, rows: ReadonlyArray<Parameters<typeof presentAttendee>[0]>) {
  const kinds = await kindsOf(ctx, rows);
  return rows.map((row) =>
    presentAttendee(row, kinds.get(row.ticketTypeId) ?? 'RSVP', ctx.urls, ctx.config.siteTimezone),
  );
}

const presentAttendeeOf = async (ctx: Context, row: Parameters<typeof presentAttendee>[0]) =>
  (await presentAttendees(ctx, [row]))[0]!;

/** An `attendee_status` filter as sent (any case), or a bad parameter. */
function statusOf(value: string | null | undefined): AttendeeStatus | undefined {
  if (value === undefined || value === null) return undefined;
  const status = value.toUpperCase();
  if (!(ATTENDEE_STATUSES as readonly string[]).includes(status))
    throw invalidParams({ attendee_status: 'Invalid parameter.' });
  return status as AttendeeStatus;
}

/** The places a body asks for: one that is no number goes on as NaN, for the service's check to name. */
const placesOf = (quantity: number | undefined, unreadable: readonly string[]) =>
  unreadable.includes('quantity') ? Number.NaN : quantity;

const ATTENDEE_STATUS_ARG = `Only those with this status: ${ATTENDEE_STATUSES.join(', ').toLowerCase()}`;
const TOKEN = builder.args((t) => ({
  token: t.string({ description: 'The token of the reservation (header X-RSVP-Token)' }),
}));

/** A read or change by an attendee through their reservation's token, answered with the attendee. */
const byToken = (change: (ctx: Context, token: string) => Promise<Parameters<typeof presentAttendee>[0]>) =>
  ({
    ...REST,
    type: 'JSON',
    extensions: TICKET_SHAPES.attendee,
    args: TOKEN,
    resolve: async (_root: unknown, { token }: { token?: string | null }, ctx: Context) =>
      presentAttendeeOf(ctx, await change(ctx, token ?? '')),
  }) as const;

const archiveUrl = (ctx: Context, path: string, params: Record<string, unknown>) => {
  const query = new URLSearchParams(
    Object.entries(params).flatMap(([key, value]) =>
      value === undefined || value === null ? [] : [[key, String(value)]],
    ),
  );
  return `${ticketsRoot(ctx.urls)}${path}${query.size ? `?${query}` : ''}`;
};

builder.queryFields((t) => ({
  tecTickets: t.field({
    ...REST,
    type: 'JSON',
    extensions: TICKET_SHAPES.tickets,
    args: {
      page: t.arg.int({ description: 'The page of results (from 1)' }),
      per_page: t.arg.int({ description: `Tickets per page (default 10, at most ${PER_PAGE.max})` }),
      event: t.arg.int({ description: 'Only the tickets of this event (post) id' }),
    },
    resolve: async (_root, args, ctx) => {
      const { page, perPage, offset } = paging(args.page, args.per_page);
      const { total, types } = await visibleTicketTypes(ctx, { offset, limit: perPage, eventId: args.event });
      return {
        rest_url: archiveUrl(ctx, '/tickets', { page, per_page: perPage, event: args.event }),
        total,
        total_pages: Math.ceil(total / perPage),
        tickets: await presentTickets(ctx, types),
      };
    },
  }),
  tecTicket: t.field({
    ...REST,
    type: 'JSON',
    extensions: TICKET_SHAPES.ticket,
    args: {
      id: t.arg.int({ required: true, description: 'The ticket id' }),
      password: t.arg.string({ description: 'The password of a password-protected event' }),
    },
    resolve: async (_root, { id, password }, ctx) =>
      (await presentTickets(ctx, [await ticketType(ctx, id, password)]))[0],
  }),
  tecAttendees: t.field({
    ...REST,
    type: 'JSON',
    extensions: TICKET_SHAPES.attendees,
    args: {
      page: t.arg.int({ description: 'The page of results (from 1)' }),
      per_page: t.arg.int({ description: `Attendees per page (default 10, at most ${PER_PAGE.max})` }),
      post_id: t.arg.int({ description: 'Only the attendees of this event (post) id' }),
      ticket_id: t.arg.int({ description: 'Only the attendees of this ticket id' }),
      attendee_status: t.arg.string({ description: ATTENDEE_STATUS_ARG }),
    },
    resolve: async (_root, args, ctx) => {
      const { page, perPage, offset } = paging(args.page, args.per_page);
      const { total, attendees } = await listAttendees(
        ctx,
        { eventId: args.post_id, ticketTypeId: args.ticket_id, status: statusOf(args.attendee_status) },
        { offset, limit: perPage },
      );
      return {
        rest_url: archiveUrl(ctx, '/attendees', {
          page,
          per_page: perPage,
          post_id: args.post_id,
          ticket_id: args.ticket_id,
          attendee_status: args.attendee_status,
        }),
        total,
        total_pages: Math.ceil(total / perPage),
        attendees: await presentAttendees(ctx, attendees),
      };
    },
  }),
  tecAttendee: t.field({
    ...REST,
    type: 'JSON',
    extensions: TICKET_SHAPES.attendee,
    args: { id: t.arg.int({ required: true, description: 'The attendee id' }) },
    resolve: async (_root, { id }, ctx) => presentAttendeeOf(ctx, await attendee(ctx, id)),
  }),
  // Served as the document `csv` (text/csv) under its file name; errors stay JSON.
  tecAttendeesCsv: t.field({
    ...REST,
    type: 'JSON',
    extensions: TICKET_SHAPES.attendeesCsv,
    args: {
      post_id: t.arg.int({ description: 'The event (post) id whose attendees to export (required)' }),
      ticket_id: t.arg.int({ description: 'Only the attendees of this ticket id' }),
      attendee_status: t.arg.string({ description: ATTENDEE_STATUS_ARG }),
    },
    resolve: async (_root, args, ctx) => {
      if (!args.post_id) throw missingParams(['post_id']);
      const csv = await attendeesCsv(ctx, {
        eventId: args.post_id,
        ticketTypeId: args.ticket_id,
        status: statusOf(args.attendee_status),
      });
      return { csv, filename: `attendees-${args.post_id}.csv` };
    },
  }),
  tecRsvpByToken: t.field(byToken(attendeeByToken)),
}));

const TecRsvpBody = restBodyType('TecRsvpBody', 'A reservation (an RSVP)', RSVP_BODY);
const TecRsvpChangeBody = restBodyType(
  'TecRsvpChangeBody',
  'A change of a reservation through its token',
  RSVP_CHANGE_BODY,
);
const TecCheckInBody = restBodyType('TecCheckInBody', 'A check-in by security code', CHECK_IN_BODY);

builder.mutationFields((t) => ({
  tecRsvp: t.field({
    ...REST,
    type: 'JSON',
    extensions: TICKET_SHAPES.confirmation,
    args: { input: t.arg({ type: TecRsvpBody, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      // Every reader reads (the values are checked here and by the service).
      const { input: body, unreadable } = readBody(RSVP_BODY, input);
      const reasons: Record<string, string> = {};
      if (body.ticket_id === undefined || !isRecordId(body.ticket_id))
        reasons.ticket_id = 'A ticket id is required.';
      if (Object.keys(reasons).length) throw invalidParams(reasons);
      const { attendee: made, token } = await reserve(ctx, {
        ticketTypeId: body.ticket_id!,
        name: body.full_name,
        email: body.email,
        guests: placesOf(body.quantity, unreadable),
        password: body.password ?? null,
      });
      return { ...(await presentAttendeeOf(ctx, made)), token };
    },
  }),
  tecUpdateRsvp: t.field({
    ...REST,
    type: 'JSON',
    extensions: TICKET_SHAPES.attendee,
    args: {
      ...TOKEN,
      input: t.arg({ type: TecRsvpChangeBody, required: true }),
    },
    resolve: async (_root, { token, input }, ctx) => {
      const { input: body, unreadable } = readBody(RSVP_CHANGE_BODY, input);
      const reasons: Record<string, string> = {};
      if (unreadable.includes('attending')) reasons.attending = 'true (going) or false (not going).';
      if (unreadable.includes('full_name')) reasons.full_name = 'A name of 1 to 200 characters.';
      if (Object.keys(reasons).length) throw invalidParams(reasons);
      const changed = await updateReservation(ctx, token ?? '', {
        name: body.full_name,
        guests: placesOf(body.quantity, unreadable),
        attending: body.attending,
      });
      return presentAttendeeOf(ctx, changed);
    },
  }),
  tecCancelRsvp: t.field(byToken(cancelReservation)),
  tecEraseRsvp: t.field(byToken((ctx, token) => eraseAttendee(ctx, { token }))),
  tecCheckIn: t.field({
    ...REST,
    type: 'JSON',
    extensions: TICKET_SHAPES.checkIn,
    args: { input: t.arg({ type: TecCheckInBody, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const { input: body, unreadable } = readBody(CHECK_IN_BODY, input);
      const code = body.security_code;
      if (!code) throw invalidParams({ security_code: 'The security code of the ticket is required.' });
      // Event Tickets' `ticket_id` here is the attendee's id: when sent, it must be this attendee's (a
      // null or a non-number names no attendee).
      const sent = unreadable.includes('ticket_id') ? 0 : body.ticket_id;
      const checked = await checkIn(ctx, code, sent);
      return { msg: 'This ticket has been checked in.', attendee: await presentAttendeeOf(ctx, checked) };
    },
  }),
}));
