import { builder } from './builder.js';
import { PageInfo } from './common.js';
import { ApiError } from '../domain/errors.js';
import { normalizePaging } from '../domain/paging.js';
import { TAXONOMY_PATH, type Taxonomy } from '../domain/urls.js';
import { archivePage } from '../services/archive.js';
import type { Context } from '../context.js';

// Categories and tags are one table (WordPress terms) exposed as two GraphQL types.

function termUrl(ctx: Context, term: { taxonomy: string; slug: string }): string {
  return `${ctx.urls.site}/${TAXONOMY_PATH[term.taxonomy as Taxonomy].site}/${term.slug}/`;
}

export const Category = builder.prismaObject('Term', {
  variant: 'Category',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    slug: t.exposeString('slug'),
    description: t.exposeString('description'),
    url: t.string({ resolve: (term, _args, ctx) => termUrl(ctx, term) }),
    count: t.int({
      description: 'Published events in this category',
      resolve: (term, _args, ctx) => ctx.loaders.termEventCount.load(term.id),
    }),
  }),
});

builder.prismaObjectField(Category, 'parent', (t) => t.relation('parent', { nullable: true, type: Category }));

export const Tag = builder.prismaObject('Term', {
  variant: 'Tag',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    slug: t.exposeString('slug'),
    description: t.exposeString('description'),
    url: t.string({ resolve: (term, _args, ctx) => termUrl(ctx, term) }),
    count: t.int({
      description: 'Published events with this tag',
      resolve: (term, _args, ctx) => ctx.loaders.termEventCount.load(term.id),
    }),
  }),
});

export function termArchive(
  ctx: Context,
  taxonomy: Taxonomy,
  page: number | null | undefined,
  perPage: number | null | undefined,
) {
  const query = { where: { taxonomy }, orderBy: [{ name: 'asc' as const }, { id: 'asc' as const }] };
  return archivePage(query, normalizePaging(page, perPage), (where) => ctx.db.term.count({ where }));
}

async function findTerm(ctx: Context, taxonomy: Taxonomy, id: number, query: object) {
  const term = await ctx.db.term.findFirst({ ...query, where: { id, taxonomy } });
  if (!term) throw new ApiError(404, 'term-not-found', 'The requested term does not exist');
  return term;
}

type TermArchive = Awaited<ReturnType<typeof termArchive>>;

const CategoryPage = builder.objectRef<TermArchive>('CategoryPage').implement({
  fields: (t) => ({
    items: t.prismaField({
      type: [Category],
      resolve: (query, page, _args, ctx) =>
        ctx.db.term.findMany({ ...query, where: page.where, orderBy: page.orderBy, skip: page.skip, take: page.take }),
    }),
    pageInfo: t.field({
      type: PageInfo,
      resolve: (page) => ({ ...page.paging, total: page.total, totalPages: page.totalPages }),
    }),
  }),
});

const TagPage = builder.objectRef<TermArchive>('TagPage').implement({
  fields: (t) => ({
    items: t.prismaField({
      type: [Tag],
      resolve: (query, page, _args, ctx) =>
        ctx.db.term.findMany({ ...query, where: page.where, orderBy: page.orderBy, skip: page.skip, take: page.take }),
    }),
    pageInfo: t.field({
      type: PageInfo,
      resolve: (page) => ({ ...page.paging, total: page.total, totalPages: page.totalPages }),
    }),
  }),
});

builder.queryFields((t) => ({
  category: t.prismaField({
    type: Category,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, { id }, ctx) => findTerm(ctx, 'tribe_events_cat', id, query),
  }),
  categories: t.field({
    type: CategoryPage,
    args: { page: t.arg.int(), perPage: t.arg.int() },
    resolve: (_root, { page, perPage }, ctx) => termArchive(ctx, 'tribe_events_cat', page, perPage),
  }),
  tag: t.prismaField({
    type: Tag,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, { id }, ctx) => findTerm(ctx, 'post_tag', id, query),
  }),
  tags: t.field({
    type: TagPage,
    args: { page: t.arg.int(), perPage: t.arg.int() },
    resolve: (_root, { page, perPage }, ctx) => termArchive(ctx, 'post_tag', page, perPage),
  }),
}));
