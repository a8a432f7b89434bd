import {
  type RestSchema,
  constant,
  int,
  listOf,
  schemaComponent,
  str,
  uri,
} from '../core/rest/discovery/json-shapes.js';
import { IMAGE_OR_FALSE } from '../core/rest/discovery/wordpress-shapes.js';

// How `/doc` describes venues and organizers as the REST answers give them (their JSON fields name
// these shapes: `extensions: jsonShape(TEC_VENUE)`), and in JSON-LD.

/** The JSON-LD of a venue or organizer: the fields both carry around its type's own, all present. */
function jsonLd(type: string, own: Record<string, RestSchema>) {
  const properties: Record<string, RestSchema> = {
    '@type': constant(type),
    name: { type: 'string' },
    description: str('The rendered description, HTML-escaped'),
    url: { type: 'string' },
    ...own,
    sameAs: { type: 'string' },
  };
  return { required: Object.keys(properties), properties };
}

/** A venue in JSON-LD (schema.org Place). */
export const TEC_PLACE = schemaComponent('TecPlace', {
  type: 'object',
  description: 'A venue in JSON-LD (schema.org Place); blank but for its name when withheld',
  ...jsonLd('Place', {
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
  }),
});

/** An organizer in JSON-LD (schema.org Person). */
export const TEC_PERSON = schemaComponent('TecPerson', {
  type: 'object',
  description: 'An organizer in JSON-LD (schema.org Person); blank but for its name when withheld',
  ...jsonLd('Person', {
    telephone: { type: 'string' },
    email: str('The e-mail address as HTML entities (obfuscated)'),
  }),
});

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

export const TEC_VENUE = schemaComponent('TecVenue', {
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
    json_ld: TEC_PLACE,
    show_map: { type: 'boolean', nullable: true, description: 'Whether to show a map of the venue' },
    show_map_link: { type: 'boolean', nullable: true, description: 'Whether to show a link to a map' },
    ...globalIds('venue'),
  },
});

export const TEC_ORGANIZER = schemaComponent('TecOrganizer', {
  type: 'object',
  description:
    'An organizer as TEC answers it: falsy values left out; `json_ld` in the single representation',
  required: ['id', 'global_id', 'global_id_lineage'],
  properties: {
    ...linkedPost('organizer'),
    phone: str('The organizer phone number'),
    website: str('The organizer website URL'),
    email: str('The organizer e-mail address'),
    json_ld: TEC_PERSON,
    ...globalIds('organizer'),
  },
});
