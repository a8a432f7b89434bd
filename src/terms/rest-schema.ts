import { type SubGraph, builder } from '../core/graphql/schema/builder.js';
import { termUrl } from './graphql.js';
import { archiveLinks } from '../core/rules/paging.js';
import { can } from '../core/rules/permissions.js';
import { TAXONOMY_PATH, type Taxonomy } from '../core/rules/urls.js';
import { type BodyTable, paramNames } from '../core/rest/body-fields.js';
import { namingParams } from '../core/rest/param-names.js';
import { CATEGORY_BODY, TAG_BODY, readTermBody } from './rest-body.js';
import { SHAPES, jsonShape } from '../core/rest/discovery/tec-schemas.js';
import { RECORD_VERSION_KEY } from '../core/rest/route-table.js';
import { recordVersion } from '../core/rules/versions.js';
import {
  type TermArchive,
  type TermListFilter,
  termArchive,
  termListParams,
  termsOfPage,
} from './term-lists.js';
import { CATEGORY, TAG, type TermInput, createTerm, deleteTerm, findTerm, updateTerm } from './terms.js';
import { writtenTerm } from './term-reads.js';
import type { Context } from '../core/context/context.js';

// Categories and tags as The Events Calendar's term endpoints return them (docs/reference.md §1.4(b)): the
// WordPress `wp/v2` term with `link` renamed `url` and TEC's `urls` appended, keys in that order.
// Single-term reads and writes also carry WordPress-style `_links` (samples 07, 08), pointing at our
// own routes; lists and the deleted term of a DELETE do not.

const REST: { subGraphs: SubGraph[] } = { subGraphs: ['rest'] };

interface TermRecord {
  id: number;
  taxonomy: string;
  slug: string;
  parentId: number | null;
}

function collectionUrl(ctx: Context, term: { taxonomy: string }): string {
  return `${ctx.urls.api}/${TAXONOMY_PATH[term.taxonomy as Taxonomy].rest}`;
}

function termUrls(ctx: Context, term: TermRecord) {
  const collection = collectionUrl(ctx, term);
  return {
    self: `${collection}/${term.id}`,
    collection,
    ...(term.parentId ? { up: `${collection}/${term.parentId}` } : {}),
  };
}

const WRITE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function termLinks(ctx: Context, term: TermRecord) {
  const { rest } = TAXONOMY_PATH[term.taxonomy as Taxonomy];
  return {
    self: [
      {
        href: `${ctx.urls.api}/${rest}/${term.id}`,
        targetHints: { allow: can(ctx.viewer, 'manage_terms') ? WRITE_METHODS : ['GET'] },
      },
    ],
    collection: [{ href: `${ctx.urls.api}/${rest}` }],
    about: [{ href: `${ctx.urls.api}/doc` }],
    ...(term.parentId
      ? { up: [{ href: `${ctx.urls.api}/${rest}/${term.parentId}`, embeddable: true }] }
      : {}),
    'wp:post_type': [{ href: `${ctx.urls.api}/events?${rest}=${term.id}` }],
    curies: [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }],
  };
}

/** The keys every category and tag starts with. */
const TecTermFields = builder.prismaInterface('Term', {
  variant: 'TecTermFields',
  ...REST,
  fields: (t) => ({
    id: t.exposeInt('id'),
    count: t.exposeInt('eventCount'),
    description: t.exposeString('description'),
    name: t.exposeString('name'),
    slug: t.exposeString('slug'),
    taxonomy: t.exposeString('taxonomy'),
  }),
});

export const TecCategory = builder.prismaObject('Term', {
  variant: 'TecCategory',
  ...REST,
  interfaces: [TecTermFields],
  fields: (t) => ({
    parent: t.int({ resolve: (term) => term.parentId ?? 0 }),
    meta: t.field({ type: 'JSON', extensions: jsonShape(SHAPES.termMeta), resolve: () => [] }),
    url: t.string({ resolve: (term, _a, ctx) => termUrl(ctx, term) }),
    urls: t.field({
      type: 'JSON',
      extensions: jsonShape('TecTermUrls'),
      resolve: (term, _a, ctx) => termUrls(ctx, term),
    }),
  }),
});

const TecSingleCategory = builder.prismaObject('Term', {
  variant: 'TecSingleCategory',
  ...REST,
  interfaces: [TecTermFields],
  fields: (t) => ({
    [RECORD_VERSION_KEY]: t.string({ nullable: true, resolve: (term) => recordVersion(term) }),
    parent: t.int({ resolve: (term) => term.parentId ?? 0 }),
    meta: t.field({ type: 'JSON', extensions: jsonShape(SHAPES.termMeta), resolve: () => [] }),
    url: t.string({ resolve: (term, _a, ctx) => termUrl(ctx, term) }),
    urls: t.field({
      type: 'JSON',
      extensions: jsonShape('TecTermUrls'),
      resolve: (term, _a, ctx) => termUrls(ctx, term),
    }),
    _links: t.field({
      type: 'JSON',
      extensions: jsonShape('TecTermLinks'),
      resolve: (term, _a, ctx) => termLinks(ctx, term),
    }),
  }),
});

export const TecTag = builder.prismaObject('Term', {
  variant: 'TecTag',
  ...REST,
  interfaces: [TecTermFields],
  fields: (t) => ({
    meta: t.field({ type: 'JSON', extensions: jsonShape(SHAPES.termMeta), resolve: () => [] }),
    url: t.string({ resolve: (term, _a, ctx) => termUrl(ctx, term) }),
    urls: t.field({
      type: 'JSON',
      extensions: jsonShape('TecTermUrls'),
      resolve: (term, _a, ctx) => termUrls(ctx, term),
    }),
  }),
});

const TecSingleTag = builder.prismaObject('Term', {
  variant: 'TecSingleTag',
  ...REST,
  interfaces: [TecTermFields],
  fields: (t) => ({
    [RECORD_VERSION_KEY]: t.string({ nullable: true, resolve: (term) => recordVersion(term) }),
    meta: t.field({ type: 'JSON', extensions: jsonShape(SHAPES.termMeta), resolve: () => [] }),
    url: t.string({ resolve: (term, _a, ctx) => termUrl(ctx, term) }),
    urls: t.field({
      type: 'JSON',
      extensions: jsonShape('TecTermUrls'),
      resolve: (term, _a, ctx) => termUrls(ctx, term),
    }),
    _links: t.field({
      type: 'JSON',
      extensions: jsonShape('TecTermLinks'),
      resolve: (term, _a, ctx) => termLinks(ctx, term),
    }),
  }),
});

function listLinks(archive: TermArchive, taxonomy: Taxonomy, ctx: Context) {
  const base = `${ctx.urls.api}/${TAXONOMY_PATH[taxonomy].rest}/`;
  return archiveLinks(base, termListParams(archive, taxonomy), archive.paging.page, archive.totalPages);
}

// Envelope key order of the reference: rest_url, total, total_pages, <terms>, next?, previous?.
const TecCategoryList = builder.objectRef<TermArchive>('TecCategoryList').implement({
  ...REST,
  fields: (t) => ({
    rest_url: t.string({ resolve: (page, _a, ctx) => listLinks(page, CATEGORY, ctx).restUrl }),
    total: t.int({ resolve: (page) => page.total }),
    total_pages: t.int({ resolve: (page) => page.totalPages }),
    categories: t.prismaField({
      type: [TecCategory],
      resolve: (query, page, _a, ctx) => termsOfPage(ctx, page, query),
    }),
    next_rest_url: t.string({
      nullable: true,
      resolve: (page, _a, ctx) => listLinks(page, CATEGORY, ctx).nextRestUrl,
    }),
    previous_rest_url: t.string({
      nullable: true,
      resolve: (page, _a, ctx) => listLinks(page, CATEGORY, ctx).previousRestUrl,
    }),
  }),
});

const TecTagList = builder.objectRef<TermArchive>('TecTagList').implement({
  ...REST,
  fields: (t) => ({
    rest_url: t.string({ resolve: (page, _a, ctx) => listLinks(page, TAG, ctx).restUrl }),
    total: t.int({ resolve: (page) => page.total }),
    total_pages: t.int({ resolve: (page) => page.totalPages }),
    tags: t.prismaField({
      type: [TecTag],
      resolve: (query, page, _a, ctx) => termsOfPage(ctx, page, query),
    }),
    next_rest_url: t.string({
      nullable: true,
      resolve: (page, _a, ctx) => listLinks(page, TAG, ctx).nextRestUrl,
    }),
    previous_rest_url: t.string({
      nullable: true,
      resolve: (page, _a, ctx) => listLinks(page, TAG, ctx).previousRestUrl,
    }),
  }),
});

interface RestListArgs {
  search?: string | null;
  include?: number[] | null;
  exclude?: number[] | null;
  order?: string | null;
  orderby?: string | null;
  hide_empty?: boolean | null;
  parent?: number | null;
  post?: number | null;
  event?: number | null;
  slug?: string | null;
}

builder.queryFields((t) => {
  // The list parameters of docs/reference.md §S4.5 (tags: without `parent`), under their REST names.
  const listArgs = {
    page: t.arg.int({ description: 'The archive page to return', defaultValue: 1 }),
    per_page: t.arg.int({
      description: 'The number of terms to return on each page (at most 50)',
      defaultValue: 10,
    }),
    search: t.arg.string({ description: 'Limit results to those matching a string' }),
    exclude: t.arg.intList({ description: 'Ensure result set exclude specific IDs' }),
    include: t.arg.intList({ description: 'Limit result set to specific IDs' }),
    order: t.arg.string({ description: 'Order sort attribute ascending or descending (asc, desc)' }),
    orderby: t.arg.string({ description: 'Sort collection by term attribute' }),
    hide_empty: t.arg.boolean({
      description: 'Whether to hide terms not assigned to any posts',
      defaultValue: true,
    }),
    post: t.arg.int({ description: 'Limit result set to terms assigned to a specific post' }),
    event: t.arg.int({
      description:
        'Limit result set to terms assigned to a specific event (an alias of the "post" parameter)',
    }),
    slug: t.arg.string({ description: 'Limit result set to terms with a specific slug' }),
  };
  const filterOf = (args: RestListArgs): TermListFilter => ({
    search: args.search,
    include: args.include,
    exclude: args.exclude,
    order: args.order,
    orderby: args.orderby,
    hideEmpty: args.hide_empty,
    parent: args.parent,
    post: args.post,
    event: args.event,
    slug: args.slug,
  });
  return {
    tecCategories: t.field({
      ...REST,
      type: TecCategoryList,
      args: {
        ...listArgs,
        parent: t.arg.int({ description: 'Limit result set to terms assigned to a specific parent' }),
      },
      resolve: (_root, args, ctx) => termArchive(ctx, CATEGORY, filterOf(args), args.page, args.per_page),
    }),
    tecCategory: t.prismaField({
      ...REST,
      type: TecSingleCategory,
      args: { id: t.arg.int({ required: true, description: 'the term ID' }) },
      resolve: async (query, _root, { id }, ctx) => findTerm(ctx.db, CATEGORY, id, query),
    }),
    tecTags: t.field({
      ...REST,
      type: TecTagList,
      args: listArgs,
      resolve: (_root, args, ctx) => termArchive(ctx, TAG, filterOf(args), args.page, args.per_page),
    }),
    tecTag: t.prismaField({
      ...REST,
      type: TecSingleTag,
      args: { id: t.arg.int({ required: true, description: 'the term ID' }) },
      resolve: async (query, _root, { id }, ctx) => findTerm(ctx.db, TAG, id, query),
    }),
  };
});

/** The body of each taxonomy, and the one that reads it. */
const BODY: Record<Taxonomy, BodyTable<TermInput>> = { tribe_events_cat: CATEGORY_BODY, post_tag: TAG_BODY };

/** A create or update from a REST body, the service's errors under REST names. */
function writeTerm<T>(
  taxonomy: Taxonomy,
  body: unknown,
  run: (input: TermInput, unreadable: readonly string[]) => Promise<T>,
): Promise<T> {
  const table = BODY[taxonomy];
  const { input, unreadable } = readTermBody(table, body);
  return namingParams(paramNames(table), () => run(input, unreadable));
}

builder.mutationFields((t) => ({
  tecCreateCategory: t.prismaField({
    ...REST,
    type: TecSingleCategory,
    args: { input: t.arg({ type: 'JSON' }) },
    resolve: (query, _root, { input }, ctx) =>
      writeTerm(CATEGORY, input, (fields, unreadable) =>
        createTerm(ctx, CATEGORY, fields, writtenTerm(query), unreadable),
      ),
  }),
  tecUpdateCategory: t.prismaField({
    ...REST,
    type: TecSingleCategory,
    args: { id: t.arg.int({ required: true, description: 'the term ID' }), input: t.arg({ type: 'JSON' }) },
    resolve: (query, _root, { id, input }, ctx) =>
      writeTerm(CATEGORY, input, (fields, unreadable) =>
        updateTerm(ctx, CATEGORY, id, fields, writtenTerm(query), unreadable),
      ),
  }),
  tecDeleteCategory: t.prismaField({
    ...REST,
    type: TecCategory,
    args: { id: t.arg.int({ required: true, description: 'the term ID' }) },
    resolve: (query, _root, { id }, ctx) => deleteTerm(ctx, CATEGORY, id, writtenTerm(query)),
  }),
  tecCreateTag: t.prismaField({
    ...REST,
    type: TecSingleTag,
    args: { input: t.arg({ type: 'JSON' }) },
    resolve: (query, _root, { input }, ctx) =>
      writeTerm(TAG, input, (fields, unreadable) =>
        createTerm(ctx, TAG, fields, writtenTerm(query), unreadable),
      ),
  }),
  tecUpdateTag: t.prismaField({
    ...REST,
    type: TecSingleTag,
    args: { id: t.arg.int({ required: true, description: 'the term ID' }), input: t.arg({ type: 'JSON' }) },
    resolve: (query, _root, { id, input }, ctx) =>
      writeTerm(TAG, input, (fields, unreadable) =>
        updateTerm(ctx, TAG, id, fields, writtenTerm(query), unreadable),
      ),
  }),
  tecDeleteTag: t.prismaField({
    ...REST,
    type: TecTag,
    args: { id: t.arg.int({ required: true, description: 'the term ID' }) },
    resolve: (query, _root, { id }, ctx) => deleteTerm(ctx, TAG, id, writtenTerm(query)),
  }),
}));
