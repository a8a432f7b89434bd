import type { RestField } from './types.js';

// The flat request bodies of the write routes (docs/reference.md §S2), as the reference documents them: a
// route names its table in `bodyFields`, and the namespace index and `/doc` describe the body from it.

type Fields = Record<string, RestField>;

/** The same fields with none required (updates). */
export function optional(fields: Fields): Fields {
  return Object.fromEntries(
    Object.entries(fields).map(([name, field]) => [name, { ...field, required: false }]),
  );
}

const post = (kind: string): Fields => ({
  author: { type: 'integer', description: `The ${kind} author ID`, required: false },
  date: { type: 'string', description: `The ${kind} publication date`, required: false },
  date_utc: { type: 'string', description: `The ${kind} publication date (UTC time zone)`, required: false },
});

// The event body is declared with its reading into the domain input, and documented from there.
export { EVENT_FIELDS, EVENT_PASSWORD } from '../src/rest/bodies/event.js';

export const VENUE_FIELDS: Fields = {
  ...post('venue'),
  venue: { type: 'string', description: 'The venue name', required: true },
  description: { type: 'string', default: null, description: 'The venue description', required: false },
  status: { type: 'string', description: 'The venue post status', required: false },
  show_map: {
    type: ['boolean', 'string'],
    default: null,
    description: 'Whether events linked to the venue should show a map or not',
    required: false,
  },
  show_map_link: {
    type: ['boolean', 'string'],
    default: null,
    description: 'Whether events linked to the venue should show a map link or not',
    required: false,
  },
  address: { type: 'string', default: null, description: 'The venue address', required: false },
  city: { type: 'string', default: null, description: 'The venue city', required: false },
  country: { type: 'string', default: null, description: 'The venue country', required: false },
  province: { type: 'string', default: null, description: 'The venue province', required: false },
  state: { type: 'string', default: null, description: 'The venue state', required: false },
  zip: { type: 'string', default: null, description: 'The venue ZIP code', required: false },
  phone: { type: 'string', default: null, description: 'The venue phone number', required: false },
  stateprovince: {
    type: 'string',
    default: null,
    description: 'The venue state and province',
    required: false,
  },
  website: { type: 'string', default: null, description: 'The venue website URL', required: false },
  image: {
    type: ['integer', 'string'],
    default: null,
    description: 'The venue featured image ID or URL',
    required: false,
  },
  geo_lat: {
    type: ['number', 'string'],
    default: null,
    description: 'The venue latitude, -90 to 90 ("" clears it)',
    required: false,
  },
  geo_lng: {
    type: ['number', 'string'],
    default: null,
    description: 'The venue longitude, -180 to 180 ("" clears it)',
    required: false,
  },
};

export const ORGANIZER_FIELDS: Fields = {
  ...post('organizer'),
  organizer: { type: 'string', description: 'The organizer name', required: true },
  description: { type: 'string', default: null, description: 'The organizer description', required: false },
  status: { type: 'string', description: 'The organizer post status', required: false },
  phone: { type: 'string', default: null, description: 'The organizer phone number', required: false },
  website: { type: 'string', default: null, description: 'The organizer website', required: false },
  email: { type: 'string', default: null, description: 'The organizer e-mail address', required: false },
  image: {
    type: ['integer', 'string'],
    default: null,
    description: 'The organizer featured image ID or URL',
    required: false,
  },
};

/** A venue's or an organizer's own password (by-id update routes, an extension of the reference). */
export const POST_PASSWORD: Fields = {
  password: { type: 'string', description: 'The post password ("" removes it)', required: false },
};

export const CATEGORY_FIELDS: Fields = {
  name: { type: 'string', description: 'The event category name', required: true },
  description: { type: 'string', description: 'The event category description', required: false },
  slug: { type: 'string', description: 'The event category slug', required: false },
  parent: { type: 'integer', description: 'The parent event category term ID', required: false },
};

export const TAG_FIELDS: Fields = {
  name: { type: 'string', description: 'The event tag name', required: true },
  description: { type: 'string', description: 'The event tag description', required: false },
  slug: { type: 'string', description: 'The event tag slug', required: false },
};
