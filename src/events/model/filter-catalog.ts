import { EVENT_FILTERS, WINDOW_BOUNDS } from './event-filters.js';
import type { Checked, EchoValue, FilterDeclaration, FilterKind, Near } from './filter-shapes.js';

// What the APIs read off the filter declarations (`event-filters.ts`): the names and their order, the
// domain and effective filter types, REST's parameter names and echoes, the GraphQL prices, the term
// and subscription filters; derived once here so every reader agrees.

type EventFilters = typeof EVENT_FILTERS;
export type FilterName = keyof EventFilters;
export const FILTER_NAMES = Object.keys(EVENT_FILTERS) as FilterName[];
export const filterDeclaration = (name: FilterName): FilterDeclaration => EVENT_FILTERS[name];

/** The filters errors are reported for: the domain names, `near.*` for the point's. */
type FilterParam = Exclude<FilterName, 'near'> | 'near.lat' | 'near.lng' | 'near.radius';

/** The domain value of a filter of this kind. */
type FilterValue<K extends FilterKind> = {
  string: string;
  boolean: boolean;
  int: number;
  stringList: readonly string[];
  intList: readonly number[];
  near: Near;
}[K];

/** The list filters both APIs share, by their domain names (GraphQL's; REST reads its own into them). */
export type EventListFilter = { [K in FilterName]?: FilterValue<EventFilters[K]['kind']> | null };

/** A filter's value as the list applied it: what its lookup, else its check, makes of it; term tokens as given. */
type EffectiveValue<K extends FilterName> = EventFilters[K] extends {
  lookup: (...args: never[]) => Promise<Checked<infer E>>;
}
  ? E
  : EventFilters[K] extends { check: (...args: never[]) => Checked<infer E> }
    ? E
    : string[];

/** The filters as the list applied them: REST echoes them in `rest_url` and the paging links (D2). */
export type EffectiveEventFilter = { [K in FilterName]: EffectiveValue<K> | null };

/** The REST parameter of each filter (`near.*`: of each coordinate), for reading and renaming errors. */
export const REST_PARAMS: Record<FilterParam, string> = Object.fromEntries(
  FILTER_NAMES.flatMap((name) => {
    const rest = filterDeclaration(name).rest;
    return typeof rest === 'string'
      ? [[name, rest]]
      : Object.entries(rest).map(([part, param]) => [`near.${part}`, param]);
  }),
) as Record<FilterParam, string>;

/** What each filter adds to a GraphQL query's cost when given (`core/graphql/limits.ts`). */
export const FILTER_PRICES: Readonly<Record<string, number>> = Object.fromEntries(
  FILTER_NAMES.flatMap((name) => {
    const price = filterDeclaration(name).price;
    return price ? [[name, price]] : [];
  }),
);

/** Whether a filter, as the list applied it, looks at withheld content (D21). */
export function onWithheld(name: FilterName, effective: unknown): boolean {
  const rule = filterDeclaration(name).onWithheld;
  if (!rule || effective === null || effective === undefined) return false;
  return rule === 'whenTrue' ? effective === true : true;
}

/** The term filters (categories, tags), looked up together. */
export type TermFilterName = {
  [K in FilterName]: EventFilters[K] extends { term: object } ? K : never;
}[FilterName];
export const TERM_FILTERS = FILTER_NAMES.filter(
  (name) => 'term' in filterDeclaration(name),
) as TermFilterName[];

/**
 * The order the checks run in, so the order a request's refused parameters are named in: the date
 * window, the statuses and the place, then the others as declared (their lookups come after them all).
 */
const CHECKED_FIRST = [...WINDOW_BOUNDS, 'status', 'near'] as const satisfies readonly FilterName[];
export const CHECK_ORDER: readonly FilterName[] = [
  ...CHECKED_FIRST,
  ...FILTER_NAMES.filter((name) => !(CHECKED_FIRST as readonly string[]).includes(name)),
];

/** The filters of the event subscription (GraphQL `EventChangeFilter`), in its fields' order. */
export const SUBSCRIPTION_FILTERS = [
  'venues',
  'organizers',
  'categories',
  'tags',
] as const satisfies readonly FilterName[];
export type SubscriptionFilterName = (typeof SUBSCRIPTION_FILTERS)[number];

/** A filter's echo: the REST parameters and values of its effective value (none when it did not apply). */
export function echoOf(name: FilterName, effective: unknown): Array<[param: string, value: EchoValue]> {
  const { echo, rest } = filterDeclaration(name);
  if (effective === null || effective === undefined) return [];
  const value = echo ? echo(effective as never) : effective;
  if (typeof rest === 'string') return [[rest, value as EchoValue]];
  const parts = value as Record<string, EchoValue>;
  return Object.entries(rest).map(([part, param]) => [param, parts[part]!]);
}

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
