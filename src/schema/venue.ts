import { builder } from './builder.js';
import { Image, PageInfo, PostStatus, type PostStatusValue } from './common.js';
import { ApiError } from '../domain/errors.js';
import { normalizePaging } from '../domain/paging.js';
import { permalink } from '../domain/urls.js';
import { assertReadable } from '../domain/visibility.js';
import { archivePage } from '../services/archive.js';
import type { Context } from '../context.js';

export const Venue = builder.prismaObject('Venue', {
  fields: (t) => ({
    id: t.exposeInt('id'),
    slug: t.exposeString('slug'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    excerpt: t.exposeString('excerpt'),
    status: t.field({ type: PostStatus, resolve: (venue) => venue.status as PostStatusValue }),
    url: t.string({ resolve: (venue, _args, ctx) => permalink(ctx.urls, 'venue', venue) }),
    address: t.exposeString('address'),
    city: t.exposeString('city'),
    country: t.exposeString('country'),
    province: t.exposeString('province'),
    state: t.exposeString('state'),
    stateProvince: t.exposeString('stateprovince'),
    zip: t.exposeString('zip'),
    phone: t.exposeString('phone'),
    website: t.string({ nullable: true, resolve: (venue) => venue.website || null }),
    showMap: t.exposeBoolean('showMap'),
    showMapLink: t.exposeBoolean('showMapLink'),
    geoLat: t.exposeFloat('geoLat', { nullable: true }),
    geoLng: t.exposeFloat('geoLng', { nullable: true }),
    image: t.relation('image', { nullable: true, type: Image }),
    publishedAt: t.expose('publishedAt', { type: 'DateTime' }),
    modifiedAt: t.expose('modifiedAt', { type: 'DateTime' }),
  }),
});

type VenueArchive = Awaited<ReturnType<typeof venueArchive>>;

const VenuePage = builder.objectRef<VenueArchive>('VenuePage').implement({
  fields: (t) => ({
    items: t.prismaField({
      type: [Venue],
      resolve: (query, page, _args, ctx) =>
        ctx.db.venue.findMany({ ...query, where: page.where, orderBy: page.orderBy, skip: page.skip, take: page.take }),
    }),
    pageInfo: t.field({
      type: PageInfo,
      resolve: (page) => ({ ...page.paging, total: page.total, totalPages: page.totalPages }),
    }),
  }),
});

export function venueArchive(ctx: Context, page: number | null | undefined, perPage: number | null | undefined) {
  const query = {
    where: { status: 'publish' },
    orderBy: [{ publishedAt: 'desc' as const }, { id: 'desc' as const }],
  };
  return archivePage(query, normalizePaging(page, perPage), (where) => ctx.db.venue.count({ where }), () =>
    new ApiError(404, 'venue-archive-page-not-found', 'The requested venue archive page does not exist'),
  );
}

builder.queryFields((t) => ({
  venue: t.prismaField({
    type: Venue,
    args: { id: t.arg.int({ required: true }) },
    resolve: async (query, _root, { id }, ctx) =>
      assertReadable('venue', await ctx.db.venue.findUnique({ ...query, where: { id } }), id, ctx.viewer),
  }),
  venueBySlug: t.prismaField({
    type: Venue,
    args: { slug: t.arg.string({ required: true }) },
    resolve: async (query, _root, { slug }, ctx) =>
      assertReadable('venue', await ctx.db.venue.findUnique({ ...query, where: { slug } }), slug, ctx.viewer),
  }),
  venues: t.field({
    type: VenuePage,
    args: { page: t.arg.int(), perPage: t.arg.int() },
    resolve: (_root, { page, perPage }, ctx) => venueArchive(ctx, page, perPage),
  }),
}));
