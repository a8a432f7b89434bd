import type { InputFieldMap } from '@pothos/core';
import type { PrismaModelTypes } from '@pothos/plugin-prisma';
import { builder } from '../core/graphql/schema/builder.js';
import {
  Author,
  ID_DESCRIPTION,
  type InputFieldBuilder,
  IF_MATCH_DESCRIPTION,
  keyOf,
  LOOKUPS,
  lookupArgs,
  PAGE_DESCRIPTION,
  PER_PAGE_DESCRIPTION,
  pageInfoField,
  PostStatus,
  type PostStatusValue,
  VERSION_DESCRIPTION,
  withIfMatch,
} from '../core/graphql/schema/common.js';
import type { Context } from '../core/context/context.js';
import { NOT_FOUND, passwordHides } from '../core/rules/visibility.js';
import { recordVersion } from '../core/rules/versions.js';
import { permalink } from '../core/rules/urls.js';
import type { Organizer as OrganizerRow, Venue as VenueRow } from '../generated/sqlite/client.js';
import { hidingMissing } from '../core/rules/permissions.js';
import type { ConnectionPage, CursorArgs } from '../core/db/queries/keyset.js';
import type { LinkedKind, LinkedListFilter } from './service/linked-lists.js';
import { linkedPageRows, readLinked, writtenLinked } from './service/linked-access.js';
import { getRefFromModel, queryFromInfo } from '@pothos/plugin-prisma';
import { type LinkedKey, type LinkedPostInput, type LinkedRow, writeLinked } from './service/linked-posts.js';
import type { Tx, WriteScope } from '../core/db/transactions.js';

// What the public schema of venues and organizers shares, declared once: the page type, the filter,
// the write inputs (the post fields around each kind's own), the queries and the mutations. Each
// resource file defines its object type and calls `defineLinkedPostSchema`.

type LinkedModel = 'Venue' | 'Organizer';
type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
type PlaceRow = VenueRow | OrganizerRow;
type PlaceModel = PrismaModelTypes & Types['PrismaTypes'][LinkedModel];

export const HIDDEN = '; "" while password-protected (unless you may edit it)';

/** A password-protected venue or organizer shows only its name and ids to those who may not edit it (D6). */
export const hides = (post: PlaceRow, ctx: Context) => passwordHides(ctx.viewer, post);

/**
 * The object fields venues and organizers share (the schema sorts fields, so each kind's own and its
 * `image`, whose Prisma selection is typed by model, are simply added beside them).
 */
export function linkedPostFields(
  t: Pick<
    PothosSchemaTypes.PrismaObjectFieldBuilder<Types, PlaceModel, PlaceRow>,
    'int' | 'string' | 'field' | 'boolean' | 'relation'
  >,
  kind: LinkedKind,
) {
  const text = (field: 'description' | 'excerpt', description: string) =>
    t.string({
      description: `${description}${HIDDEN}`,
      resolve: (post, _a, ctx) => (hides(post, ctx) ? '' : post[field]),
    });
  return {
    databaseId: t.int({ description: ID_DESCRIPTION, resolve: (post) => post.id }),
    version: t.string({ description: VERSION_DESCRIPTION, resolve: (post) => recordVersion(post) }),
    slug: t.string({
      description: `The URL-friendly name, unique among ${kind}s`,
      resolve: (post) => post.slug,
    }),
    name: t.string({ description: 'The name', resolve: (post) => post.name }),
    description: text('description', 'The description (HTML)'),
    excerpt: text('excerpt', 'A short summary (HTML)'),
    status: t.field({
      type: PostStatus,
      description: 'The post status: who may see it',
      resolve: (post) => post.status as PostStatusValue,
    }),
    url: t.string({
      description: `The absolute URL of the ${kind}'s page on the website`,
      resolve: (post, _args, ctx) => permalink(ctx.urls, kind, post),
    }),
    website: t.string({
      nullable: true,
      description: 'The website URL; null when none is set or while password-protected',
      resolve: (post, _a, ctx) => (hides(post, ctx) ? null : post.website || null),
    }),
    passwordProtected: t.boolean({
      description: 'Whether it has a password (its content is then hidden from those who may not edit it)',
      resolve: (post) => Boolean(post.password),
    }),
    author: t.relation('author', {
      nullable: true,
      type: Author,
      description: 'The user who created it; null when it has no author',
    }),
    publishedAt: t.field({
      type: 'DateTime',
      description: 'Publication date (UTC)',
      resolve: (post) => post.publishedAt,
    }),
    modifiedAt: t.field({
      type: 'DateTime',
      description: 'When it was last changed (UTC)',
      resolve: (post) => post.modifiedAt,
    }),
  };
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** What the page type needs of a list: the page's query and its paging. */
interface LinkedPage {
  where: object;
  orderBy: object;
  skip: number;
  take: number;
  paging: { page: number; perPage: number };
  total: number;
  totalPages: number;
}

/** Prisma's query of a selection (what `prismaField` resolvers pass to the client). */
type Query = object;

interface LinkedSchemaResource<Input extends LinkedPostInput, Own extends InputFieldMap> {
  kind: LinkedKind;
  model: LinkedModel;
  /** `Venue`, `Venues`; `a venue`. */
  one: string;
  many: string;
  article: string;
  search: string;
  /** The kind's own fields of the write inputs. */
  inputFields(t: InputFieldBuilder): Own;
  /** A GraphQL input as the domain input. */
  toInput(input: Record<string, unknown>): Input;
  archive(
    ctx: Context,
    filter: LinkedListFilter,
    page: number | null | undefined,
    perPage: number | null | undefined,
  ): Promise<LinkedPage>;
  /** One cursor page of the same list, its rows loaded with the selection `query`. */
  connection(
    ctx: Context,
    filter: LinkedListFilter,
    args: CursorArgs,
    query: Query,
  ): Promise<ConnectionPage<LinkedRow> & { totalCount: () => Promise<number> }>;
  create(w: WriteScope, input: Input): Promise<{ record: { id: number } }>;
  update(w: WriteScope, key: LinkedKey, input: Input): Promise<{ id: number }>;
  remove<T>(
    w: WriteScope,
    key: LinkedKey,
    force: boolean,
    load: (tx: Tx, id: number) => Promise<T>,
  ): Promise<T>;
}

export function defineLinkedPostSchema<Input extends LinkedPostInput, Own extends InputFieldMap>(
  resource: LinkedSchemaResource<Input, Own>,
) {
  const { kind, model, one, many, article } = resource;
  // The resolvers return the rows of `model`, whose object type the resource file defined.
  const type = model as 'Venue';

  const Page = builder.objectRef<LinkedPage>(`${one}Page`).implement({
    description: `One page of ${many.toLowerCase()}`,
    fields: (t) => ({
      items: t.prismaField({
        type: [type],
        description: `The ${many.toLowerCase()} of this page, newest first`,
        resolve: (query, page, _args, ctx) => linkedPageRows(ctx, kind, page, query) as never,
      }),
      pageInfo: pageInfoField(t),
    }),
  });

  const Filter = builder.inputType(`${one}Filter`, {
    description: `Which ${many.toLowerCase()} to list; fields combine with AND`,
    fields: (t) => ({
      search: t.string({ description: resource.search }),
      event: t.int({ description: `${many} of this event (it must exist)` }),
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

  const inputFields = (t: InputFieldBuilder, create: boolean) => ({
    name: t.string({ required: create, description: 'Not empty' }),
    description: t.string({ description: '"" clears it' }),
    status: t.field({
      type: PostStatus,
      description: 'Scaled back to pending (or draft) for those who may not publish',
    }),
    authorId: t.int({ description: 'An existing user; only editors may name someone else' }),
    date: t.string({ description: 'Publication date in the site time zone (any accepted date format)' }),
    dateUtc: t.string({ description: 'Publication date in UTC' }),
    ...resource.inputFields(t),
    image: t.string({
      description: 'An image media id, or an http(s) image URL (needs the upload capability); "" removes it',
    }),
  });

  const CreateInput = builder.inputType(`Create${one}Input`, {
    description: `A new ${kind}: name is required; absent fields are empty`,
    fields: (t) => inputFields(t, true),
  });
  const UpdateInput = builder.inputType(`Update${one}Input`, {
    description: 'Only the fields given change; null leaves a field unchanged',
    fields: (t) => ({
      ...inputFields(t, false),
      password: t.string({
        description: `Hides the ${kind} content from those who may not edit it; "" removes it`,
      }),
    }),
  });
  const UpdateBySlugInput = builder.inputType(`Update${one}BySlugInput`, {
    description: 'Only the fields given change; null leaves a field unchanged (the password is set by id)',
    fields: (t) => inputFields(t, false),
  });

  const input = (given: object) => resource.toInput(given as Record<string, unknown>);
  /** A write's arguments: TypeScript cannot resolve their shape over the kind's own input fields. */
  type WriteArgs = { input: object; ifMatch?: string | null };
  const writeArgs = (args: object) => args as WriteArgs;
  const read = (ctx: Context, query: Query, key: LinkedKey) => readLinked(ctx, kind, key, query);
  const reread = (query: Query) => writtenLinked(kind, query) as (tx: Tx, id: number) => Promise<never>;
  const nullWhenUnseen = `; null (with an error entry saying why) when it does not exist or you may not read it`;

  builder.queryFields((t) => ({
    ...Object.fromEntries(
      LOOKUPS.map((lookup) => [
        `${kind}${lookup.suffix}`,
        t.prismaField({
          type,
          nullable: true,
          description: `${capital(article)} by ${lookup.by}${nullWhenUnseen}`,
          args: lookupArgs(lookup, `The ${kind} ${lookup.by}`),
          resolve: (query, _root, args, ctx) => read(ctx, query, keyOf(lookup, args)) as never,
        }),
      ]),
    ),
    [`${kind}s`]: t.field({
      type: Page,
      description: `${many}, newest first`,
      args: {
        filter: t.arg({
          type: Filter,
          description: `Which ${many.toLowerCase()}; when absent, every one you may list (only published ones for readers who may not edit)`,
        }),
        page: t.arg.int({ description: PAGE_DESCRIPTION }),
        perPage: t.arg.int({ description: PER_PAGE_DESCRIPTION }),
      },
      resolve: (_root, { filter, page, perPage }, ctx) => resource.archive(ctx, filter ?? {}, page, perPage),
    }),
    [`${kind}sConnection`]: t.connection(
      {
        type: getRefFromModel(model, builder),
        description: `The ${many.toLowerCase()} of \`${kind}s\` (same filters, order and visibility) as a Relay connection, paged by cursor`,
        args: {
          filter: t.arg({
            type: Filter,
            description: `Which ${many.toLowerCase()}; every one you may list when absent`,
          }),
        },
        resolve: (_root, { filter, ...cursorArgs }, ctx, info) =>
          resource.connection(
            ctx,
            filter ?? {},
            cursorArgs,
            queryFromInfo({ context: ctx, info, path: ['edges', 'node'], typeName: model }),
          ) as never,
      },
      { name: `${one}Connection`, description: `A page of ${many.toLowerCase()} with cursors` },
      { name: `${one}Edge`, description: `${capital(article)} and its cursor` },
    ),
  }));

  const missingCode = NOT_FOUND[kind](0).code;
  /**
   * A write on the record an id or slug names (D22): an unknown one is told (404, D1) only to a caller
   * who may act on every record of the kind; anyone else gets the refusal an existing one gets.
   */
  const onNamed = <T>(ctx: Context, action: 'edit' | 'delete', run: () => Promise<T>) =>
    hidingMissing(ctx.viewer, action, missingCode, run);

  const ifMatch = builder.args((t) => ({ ifMatch: t.string({ description: IF_MATCH_DESCRIPTION }) }));
  const force = builder.args((t) => ({
    force: t.boolean({ defaultValue: false, description: 'true: delete for good instead of trashing' }),
  }));

  builder.mutationFields((t) => ({
    [`create${one}`]: t.prismaField({
      type,
      description: `Creates ${article}, or returns the existing one with the same name (and description, when given). Errors: rest_forbidden (401/403), rest_invalid_param or rest_missing_callback_param (400) naming the input fields`,
      args: { input: t.arg({ type: CreateInput, required: true, description: `The new ${kind}` }) },
      resolve: (query, _root, args, ctx) =>
        writeLinked(ctx, kind, async (w) =>
          reread(query)(w.tx, (await resource.create(w, input(writeArgs(args).input))).record.id),
        ),
    }),
    ...Object.fromEntries(
      LOOKUPS.map((lookup) => [
        `update${one}${lookup.suffix}`,
        t.prismaField({
          type,
          description:
            lookup.by === 'id'
              ? `Changes ${article} (its author, or editors). Errors: ${kind}-not-found (404, told only to editors), rest_forbidden (401/403), rest_invalid_param (400), precondition_failed (412)`
              : `As update${one}, by slug (the password cannot be set this way)`,
          args: {
            ...lookupArgs(lookup, `The ${kind} ${lookup.by}`),
            input: t.arg({
              // By slug, the input has no password.
              type: lookup.by === 'id' ? UpdateInput : UpdateBySlugInput,
              required: true,
              description: 'The fields to change',
            }),
            ...ifMatch,
          },
          resolve: (query, _root, args, ctx) => {
            const { input: given, ifMatch } = writeArgs(args);
            return onNamed(ctx, 'edit', () =>
              writeLinked(withIfMatch(ctx, ifMatch), kind, async (w) => {
                const { id } = await resource.update(w, keyOf(lookup, args), input(given));
                return reread(query)(w.tx, id);
              }),
            );
          },
        }),
      ]),
    ),
    ...Object.fromEntries(
      LOOKUPS.map((lookup) => [
        `delete${one}${lookup.suffix}`,
        t.prismaField({
          type,
          description:
            lookup.by === 'id'
              ? `Moves the ${kind} to the trash (unlinking it from its events); force: deletes it for good (editors). Errors: ${kind}-not-found (404, told only to editors), rest_forbidden (401/403), precondition_failed (412)`
              : `As delete${one}, by slug`,
          args: { ...lookupArgs(lookup, `The ${kind} ${lookup.by}`), ...force, ...ifMatch },
          resolve: (query, _root, args, ctx) =>
            onNamed(ctx, 'delete', () =>
              writeLinked(withIfMatch(ctx, args.ifMatch), kind, (w) =>
                resource.remove(w, keyOf(lookup, args), args.force ?? false, reread(query)),
              ),
            ),
        }),
      ]),
    ),
  }));

  return { CreateInput };
}
