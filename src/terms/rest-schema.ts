import { builder, REST } from '../core/graphql/schema/builder.js';
import { termUrl } from './graphql.js';
import { archiveLinks } from '../core/rules/paging.js';
import { can } from '../core/rules/permissions.js';
import { TAXONOMY_PATH, type Taxonomy } from '../core/rules/urls.js';
import { type BodyTable, writingBody } from '../core/rest/body-fields.js';
import { restBodyType } from '../core/graphql/schema/rest-bodies.js';
import { CATEGORY_BODY, TAG_BODY } from './rest-body.js';
import { jsonShape } from '../core/rest/discovery/json-shapes.js';
import { TEC_TERM_LINKS, TEC_TERM_URLS, TERM_META } from './rest-doc-shapes.js';
import { RECORD_VERSION_KEY } from '../core/rest/route-table.js';
import { recordVersion } from '../core/rules/versions.js';
import { type TermArchive, type TermListFilter, termArchive, termListParams } from './term-lists.js';
import {
  CATEGORY,
  TAG,
  type TermInput,
  createTerm,
  deleteTerm,
  findTerm,
  isHierarchical,
  updateTerm,
} from './terms.js';
import { visibleTerms, writtenTerm } from './term-reads.js';
import type { Context } from '../core/context/context.js';

// Categories and tags as The Events Calendar's term endpoints return them (docs/reference.md §1.4(b)): the
// WordPress `wp/v2` term with `link` renamed `url` and TEC's `urls` appended, keys in that order.
// Single-term reads and writes also carry WordPress-style `_links` (samples 07, 08), pointing at our
// own routes; lists and the deleted term of a DELETE do not.

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

function listLinks(archive: TermArchive, taxonomy: Taxonomy, ctx: Context) {
  const base = `${ctx.urls.api}/${TAXONOMY_PATH[taxonomy].rest}/`;
  return archiveLinks(base, termListParams(archive, taxonomy), archive.paging.page, archive.totalPages);
}

const termListArgs = builder.args((t) => ({
  // The list parameters of docs/reference.md §S4.5 (tags: without `parent`), under their REST names.
  page: t.int({ description: 'The archive page to return', defaultValue: 1 }),
  per_page: t.int({
    description: 'The number of terms to return on each page (at most 50)',
    defaultValue: 10,
  }),
  search: t.string({ description: 'Limit results to those matching a string' }),
  exclude: t.intList({ description: 'Ensure result set exclude specific IDs' }),
  include: t.intList({ description: 'Limit result set to specific IDs' }),
  order: t.string({ description: 'Order sort attribute ascending or descending (asc, desc)' }),
  orderby: t.string({ description: 'Sort collection by term attribute' }),
  hide_empty: t.boolean({
    description: 'Whether to hide terms not assigned to any posts',
    defaultValue: true,
  }),
  post: t.int({ description: 'Limit result set to terms assigned to a specific post' }),
  event: t.int({
    description: 'Limit result set to terms assigned to a specific event (an alias of the "post" parameter)',
  }),
  slug: t.string({ description: 'Limit result set to terms with a specific slug' }),
}));
const parentArg = builder.args((t) => ({
  parent: t.int({ description: 'Limit result set to terms assigned to a specific parent' }),
}));

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

/** What a taxonomy's REST routes differ by; categories (hierarchical) also carry `parent`. */
interface TaxonomyRest {
  taxonomy: Taxonomy;
  /** Type and field stems: `Category`, `categories`. */
  one: string;
  plural: string;
  /** The body of a create or update. */
  body: BodyTable<TermInput>;
}

/**
 * A taxonomy's REST types (the term in lists and deletes, the single term with its version and
 * `_links`, the list envelope), its reads and its writes: categories and tags declared once.
 */
function defineTaxonomyRest({ taxonomy, one, plural, body }: TaxonomyRest) {
  const hierarchical = isHierarchical(taxonomy);
  const termType = (variant: string, single: boolean) =>
    builder.prismaObject('Term', {
      variant,
      ...REST,
      interfaces: [TecTermFields],
      fields: (t) => ({
        ...(single
          ? { [RECORD_VERSION_KEY]: t.string({ nullable: true, resolve: (term) => recordVersion(term) }) }
          : {}),
        ...(hierarchical ? { parent: t.int({ resolve: (term) => term.parentId ?? 0 }) } : {}),
        meta: t.field({ type: 'JSON', extensions: jsonShape(TERM_META), resolve: () => [] }),
        url: t.string({ resolve: (term, _a, ctx) => termUrl(ctx, term) }),
        urls: t.field({
          type: 'JSON',
          extensions: jsonShape(TEC_TERM_URLS),
          resolve: (term, _a, ctx) => termUrls(ctx, term),
        }),
        ...(single
          ? {
              _links: t.field({
                type: 'JSON',
                extensions: jsonShape(TEC_TERM_LINKS),
                resolve: (term, _a, ctx) => termLinks(ctx, term),
              }),
            }
          : {}),
      }),
    });
  const Term = termType(`Tec${one}`, false);
  const SingleTerm = termType(`TecSingle${one}`, true);

  // Envelope key order of the reference: rest_url, total, total_pages, <terms>, next?, previous?.
  const List = builder.objectRef<TermArchive>(`Tec${one}List`).implement({
    ...REST,
    fields: (t) => ({
      rest_url: t.string({ resolve: (page, _a, ctx) => listLinks(page, taxonomy, ctx).restUrl }),
      total: t.int({ resolve: (page) => page.total }),
      total_pages: t.int({ resolve: (page) => page.totalPages }),
      [plural]: t.prismaField({
        type: [Term],
        resolve: (query, page, _a, ctx) => visibleTerms(ctx, page.ids, query),
      }),
      next_rest_url: t.string({
        nullable: true,
        resolve: (page, _a, ctx) => listLinks(page, taxonomy, ctx).nextRestUrl,
      }),
      previous_rest_url: t.string({
        nullable: true,
        resolve: (page, _a, ctx) => listLinks(page, taxonomy, ctx).previousRestUrl,
      }),
    }),
  });

  const byId = builder.args((t) => ({ id: t.int({ required: true, description: 'the term ID' }) }));
  const Body = restBodyType(
    `Tec${one}Body`,
    `An event ${one.toLowerCase()} write body as WordPress sends it`,
    body,
  );
  const input = builder.args((t) => ({ input: t.field({ type: Body }) }));

  builder.queryFields((t) => ({
    [`tec${plural.charAt(0).toUpperCase()}${plural.slice(1)}`]: t.field({
      ...REST,
      type: List,
      args: { ...termListArgs, ...(hierarchical ? parentArg : {}) },
      resolve: (_root, args, ctx) => termArchive(ctx, taxonomy, filterOf(args), args.page, args.per_page),
    }),
    [`tec${one}`]: t.prismaField({
      ...REST,
      type: SingleTerm,
      args: byId,
      resolve: async (query, _root, { id }, ctx) => findTerm(ctx.db, taxonomy, id, query),
    }),
  }));

  builder.mutationFields((t) => ({
    [`tecCreate${one}`]: t.prismaField({
      ...REST,
      type: SingleTerm,
      args: input,
      resolve: (query, _root, args, ctx) =>
        writingBody(body, args.input, (fields, unreadable) =>
          createTerm(ctx, taxonomy, fields, writtenTerm(query), unreadable),
        ),
    }),
    [`tecUpdate${one}`]: t.prismaField({
      ...REST,
      type: SingleTerm,
      args: { ...byId, ...input },
      resolve: (query, _root, args, ctx) =>
        writingBody(body, args.input, (fields, unreadable) =>
          updateTerm(ctx, taxonomy, args.id, fields, writtenTerm(query), unreadable),
        ),
    }),
    [`tecDelete${one}`]: t.prismaField({
      ...REST,
      type: Term,
      args: byId,
      resolve: (query, _root, { id }, ctx) => deleteTerm(ctx, taxonomy, id, writtenTerm(query)),
    }),
  }));

  return Term;
}

export const TecCategory = defineTaxonomyRest({
  taxonomy: CATEGORY,
  one: 'Category',
  plural: 'categories',
  body: CATEGORY_BODY,
});
export const TecTag = defineTaxonomyRest({ taxonomy: TAG, one: 'Tag', plural: 'tags', body: TAG_BODY });
