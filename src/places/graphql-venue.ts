import { builder } from '../core/graphql/schema/builder.js';
import { recordIdOf } from '../core/graphql/schema/global-ids.js';
import { Image, withoutNulls } from '../core/graphql/schema/common.js';
import { HIDDEN, defineLinkedPostSchema, hides, linkedPostFields } from './graphql.js';
import {
  type VenueInput,
  createOrMatchVenue,
  deleteVenue,
  updateVenue,
  venueArchive,
  venueConnection,
} from './service/venues.js';

type VenueText = 'address' | 'city' | 'country' | 'province' | 'state' | 'stateprovince' | 'zip' | 'phone';

export const Venue = builder.prismaNode('Venue', {
  id: { field: 'id' },
  findUnique: (id) => ({ id: recordIdOf(id) }),
  nullable: true,
  description:
    'A place where events happen. A password-protected one withholds its description, address, contact, map and image ("" or null) from those who may not edit it',
  fields: (t) => {
    const text = (field: VenueText, description: string) =>
      t.string({
        description: `${description}${HIDDEN}`,
        resolve: (venue, _a, ctx) => (hides(venue, ctx) ? '' : venue[field]),
      });
    const coordinate = (field: 'geoLat' | 'geoLng', description: string) =>
      t.float({
        nullable: true,
        description: `${description}; null when unknown or while password-protected`,
        resolve: (venue, _a, ctx) => (hides(venue, ctx) ? null : venue[field]),
      });
    const flag = (field: 'showMap' | 'showMapLink', description: string) =>
      t.boolean({
        nullable: true,
        description: `${description}; null while password-protected`,
        resolve: (venue, _a, ctx) => (hides(venue, ctx) ? null : venue[field]),
      });
    return {
      ...linkedPostFields(t, 'venue'),
      address: text('address', 'The street address'),
      city: text('city', 'The city'),
      country: text('country', 'The country, as entered (e.g. "United States")'),
      province: text('province', 'The province (outside the United States)'),
      state: text('state', 'The state (United States)'),
      stateProvince: text('stateprovince', 'The state or province, whichever applies'),
      zip: text('zip', 'The postal code'),
      phone: text('phone', 'The phone number, as entered'),
      showMap: flag('showMap', 'Whether the website shows a map of the venue'),
      showMapLink: flag('showMapLink', "Whether the website shows a link to the venue's map"),
      geoLat: coordinate('geoLat', 'Latitude in decimal degrees'),
      geoLng: coordinate('geoLng', 'Longitude in decimal degrees'),
      image: t.field({
        type: Image,
        nullable: true,
        description: 'The featured image; null when none or while password-protected',
        select: (_args, _ctx, nested) => ({ image: nested(true) }),
        resolve: (venue, _a, ctx) => (hides(venue, ctx) ? null : venue.image),
      }),
    };
  },
});

/** The GraphQL input as the domain's: null leaves a field unchanged, but clears a coordinate. */
export function venueInput(input: { geoLat?: number | null; geoLng?: number | null }): VenueInput {
  return { ...withoutNulls(input), geoLat: input.geoLat, geoLng: input.geoLng };
}

export const { CreateInput: CreateVenueInput } = defineLinkedPostSchema({
  kind: 'venue',
  model: 'Venue',
  one: 'Venue',
  many: 'Venues',
  article: 'a venue',
  search: 'Text in the name, description, excerpt or address fields (any case)',
  inputFields: (t) => ({
    address: t.string({ description: 'The street address' }),
    city: t.string({ description: 'The city' }),
    country: t.string({ description: 'The country name' }),
    province: t.string({ description: 'The province (outside the United States)' }),
    state: t.string({ description: 'The state (United States)' }),
    stateProvince: t.string({ description: 'The state or province, whichever applies' }),
    zip: t.string({ description: 'The postal code' }),
    phone: t.string({ description: 'The phone number (free text)' }),
    website: t.string({ description: 'A URL; "" clears it' }),
    showMap: t.boolean({ description: 'Whether the website shows a map of the venue' }),
    showMapLink: t.boolean({ description: "Whether the website shows a link to the venue's map" }),
    geoLat: t.float({ description: 'Latitude, -90 to 90; null clears it' }),
    geoLng: t.float({ description: 'Longitude, -180 to 180; null clears it' }),
  }),
  toInput: venueInput,
  archive: venueArchive,
  connection: venueConnection,
  create: createOrMatchVenue,
  update: updateVenue,
  remove: deleteVenue,
});
