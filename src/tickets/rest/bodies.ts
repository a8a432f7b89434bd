import { z } from 'zod';
import {
  type BodyField,
  type BodyReader,
  type BodyTable,
  FLAG,
  STRING,
  bodyReader,
} from '../../core/rest/body-fields.js';

// The bodies of the ticket writes (rest-map/tickets.ts): an RSVP, its change by token, a check-in.
// Each parameter fills the field of its own name; the operations check the values (schema.ts), and
// the namespace index and `/doc` describe the bodies from these tables.

/**
 * A number, or its decimal digits (`"2"`): a boolean, an array or `"0x7"` is no number. Whether it
 * fits (a whole number in range) is the operation's check.
 */
const NUMBER = bodyReader(
  'Number',
  'A number or its decimal digits',
  z.union([
    z.number(),
    z
      .string()
      .trim()
      .regex(/^-?\d{1,16}(?:\.\d+)?$/)
      .transform(Number),
  ]),
);
/** A string; any other value counts as not sent (the operation then finds it missing). */
const TEXT_IF_ANY = bodyReader(
  'TextIfAny',
  'A string; any other value counts as not sent',
  z.unknown().transform((value) => (typeof value === 'string' ? value : undefined)),
);

type Reads<Fields> = {
  [P in keyof Fields]?: Fields[P] extends { read: BodyReader<infer T> } ? Exclude<T, undefined> : never;
};

/** A table whose parameters fill the fields of their own names, of the types their readers read. */
function ownNamed<Fields extends Record<string, Omit<BodyField<unknown>, 'to'>>>(
  fields: Fields,
): BodyTable<Reads<Fields>> {
  const table = Object.entries(fields).map(([param, field]) => [param, { to: param, ...field }]);
  return Object.fromEntries(table) as BodyTable<Reads<Fields>>;
}

export const RSVP_BODY = ownNamed({
  ticket_id: {
    read: NUMBER,
    doc: { type: 'integer', description: 'The ticket (RSVP or ticket type) id', required: true },
  },
  full_name: {
    read: TEXT_IF_ANY,
    doc: { type: 'string', description: 'Who reserves, 1–200 characters', required: true },
  },
  email: {
    read: TEXT_IF_ANY,
    doc: { type: 'string', format: 'email', description: 'Their e-mail address', required: true },
  },
  quantity: {
    read: NUMBER,
    doc: { type: 'integer', description: 'Places, 1 to the ticket’s max_per_request (default 1)' },
    // A null is no number of places: refused, not the default.
    keepNull: true,
  },
  password: {
    read: TEXT_IF_ANY,
    doc: { type: 'string', description: 'The password of a password-protected event' },
  },
});

/** What an attendee may change of their reservation through its token; a null is refused, not skipped. */
export const RSVP_CHANGE_BODY = ownNamed({
  full_name: {
    read: STRING,
    doc: { type: 'string', description: 'Who reserves, 1–200 characters' },
    keepNull: true,
  },
  quantity: {
    read: NUMBER,
    doc: { type: 'integer', description: 'Places, 1 to the ticket’s max_per_request' },
    keepNull: true,
  },
  attending: {
    read: FLAG,
    doc: {
      type: 'boolean',
      description: 'false: not going (the places are released); true: going again (a place, or the waitlist)',
    },
    keepNull: true,
  },
});

export const CHECK_IN_BODY = ownNamed({
  security_code: {
    read: TEXT_IF_ANY,
    doc: { type: 'string', description: "The ticket's security code (its QR code)", required: true },
  },
  ticket_id: {
    read: NUMBER,
    doc: { type: 'integer', description: 'The attendee id, checked against the code when sent' },
    // A null names no attendee: not this one.
    keepNull: true,
  },
});
