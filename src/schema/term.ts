import { builder } from './builder.js';
import { IF_MATCH_DESCRIPTION, PageInfo, VERSION_DESCRIPTION, withIfMatch } from './common.js';
import { recordVersion } from '../domain/versions.js';
import { normalizePaging } from '../domain/paging.js';
import { TAXONOMY_PATH, type Taxonomy } from '../domain/urls.js';
import {
  CATEGORY,
  TAG,
  type TermListFilter,
  createTerm,
  deleteTerm,
  findTerm,
  listTerms,
  updateTerm,
} from '../services/terms.js';
import type { Context } from '../context.js';

// Categories and tags are one table (WordPress terms) exposed as two GraphQL types.

type CategoryTree = Map<number, { slug: string; parentId: number | null }>;
const categoryTrees = new WeakMap<Context, Promise<CategoryTree>>();

/** Every category's slug and parent, read once per request (only when a child category needs them). */
function categoryTree(ctx: Context): Promise<CategoryTree> {
  let tree = categoryTrees.get(ctx);
  if (!tree) {
    tree = ctx.db.term
      .findMany({ where: { taxonomy: CATEGORY }, select: { id: true, slug: true, parentId: true } })
      .then((rows) => new Map(rows.map((row) => [row.id, { slug: row.slug, parentId: row.parentId }])));
    categoryTrees.set(ctx, tree);
  }
  return tree;
}

/**
 * The term's front-end archive: `<site>/tag/<slug>/`, `<site>/events/category/<slug>/`, where a
 * child category nests its ancestors' slugs, root first (`…/category/<parent>/<child>/`).
 */
export async function termUrl(
  ctx: Context,
  term: { taxonomy: string; slug: string; parentId: number | null },
): Promise<string> {
  const slugs = [term.slug];
  if (term.taxonomy === CATEGORY && term.parentId !== null) {
    const tree = await categoryTree(ctx);
    const seen = new Set<number>();
    // Up to the root; a cycle in bad data ends the walk.
    for (let parentId: number | null = term.parentId; parentId !== null && !seen.has(parentId);) {
      seen.add(parentId);
      const parent = tree.get(parentId);
      if (!parent) break;
      slugs.unshift(parent.slug);
      parentId = parent.parentId;
    }
  }
  return `${ctx.urls.site}/${TAXONOMY_PATH[term.taxonomy as Taxonomy].site}/${slugs.join('/')}/`;
}

export const Category = builder.prismaObject('Term', {
  variant: 'Category',
  fields: (t) => ({
    id: t.exposeInt('id'),
    version: t.string({ description: VERSION_DESCRIPTION, resolve: (term) => recordVersion(term) }),
    name: t.exposeString('name'),
    slug: t.exposeString('slug'),
    description: t.exposeString('description'),
    url: t.string({ resolve: (term, _args, ctx) => termUrl(ctx, term) }),
    count: t.exposeInt('eventCount', { description: 'Published events in this category' }),
  }),
});

builder.prismaObjectField(Category, 'parent', (t) =>
  t.relation('parent', { nullable: true, type: Category }),
);

export const Tag = builder.prismaObject('Term', {
  variant: 'Tag',
  fields: (t) => ({
    id: t.exposeInt('id'),
    version: t.string({ description: VERSION_DESCRIPTION, resolve: (term) => recordVersion(term) }),
    name: t.exposeString('name'),
    slug: t.exposeString('slug'),
    description: t.exposeString('description'),
    url: t.string({ resolve: (term, _args, ctx) => termUrl(ctx, term) }),
    count: t.exposeInt('eventCount', { description: 'Published events with this tag' }),
  }),
});

/** One page of categories or tags for either API. */
export function termArchive(
  ctx: Context,
  taxonomy: Taxonomy,
  filter: TermListFilter,
  page: number | null | undefined,
  perPage: number | null | undefined,
) {
  return listTerms(ctx, taxonomy, filter, normalizePaging(page, perPage));
}

export type TermArchive = Awaited<ReturnType<typeof termArchive>>;

/** The page's terms in list order, loaded with the selection GraphQL asks for. */
export async function termsOfPage<T extends { id: number }>(
  archive: TermArchive,
  load: (ids: number[]) => Promise<T[]>,
): Promise<T[]> {
  if (!archive.ids.length) return [];
  const byId = new Map((await load(archive.ids)).map((term) => [term.id, term]));
  return archive.ids.flatMap((id) => byId.get(id) ?? []);
}

const CategoryPage = builder.objectRef<TermArchive>('CategoryPage').implement({
  fields: (t) => ({
    items: t.prismaField({
      type: [Category],
      resolve: (query, page, _args, ctx) =>
        termsOfPage(page, (ids) => ctx.db.term.findMany({ ...query, where: { id: { in: ids } } })),
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
        termsOfPage(page, (ids) => ctx.db.term.findMany({ ...query, where: { id: { in: ids } } })),
    }),
    pageInfo: t.field({
      type: PageInfo,
      resolve: (page) => ({ ...page.paging, total: page.total, totalPages: page.totalPages }),
    }),
  }),
});

export const SortOrder = builder.enumType('SortOrder', { values: ['asc', 'desc'] as const });

export const TermOrderField = builder.enumType('TermOrderField', {
  values: {
    id: { value: 'id' },
    name: { value: 'name' },
    slug: { value: 'slug' },
    count: { value: 'count', description: 'Published events carrying the term' },
    termGroup: { value: 'term_group', description: 'WordPress term group (always 0: id order)' },
    description: { value: 'description' },
  } as const,
});

const CategoryFilter = builder.inputType('CategoryFilter', {
  fields: (t) => ({
    search: t.string({ description: 'Categories whose name contains this text (any case)' }),
    include: t.intList({ description: 'Only these category ids (each must exist)' }),
    exclude: t.intList({ description: 'Not these category ids (each must exist)' }),
    parent: t.int({ description: 'Children of this category; 0 for top-level categories' }),
    event: t.int({ description: 'Categories of this event' }),
    slug: t.string({ description: 'The category with this slug' }),
    hideEmpty: t.boolean({
      defaultValue: true,
      description: 'Hide categories without published events (and without descendants that have some)',
    }),
  }),
});

const TagFilter = builder.inputType('TagFilter', {
  fields: (t) => ({
    search: t.string({ description: 'Tags whose name contains this text (any case)' }),
    include: t.intList({ description: 'Only these tag ids (each must exist)' }),
    exclude: t.intList({ description: 'Not these tag ids (each must exist)' }),
    event: t.int({ description: 'Tags of this event' }),
    slug: t.string({ description: 'The tag with this slug' }),
    hideEmpty: t.boolean({ defaultValue: true, description: 'Hide tags without published events' }),
  }),
});

const CreateCategoryInput = builder.inputType('CreateCategoryInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique among the categories of the same parent' }),
    description: t.string(),
    slug: t.string({ description: 'Unique among categories; derived from the name when absent' }),
    parentId: t.int({ description: 'An existing category; null or 0 for a top-level category' }),
  }),
});

const UpdateCategoryInput = builder.inputType('UpdateCategoryInput', {
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    slug: t.string({ description: 'Must not be used by another category' }),
    parentId: t.int({
      description: 'An existing category that is not a descendant; null or 0 moves it to the top level',
    }),
  }),
});

const CreateTagInput = builder.inputType('CreateTagInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique among tags' }),
    description: t.string(),
    slug: t.string({ description: 'Unique among tags; derived from the name when absent' }),
  }),
});

const UpdateTagInput = builder.inputType('UpdateTagInput', {
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    slug: t.string({ description: 'Must not be used by another tag' }),
  }),
});

/** GraphQL input → the flat body the REST routes receive (one validation for both APIs). */
function termBody(input: {
  name?: string | null;
  description?: string | null;
  slug?: string | null;
  parentId?: number | null;
}) {
  return { name: input.name, description: input.description, slug: input.slug, parent: input.parentId };
}

builder.queryFields((t) => ({
  category: t.prismaField({
    type: Category,
    nullable: true,
    description:
      'A category by id; null (with an error entry saying why) when it does not exist or you may not read it',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, { id }, ctx) => findTerm(ctx.db, CATEGORY, id, query),
  }),
  categories: t.field({
    type: CategoryPage,
    description: 'Categories, by name unless ordered otherwise',
    args: {
      filter: t.arg({ type: CategoryFilter }),
      orderBy: t.arg({ type: TermOrderField, defaultValue: 'name' }),
      order: t.arg({ type: SortOrder, defaultValue: 'asc' }),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, { filter, orderBy, order, page, perPage }, ctx) =>
      termArchive(ctx, CATEGORY, { ...filter, orderby: orderBy, order }, page, perPage),
  }),
  tag: t.prismaField({
    type: Tag,
    nullable: true,
    description:
      'A tag by id; null (with an error entry saying why) when it does not exist or you may not read it',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, { id }, ctx) => findTerm(ctx.db, TAG, id, query),
  }),
  tags: t.field({
    type: TagPage,
    description: 'Tags, by name unless ordered otherwise',
    args: {
      filter: t.arg({ type: TagFilter }),
      orderBy: t.arg({ type: TermOrderField, defaultValue: 'name' }),
      order: t.arg({ type: SortOrder, defaultValue: 'asc' }),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, { filter, orderBy, order, page, perPage }, ctx) =>
      termArchive(ctx, TAG, { ...filter, orderby: orderBy, order }, page, perPage),
  }),
}));

builder.mutationFields((t) => ({
  createCategory: t.prismaField({
    type: Category,
    description: 'Editors and administrators',
    args: { input: t.arg({ type: CreateCategoryInput, required: true }) },
    resolve: (query, _root, { input }, ctx) =>
      createTerm(ctx, CATEGORY, termBody(input), (tx, id) =>
        tx.term.findUniqueOrThrow({ ...query, where: { id } }),
      ),
  }),
  updateCategory: t.prismaField({
    type: Category,
    description: 'Editors and administrators',
    args: {
      id: t.arg.int({ required: true }),
      input: t.arg({ type: UpdateCategoryInput, required: true }),
      ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }),
    },
    resolve: (query, _root, { id, input, ifMatch }, ctx) =>
      updateTerm(withIfMatch(ctx, ifMatch), CATEGORY, id, termBody(input), (tx, termId) =>
        tx.term.findUniqueOrThrow({ ...query, where: { id: termId } }),
      ),
  }),
  deleteCategory: t.prismaField({
    type: Category,
    description: 'Deletes for good and returns the category as it was; its children move up to its parent',
    args: { id: t.arg.int({ required: true }), ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }) },
    resolve: (query, _root, { id, ifMatch }, ctx) =>
      deleteTerm(withIfMatch(ctx, ifMatch), CATEGORY, id, (tx, termId) =>
        tx.term.findUniqueOrThrow({ ...query, where: { id: termId } }),
      ),
  }),
  createTag: t.prismaField({
    type: Tag,
    description: 'Editors and administrators',
    args: { input: t.arg({ type: CreateTagInput, required: true }) },
    resolve: (query, _root, { input }, ctx) =>
      createTerm(ctx, TAG, termBody(input), (tx, id) =>
        tx.term.findUniqueOrThrow({ ...query, where: { id } }),
      ),
  }),
  updateTag: t.prismaField({
    type: Tag,
    description: 'Editors and administrators',
    args: {
      id: t.arg.int({ required: true }),
      input: t.arg({ type: UpdateTagInput, required: true }),
      ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }),
    },
    resolve: (query, _root, { id, input, ifMatch }, ctx) =>
      updateTerm(withIfMatch(ctx, ifMatch), TAG, id, termBody(input), (tx, termId) =>
        tx.term.findUniqueOrThrow({ ...query, where: { id: termId } }),
      ),
  }),
  deleteTag: t.prismaField({
    type: Tag,
    description: 'Deletes for good and returns the tag as it was',
    args: { id: t.arg.int({ required: true }), ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }) },
    resolve: (query, _root, { id, ifMatch }, ctx) =>
      deleteTerm(withIfMatch(ctx, ifMatch), TAG, id, (tx, termId) =>
        tx.term.findUniqueOrThrow({ ...query, where: { id: termId } }),
      ),
  }),
}));
