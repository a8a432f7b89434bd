import { builder } from './builder.js';
import type { Context } from '../context.js';
import { parseIfMatch, recordVersion, type VersionedRow } from '../domain/versions.js';
import { zoneAbbreviation } from '../domain/dates.js';
import { costValues, formatCost, type StoredCost } from '../domain/cost.js';

export const PostStatus = builder.enumType('PostStatus', {
  values: ['publish', 'draft', 'pending', 'private', 'future', 'trash'] as const,
});
export type PostStatusValue = (typeof PostStatus)['$inferType'];

export const CurrencyPosition = builder.enumType('CurrencyPosition', {
  values: ['prefix', 'postfix'] as const,
});

export const EventCost = builder.objectRef<StoredCost>('EventCost').implement({
  fields: (t) => ({
    formatted: t.string({ description: 'Display form, e.g. "$23" or "Free – 30$"', resolve: formatCost }),
    values: t.floatList({ resolve: (cost) => costValues(cost.cost).map(Number) }),
    currencySymbol: t.string({ nullable: true, resolve: (cost) => cost.currencySymbol || null }),
    currencyPosition: t.field({
      type: CurrencyPosition,
      nullable: true,
      resolve: (cost) =>
        cost.currencyPosition === 'postfix' ? 'postfix' : cost.currencyPosition ? 'prefix' : null,
    }),
  }),
});

export const PageInfo = builder
  .objectRef<{ page: number; perPage: number; total: number; totalPages: number }>('PageInfo')
  .implement({
    fields: (t) => ({
      page: t.exposeInt('page'),
      perPage: t.exposeInt('perPage'),
      total: t.exposeInt('total'),
      totalPages: t.exposeInt('totalPages'),
    }),
  });

export const Author = builder.prismaObject('User', {
  name: 'Author',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.string({ resolve: (user) => user.displayName || user.login }),
  }),
});

export const Image = builder.prismaObject('Media', {
  name: 'Image',
  fields: (t) => ({
    id: t.exposeInt('id'),
    url: t.exposeString('url'),
    width: t.exposeInt('width', { nullable: true }),
    height: t.exposeInt('height', { nullable: true }),
  }),
});

export function timezoneAbbr(post: { startsAt: Date; timezone: string }): string {
  return zoneAbbreviation(post.startsAt, post.timezone);
}

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;
/** The `t` of an input type's `fields`, for helpers that declare fields shared by several inputs. */
export type InputFieldBuilder = PothosSchemaTypes.InputFieldBuilder<BuilderTypes, 'InputObject'>;

/**
 * A single-record read notes the record's version: the REST adapter starts the entity tag with it, so
 * that `If-Match` can compare the record (not the bytes) when an editor writes it back.
 */
export function noteVersion<R extends VersionedRow>(ctx: Context, row: R): R {
  ctx.readVersion = recordVersion(row);
  return row;
}

export const VERSION_DESCRIPTION =
  "This record's version: pass it as `ifMatch` to an update or delete so that it only applies while the record is unchanged (412 precondition_failed otherwise). The REST ETag of the single record starts with it.";

export const IF_MATCH_DESCRIPTION =
  'Applies the write only while the record is at this version (its `version` field, or the REST ETag); otherwise fails with precondition_failed (412) and changes nothing. `*` or absent: no condition.';

/** The request scope with the precondition a mutation's `ifMatch` argument names. */
export function withIfMatch<C extends Context>(ctx: C, ifMatch: string | null | undefined): C {
  return { ...ctx, ifMatch: parseIfMatch(ifMatch) };
}

export type WithoutNulls<T> = { [K in keyof T]?: Exclude<T[K], null> };

/** A GraphQL input as a domain input: a null field is an absent one (left unchanged). */
export function withoutNulls<T extends object>(input: T): WithoutNulls<T> {
  return Object.fromEntries(
    Object.entries(input).filter(([, value]) => value !== null && value !== undefined),
  ) as WithoutNulls<T>;
}
