import { z } from 'zod';
import { type BodyTable, FLAG, STRING, bodyReader } from '../../core/rest/body-fields.js';

// The bodies of the ticket writes (rest-map/tickets.ts): an RSVP, its change by token, a check-in.
// Each parameter fills the field of its own name; the operations check the values (schema.ts), and
// the namespace index and `/doc` describe the bodies from these tables.

/** Any value as a number (`Number`): the operation refuses what is no fitting one. */
const NUMBER = bodyReader('Number', 'A number or its text', z.unknown().transform(Number));
/** A string; any other value counts as not sent (the operation then finds it missing). */
const TEXT_IF_ANY = bodyReader(
  'TextIfAny',
  'A string; any other value counts as not sent',
  z.unknown().transform((value) => (typeof value === 'string' ? value : undefined)),
);

interface RsvpBody {
  ticket_id?: number;
  full_name?: string;
  email?: string;
  quantity?: number;
  password?: string;
}

export const RSVP_BODY: BodyTable<RsvpBody> = {
  ticket_id: {
    to: 'ticket_id',
    read: NUMBER,
    doc: { type: 'integer', description: 'The ticket (RSVP or ticket type) id', required: true },
  },
  full_name: {
    to: 'full_name',
    read: TEXT_IF_ANY,
    doc: { type: 'string', description: 'Who reserves, 1–200 characters', required: true },
  },
  email: {
    to: 'email',
    read: TEXT_IF_ANY,
    doc: { type: 'string', format: 'email', description: 'Their e-mail address', required: true },
  },
  quantity: {
    to: 'quantity',
    read: NUMBER,
    doc: { type: 'integer', description: 'Places, 1 to the ticket’s max_per_request (default 1)' },
    // A null is no number of places: refused, not the default.
    keepNull: true,
  },
  password: {
    to: 'password',
    read: TEXT_IF_ANY,
    doc: { type: 'string', description: 'The password of a password-protected event' },
  },
};

interface RsvpChangeBody {
  full_name?: string;
  quantity?: number;
  attending?: boolean;
}

/** What an attendee may change of their reservation through its token; a null is refused, not skipped. */
export const RSVP_CHANGE_BODY: BodyTable<RsvpChangeBody> = {
  full_name: {
    to: 'full_name',
    read: STRING,
    doc: { type: 'string', description: 'Who reserves, 1–200 characters' },
    keepNull: true,
  },
  quantity: {
    to: 'quantity',
    read: NUMBER,
    doc: { type: 'integer', description: 'Places, 1 to the ticket’s max_per_request' },
    keepNull: true,
  },
  attending: {
    to: 'attending',
    read: FLAG,
    doc: {
      type: 'boolean',
      description: 'false: not going (the places are released); true: going again (a place, or the waitlist)',
    },
    keepNull: true,
  },
};

interface CheckInBody {
  security_code?: string;
  ticket_id?: number;
}

export const CHECK_IN_BODY: BodyTable<CheckInBody> = {
  security_code: {
    to: 'security_code',
    read: TEXT_IF_ANY,
    doc: { type: 'string', description: "The ticket's security code (its QR code)", required: true },
  },
  ticket_id: {
    to: 'ticket_id',
    read: NUMBER,
    doc: { type: 'integer', description: 'The attendee id, checked against the code when sent' },
    // A null names no attendee: not this one.
    keepNull: true,
  },
};
