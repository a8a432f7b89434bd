import { builder } from './builder.js';
import type { Context } from '../../context/context.js';
import { parseIfMatch } from '../../rules/versions.js';
import { zoneAbbreviation } from '../../rules/dates.js';
import { costValues, formatCost, type StoredCost } from '../cost.js';
import type { Paging } from '../../rules/paging.js';
import type { Event as EventRow } from '../../../generated/sqlite/client.js';

export const PostStatus = builder.enumType('PostStatus', {
  description: "A post's WordPress status: who may see it",
  values: {
    publish: { description: 'Published: visible to everyone' },
    draft: { description: 'A draft: visible only to those who may edit it' },
    pending: { description: 'Awaiting review by an editor; not public' },
    private: { description: 'Private: visible only to its author and to editors and administrators' },
    future: { description: 'Scheduled for `publishedAt`; until then visible only to those who may edit it' },
    trash: { description: 'In the trash: hidden from every read; restorable until deleted permanently' },
  } as const,
});
export type PostStatusValue = (typeof PostStatus)['$inferType'];

const CurrencyPosition = builder.enumType('CurrencyPosition', {
  description: 'Where the currency symbol goes around a price',
  values: {
    prefix: { description: 'Before the number, e.g. "$23"' },
    postfix: { description: 'After the number, e.g. "23€"' },
  } as const,
});

export const EventCost = builder.objectRef<StoredCost>('EventCost').implement({
  description: "An event's price or price range",
  fields: (t) => ({
    formatted: t.string({
      description: 'Display form, e.g. "$23" or "Free – 30$"; "" when no cost is set',
      resolve: formatCost,
    }),
    values: t.floatList({
      description: 'The prices as numbers, ascending and each once (0 is free); empty when no cost is set',
      resolve: (cost) => costValues(cost.cost).map(Number),
    }),
    currencySymbol: t.string({
      nullable: true,
      description: 'The currency symbol written with the prices, e.g. "$" or "€"; null when none is set',
      resolve: (cost) => cost.currencySymbol || null,
    }),
    currencyPosition: t.field({
      type: CurrencyPosition,
      nullable: true,
      description: 'Where the symbol goes; null when no position is set',
      resolve: (cost) =>
        cost.currencyPosition === 'postfix' ? 'postfix' : cost.currencyPosition ? 'prefix' : null,
    }),
  }),
});

/** What every page/perPage list page knows about where it stands (services' archives). */
interface Paged {
  paging: Paging;
  total: number;
  totalPages: number;
}

const PageInfo = builder.objectRef<Paged>('PageInfo').implement({
  description: 'Where a page/perPage list page stands (the REST X-WP-Total and X-WP-TotalPages)',
  fields: (t) => ({
    page: t.int({ description: 'This page number, from 1', resolve: (page) => page.paging.page }),
    perPage: t.int({ description: 'The page size asked for', resolve: (page) => page.paging.perPage }),
    total: t.exposeInt('total', { description: 'How many records match, over all pages' }),
    totalPages: t.exposeInt('totalPages', { description: 'How many pages of `perPage` records there are' }),
  }),
});

builder.globalConnectionField('totalCount', (t) =>
  t.int({
    description: 'How many records match, over all pages (counted only when asked for)',
    resolve: (connection) => connection.totalCount(),
  }),
);

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The `pageInfo` field of every list page type (events, venues, organizers, categories, tags). */
export function pageInfoField<Page extends Paged>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, Page>) {
  return t.field({
    type: PageInfo,
    description: 'The page number, size and totals',
    resolve: (page) => page,
  });
}

export const Author = builder.prismaObject('User', {
  name: 'Author',
  description: 'The user who wrote a post',
  fields: (t) => ({
    id: t.exposeInt('id', {
      description: "The user's numeric id",
      deprecationReason: 'Use `databaseId`: `id` is a global id on every Node type.',
    }),
    databaseId: t.exposeInt('id', { description: "The user's numeric id (the same as in the REST API)" }),
    name: t.string({
      description: "The user's display name (their login when no display name is set)",
      resolve: (user) => user.displayName || user.login,
    }),
  }),
});

export const Image = builder.prismaObject('Media', {
  name: 'Image',
  description: 'An image from the media library (e.g. a featured image)',
  fields: (t) => ({
    id: t.exposeInt('id', {
      description: 'The media item id',
      deprecationReason: 'Use `databaseId`: `id` is a global id on every Node type.',
    }),
    databaseId: t.exposeInt('id', { description: 'The media item id (the same as in the REST API)' }),
    url: t.exposeString('url', { description: 'The URL of the full-size image file' }),
    width: t.exposeInt('width', { nullable: true, description: 'Width in pixels; null when unknown' }),
    height: t.exposeInt('height', { nullable: true, description: 'Height in pixels; null when unknown' }),
  }),
});

export function timezoneAbbr(post: { startsAt: Date; timezone: string }): string {
  return zoneAbbreviation(post.startsAt, post.timezone);
}

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;
/** The `t` of an input type's `fields`, for helpers that declare fields shared by several inputs. */
export type InputFieldBuilder = PothosSchemaTypes.InputFieldBuilder<BuilderTypes, 'InputObject'>;

export const VERSION_DESCRIPTION =
  "This record's version: pass it as `ifMatch` to an update or delete so that it only applies while the record is unchanged (412 precondition_failed otherwise). The REST ETag of the single record starts with it.";

export const PAGE_DESCRIPTION = 'The page number, from 1 (default 1)';

export const PER_PAGE_DESCRIPTION =
  'Records per page (default 10, at most 50: larger values are lowered to 50)';

export const ID_DESCRIPTION = 'Numeric id (the same as in the REST API)';

/**
 * The extension of a field of `Event` or `EventContent` naming the event columns it shows, which its
 * cached answers then depend on alone (`core/graphql/reads.ts`); a field exposing a column says so itself.
 * A field of theirs without it may show anything of the event: every write of the event drops it.
 */
export const SHOWS_COLUMNS = 'showsColumns';

/** The extensions of a field of `Event` or `EventContent` showing these columns of the event. */
export const showing = (...columns: Array<keyof EventRow>) => ({
  [SHOWS_COLUMNS]: columns,
});

export const IF_MATCH_DESCRIPTION =
  'Applies the write only while the record is at this version (its `version` field, or the REST ETag); otherwise fails with precondition_failed (412) and changes nothing. `*` or absent: no condition.';

/** The request scope with the precondition a mutation's `ifMatch` argument names. */
export function withIfMatch<C extends Context>(ctx: C, ifMatch: string | null | undefined): C {
  return { ...ctx, ifMatch: parseIfMatch(ifMatch) };
}

type WithoutNulls<T> = { [K in keyof T]?: Exclude<T[K], null> };

/** A GraphQL input as a domain input: a null field is an absent one (left unchanged). */
export function withoutNulls<T extends object>(input: T): WithoutNulls<T> {
  return Object.fromEntries(
    Object.entries(input).filter(([, value]) => value !== null && value !== undefined),
  ) as WithoutNulls<T>;
}

/**
 * The two ways a field names its record, as data: by id (`updateEvent(id:)`) or by slug (its
 * `…BySlug` twin). A field declared once per lookup takes its name's suffix and its key from here.
 */
export const LOOKUPS = [
  { by: 'id', suffix: '' },
  { by: 'slug', suffix: 'BySlug' },
] as const;
export type Lookup = (typeof LOOKUPS)[number];
type RecordKey = { id: number } | { slug: string };

/** The required argument a lookup names its record by: `id: Int!` or `slug: String!`. */
export function lookupArgs(lookup: Lookup, description: string) {
  return lookup.by === 'id'
    ? builder.args((t) => ({ id: t.int({ required: true, description }) }))
    : builder.args((t) => ({ slug: t.string({ required: true, description }) }));
}

/** The record key a field's arguments give, by the lookup its arguments were declared with. */
export function keyOf(lookup: Lookup, args: object): RecordKey {
  const value: unknown = (args as Record<string, unknown>)[lookup.by];
  return lookup.by === 'id' ? { id: Number(value) } : { slug: String(value) };
}
