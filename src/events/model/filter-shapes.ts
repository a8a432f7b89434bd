import type { Config } from '../../core/config/config.js';
import type { EventFact } from '../../core/cache/dependencies.js';
import type { ApiError } from '../../core/errors/errors.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import type { Viewer } from '../../core/rules/permissions.js';
import type { Taxonomy } from '../../core/rules/urls.js';
import type { Context } from '../../core/context/scope.js';
import type { ListCondition } from '../../core/db/queries/list-conditions.js';

// What a filter declaration is and what its check and lookup give (the types `EVENT_FILTERS`,
// `event-filters.ts`, is written in), apart from the declarations so their readers need not load them.

/** How a filter's value is written: both APIs read it into this domain type. */
export type FilterKind = 'string' | 'boolean' | 'int' | 'stringList' | 'intList' | 'near';

/** A GraphQL enum a filter's words are typed with (the schema supplies one per name). */
export type FilterEnum = 'PostStatus' | 'EventStatus' | 'AttendanceMode';

/** The domain value of the `near` kind: a point and a radius. */
export interface Near {
  lat?: number | null;
  lng?: number | null;
  radius?: number | null;
}

/** A reason a filter's value is refused (all of a request's are reported together, as WordPress does). */
export interface FilterError {
  /** A `FilterParam` (typed as a string here: the declarations name their own). */
  param: string;
  reason: string;
  detail?: { code: string; message: string };
}

/** What a filter's check or lookup makes of its value. */
export interface Checked<E> {
  /** The value as the list applies it (defaults included); null: the filter does not apply. */
  effective: E | null;
  /** Its condition on the events. */
  where?: Prisma.EventWhereInput;
  /** How a read may answer `where` more cheaply (`core/db/queries/list-conditions.ts`); a standing filter ignores it. */
  indexed?: ListCondition['indexed'];
  /** The link table `where` reads, and the records it names. */
  link?: ListCondition['link'];
  errors?: FilterError[];
  /** A refusal of its own, answered alone once the other filters pass (`post_parent`). */
  refusal?: ApiError;
  /** Geo lists: the venues in range and their distance in km (the list is ordered by it). */
  distances?: Map<number, number>;
}

/**
 * The filters the rules spanning several read besides their own (typed here, as the declarations are
 * not yet; `EventListFilter` must be one of these: `events/service/events-query.ts` passes it).
 */
/** The date window's bounds (`WINDOW`, `event-filters.ts`, is declared over exactly these). */
export type WindowBound =
  'startDate' | 'endDate' | 'startsBefore' | 'startsAfter' | 'endsBefore' | 'endsAfter';

export type PartnerFilters = Readonly<Partial<Record<WindowBound, string | null>>> & {
  readonly strictDates?: boolean | null;
  readonly include?: readonly number[] | null;
};

/** What a check may read beyond its own value. */
export interface FilterRequest {
  /** The whole filter: the rules spanning several filters (the date window) read their partners here. */
  filter: PartnerFilters;
  viewer: Viewer;
  now: Date;
  siteZone: string;
  databaseProvider: Config['databaseProvider'];
  /** The name the API gives a parameter, for the messages naming another one. */
  paramName(param: string): string;
}

/** The value REST echoes for a parameter (`rest_url`, paging links). */
export type EchoValue = string | number | boolean | readonly (string | number)[];

/** What a lookup may use of the request's scope. */
type LookupScope = Pick<Context, 'db' | 'viewer'>;

interface FilterCommon<K extends FilterKind> {
  kind: K;
  /** The REST parameter (`near`: one per coordinate). */
  rest: K extends 'near' ? { lat: string; lng: string; radius: string } : string;
  /** REST argument description (the reference's wording where it has one). */
  restDescription: string | (K extends 'near' ? { lat: string; lng: string; radius: string } : never);
  /** GraphQL argument description. */
  description: string;
  /** GraphQL types the words with this enum (REST reads strings). */
  enum?: FilterEnum;
  /** Added to a GraphQL query's cost when given. */
  price?: number;
  /**
   * D21: the filter looks at what a protected event's listing blanks, so it never matches one the
   * viewer cannot unlock. `whenTrue`: only when it is true (a `false` filters nothing).
   */
  onWithheld?: true | 'whenTrue';
  /** REST default (documented, and given by GraphQL when absent: `strict_dates`). */
  restDefault?: boolean;
  /**
   * What of an event the filter reads: a write changing none of these (nor the event's place, status
   * or visibility) leaves the lists it filters as they were (the response cache's dependencies).
   */
  facts: readonly EventFact[];
  /**
   * The filter reads the clock finer than a day (a sales window opens at any minute): a list it applies
   * to is never shared, since a cached answer would outlive the moment it was true for.
   */
  readsClock?: true;
  /** Checked before any lookup (lists: at most `MAX_LIST_VALUES`): the reason its size is refused. */
  limit?(given: never): string | null;
  /** Its check, run for every request (given or not: a default may apply). Method syntax: each takes its kind's value. */
  check?(given: never, request: FilterRequest): Checked<unknown>;
  /** A check needing the database, given the checked value (or, without `check`, the given one) when set. */
  lookup?(value: never, ctx: LookupScope, request: FilterRequest): Promise<Checked<unknown>>;
  /** The list's order when the filter applies (by start otherwise). */
  order?: Prisma.EventOrderByWithRelationInput[];
  /** What REST echoes of the effective value (`near`: per coordinate); by default the value itself. */
  echo?(effective: never): EchoValue;
}

/**
 * Term slugs or ids of a taxonomy (any of them), each of which must exist: the term filters are looked
 * up together, in one query (`resolveTerms`, `events/service/events-query.ts`); echoed as given.
 */
interface TermFilter extends FilterCommon<'stringList'> {
  term: { taxonomy: Taxonomy };
}

export type FilterDeclaration = FilterCommon<FilterKind> | TermFilter;
