import { ApiError, invalidParams } from '../core/errors/errors.js';
import { type Viewer, can } from '../core/rules/permissions.js';

// The tickets room's vocabulary: kinds and statuses, the bounds a request must keep, and the refusals
// both APIs share (GraphQL `extensions.code`, the REST `code`).

export const TICKET_KINDS = ['RSVP', 'TICKET'] as const;
export type TicketKind = (typeof TICKET_KINDS)[number];

export const ATTENDEE_STATUSES = ['GOING', 'NOT_GOING', 'WAITLISTED', 'CANCELLED', 'CHECKED_IN'] as const;
export type AttendeeStatus = (typeof ATTENDEE_STATUSES)[number];

/** The statuses that hold places: the capacity counts their guests. */
export const HOLDING: readonly AttendeeStatus[] = ['GOING', 'CHECKED_IN'];

/** Bounds checked at the boundary, before any write. */
export const LIMITS = {
  nameLength: 200,
  emailLength: 254,
  maxGuests: 50,
  typeNameLength: 200,
  descriptionLength: 5_000,
  maxCapacity: 1_000_000,
} as const;

export const DEFAULT_MAX_PER_REQUEST = 10;

/** Editors and administrators: they see attendees, check them in and write ticket types. */
export const managesTickets = (viewer: Viewer): boolean => can(viewer, 'edit_others_posts');

export const soldOut = () =>
  new ApiError(409, 'SOLD_OUT', 'No places are left for this ticket type, and it has no waitlist.');

export const salesClosed = () =>
  new ApiError(409, 'SALES_CLOSED', 'This ticket type is not on sale at the moment.');

/** A reservation for an event that will not take place (its event status is canceled). */
export const eventCanceled = () =>
  new ApiError(409, 'EVENT_CANCELED', 'This event is canceled: it takes no reservations.', {
    event_status: 'canceled',
  });

export const tooMany = (max: number) =>
  new ApiError(400, 'TOO_MANY', `At most ${max} places may be reserved in one request.`, { max });

export const ticketTypeNotFound = () =>
  new ApiError(404, 'TICKET_NOT_FOUND', 'The requested ticket type does not exist or is not accessible.');

/** A capacity written below the places some occurrence's copy already holds (`events`: their ids). */
export const capacityTaken = (events: readonly number[]) =>
  new ApiError(409, 'CAPACITY_TAKEN', 'The capacity cannot be lower than the places already taken.', {
    events,
  });

/** A delete reaching several events of a series, where some copy has reservations (`events`: their ids). */
export const typeHasAttendees = (events: readonly number[]) =>
  new ApiError(
    409,
    'TYPE_HAS_ATTENDEES',
    "A ticket type with attendees is deleted only from its own event (scope this), not with the series'.",
    { events },
  );

export const attendeeNotFound = () =>
  new ApiError(404, 'ATTENDEE_NOT_FOUND', 'The requested attendee does not exist or is not accessible.');

/** A token that is unknown, or whose event has ended: the same answer for both (no oracle). */
export const invalidToken = () =>
  new ApiError(403, 'INVALID_TOKEN', 'This link is not valid (it may have expired with its event).');

export const ticketsForbidden = (viewer: Viewer) =>
  new ApiError(
    viewer.userId === null ? 401 : 403,
    'rest_forbidden',
    'Only editors and administrators may do this.',
  );

/** An attendee already checked in, or one whose reservation does not hold a place. */
export const notCheckable = (status: string) =>
  new ApiError(409, 'NOT_CHECKABLE', `This attendee cannot be checked in (status ${status}).`, {
    attendee_status: status,
  });

/** A reservation that can no longer change: it was cancelled, or its attendee is checked in. */
export const rsvpClosed = (status: string) =>
  new ApiError(409, 'RSVP_CLOSED', `This reservation can no longer change (status ${status}).`, {
    attendee_status: status,
  });

const EMAIL =
  /^[^\s@<>()[\]\\,;:"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
// Control characters (NUL and the C1 range included) never reach the database.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

interface ReservationInput {
  name: string;
  email: string;
  guests: number;
}

/** A reservation's person, checked all at once (every bad field is named together). */
export function checkedPerson(input: {
  name?: unknown;
  email?: unknown;
  guests?: unknown;
}): ReservationInput {
  const reasons: Record<string, string> = {};
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (!name || name.length > LIMITS.nameLength || CONTROL.test(name))
    reasons.name = `A name of 1 to ${LIMITS.nameLength} characters is required.`;
  const email = typeof input.email === 'string' ? input.email.trim().toLowerCase() : '';
  if (email.length > LIMITS.emailLength || !EMAIL.test(email) || CONTROL.test(email))
    reasons.email = 'A valid e-mail address is required.';
  const guests = input.guests === undefined || input.guests === null ? 1 : input.guests;
  if (typeof guests !== 'number' || !Number.isInteger(guests) || guests < 1 || guests > LIMITS.maxGuests)
    reasons.guests = `The number of places is a whole number from 1 to ${LIMITS.maxGuests}.`;
  if (Object.keys(reasons).length) throw invalidParams(reasons);
  return { name, email, guests: guests as number };
}

/** A text field of a ticket type: trimmed, bounded, without control characters (newlines allowed). */
export function checkedText(value: string, max: number, field: string, reasons: Record<string, string>) {
  const text = value.trim();
  // eslint-disable-next-line no-control-regex
  if (text.length > max || /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text))
    reasons[field] = `At most ${max} characters, without control characters.`;
  return text;
}
