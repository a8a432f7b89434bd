import type { OpenAPIV3 } from 'openapi-types';
import { constant, listOf, schemaComponent, str, uri } from '../core/rest/discovery/json-shapes.js';
import { WORDPRESS_EMPTY_ARRAY } from '../core/rest/discovery/wordpress-shapes.js';
import { TEC_ORGANIZER, TEC_PERSON, TEC_PLACE, TEC_VENUE } from '../places/rest-doc-shapes.js';
import { TEC_EVENT_TERM } from '../terms/rest-doc-shapes.js';

// How `/doc` describes the JSON values of a TEC event: its venues, organizers and terms as embedded,
// its additional fields, its JSON-LD. Polymorphic values are `anyOf` the forms the service really
// answers (a venue or a list of them).

/** `venue` of an event: one venue, several, or `[]` for none. */
export const EVENT_VENUE: OpenAPIV3.SchemaObject = { anyOf: [TEC_VENUE, listOf(TEC_VENUE)] };
export const EVENT_ORGANIZERS = listOf(TEC_ORGANIZER);
export const EVENT_TERMS = listOf(TEC_EVENT_TERM);

/** TEC's additional fields: this service registers none. */
export const CUSTOM_FIELDS: OpenAPIV3.SchemaObject = {
  allOf: [WORDPRESS_EMPTY_ARRAY],
  description: "TEC's additional fields: none here, so always `[]`",
};

export const TEC_EVENT_JSON_LD = schemaComponent('TecEventJsonLd', {
  type: 'object',
  description: 'The event in JSON-LD (schema.org Event)',
  required: [
    '@context',
    '@type',
    'name',
    'description',
    'url',
    'eventAttendanceMode',
    'eventStatus',
    'startDate',
    'endDate',
    'performer',
  ],
  properties: {
    '@context': constant('http://schema.org'),
    '@type': constant('Event'),
    name: { type: 'string' },
    description: str('The rendered excerpt or description, HTML-escaped'),
    image: uri('The featured image URL, when there is one'),
    url: uri('The event page'),
    eventAttendanceMode: { type: 'string' },
    eventStatus: { type: 'string' },
    startDate: str('ISO 8601 with the offset of the event time zone'),
    endDate: str('ISO 8601 with the offset of the event time zone'),
    location: TEC_PLACE,
    organizer: {
      description: 'One organizer, or a list of several (as TEC writes it)',
      anyOf: [TEC_PERSON, listOf(TEC_PERSON)],
    },
    offers: {
      description:
        "The first cost value, when there is one; an event with ticket types offers each of them instead (Event Tickets' form)",
      anyOf: [
        {
          type: 'object',
          required: ['@type', 'price', 'priceCurrency', 'url', 'category', 'availability', 'validFrom'],
          properties: {
            '@type': constant('Offer'),
            price: { type: 'string' },
            priceCurrency: { type: 'string' },
            url: { type: 'string', format: 'uri' },
            category: { type: 'string' },
            availability: { type: 'string' },
            validFrom: { type: 'string' },
          },
        },
        listOf({
          type: 'object',
          required: [
            '@type',
            'name',
            'url',
            'price',
            'category',
            'availability',
            'priceCurrency',
            'validThrough',
          ],
          properties: {
            '@type': constant('Offer'),
            name: str('The ticket type'),
            url: uri('The event page'),
            price: str('A decimal string ("0" for an RSVP)'),
            category: constant('primary'),
            availability: {
              type: 'string',
              enum: ['https://schema.org/InStock', 'https://schema.org/SoldOut'],
            },
            priceCurrency: str('ISO 4217 code'),
            validFrom: str(
              'When sales open (ISO 8601 with the offset of the event time zone), when the type has a sales start',
            ),
            validThrough: str('When sales close: their end, or the event end'),
          },
        }),
      ],
    },
    performer: { type: 'string' },
  },
});
