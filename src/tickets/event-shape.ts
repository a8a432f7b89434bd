import type { OpenAPIV3 } from 'openapi-types';
import { builder } from '../core/graphql/schema/builder.js';
import { TecEventFields, addJsonLdPart } from '../events/rest-shape.js';
import { jsonShape } from '../core/rest/discovery/json-shapes.js';
import { onSaleTurnsToday, ticketOffers, ticketedProviders, ticketsOf, ticketsSummary } from './summary.js';

// The REST event's keys for its tickets, after the reference's and the series' own (list and single
// alike): Event Tickets' `ticketed` (`Tribe__Tickets__REST__V1__Flags::flag_ticketed_event`), then our
// `tickets` summary; and the single event's JSON-LD `offers`. A protected event read without its
// password shows none of them (`ticketed: false`, `tickets: null`, as an event without types).
//
// The response cache: a REST answer names every event it shows and says nothing of the columns it
// shows (`Dependencies.eventColumns` stays unset: any column, `tickets` included), so a reservation,
// which names its event with only its tickets changed, drops it or renders its row again.

const count = (description: string): OpenAPIV3.SchemaObject => ({ type: 'integer', description });
const countOrUnlimited = (description: string): OpenAPIV3.SchemaObject => ({
  type: 'integer',
  nullable: true,
  description: `${description}; null: unlimited`,
});
const text = (description: string): OpenAPIV3.SchemaObject => ({ type: 'string', description });

const TICKETED: OpenAPIV3.SchemaObject = {
  description:
    "Event Tickets' flag: the providers of the event's ticket types (rsvp, tribe-commerce), or false when it has none (or they are withheld)",
  anyOf: [
    { type: 'boolean', enum: [false] },
    { type: 'array', items: { type: 'string', enum: ['rsvp', 'tribe-commerce'] } },
  ],
};

const SUMMARY: OpenAPIV3.SchemaObject = {
  type: 'object',
  description:
    'Extension: its ticket types in sum (counts only); null when it has none, or its password was not given',
  required: [
    'types',
    'on_sale',
    'capacity',
    'available',
    'sold_out',
    'waitlist',
    'min_price',
    'max_price',
    'currency',
  ],
  properties: {
    types: count('How many ticket types it offers'),
    on_sale: { type: 'boolean', description: 'Whether one of them can be reserved now' },
    capacity: countOrUnlimited('Places in all'),
    available: countOrUnlimited('Places left in all its types, on sale or not'),
    sold_out: { type: 'boolean', description: 'No place left in any type' },
    waitlist: {
      type: 'object',
      required: ['enabled', 'length'],
      properties: {
        enabled: { type: 'boolean', description: 'Whether a type queues reservations beyond capacity' },
        length: count('Reservations waiting for a place'),
      },
    },
    min_price: text('The lowest price as shown, a decimal string ("0" for an RSVP)'),
    max_price: text('The highest price as shown'),
    currency: text('ISO 4217 code of its priced types; "" when none is priced, or they differ'),
  },
};

builder.prismaInterfaceField(TecEventFields, 'ticketed', (t) =>
  t.field({
    type: 'JSON',
    extensions: jsonShape(TICKETED),
    resolve: async (event, _args, ctx) => ticketedProviders(await ticketsOf(ctx, event)),
  }),
);

builder.prismaInterfaceField(TecEventFields, 'tickets', (t) =>
  t.field({
    type: 'JSON',
    nullable: true,
    extensions: jsonShape(SUMMARY),
    resolve: async (event, _args, ctx) => {
      const tickets = await ticketsOf(ctx, event);
      const now = new Date();
      // `on_sale` turning before the day's end: the answer is never shared (`ReadLog.readClock`).
      if (onSaleTurnsToday(event, tickets, now, ctx.config.siteTimezone)) ctx.reads?.readClock();
      return ticketsSummary(event, tickets, now);
    },
  }),
);

addJsonLdPart(async (event, jsonLd, ctx) => {
  const offers = ticketOffers(event, await ticketsOf(ctx, event), String(jsonLd.url));
  // Event Tickets replaces the event's cost offer with its tickets' (when it has any).
  return offers ? { offers } : undefined;
});
