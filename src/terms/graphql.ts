import { builder } from '../core/graphql/schema/builder.js';
import { recordIdOf } from '../core/graphql/schema/global-ids.js';
import {
  ID_DESCRIPTION,
  IF_MATCH_DESCRIPTION,
  PAGE_DESCRIPTION,
  PER_PAGE_DESCRIPTION,
  pageInfoField,
  VERSION_DESCRIPTION,
  withIfMatch,
  withoutNulls,
} from '../core/graphql/schema/common.js';
import { recordVersion } from '../core/rules/versions.js';
import { TAXONOMY_PATH, type Taxonomy } from '../core/rules/urls.js';
import { type TermArchive, termArchive, termConnection } from './term-lists.js';
import { queryFromInfo } from '@pothos/plugin-prisma';
import {
  CATEGORY,
  type TermInput,
  createTerm,
  deleteTerm,
  findTerm,
  isHierarchical,
  updateTerm,
} from './terms.js';
import { categoryTree, visibleTerms, writtenTerm } from './term-reads.js';
import type { Context } from '../core/context/context.js';

// Categories and tags are one table (WordPress terms) exposed as two GraphQL types, declared once here:
// `graphql-category.ts` and `graphql-tag.ts` each call `defineTaxonomySchema` with what differs.

type CategoryTree = Map<number, { slug: string; parentId: number | null }>;
const categoryTrees = new WeakMap<Context, Promise<CategoryTree>>();

/** Every category's slug and parent, read once per request (only when a child category needs them). */
function requestCategoryTree(ctx: Context): Promise<CategoryTree> {
  let tree = categoryTrees.get(ctx);
  if (!tree) categoryTrees.set(ctx, (tree = categoryTree(ctx)));
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
    const tree = await requestCategoryTree(ctx);
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

const SortOrder = builder.enumType('SortOrder', {
  description: 'Sort direction',
  values: {
    asc: { description: 'Ascending: A to Z, smallest first' },
    desc: { description: 'Descending: Z to A, largest first' },
  } as const,
});

const TermOrderField = builder.enumType('TermOrderField', {
  description: 'What a category or tag list is sorted by',
  values: {
    id: { value: 'id', description: 'The numeric id' },
    name: { value: 'name', description: 'The name' },
    slug: { value: 'slug', description: 'The slug' },
    count: { value: 'count', description: 'Published events carrying the term' },
    termGroup: { value: 'term_group', description: 'WordPress term group (always 0: id order)' },
    description: { value: 'description', description: 'The description text' },
  } as const,
});

interface TaxonomyResource {
  taxonomy: Taxonomy;
  /** `Category`, `Categories`; `category`, `categories`. */
  one: string;
  many: string;
  label: string;
  plural: string;
  /** The object's `count`. */
  count: string;
  /** The filter's `hideEmpty`. */
  hideEmpty: string;
  /** The create input's `name`. */
  uniqueName: string;
  /** The delete mutation's. */
  deleted: string;
}

/** A category or tag input as the domain's: null leaves a field unchanged, but a null parent is the top level. */
function termInput(input: {
  name?: string | null;
  description?: string | null;
  slug?: string | null;
  parentId?: number | null;
}): TermInput {
  return { ...withoutNulls(input), parentId: input.parentId };
}

/**
 * The object type, page, filter, inputs, queries and mutations of a taxonomy. Categories are
 * hierarchical: their filter and inputs take a parent, their object a `parent` field.
 */
export function defineTaxonomySchema(resource: TaxonomyResource) {
  const { taxonomy, one, many, label, plural } = resource;
  const hierarchical = isHierarchical(taxonomy);

  const Term = builder.prismaNode('Term', {
    variant: one,
    id: { field: 'id' },
    // A Category id never finds a tag, nor the reverse.
    findUnique: (id) => ({ id: recordIdOf(id), taxonomy }),
    nullable: true,
    description: `An event ${label} (a WordPress term)`,
    fields: (t) => ({
      databaseId: t.exposeInt('id', { description: ID_DESCRIPTION }),
      version: t.string({ description: VERSION_DESCRIPTION, resolve: (term) => recordVersion(term) }),
      name: t.exposeString('name', { description: 'The display name' }),
      slug: t.exposeString('slug', { description: `The URL-friendly name, unique among ${plural}` }),
      description: t.exposeString('description', { description: 'The description ("" if none)' }),
      url: t.string({
        description: `The absolute URL of the ${label}'s event archive on the website`,
        resolve: (term, _args, ctx) => termUrl(ctx, term),
      }),
      count: t.exposeInt('eventCount', { description: resource.count }),
    }),
  });
  if (hierarchical)
    builder.prismaObjectField(Term, 'parent', (t) =>
      t.relation('parent', {
        nullable: true,
        type: Term,
        description: 'The parent category; null at the top level',
      }),
    );

  const Page = builder.objectRef<TermArchive>(`${one}Page`).implement({
    description: `One page of ${plural}`,
    fields: (t) => ({
      items: t.prismaField({
        type: [Term],
        description: `The ${plural} of this page, in the order asked for`,
        resolve: (query, page, _args, ctx) => visibleTerms(ctx, page.ids, query),
      }),
      pageInfo: pageInfoField(t),
    }),
  });

  const Filter = builder.inputType(`${one}Filter`, {
    description: `Which ${plural} to list; fields combine with AND`,
    fields: (t) => ({
      search: t.string({ description: `${many} whose name contains this text (any case)` }),
      include: t.intList({ description: `Only these ${label} ids (each must exist)` }),
      exclude: t.intList({ description: `Not these ${label} ids (each must exist)` }),
      ...(hierarchical
        ? { parent: t.int({ description: 'Children of this category; 0 for top-level categories' }) }
        : {}),
      event: t.int({ description: `${many} of this event` }),
      slug: t.string({ description: `The ${label} with this slug` }),
      hideEmpty: t.boolean({ defaultValue: true, description: resource.hideEmpty }),
    }),
  });

  const CreateInput = builder.inputType(`Create${one}Input`, {
    description: `A new ${label}`,
    fields: (t) => ({
      name: t.string({ required: true, description: resource.uniqueName }),
      description: t.string({ description: 'A description (default "")' }),
      slug: t.string({ description: `Unique among ${plural}; derived from the name when absent` }),
      ...(hierarchical
        ? { parentId: t.int({ description: 'An existing category; null or 0 for a top-level category' }) }
        : {}),
    }),
  });

  const UpdateInput = builder.inputType(`Update${one}Input`, {
    description: `Changes to a ${label}: absent or null fields stay as they are`,
    fields: (t) => ({
      name: t.string({ description: `${resource.uniqueName} (compared without case)` }),
      description: t.string({ description: 'The new description' }),
      slug: t.string({ description: `Must not be used by another ${label}` }),
      ...(hierarchical
        ? {
            parentId: t.int({
              description:
                'An existing category that is not a descendant; null or 0 moves it to the top level',
            }),
          }
        : {}),
    }),
  });

  builder.queryFields((t) => {
    const listArgs = () => ({
      filter: t.arg({ type: Filter, description: `Which ${plural}; all (non-empty by default) when absent` }),
      orderBy: t.arg({ type: TermOrderField, defaultValue: 'name', description: 'The sort key' }),
      order: t.arg({ type: SortOrder, defaultValue: 'asc', description: 'The sort direction' }),
    });
    return {
      [label]: t.prismaField({
        type: Term,
        nullable: true,
        description: `A ${label} by id; null (with an error entry saying why) when it does not exist or you may not read it`,
        args: { id: t.arg.int({ required: true, description: `The ${label} id` }) },
        resolve: (query, _root, { id }, ctx) => findTerm(ctx.db, taxonomy, id, query),
      }),
      [plural]: t.field({
        type: Page,
        description: `${many}, by name unless ordered otherwise`,
        args: {
          ...listArgs(),
          page: t.arg.int({ description: PAGE_DESCRIPTION }),
          perPage: t.arg.int({ description: PER_PAGE_DESCRIPTION }),
        },
        resolve: (_root, { filter, orderBy, order, page, perPage }, ctx) =>
          termArchive(ctx, taxonomy, { ...filter, orderby: orderBy, order }, page, perPage),
      }),
      [`${plural}Connection`]: t.connection(
        {
          type: Term,
          description: `The ${plural} of \`${plural}\` (same filters and order) as a Relay connection, paged by cursor`,
          args: listArgs(),
          resolve: (_root, { filter, orderBy, order, ...cursorArgs }, ctx, info) => {
            const query = queryFromInfo({ context: ctx, info, path: ['edges', 'node'], typeName: one });
            return termConnection(ctx, taxonomy, { ...filter, orderby: orderBy, order }, cursorArgs, query);
          },
        },
        { name: `${one}Connection`, description: `A page of ${plural} with cursors` },
        { name: `${one}Edge`, description: `A ${label} and its cursor` },
      ),
    };
  });

  builder.mutationFields((t) => ({
    [`create${one}`]: t.prismaField({
      type: Term,
      description: `Creates a ${label} (editors and administrators). Errors: rest_forbidden (401/403), rest_invalid_param or rest_missing_callback_param (400), term_exists (400) for a name in use, duplicate_term_slug (400)`,
      args: { input: t.arg({ type: CreateInput, required: true, description: `The new ${label}` }) },
      resolve: (query, _root, { input }, ctx) =>
        createTerm(ctx, taxonomy, termInput(input), writtenTerm(query)),
    }),
    [`update${one}`]: t.prismaField({
      type: Term,
      description: `Changes a ${label} (editors and administrators). Errors: rest_forbidden (401/403), term-not-found (404), rest_invalid_param (400), term_exists (400), duplicate_term_slug (400), precondition_failed (412)`,
      args: {
        id: t.arg.int({ required: true, description: `The ${label} id` }),
        input: t.arg({ type: UpdateInput, required: true, description: 'The fields to change' }),
        ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }),
      },
      resolve: (query, _root, { id, input, ifMatch }, ctx) =>
        updateTerm(withIfMatch(ctx, ifMatch), taxonomy, id, termInput(input), writtenTerm(query)),
    }),
    [`delete${one}`]: t.prismaField({
      type: Term,
      description: `${resource.deleted} (editors and administrators). Errors: rest_forbidden (401/403), term-not-found (404), precondition_failed (412)`,
      args: {
        id: t.arg.int({ required: true, description: `The ${label} id` }),
        ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }),
      },
      resolve: (query, _root, { id, ifMatch }, ctx) =>
        deleteTerm(withIfMatch(ctx, ifMatch), taxonomy, id, writtenTerm(query)),
    }),
  }));

  return Term;
}
