import { builder } from './builder.js';
import { Image, PageInfo, PostStatus, type PostStatusValue } from './common.js';
import { ApiError } from '../domain/errors.js';
import { normalizePaging } from '../domain/paging.js';
import { permalink } from '../domain/urls.js';
import { assertReadable } from '../domain/visibility.js';
import { archivePage } from '../services/archive.js';
import type { Context } from '../context.js';

export const Organizer = builder.prismaObject('Organizer', {
  fields: (t) => ({
    id: t.exposeInt('id'),
    slug: t.exposeString('slug'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    excerpt: t.exposeString('excerpt'),
    status: t.field({ type: PostStatus, resolve: (organizer) => organizer.status as PostStatusValue }),
    url: t.string({ resolve: (organizer, _args, ctx) => permalink(ctx.urls, 'organizer', organizer) }),
    phone: t.exposeString('phone'),
    website: t.string({ nullable: true, resolve: (organizer) => organizer.website || null }),
    email: t.exposeString('email'),
    image: t.relation('image', { nullable: true, type: Image }),
    publishedAt: t.expose('publishedAt', { type: 'DateTime' }),
    modifiedAt: t.expose('modifiedAt', { type: 'DateTime' }),
  }),
});

type OrganizerArchive = Awaited<ReturnType<typeof organizerArchive>>;

const OrganizerPage = builder.objectRef<OrganizerArchive>('OrganizerPage').implement({
  fields: (t) => ({
    items: t.prismaField({
      type: [Organizer],
      resolve: (query, page, _args, ctx) =>
        ctx.db.organizer.findMany({ ...query, where: page.where, orderBy: page.orderBy, skip: page.skip, take: page.take }),
    }),
    pageInfo: t.field({
      type: PageInfo,
      resolve: (page) => ({ ...page.paging, total: page.total, totalPages: page.totalPages }),
    }),
  }),
});

export function organizerArchive(ctx: Context, page: number | null | undefined, perPage: number | null | undefined) {
  const query = {
    where: { status: 'publish' },
    orderBy: [{ publishedAt: 'desc' as const }, { id: 'desc' as const }],
  };
  return archivePage(query, normalizePaging(page, perPage), (where) => ctx.db.organizer.count({ where }), () =>
    new ApiError(404, 'organizer-archive-page-not-found', 'The requested organizer archive page does not exist'),
  );
}

builder.queryFields((t) => ({
  organizer: t.prismaField({
    type: Organizer,
    args: { id: t.arg.int({ required: true }) },
    resolve: async (query, _root, { id }, ctx) =>
      assertReadable('organizer', await ctx.db.organizer.findUnique({ ...query, where: { id } }), id, ctx.viewer),
  }),
  organizerBySlug: t.prismaField({
    type: Organizer,
    args: { slug: t.arg.string({ required: true }) },
    resolve: async (query, _root, { slug }, ctx) =>
      assertReadable('organizer', await ctx.db.organizer.findUnique({ ...query, where: { slug } }), slug, ctx.viewer),
  }),
  organizers: t.field({
    type: OrganizerPage,
    args: { page: t.arg.int(), perPage: t.arg.int() },
    resolve: (_root, { page, perPage }, ctx) => organizerArchive(ctx, page, perPage),
  }),
}));
