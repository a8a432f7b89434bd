import type { GraphQLField } from 'graphql';
import type { OpenAPIV3 } from 'openapi-types';

// The WordPress-shaped JSON values of the REST answers (venues, organizers, images, embedded terms,
// JSON-LD…), which the REST GraphQL sub-graph carries as its JSON scalar: each shape is declared once
// here as an OpenAPI 3.0 component, and each JSON field names its shape beside its declaration
// (`extensions: jsonShape(…)`), from which `/doc` types it. Polymorphic values are `anyOf` the forms
// the service really answers (an image or `false`, a venue or a list of them).

export type RestSchema = OpenAPIV3.SchemaObject | OpenAPIV3.ReferenceObject;

/** The component names of the shapes (the record below must declare each, and no other). */
export type TecSchemaName =
  | 'TecImage'
  | 'TecVenue'
  | 'TecOrganizer'
  | 'TecEventTerm'
  | 'TecTermUrls'
  | 'TecTermLinks'
  | 'TecPlace'
  | 'TecPerson'
  | 'TecEventJsonLd'
  | 'WordPressEmptyArray';

const str = (description: string): OpenAPIV3.SchemaObject => ({ type: 'string', description });
const uri = (description: string): OpenAPIV3.SchemaObject => ({ type: 'string', format: 'uri', description });
const int = (description: string): OpenAPIV3.SchemaObject => ({ type: 'integer', description });
const constant = (value: string): OpenAPIV3.SchemaObject => ({ type: 'string', enum: [value] });
const listOf = (items: RestSchema, description?: string): OpenAPIV3.SchemaObject => ({
  type: 'array',
  items,
  ...(description ? { description } : {}),
});
const ref = (name: TecSchemaName): OpenAPIV3.ReferenceObject => ({ $ref: `#/components/schemas/${name}` });

/** WordPress' `_links` relation: a list of `{href}` (HAL-like, as `WP_REST_Response::get_links`). */
export const LINK_LIST: OpenAPIV3.SchemaObject = listOf({
  type: 'object',
  required: ['href'],
  properties: { href: { type: 'string', format: 'uri' } },
});

/** What WordPress gives for a missing image: `false`, not null. */
const IMAGE_OR_FALSE: OpenAPIV3.SchemaObject = {
  anyOf: [ref('TecImage'), { type: 'boolean', enum: [false] }],
  description: 'The featured image, or `false` when there is none (or it is withheld)',
};

/** The keys venues and organizers share, in the reference's order; falsy ones are left out (TEC). */
function linkedPost(kind: 'venue' | 'organizer'): Record<string, RestSchema> {
  return {
    id: int(`The ${kind} post ID`),
    author: str(`The ${kind} author's user ID (a string, as WordPress gives it)`),
    status: str(`The ${kind} post status`),
    date: str(`The ${kind} creation date in the site time zone (Y-m-d H:i:s)`),
    date_utc: str(`The ${kind} creation date in UTC (Y-m-d H:i:s)`),
    modified: str(`The ${kind} last modification date in the site time zone`),
    modified_utc: str(`The ${kind} last modification date in UTC`),
    url: uri(`The URL of the ${kind} page`),
    [kind]: str(`The ${kind} name`),
    description: str(`The ${kind} long description (HTML)`),
    excerpt: str(`The ${kind} short description`),
    slug: str(`The ${kind} slug`),
    image: IMAGE_OR_FALSE,
  };
}

const globalIds = (kind: string): Record<string, RestSchema> => ({
  global_id: str(`The ${kind} ID that identifies it across sites`),
  global_id_lineage: listOf({ type: 'string' }, `Where the ${kind} comes from (its global ids)`),
});

/** The component schemas of the WordPress shapes, for `/doc`'s `components.schemas`. */
export const tecSchemas: Record<TecSchemaName, OpenAPIV3.SchemaObject> = {
  TecImage: {
    type: 'object',
    description: 'A featured image (falsy values left out)',
    required: ['url', 'id'],
    properties: {
      url: uri('The URL of the full-size image'),
      id: int('The image ID'),
      extension: str('The file extension'),
      width: int('The natural width in pixels'),
      height: int('The natural height in pixels'),
      filesize: int('The file size in bytes'),
    },
  },
  TecVenue: {
    type: 'object',
    description:
      'A venue as TEC answers it: falsy values left out; `json_ld` in the single representation; a ' +
      'password-protected venue shows blanks (and `show_map` null) to whoever may not edit it',
    required: ['id', 'show_map', 'show_map_link', 'global_id', 'global_id_lineage'],
    properties: {
      ...linkedPost('venue'),
      address: str('The venue street address'),
      city: str('The venue city'),
      country: str('The venue country'),
      province: str('The venue province'),
      state: str('The venue state'),
      zip: str('The venue ZIP code'),
      phone: str('The venue phone number'),
      website: str('The venue website URL'),
      stateprovince: str('The venue state or province'),
      geo_lat: { type: 'number', format: 'double', description: 'The venue latitude' },
      geo_lng: { type: 'number', format: 'double', description: 'The venue longitude' },
      json_ld: ref('TecPlace'),
      show_map: { type: 'boolean', nullable: true, description: 'Whether to show a map of the venue' },
      show_map_link: { type: 'boolean', nullable: true, description: 'Whether to show a link to a map' },
      ...globalIds('venue'),
    },
  },
  TecOrganizer: {
    type: 'object',
    description:
      'An organizer as TEC answers it: falsy values left out; `json_ld` in the single representation',
    required: ['id', 'global_id', 'global_id_lineage'],
    properties: {
      ...linkedPost('organizer'),
      phone: str('The organizer phone number'),
      website: str('The organizer website URL'),
      email: str('The organizer e-mail address'),
      json_ld: ref('TecPerson'),
      ...globalIds('organizer'),
    },
  },
  TecEventTerm: {
    type: 'object',
    description: "A category or tag embedded in an event: WordPress' term object, with TEC's `urls`",
    required: [
      'name',
      'slug',
      'term_group',
      'term_taxonomy_id',
      'taxonomy',
      'description',
      'parent',
      'count',
      'filter',
      'id',
      'urls',
    ],
    properties: {
      name: str('The term name'),
      slug: str('The term slug'),
      term_group: int('Always 0'),
      term_taxonomy_id: int('The term taxonomy ID (the term ID here)'),
      taxonomy: { type: 'string', enum: ['tribe_events_cat', 'post_tag'] },
      description: str('The term description'),
      parent: int('The parent term ID, 0 for none'),
      count: int('The number of events with the term'),
      filter: constant('raw'),
      id: int('The term ID'),
      urls: ref('TecTermUrls'),
    },
  },
  TecTermUrls: {
    type: 'object',
    description: "The term's REST URLs: its own, its collection's and its parent's",
    required: ['self', 'collection'],
    properties: {
      self: uri('This term'),
      collection: uri("The term's collection"),
      up: uri('The parent term, when there is one'),
    },
  },
  TecTermLinks: {
    type: 'object',
    description: "WordPress' `_links` of a single term",
    required: ['self', 'collection', 'about', 'wp:post_type', 'curies'],
    properties: {
      self: listOf({
        type: 'object',
        required: ['href', 'targetHints'],
        properties: {
          href: { type: 'string', format: 'uri' },
          targetHints: {
            type: 'object',
            required: ['allow'],
            properties: {
              allow: listOf({ type: 'string' }, 'The methods the caller may use on the term'),
            },
          },
        },
      }),
      collection: LINK_LIST,
      about: LINK_LIST,
      up: listOf({
        type: 'object',
        required: ['href', 'embeddable'],
        properties: { href: { type: 'string', format: 'uri' }, embeddable: { type: 'boolean' } },
      }),
      'wp:post_type': LINK_LIST,
      curies: listOf({
        type: 'object',
        required: ['name', 'href', 'templated'],
        properties: { name: { type: 'string' }, href: { type: 'string' }, templated: { type: 'boolean' } },
      }),
    },
  },
  TecPlace: {
    type: 'object',
    description: 'A venue in JSON-LD (schema.org Place); blank but for its name when withheld',
    required: ['@type', 'name', 'description', 'url', 'address', 'telephone', 'sameAs'],
    properties: {
      '@type': constant('Place'),
      name: { type: 'string' },
      description: str('The rendered description, HTML-escaped'),
      url: { type: 'string' },
      address: {
        type: 'object',
        description: 'Empty parts are left out',
        required: ['@type'],
        properties: {
          '@type': constant('PostalAddress'),
          streetAddress: { type: 'string' },
          addressLocality: { type: 'string' },
          addressRegion: { type: 'string' },
          postalCode: { type: 'string' },
          addressCountry: { type: 'string' },
        },
      },
      telephone: { type: 'string' },
      sameAs: { type: 'string' },
    },
  },
  TecPerson: {
    type: 'object',
    description: 'An organizer in JSON-LD (schema.org Person); blank but for its name when withheld',
    required: ['@type', 'name', 'description', 'url', 'telephone', 'email', 'sameAs'],
    properties: {
      '@type': constant('Person'),
      name: { type: 'string' },
      description: str('The rendered description, HTML-escaped'),
      url: { type: 'string' },
      telephone: { type: 'string' },
      email: str('The e-mail address as HTML entities (obfuscated)'),
      sameAs: { type: 'string' },
    },
  },
  TecEventJsonLd: {
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
      location: ref('TecPlace'),
      organizer: {
        description: 'One organizer, or a list of several (as TEC writes it)',
        anyOf: [ref('TecPerson'), listOf(ref('TecPerson'))],
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
  },
  /** PHP's empty array, which WordPress encodes `[]` where a map would otherwise stand. */
  WordPressEmptyArray: {
    type: 'array',
    description: 'Always empty (`[]`)',
    maxItems: 0,
    // Nothing may stand in it.
    items: { not: {} },
  },
};

export const tecSchemaRef = ref;

/** The other shapes JSON fields name (used once each, so not components). */
export const SHAPES = {
  /** `venue` of an event: one venue, several, or `[]` for none. */
  eventVenue: {
    anyOf: [ref('TecVenue'), listOf(ref('TecVenue'))],
  },
  eventOrganizers: listOf(ref('TecOrganizer')),
  eventTerms: listOf(ref('TecEventTerm')),
  image: IMAGE_OR_FALSE,
  // TEC's additional fields and WordPress' term meta: this service registers none of either.
  customFields: {
    allOf: [ref('WordPressEmptyArray')],
    description: "TEC's additional fields: none here, so always `[]`",
  },
  termMeta: {
    allOf: [ref('WordPressEmptyArray')],
    description: 'Registered term meta: none here, so always `[]`',
  },
  changesDeleted: {
    type: 'object',
    required: ['events', 'venues', 'organizers', 'categories', 'tags'],
    properties: Object.fromEntries(
      ['events', 'venues', 'organizers', 'categories', 'tags'].map((key) => [
        key,
        listOf({ type: 'integer' }),
      ]),
    ),
  },
} satisfies Record<string, RestSchema>;

const EXTENSION = 'restSchema';

/**
 * A JSON field's extension naming the OpenAPI schema of its value (of each item, in a list of
 * JSON), as the REST answers give it: `extensions: jsonShape('TecVenue')`.
 */
export function jsonShape(shape: TecSchemaName | RestSchema): Record<string, RestSchema> {
  return { [EXTENSION]: typeof shape === 'string' ? ref(shape) : shape };
}

/** The shape a JSON field declared with `jsonShape`, if any. */
export function declaredShape(
  field: Pick<GraphQLField<unknown, unknown>, 'extensions'>,
): RestSchema | undefined {
  return field.extensions[EXTENSION] as RestSchema | undefined;
}
