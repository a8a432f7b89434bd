import { EVENT_STATUSES, INVALID_EVENT_STATUS } from '../domain/event-status.js';
import type { Config } from '../config.js';
import type { EventFact } from '../domain/dependencies.js';
import { ApiError } from '../domain/errors.js';
import type { Prisma } from '../generated/sqlite/client.js';
import { readableWhere } from '../domain/permissions.js';
import type { Taxonomy } from '../domain/urls.js';
import type { Context } from '../services/scope.js';
import { eventSearchWhere } from '../services/text-search.js';
import { ATTENDANCE_MODES, EVENT_FIELDS } from './event-fields.js';

// The event list filters declared once: the REST parameter and the GraphQL argument (the domain name is
// the key), the value's kind (which both APIs read it as), its documentation, its cost price, whether
// it filters on what a protected event's listing withholds (D21), and — but for the dates, status,
// include and geo filters — its validation, lookup and SQL condition. The domain filter type (`EventListFilter`), the
// REST arguments and their renaming, the echo in `rest_url` and the paging links (D2), the GraphQL
// `EventFilter`, the query's size checks and withholding condition (`services/events/events-query.ts`) and the
// GraphQL cost (`graphql/limits.ts`) all come from here. The filters still resolved by hand in
// `resolveEventQuery` (dates, strict_dates, status, include, geoloc, near: their defaults and errors
// depend on each other) are typed by these names.

/** How a filter's value is written: both APIs read it into this domain type. */
export type FilterKind = 'string' | 'boolean' | 'int' | 'stringList' | 'intList' | 'near';

/** A GraphQL enum a filter's words are typed with (the schema supplies one per name). */
export type FilterEnum = 'PostStatus' | 'EventStatus' | 'AttendanceMode';

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
}

/** A filter whose value is a list of words, checked against a closed set, matching a column. */
export interface ChoiceFilter extends FilterCommon<'stringList'> {
  choice: {
    values: readonly string[];
    invalid: string;
    where: (values: string[]) => Prisma.EventWhereInput;
  };
}

/** A flag matching a boolean column as given. */
export interface FlagFilter extends FilterCommon<'boolean'> {
  flag: { where: (value: boolean) => Prisma.EventWhereInput };
}

/** What a filter's own rule makes of its given value: the effective value and its condition, or a refusal. */
export type FilterOutcome<E> =
  | { effective: E; where?: Prisma.EventWhereInput }
  | { reason: string; detail?: { code: string; message: string } };

/** What a rule may need beyond the value. */
export interface FilterEnv {
  databaseProvider: Config['databaseProvider'];
  /** The events SQLite's trigram index found for the `search` (`eventSearchMatches`); null: none asked. */
  searchMatches: readonly number[] | null;
}

/** A filter with a rule of its own that needs no lookup. */
export interface RuleFilter extends FilterCommon<FilterKind> {
  // Method syntax: each declaration takes its own kind's value.
  rule(given: never, env: FilterEnv): FilterOutcome<unknown>;
}

/** A filter of record ids, each of which must be one the viewer may read (else the filter is refused). */
export interface LookupFilter extends FilterCommon<'intList'> {
  lookup(ids: number[], ctx: Pick<Context, 'db' | 'viewer'>): Promise<FilterOutcome<number[]>>;
}

/**
 * Term slugs or ids of a taxonomy (any of them), each of which must exist: the term filters are looked
 * up together, in one query (`resolveTerms`, `services/events/events-query.ts`).
 */
export interface TermFilter extends FilterCommon<'stringList'> {
  term: { taxonomy: Taxonomy };
}

/** An event id that must name an event the viewer may read; refused alone, after the other filters. */
export interface ParentFilter extends FilterCommon<'int'> {
  parent: {
    find(id: number, ctx: Pick<Context, 'db' | 'viewer'>): Promise<{ id: number } | null>;
    /** The refusal, naming the parameter as the API does. */
    invalid(param: string): ApiError;
    where(id: number): Prisma.EventWhereInput;
  };
}

export type FilterDeclaration =
  | FilterCommon<FilterKind>
  | ChoiceFilter
  | FlagFilter
  | RuleFilter
  | LookupFilter
  | TermFilter
  | ParentFilter;

const TICKETS_INACTIVE = 'Event Tickets plugin is not activated.';
const INVALID = 'Invalid parameter.';

/** The ids all name a record the viewer may read: one that it may not is as unknown as a missing one. */
const allKnown = (ids: number[], known: Array<{ id: number }>) => known.length === ids.length;

const dates = (what: string) =>
  `${what}: ISO 8601, "Y-m-d H:i:s", a Unix timestamp or an English phrase ("tomorrow", "+5 weeks"); site time zone`;

/** The REST arguments' order (the namespace index and `/doc` list them so). */
export const EVENT_FILTERS = {
  startDate: {
    facts: ['span'],
    kind: 'string',
    rest: 'start_date',
    restDescription:
      'Events that start on or after the date (default: yesterday 00:00, site time zone); ISO 8601, "Y-m-d H:i:s", a Unix timestamp or an English phrase',
    description: dates('Events starting at or after'),
  },
  endDate: {
    facts: ['span'],
    kind: 'string',
    rest: 'end_date',
    restDescription:
      'Events that end on or before the date (default: in 24 months, 23:59:59); ISO 8601, "Y-m-d H:i:s", a Unix timestamp or an English phrase',
    description: dates('Events ending at or before'),
  },
  startsBefore: {
    facts: ['span'],
    kind: 'string',
    rest: 'starts_before',
    restDescription: 'Events that start before the specified date',
    description: dates('Events starting before'),
  },
  startsAfter: {
    facts: ['span'],
    kind: 'string',
    rest: 'starts_after',
    restDescription: 'Events that start after the specified date',
    description: dates('Events starting after'),
  },
  endsBefore: {
    facts: ['span'],
    kind: 'string',
    rest: 'ends_before',
    restDescription: 'Events that end before the specified date',
    description: dates('Events ending before'),
  },
  endsAfter: {
    facts: ['span'],
    kind: 'string',
    rest: 'ends_after',
    restDescription: 'Events that end after the specified date',
    description: dates('Events ending after'),
  },
  strictDates: {
    facts: [],
    kind: 'boolean',
    rest: 'strict_dates',
    restDescription: 'Dates are compared at the given times; by default whole days are included',
    description:
      'Use the given times as they are; by default dates cover whole days (start 00:00:00, others 23:59:59)',
    restDefault: false,
  },
  search: {
    facts: ['text'],
    kind: 'string',
    rest: 'search',
    restDescription: 'Events whose title, excerpt or description contain every word',
    description: 'Every word must appear in the title, excerpt or description',
    price: 100,
    onWithheld: true,
    // Every word in the title, excerpt or description, as WordPress reads it. An empty search is no
    // search (the REST adapter cannot tell `search=` from no search, so GraphQL does the same).
    rule: (given: string, env: FilterEnv): FilterOutcome<string | null> => {
      const search = given.trim() || null;
      if (!search) return { effective: null };
      const where = eventSearchWhere(search, env.databaseProvider, env.searchMatches);
      return { effective: search, where };
    },
  },
  categories: {
    facts: ['terms'],
    kind: 'stringList',
    rest: 'categories',
    restDescription: 'Events should be assigned one of the specified categories slugs or IDs',
    description: 'Category slugs or ids (any of them)',
    onWithheld: true,
    term: { taxonomy: 'tribe_events_cat' },
  },
  tags: {
    facts: ['terms'],
    kind: 'stringList',
    rest: 'tags',
    restDescription: 'Events should be assigned one of the specified tags slugs or IDs',
    description: 'Tag slugs or ids (any of them)',
    onWithheld: true,
    term: { taxonomy: 'post_tag' },
  },
  venues: {
    facts: ['venues'],
    kind: 'intList',
    rest: 'venue',
    restDescription: 'Events should be assigned one of the specified venue IDs',
    description: 'Venue ids (any of them)',
    onWithheld: true,
    lookup: async (ids, ctx) => {
      const where = { id: { in: ids }, ...readableWhere(ctx.viewer) };
      const known = await ctx.db.venue.findMany({ where, select: { id: true } });
      if (!allKnown(ids, known)) return { reason: INVALID };
      return { effective: ids, where: { venues: { some: { venueId: { in: ids } } } } };
    },
  },
  organizers: {
    facts: ['organizers'],
    kind: 'intList',
    rest: 'organizer',
    restDescription: 'Events should be assigned one of the specified organizer IDs',
    description: 'Organizer ids (any of them)',
    onWithheld: true,
    lookup: async (ids, ctx) => {
      const where = { id: { in: ids }, ...readableWhere(ctx.viewer) };
      const known = await ctx.db.organizer.findMany({ where, select: { id: true } });
      if (!allKnown(ids, known)) return { reason: INVALID };
      return { effective: ids, where: { organizers: { some: { organizerId: { in: ids } } } } };
    },
  },
  featured: {
    facts: ['featured'],
    kind: 'boolean',
    rest: 'featured',
    restDescription: 'Events should be filtered by their featured status',
    description: 'true: only featured events; false: only the others',
    onWithheld: true,
    flag: { where: (featured) => ({ featured }) },
  },
  eventStatus: {
    facts: ['eventStatus'],
    kind: 'stringList',
    rest: 'event_status',
    enum: 'EventStatus',
    restDescription: 'Events with one of these event statuses (scheduled, canceled, postponed)',
    description: 'Events with one of these event statuses',
    choice: {
      values: EVENT_STATUSES,
      invalid: INVALID_EVENT_STATUS,
      where: (values) => ({ eventStatus: { in: values } }),
    },
  },
  attendanceMode: {
    facts: ['attendanceMode'],
    kind: 'stringList',
    rest: 'attendance_mode',
    enum: 'AttendanceMode',
    restDescription: `Events attended in one of these ways (${ATTENDANCE_MODES.join(', ')})`,
    description: 'Events attended in one of these ways (offline, online, mixed)',
    choice: {
      values: ATTENDANCE_MODES,
      invalid: EVENT_FIELDS.attendanceMode.invalid,
      where: (values) => ({ attendanceMode: { in: values } }),
    },
  },
  status: {
    facts: ['status'],
    kind: 'stringList',
    rest: 'status',
    enum: 'PostStatus',
    restDescription: 'The event post status(es); other than publish needs the right to read them',
    description: 'Statuses other than publish need an account that may edit events',
  },
  geoloc: {
    facts: ['venues'],
    kind: 'boolean',
    rest: 'geoloc',
    restDescription: 'Events should be filtered by whether their venue has geolocation data',
    description: 'true: only events whose venue has coordinates',
    price: 100,
    onWithheld: 'whenTrue',
  },
  near: {
    facts: ['venues'],
    kind: 'near',
    rest: { lat: 'geoloc_lat', lng: 'geoloc_lng', radius: 'geoloc_radius' },
    restDescription: {
      lat: 'Venue latitude to search near; needs geoloc_lng',
      lng: 'Venue longitude to search near; needs geoloc_lat',
      radius: 'Search radius around geoloc_lat/geoloc_lng in km (default 50); nearest events first',
    },
    description: 'Only events near a point, nearest first',
    // A radius search sorts up to 10,000 events by distance (~25 ms on SQLite): three fit in one request.
    price: 3000,
    onWithheld: true,
  },
  include: {
    facts: ['order'],
    kind: 'intList',
    rest: 'include',
    restDescription:
      'Include events with one of the post IDs specified in the array or CSV list; date filters are ignored',
    description: 'Only these events, ordered by publication date; date filters are ignored',
  },
  postParent: {
    facts: ['parent'],
    kind: 'int',
    rest: 'post_parent',
    restDescription: 'Events should be filtered by their post_parent being the specified one',
    description: 'Children of this event',
    parent: {
      // One the viewer may not read is as unknown as a missing one.
      find: (id: number, ctx: Pick<Context, 'db' | 'viewer'>) =>
        ctx.db.event.findFirst({ where: { id, ...readableWhere(ctx.viewer) }, select: { id: true } }),
      invalid: (param: string) =>
        new ApiError(
          400,
          'rest-invalid-event-id',
          `The specified ID for the "${param}" parameter is not a valid event.`,
        ),
      where: (id: number): Prisma.EventWhereInput => ({ postParentId: id }),
    },
  },
  ticketed: {
    facts: [],
    kind: 'boolean',
    rest: 'ticketed',
    restDescription: 'Filter events with or without tickets',
    description: 'Only false is supported (there is no ticketing)',
    rule: (given: boolean): FilterOutcome<boolean> =>
      given
        ? {
            reason: TICKETS_INACTIVE,
            detail: { code: 'event-tickets-not-active', message: TICKETS_INACTIVE },
          }
        : { effective: given },
  },
} as const satisfies Record<string, FilterDeclaration>;

export type EventFilters = typeof EVENT_FILTERS;
export type FilterName = keyof EventFilters;
export const FILTER_NAMES = Object.keys(EVENT_FILTERS) as FilterName[];
export const filterDeclaration = (name: FilterName): FilterDeclaration => EVENT_FILTERS[name];

interface Near {
  lat?: number | null;
  lng?: number | null;
  radius?: number | null;
}

/** The domain value of a filter of this kind. */
export type FilterValue<K extends FilterKind> = {
  string: string;
  boolean: boolean;
  int: number;
  stringList: readonly string[];
  intList: readonly number[];
  near: Near;
}[K];

/** The list filters both APIs share, by their domain names (GraphQL's; REST reads its own into them). */
export type EventListFilter = { [K in FilterName]?: FilterValue<EventFilters[K]['kind']> | null };

/** The filters errors are reported for: the domain names, `near.*` for the point's. */
export type FilterParam = Exclude<FilterName, 'near'> | 'near.lat' | 'near.lng' | 'near.radius';

/** The REST parameter of each filter (`near.*`: of each coordinate), for reading and renaming errors. */
export const REST_PARAMS: Record<FilterParam, string> = Object.fromEntries(
  FILTER_NAMES.flatMap((name) => {
    const rest = filterDeclaration(name).rest;
    return typeof rest === 'string'
      ? [[name, rest]]
      : Object.entries(rest).map(([part, param]) => [`near.${part}`, param]);
  }),
) as Record<FilterParam, string>;

/** What each filter adds to a GraphQL query's cost when given (`graphql/limits.ts`). */
export const FILTER_PRICES: Readonly<Record<string, number>> = Object.fromEntries(
  FILTER_NAMES.flatMap((name) => {
    const price = filterDeclaration(name).price;
    return price ? [[name, price]] : [];
  }),
);

/** The filters whose given value is a list (bounded in size before any lookup). */
export const LIST_FILTERS: readonly FilterName[] = FILTER_NAMES.filter((name) => {
  const kind = filterDeclaration(name).kind;
  return kind === 'stringList' || kind === 'intList';
});

/** Whether a filter, as the list applied it, looks at withheld content (D21). */
export function onWithheld(name: FilterName, effective: unknown): boolean {
  const rule = filterDeclaration(name).onWithheld;
  if (!rule || effective === null || effective === undefined) return false;
  return rule === 'whenTrue' ? effective === true : true;
}

/** The filters whose validation and SQL condition come from the declaration (a choice, flag or rule). */
export type DeclaredFilterName = {
  [K in FilterName]: EventFilters[K] extends { choice: object } | { flag: object } | { rule: object }
    ? K
    : never;
}[FilterName];
export const DECLARED_FILTERS = FILTER_NAMES.filter((name) => {
  const filter = filterDeclaration(name);
  return 'choice' in filter || 'flag' in filter || 'rule' in filter;
}) as DeclaredFilterName[];

/** A declared filter's applied value: the checked words, the flag, or what its rule makes of it. */
export type DeclaredFilterValue<K extends DeclaredFilterName> = EventFilters[K] extends {
  rule: (...args: never[]) => FilterOutcome<infer E>;
}
  ? E
  : EventFilters[K] extends { choice: object }
    ? string[]
    : boolean;

/**
 * A declared filter's value checked: the effective value and its condition, null when not given, or
 * the reason it is refused.
 */
export function applyDeclaredFilter(
  name: DeclaredFilterName,
  given: unknown,
  env: FilterEnv,
): FilterOutcome<unknown> | null {
  const filter = filterDeclaration(name);
  if (given === null || given === undefined) return null;
  if ('rule' in filter) return filter.rule(given as never, env);
  if ('flag' in filter) return { effective: given as boolean, where: filter.flag.where(given as boolean) };
  if (!('choice' in filter)) return null;
  const words = given as readonly string[];
  if (!words.length) return null;
  const values = [...new Set(words.map((word) => word.trim().toLowerCase()))];
  if (!values.every((value) => filter.choice.values.includes(value)))
    return { reason: filter.choice.invalid };
  return { effective: values, where: filter.choice.where(values) };
}

/** The filters of record ids checked against the database (the list's and the event subscriptions'). */
export type LookupFilterName = {
  [K in FilterName]: EventFilters[K] extends { lookup: object } ? K : never;
}[FilterName];
export const LOOKUP_FILTERS = FILTER_NAMES.filter(
  (name) => 'lookup' in filterDeclaration(name),
) as LookupFilterName[];

/** A lookup filter's ids (each once) checked: null when none are given. One query per filter. */
export async function applyLookupFilter(
  name: LookupFilterName,
  given: readonly number[] | null | undefined,
  ctx: Pick<Context, 'db' | 'viewer'>,
): Promise<FilterOutcome<number[]> | null> {
  const filter = filterDeclaration(name);
  if (!given?.length || !('lookup' in filter)) return null;
  return filter.lookup([...new Set(given)], ctx);
}

/** The term filters (categories, tags), resolved together. */
export type TermFilterName = {
  [K in FilterName]: EventFilters[K] extends { term: object } ? K : never;
}[FilterName];
export const TERM_FILTERS = FILTER_NAMES.filter(
  (name) => 'term' in filterDeclaration(name),
) as TermFilterName[];

/** The term lookups of a filter's term tokens (`resolveTerms`). */
export const termLookups = (filter: { [K in TermFilterName]?: readonly string[] | null }) =>
  TERM_FILTERS.map((param) => ({
    param,
    taxonomy: EVENT_FILTERS[param].term.taxonomy,
    tokens: filter[param] ?? [],
  }));

/** A term filter's condition: the event has one of these terms. */
export const termWhere = (ids: number[]): Prisma.EventWhereInput => ({
  terms: { some: { termId: { in: ids } } },
});

/**
 * The order the REST list echoes its effective filters in `rest_url` and the paging links (D2): the
 * reference's order, then what it forgets. Every filter is here (the compiler checks it), so none is
 * silently lost from the links.
 */
export const ECHO_ORDER = [
  'startDate',
  'endDate',
  'search',
  'status',
  'postParent',
  'include',
  'startsBefore',
  'startsAfter',
  'endsBefore',
  'endsAfter',
  'ticketed',
  'venues',
  'organizers',
  'featured',
  'eventStatus',
  'attendanceMode',
  'categories',
  'tags',
  'geoloc',
  'near',
  'strictDates',
] as const satisfies readonly FilterName[];
const echoesEvery: [Exclude<FilterName, (typeof ECHO_ORDER)[number]>] extends [never] ? true : never = true;
void echoesEvery;
