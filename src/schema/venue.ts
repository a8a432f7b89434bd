import { builder } from './builder.js';
import {
  Author,
  Image,
  type InputFieldBuilder,
  PageInfo,
  PostStatus,
  type PostStatusValue,
  IF_MATCH_DESCRIPTION,
  VERSION_DESCRIPTION,
  withIfMatch,
  withoutNulls,
} from './common.js';
import { recordVersion } from '../domain/versions.js';
import { permalink } from '../domain/urls.js';
import { assertReadable, passwordHides } from '../domain/visibility.js';
import type { Context } from '../context.js';
import type { Venue as VenueRow } from '../generated/sqlite/client.js';
import { VENUE_BODY } from '../rest/linked-bodies.js';
import { restBody } from '../rest/body-fields.js';
import { writeLinked } from '../services/linked-posts.js';
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

type VenueArchive = Awaited<ReturnType<typeof venueArchive>>;

const VenuePage = builder.objectRef<VenueArchive>('VenuePage').implement({
  fields: (t) => ({
    items: t.prismaField({
      type: [Venue],
      resolve: (query, page, _args, ctx) =>
        ctx.db.venue.findMany({
          ...query,
          where: page.where,
          orderBy: page.orderBy,
          skip: page.skip,
          take: page.take,
        }),
    }),
    pageInfo: t.field({
      type: PageInfo,
      resolve: (page) => ({ ...page.paging, total: page.total, totalPages: page.totalPages }),
    }),
  }),
});

const VenueFilter = builder.inputType('VenueFilter', {
  fields: (t) => ({
    search: t.string({ description: 'Text in the name, description, excerpt or address fields (any case)' }),
    event: t.int({ description: 'Venues of this event (it must exist)' }),
    hasEvents: t.boolean({
      description: 'true: linked to an event that is not a draft or pending; false: to none',
    }),
    onlyWithUpcoming: t.boolean({ description: 'true: linked to an event starting now or later' }),
    status: t.field({
      type: [PostStatus],
      description: 'Only editors may ask for other statuses than publish',
    }),
  }),
});

/** The venue fields of the write inputs, named as the domain input (`VenueInput`). */
function venueInputFields(t: InputFieldBuilder, create: boolean) {
  return {
    name: t.string({ required: create, description: 'Not empty' }),
    description: t.string({ description: '"" clears it' }),
    status: t.field({
      type: PostStatus,
      description: 'Scaled back to pending (or draft) for those who may not publish',
    }),
    authorId: t.int({ description: 'An existing user; only editors may name someone else' }),
    date: t.string({ description: 'Publication date in the site time zone (any accepted date format)' }),
    dateUtc: t.string({ description: 'Publication date in UTC' }),
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
    image: t.string({
      description: 'An image media id, or an http(s) image URL (needs the upload capability); "" removes it',
    }),
  };
}

export const CreateVenueInput = builder.inputType('CreateVenueInput', {
  fields: (t) => venueInputFields(t, true),
});

const UpdateVenueInput = builder.inputType('UpdateVenueInput', {
  fields: (t) => ({
    ...venueInputFields(t, false),
    password: t.string({
      description: 'Hides the venue content from those who may not edit it; "" removes it',
    }),
  }),
});

const UpdateVenueBySlugInput = builder.inputType('UpdateVenueBySlugInput', {
  fields: (t) => venueInputFields(t, false),
});

/** The GraphQL input as the domain's: null leaves a field unchanged, but clears a coordinate. */
function venueInput<T extends { geoLat?: number | null; geoLng?: number | null }>(input: T): VenueInput {
  return { ...withoutNulls(input), geoLat: input.geoLat, geoLng: input.geoLng };
}

/** The REST body of a venue input (event inputs that create venues still take REST bodies). */
export function venueBody(input: typeof CreateVenueInput.$inferInput): Record<string, unknown> {
  return restBody(VENUE_BODY, venueInput(input));
}

builder.queryFields((t) => ({
  venue: t.prismaField({
    type: Venue,
    nullable: true,
    description:
      'A venue by id; null (with an error entry saying why) when it does not exist or you may not read it',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (query, _root, { id }, ctx) =>
      assertReadable('venue', await ctx.db.venue.findUnique({ ...query, where: { id } }), id, ctx.viewer),
  }),
  venueBySlug: t.prismaField({
    type: Venue,
    nullable: true,
    description:
      'A venue by slug; null (with an error entry saying why) when it does not exist or you may not read it',
    args: { slug: t.arg.string({ required: true }) },
    resolve: async (query, _root, { slug }, ctx) =>
      assertReadable('venue', await ctx.db.venue.findUnique({ ...query, where: { slug } }), slug, ctx.viewer),
  }),
  venues: t.field({
    type: VenuePage,
    description: 'Venues, newest first',
    args: { filter: t.arg({ type: VenueFilter }), page: t.arg.int(), perPage: t.arg.int() },
    resolve: (_root, { filter, page, perPage }, ctx) =>
      venueArchive(ctx.db, ctx, filter ?? {}, page, perPage),
  }),
}));

builder.mutationFields((t) => ({
  createVenue: t.prismaField({
    type: Venue,
    description:
      'Creates a venue, or returns the existing one with the same name (and description, when given)',
    args: { input: t.arg({ type: CreateVenueInput, required: true }) },
    resolve: (query, _root, { input }, ctx) =>
      writeLinked(ctx, 'venue', async (w) => {
        const { record } = await createOrMatchVenue(w, venueInput(input));
        return w.tx.venue.findUniqueOrThrow({ ...query, where: { id: record.id } });
      }),
  }),
  updateVenue: t.prismaField({
    type: Venue,
    args: {
      id: t.arg.int({ required: true }),
      input: t.arg({ type: UpdateVenueInput, required: true }),
      ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }),
    },
    resolve: (query, _root, { id, input, ifMatch }, ctx) =>
      writeLinked(withIfMatch(ctx, ifMatch), 'venue', async (w) => {
        await updateVenue(w, { id }, venueInput(input));
        return w.tx.venue.findUniqueOrThrow({ ...query, where: { id } });
      }),
  }),
  updateVenueBySlug: t.prismaField({
    type: Venue,
    args: {
      slug: t.arg.string({ required: true }),
      input: t.arg({ type: UpdateVenueBySlugInput, required: true }),
      ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }),
    },
    resolve: (query, _root, { slug, input, ifMatch }, ctx) =>
      writeLinked(withIfMatch(ctx, ifMatch), 'venue', async (w) => {
        const { id } = await updateVenue(w, { slug }, venueInput(input));
        return w.tx.venue.findUniqueOrThrow({ ...query, where: { id } });
      }),
  }),
  deleteVenue: t.prismaField({
    type: Venue,
    description:
      'Moves the venue to the trash (unlinking it from its events); force: deletes it for good (editors)',
    args: {
      id: t.arg.int({ required: true }),
      force: t.arg.boolean({ defaultValue: false }),
      ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }),
    },
    resolve: (query, _root, { id, force, ifMatch }, ctx) =>
      writeLinked(withIfMatch(ctx, ifMatch), 'venue', (w) =>
        deleteVenue(w, { id }, force ?? false, (tx, venueId) =>
          tx.venue.findUniqueOrThrow({ ...query, where: { id: venueId } }),
        ),
      ),
  }),
  deleteVenueBySlug: t.prismaField({
    type: Venue,
    description: 'As deleteVenue, by slug',
    args: {
      slug: t.arg.string({ required: true }),
      force: t.arg.boolean({ defaultValue: false }),
      ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }),
    },
    resolve: (query, _root, { slug, force, ifMatch }, ctx) =>
      writeLinked(withIfMatch(ctx, ifMatch), 'venue', (w) =>
        deleteVenue(w, { slug }, force ?? false, (tx, venueId) =>
          tx.venue.findUniqueOrThrow({ ...query, where: { id: venueId } }),
        ),
      ),
  }),
}));
