import { builder } from './builder.js';
import {
  Author,
  Image,
  PostStatus,
  type PostStatusValue,
  VERSION_DESCRIPTION,
  withoutNulls,
} from './common.js';
import { recordVersion } from '../domain/versions.js';
import { permalink } from '../domain/urls.js';
import { passwordHides } from '../domain/visibility.js';
import type { Context } from '../context.js';
import type { Venue as VenueRow } from '../generated/sqlite/client.js';
import { VENUE_BODY } from '../rest/bodies/linked-posts.js';
import { restBody } from '../rest/bodies/fields.js';
import { defineLinkedPostSchema } from './linked-posts.js';
import {
  type VenueInput,
  createOrMatchVenue,
  deleteVenue,
  updateVenue,
  venueArchive,
} from '../services/venues.js';

/** A password-protected venue shows only its name and ids to those who may not edit it (D6). */
const hides = (venue: VenueRow, ctx: Context) => passwordHides(ctx.viewer, venue);

type VenueText =
  | 'description'
  | 'excerpt'
  | 'address'
  | 'city'
  | 'country'
  | 'province'
  | 'state'
  | 'stateprovince'
  | 'zip'
  | 'phone';

export const Venue = builder.prismaObject('Venue', {
  fields: (t) => {
    const text = (field: VenueText) =>
      t.string({ resolve: (venue, _a, ctx) => (hides(venue, ctx) ? '' : venue[field]) });
    const coordinate = (field: 'geoLat' | 'geoLng') =>
      t.float({ nullable: true, resolve: (venue, _a, ctx) => (hides(venue, ctx) ? null : venue[field]) });
    const flag = (field: 'showMap' | 'showMapLink') =>
      t.boolean({
        nullable: true,
        description: 'null while password-protected',
        resolve: (venue, _a, ctx) => (hides(venue, ctx) ? null : venue[field]),
      });
    return {
      id: t.exposeInt('id'),
      version: t.string({ description: VERSION_DESCRIPTION, resolve: (row) => recordVersion(row) }),
      slug: t.exposeString('slug'),
      name: t.exposeString('name'),
      description: text('description'),
      excerpt: text('excerpt'),
      status: t.field({ type: PostStatus, resolve: (venue) => venue.status as PostStatusValue }),
      url: t.string({ resolve: (venue, _args, ctx) => permalink(ctx.urls, 'venue', venue) }),
      address: text('address'),
      city: text('city'),
      country: text('country'),
      province: text('province'),
      state: text('state'),
      stateProvince: text('stateprovince'),
      zip: text('zip'),
      phone: text('phone'),
      website: t.string({
        nullable: true,
        resolve: (venue, _a, ctx) => (hides(venue, ctx) ? null : venue.website || null),
      }),
      showMap: flag('showMap'),
      showMapLink: flag('showMapLink'),
      geoLat: coordinate('geoLat'),
      geoLng: coordinate('geoLng'),
      passwordProtected: t.boolean({ resolve: (venue) => Boolean(venue.password) }),
      image: t.field({
        type: Image,
        nullable: true,
        select: (_args, _ctx, nested) => ({ image: nested(true) }),
        resolve: (venue, _a, ctx) => (hides(venue, ctx) ? null : venue.image),
      }),
      author: t.relation('author', { nullable: true, type: Author }),
      publishedAt: t.expose('publishedAt', { type: 'DateTime' }),
      modifiedAt: t.expose('modifiedAt', { type: 'DateTime' }),
    };
  },
});

/** The GraphQL input as the domain's: null leaves a field unchanged, but clears a coordinate. */
function venueInput(input: { geoLat?: number | null; geoLng?: number | null }): VenueInput {
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
    address: t.string(),
    city: t.string(),
    country: t.string(),
    province: t.string(),
    state: t.string(),
    stateProvince: t.string(),
    zip: t.string(),
    phone: t.string(),
    website: t.string({ description: 'A URL; "" clears it' }),
    showMap: t.boolean(),
    showMapLink: t.boolean(),
    geoLat: t.float({ description: 'Latitude, -90 to 90; null clears it' }),
    geoLng: t.float({ description: 'Longitude, -180 to 180; null clears it' }),
  }),
  toInput: venueInput,
  find: (db, query, key) => db.venue.findUnique({ ...query, where: key }),
  findPage: (db, query, page) =>
    db.venue.findMany({
      ...query,
      where: page.where,
      orderBy: page.orderBy,
      skip: page.skip,
      take: page.take,
    }),
  archive: (ctx, filter, page, perPage) => venueArchive(ctx.db, ctx, filter, page, perPage),
  create: createOrMatchVenue,
  update: updateVenue,
  remove: deleteVenue,
});

/** The REST body of a venue input (event inputs that create venues still take REST bodies). */
export function venueBody(input: typeof CreateVenueInput.$inferInput): Record<string, unknown> {
  return restBody(VENUE_BODY, venueInput(input));
}
