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

export const EVENT_FIELDS: Fields = {
  ...post('event'),
  title: { type: 'string', description: 'The event title', required: true },
  description: { type: 'string', description: 'The event description', required: false },
  slug: { type: 'string', description: 'The event slug', required: false },
  excerpt: { type: 'string', description: 'The event excerpt', required: false },
  status: {
    type: 'string',
    enum: ['publish', 'future', 'draft', 'pending', 'private'],
    description: 'The event post status',
    required: false,
  },
  timezone: {
    type: 'string',
    description: 'The event time zone (an IANA name or UTC±H[:MM])',
    required: false,
  },
  all_day: {
    type: 'boolean',
    default: false,
    description: 'Whether the event lasts the whole day or not',
    required: false,
  },
  start_date: { type: 'string', description: 'The event start date and time', required: true },
  end_date: { type: 'string', description: 'The event end date and time', required: true },
  image: { type: ['integer', 'string'], description: 'The event featured image ID or URL', required: false },
  cost: { type: ['string', 'array'], description: 'The event cost', required: false },
  website: {
    type: 'string',
    format: 'uri',
    default: null,
    description: 'The event website URL',
    required: false,
  },
  show_map: { type: 'boolean', description: 'Whether the event should show a map or not', required: false },
  show_map_link: {
    type: 'boolean',
    description: 'Whether the event should show a map link or not',
    required: false,
  },
  hide_from_listings: {
    type: 'boolean',
    description: 'Whether events should be hidden in the calendar view or not',
    required: false,
  },
  sticky: {
    type: 'boolean',
    description: 'Whether the event should be sticky in the calendar view or not',
    required: false,
  },
  featured: {
    type: 'boolean',
    description: 'Whether the event should be featured on the site or not',
    required: false,
  },
  event_status: {
    type: 'string',
    enum: ['scheduled', 'canceled', 'postponed', ''],
    description: 'Whether the event takes place as listed ("" resets it to scheduled)',
    required: false,
  },
  event_status_reason: {
    type: 'string',
    description: 'Why the event is canceled or postponed (kept only while it is)',
    required: false,
  },
  categories: {
    type: ['array', 'string'],
    default: null,
    description: 'The event category IDs or names (an array or a comma list)',
    required: false,
  },
  tags: {
    type: ['array', 'string'],
    default: null,
    description: 'The event tag IDs or names (an array or a comma list)',
    required: false,
  },
  venue: {
    type: ['integer', 'object', 'array'],
    default: null,
    description: 'The event venue ID, or an object of venue fields',
    required: false,
  },
  organizer: {
    type: ['integer', 'string', 'object', 'array'],
    default: null,
    description: 'The event organizer IDs or data',
    required: false,
  },
  post_parent: { type: 'integer', description: 'The parent event ID (0 removes it)', required: false },
};

/** Accepted on the by-id event routes only. */
export const EVENT_PASSWORD: Fields = {
  password: { type: 'string', description: 'The event password ("" removes it)', required: false },
};

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
