import type { OpenAPIV3 } from 'openapi-types';
import { type RestSchema, jsonShape } from '../../core/rest/discovery/json-shapes.js';

// What `/calendar/tickets/v1/doc` says each answer is: the shapes of shapes.ts as OpenAPI
// schemas, declared beside them so that a key added there is a key to describe here.

const string = (description: string): OpenAPIV3.SchemaObject => ({ type: 'string', description });
const integer = (description: string): OpenAPIV3.SchemaObject => ({ type: 'integer', description });
const boolean = (description: string): OpenAPIV3.SchemaObject => ({ type: 'boolean', description });
const object = (properties: Record<string, RestSchema>, description?: string): OpenAPIV3.SchemaObject => ({
  type: 'object',
  ...(description ? { description } : {}),
  properties,
});
const strings = (description: string): OpenAPIV3.SchemaObject => ({
  type: 'array',
  items: { type: 'string' },
  description,
});
const DATE_DETAILS: OpenAPIV3.SchemaObject = {
  description: 'The date\'s parts as strings ("" when the window is open on that side)',
  anyOf: [
    object({
      year: string('Year'),
      month: string('Month'),
      day: string('Day'),
      hour: string('Hour'),
      minutes: string('Minutes'),
      seconds: string('Seconds'),
    }),
    { type: 'string', enum: [''] },
  ],
};

const POST_KEYS = (kind: string): Record<string, RestSchema> => ({
  id: integer(`The ${kind} id`),
  post_id: integer('The event (post) id'),
  global_id: string(`The ${kind} global id`),
  global_id_lineage: strings(`The ${kind} global id lineage`),
  author: integer('Always 0 (no WordPress author)'),
  status: string('Always publish'),
  date: string('Creation date, site zone'),
  date_utc: string('Creation date, UTC'),
  modified: string('Last change, site zone'),
  modified_utc: string('Last change, UTC'),
  rest_url: string(`The ${kind}'s URL in this API`),
  provider: {
    type: 'string',
    enum: ['rsvp', 'tribe-commerce'],
    description: 'rsvp for an RSVP, tribe-commerce for a ticket',
  },
});

const TICKET = object(
  {
    ...POST_KEYS('ticket'),
    title: string('The name'),
    description: string('Free text'),
    image: { type: 'boolean', enum: [false], description: 'Always false (no image)' },
    available_from: string('When sales open, event zone ("" when open)'),
    available_from_details: DATE_DETAILS,
    available_until: string('When sales close, event zone ("" until the event ends)'),
    available_until_details: DATE_DETAILS,
    capacity: integer('Places in all; -1 unlimited'),
    capacity_details: object({
      available_percentage: integer('Places left, percent'),
      max: integer('Places in all; -1 unlimited'),
      available: integer('Places left; -1 unlimited'),
      sold: integer('Places held by this ticket'),
      pending: integer('Always 0'),
    }),
    is_available: boolean('On sale now and not sold out'),
    cost: string('The price as shown ("" for an RSVP)'),
    cost_details: object({
      currency_code: string('ISO 4217 code'),
      currency_position: string('Always prefix'),
      values: strings('The price, when there is one'),
    }),
    supports_attendee_information: boolean('Always false'),
    requires_attendee_information: boolean('Always false'),
    attendee_information_fields: {
      type: 'array',
      items: { type: 'object', additionalProperties: true },
      maxItems: 0,
      description: 'Always empty',
    },
    waitlist: object({
      enabled: boolean('Whether it keeps a waitlist'),
      length: integer('Reservations waiting'),
    }),
    max_per_request: integer('Places one reservation may take'),
    shared_capacity_id: integer('The shared capacity it draws from; 0 for none'),
  },
  'A ticket or RSVP (Event Tickets keys, then extensions)',
);

const ATTENDEE = object(
  {
    ...POST_KEYS('attendee'),
    ticket_id: integer('The ticket id'),
    order: string('Always ""'),
    sku: string('Always ""'),
    title: string('The name ("" once erased)'),
    email: string('The e-mail address ("" once erased)'),
    checked_in: boolean('Whether checked in'),
    checkin_details: {
      description: 'When checked in; false before',
      anyOf: [
        object({ date: string('Site zone'), source: string('Always api'), author: integer('Always 0') }),
        { type: 'boolean', enum: [false] },
      ],
    },
    rsvp_going: boolean('Going or checked in'),
    attendee_status: {
      type: 'string',
      enum: ['going', 'not_going', 'waitlisted', 'cancelled', 'checked_in'],
      description: 'Where the reservation stands',
    },
    guests: integer('Places it takes'),
    security_code: string('The check-in code (its QR code)'),
    erased: boolean('Whether its personal data was removed'),
  },
  'An attendee (Event Tickets keys, then extensions)',
);

const archive = (key: string, item: RestSchema) =>
  object({
    rest_url: string('This page'),
    total: integer('Records in all'),
    total_pages: integer('Pages in all'),
    [key]: { type: 'array', items: item },
  });

export const TICKET_SHAPES = {
  ticket: jsonShape(TICKET),
  tickets: jsonShape(archive('tickets', TICKET)),
  attendee: jsonShape(ATTENDEE),
  attendees: jsonShape(archive('attendees', ATTENDEE)),
  confirmation: jsonShape({
    allOf: [ATTENDEE, object({ token: string('The secret of the reservation, shown only here') })],
  }),
  checkIn: jsonShape(object({ msg: string('What was done'), attendee: ATTENDEE })),
  /** What the CSV route's operation answers; the route sends `csv` itself, as text/csv. */
  attendeesCsv: jsonShape(
    object({
      csv: string(
        'The attendees as CSV: id, ticket_type, name, email, guests, status, check_in_code, created (ISO 8601)',
      ),
      filename: string('The download name, attendees-{post_id}.csv'),
    }),
  ),
};
