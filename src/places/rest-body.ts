import { z } from 'zod';
import type { LinkedPostInput } from './service/linked-posts.js';
import type { OrganizerInput } from './service/organizers.js';
import type { VenueInput } from './service/venues.js';
import type { RestField } from '../core/rest/route-table.js';
import { type BodyReader, type BodyTable, ID, STRING, TEXT, bodyReader } from '../core/rest/body-fields.js';
import { readBoolean } from '../core/rest/booleans.js';

// Venue and organizer bodies as WordPress clients send them (docs/reference.md §S2.3, §S2.4): one table
// per resource names each parameter's domain field, its wire reading and its documentation.

/** The reference's `tribe_is_truthy`: a boolean word, else false; any non-zero number is true. */
const truthy = bodyReader(
  'Truthy',
  'A boolean or a boolean word; any other word is false, any non-zero number true',
  z
    .union([z.boolean(), z.number(), z.string()])
    .transform((value) => readBoolean(value) ?? (typeof value === 'number' && value !== 0)),
);
/** `""` clears a coordinate; the range is the service's check. */
const coordinate = bodyReader(
  'Coordinate',
  'A number or its text; "" for none',
  z.union([z.number(), z.string().trim()]).transform((value) => (value === '' ? null : Number(value))),
);
const dateValue = bodyReader('PostDate', 'A date: a string, or a number', z.union([z.string(), z.number()]));
/** A media id or URL; `false` removes the image, as `""` and `0` do. */
const imageValue = bodyReader(
  'Image',
  'A media id or URL; false, "" or 0 for none',
  z.union([z.string(), z.number(), z.literal(false).transform(() => '')]),
);

/** An optional field. */
function optional<Input>(
  to: keyof Input & string,
  read: BodyReader,
  doc: RestField,
): BodyTable<Input>[string] {
  return { to, read, doc: { ...doc, required: false } };
}

/** An optional field documented with a `null` default. */
const orNull = <Input>(
  to: keyof Input & string,
  read: BodyReader,
  type: RestField['type'],
  description: string,
) => optional<Input>(to, read, { type, default: null, description });

const text = <Input>(to: keyof Input & string, description: string) =>
  orNull<Input>(to, TEXT, 'string', description);

function postFields<Input extends LinkedPostInput>(kind: 'venue' | 'organizer'): BodyTable<Input> {
  return {
    author: optional('authorId', ID, { type: 'integer', description: `The ${kind} author ID` }),
    date: optional('date', dateValue, { type: 'string', description: `The ${kind} publication date` }),
    date_utc: optional('dateUtc', dateValue, {
      type: 'string',
      description: `The ${kind} publication date (UTC time zone)`,
    }),
    [kind]: {
      to: 'name',
      read: TEXT,
      doc: { type: 'string', description: `The ${kind} name`, required: true },
    },
    description: text('description', `The ${kind} description`),
    status: optional('status', STRING, { type: 'string', description: `The ${kind} post status` }),
  };
}

const imageField = <Input extends LinkedPostInput>(kind: 'venue' | 'organizer') =>
  orNull<Input>('image', imageValue, ['integer', 'string'], `The ${kind} featured image ID or URL`);

export const VENUE_BODY: BodyTable<VenueInput> = {
  ...postFields<VenueInput>('venue'),
  show_map: orNull(
    'showMap',
    truthy,
    ['boolean', 'string'],
    'Whether events linked to the venue should show a map or not',
  ),
  show_map_link: orNull(
    'showMapLink',
    truthy,
    ['boolean', 'string'],
    'Whether events linked to the venue should show a map link or not',
  ),
  address: text('address', 'The venue address'),
  city: text('city', 'The venue city'),
  country: text('country', 'The venue country'),
  province: text('province', 'The venue province'),
  state: text('state', 'The venue state'),
  zip: text('zip', 'The venue ZIP code'),
  phone: text('phone', 'The venue phone number'),
  stateprovince: text('stateProvince', 'The venue state and province'),
  website: text('website', 'The venue website URL'),
  image: imageField('venue'),
  geo_lat: orNull('geoLat', coordinate, ['number', 'string'], 'The venue latitude, -90 to 90 ("" clears it)'),
  geo_lng: orNull(
    'geoLng',
    coordinate,
    ['number', 'string'],
    'The venue longitude, -180 to 180 ("" clears it)',
  ),
};

export const ORGANIZER_BODY: BodyTable<OrganizerInput> = {
  ...postFields<OrganizerInput>('organizer'),
  phone: text('phone', 'The organizer phone number'),
  website: text('website', 'The organizer website'),
  email: text('email', 'The organizer e-mail address'),
  image: imageField('organizer'),
};

/** A venue's or an organizer's own password: by-id update routes only (an extension of the reference). */
export const POST_PASSWORD_BODY: BodyTable<LinkedPostInput> = {
  password: optional('password', TEXT, { type: 'string', description: 'The post password ("" removes it)' }),
};

/** The table of a body: `password` is known on the by-id update routes only (elsewhere ignored). */
export function linkedBody<Input extends LinkedPostInput>(
  table: BodyTable<Input>,
  passwordAllowed: boolean,
): BodyTable<Input> {
  return passwordAllowed ? { ...table, ...(POST_PASSWORD_BODY as BodyTable<Input>) } : table;
}
