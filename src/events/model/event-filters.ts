import { EVENT_STATUSES, INVALID_EVENT_STATUS } from './event-status.js';
import type { Config } from '../../core/config/config.js';
import { DateTime } from 'luxon';
import {
  DATE_YEARS,
  WALL_CLOCK,
  endOfDayWall,
  parseDateInput,
  startOfDayWall,
} from '../../core/rules/dates.js';
import type { EventFact } from '../../core/cache/dependencies.js';
import { ApiError, isApiError } from '../../core/errors/errors.js';
import { SEARCH_TOO_LONG, searchTooLong } from '../../core/rules/limits.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import { type Viewer, listableStatuses, readableWhere } from '../../core/rules/permissions.js';
import type { Taxonomy } from '../../core/rules/urls.js';
import type { Context } from '../../core/context/scope.js';
import { EVENT_LINKS, type ListCondition, linkCondition } from '../../core/db/queries/list-conditions.js';
import { eventSearchCondition } from '../../core/db/queries/text-search.js';
import { DEFAULT_GEO_RADIUS_KM, EARTH_RADIUS_KM, boundingBox, venuesInRange } from '../service/events-geo.js';
import { ATTENDANCE_MODES, EVENT_FIELDS } from './event-fields.js';

// The event list filters declared once: the REST parameter and the GraphQL argument (the domain name is
// the key), the value's kind (which both APIs read it as), its documentation, its cost price, whether
// it filters on what a protected event's listing withholds (D21), what of an event it reads, its check
// (validation, default, SQL condition), its lookup in the database, its echo and the list's order it
// imposes. The rules that read several filters together are declared here once: the date window
// (`WINDOW`: the bounds, their rounding and default, `strict_dates` and `include`), the statuses a
// viewer may list (`status`), the place (`near`). The domain filter type, the effective filter, the REST
// arguments and their renaming, the echo in `rest_url` and the paging links (D2), the GraphQL
// `EventFilter` and the subscription's filter, the query (`applyFilters`,
// `events/service/events-query.ts`: a loop over these declarations) and the GraphQL cost
// (`core/graphql/limits.ts`) all come from here.

/** How a filter's value is written: both APIs read it into this domain type. */
export type FilterKind = 'string' | 'boolean' | 'int' | 'stringList' | 'intList' | 'near';

/** A GraphQL enum a filter's words are typed with (the schema supplies one per name). */
export type FilterEnum = 'PostStatus' | 'EventStatus' | 'AttendanceMode';

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
export type LookupScope = Pick<Context, 'db' | 'viewer'>;

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
export interface TermFilter extends FilterCommon<'stringList'> {
  term: { taxonomy: Taxonomy };
}

export type FilterDeclaration = FilterCommon<FilterKind> | TermFilter;

const INVALID = 'Invalid parameter.';
const refused = (param: string, reason = INVALID): Checked<never> => ({
  effective: null,
  errors: [{ param, reason }],
});

/** The ids all name a record the viewer may read: one that it may not is as unknown as a missing one. */
const allKnown = (ids: number[], known: Array<{ id: number }>) => known.length === ids.length;

/** A filter over a closed set of words (any of them), matching a column; `invalid` names them all. */
const choice =
  (
    param: string,
    values: readonly string[],
    invalid: string,
    where: (values: string[]) => Prisma.EventWhereInput,
  ) =>
  (given: readonly string[] | null | undefined): Checked<string[]> => {
    if (!given?.length) return { effective: null };
    const words = [...new Set(given.map((word) => word.trim().toLowerCase()))];
    if (!words.every((word) => values.includes(word))) return refused(param, invalid);
    return { effective: words, where: where(words) };
  };

/** A flag matching a boolean column as given. */
const flag =
  (where: (value: boolean) => Prisma.EventWhereInput) =>
  (given: boolean | null | undefined): Checked<boolean> =>
    given === null || given === undefined ? { effective: null } : { effective: given, where: where(given) };

const dates = (what: string) =>
  `${what}: ISO 8601, "Y-m-d H:i:s", a Unix timestamp or an English phrase ("tomorrow", "+5 weeks"); site time zone`;

/**
 * The date window, one rule over the date filters read together: each bounds the event's local start
 * or end; inclusive mode (the default, `strict_dates` off) rounds `start_date` to 00:00:00 and every
 * other bound to 23:59:59 of its day (docs/reference.md §5.5); without a relative bound
 * (`starts_*`/`ends_*`) the list shows from yesterday 00:00 to 24 months ahead; `include` ignores them
 * all (D15). Filters compare the site-zone wall-clock with each event's own (`localStart`/`localEnd`).
 */
const WINDOW = {
  startDate: {
    column: 'localStart',
    op: 'gte',
    round: 'startOf',
    default: (now: Date, zone: string) => startOfDayWall(now, zone, -1),
  },
  endDate: {
    column: 'localEnd',
    op: 'lte',
    round: 'endOf',
    default: (now: Date, zone: string) => endOfDayWall(now, zone, 24),
  },
  startsBefore: { column: 'localStart', op: 'lt', round: 'endOf' },
  startsAfter: { column: 'localStart', op: 'gt', round: 'endOf' },
  endsBefore: { column: 'localEnd', op: 'lt', round: 'endOf' },
  endsAfter: { column: 'localEnd', op: 'gt', round: 'endOf' },
} as const;
type WindowBound = keyof typeof WINDOW;
const WINDOW_BOUNDS = Object.keys(WINDOW) as WindowBound[];

const windowBound =
  (name: WindowBound) =>
  (given: string | null | undefined, request: FilterRequest): Checked<string> => {
    const bound: (typeof WINDOW)[WindowBound] = WINDOW[name];
    const { filter, siteZone, now } = request;
    const parsed = given === null || given === undefined ? null : parseDateInput(given, siteZone, now);
    if (given !== null && given !== undefined && !parsed) return refused(name);
    if (filter.include?.length) return { effective: null };
    let wall: string | null = null;
    if (parsed) {
      const strict = filter.strictDates === true;
      wall = (
        strict ? parsed : bound.round === 'startOf' ? parsed.startOf('day') : parsed.endOf('day')
      ).toFormat(WALL_CLOCK);
    } else if ('default' in bound) {
      const relative = WINDOW_BOUNDS.some(
        (other) => !('default' in WINDOW[other]) && filter[other] !== null && filter[other] !== undefined,
      );
      if (!relative) wall = bound.default(now, siteZone);
    }
    if (wall === null) return { effective: null };
    const compared: Prisma.StringFilter = {};
    compared[bound.op] = wall;
    const where: Prisma.EventWhereInput = {};
    where[bound.column] = compared;
    if (bound.column === 'localEnd' && (bound.op === 'lte' || bound.op === 'lt')) {
      // An event ending by then started before it (the schedule never ends before its start; a day
      // covers a clock turned back): said outright, the list index reads the window's start to its
      // end instead of to the end of the calendar.
      const dayAfter = DateTime.fromFormat(wall, WALL_CLOCK, { zone: 'UTC' }).plus({ days: 1 });
      if (dayAfter.year <= DATE_YEARS.max) where.localStart = { lt: dayAfter.toFormat(WALL_CLOCK) };
    }
    return { effective: wall, where };
  };

const VENUE_HAS_PLACE: Prisma.EventWhereInput = {
  venues: { some: { venue: { geoLat: { not: null }, geoLng: { not: null } } } },
};

interface Point {
  lat: number;
  lng: number;
  radius: number;
}

/** An events condition whose rule another room owns: `ticketed` (whether a ticket type is on sale). */
export type TicketedCondition = (ticketed: boolean, now: Date) => Prisma.EventWhereInput;

// The tickets room builds on events, so events may not import its rule: the wiring hands it in
// (src/schema.ts, loaded by every app) before any list runs.
let ticketedCondition: TicketedCondition | undefined;

export function declareTicketedCondition(condition: TicketedCondition): void {
  ticketedCondition = condition;
}

function ticketedWhere(ticketed: boolean, now: Date): Prisma.EventWhereInput {
  if (!ticketedCondition) throw new Error('The ticketed filter has no condition: src/schema.ts declares it.');
  return ticketedCondition(ticketed, now);
}

/** The REST arguments' order (the namespace index and `/doc` list them so). */
export const EVENT_FILTERS = {
  startDate: {
    facts: ['span'],
    kind: 'string',
    rest: 'start_date',
    restDescription:
      'Events that start on or after the date (default: yesterday 00:00, site time zone); ISO 8601, "Y-m-d H:i:s", a Unix timestamp or an English phrase',
    description: dates('Events starting at or after'),
    check: windowBound('startDate'),
  },
  endDate: {
    facts: ['span'],
    kind: 'string',
    rest: 'end_date',
    restDescription:
      'Events that end on or before the date (default: in 24 months, 23:59:59); ISO 8601, "Y-m-d H:i:s", a Unix timestamp or an English phrase',
    description: dates('Events ending at or before'),
    check: windowBound('endDate'),
  },
  startsBefore: {
    facts: ['span'],
    kind: 'string',
    rest: 'starts_before',
    restDescription: 'Events that start before the specified date',
    description: dates('Events starting before'),
    check: windowBound('startsBefore'),
  },
  startsAfter: {
    facts: ['span'],
    kind: 'string',
    rest: 'starts_after',
    restDescription: 'Events that start after the specified date',
    description: dates('Events starting after'),
    check: windowBound('startsAfter'),
  },
  endsBefore: {
    facts: ['span'],
    kind: 'string',
    rest: 'ends_before',
    restDescription: 'Events that end before the specified date',
    description: dates('Events ending before'),
    check: windowBound('endsBefore'),
  },
  endsAfter: {
    facts: ['span'],
    kind: 'string',
    rest: 'ends_after',
    restDescription: 'Events that end after the specified date',
    description: dates('Events ending after'),
    check: windowBound('endsAfter'),
  },
  strictDates: {
    facts: [],
    kind: 'boolean',
    rest: 'strict_dates',
    restDescription: 'Dates are compared at the given times; by default whole days are included',
    description:
      'Use the given times as they are; by default dates cover whole days (start 00:00:00, others 23:59:59)',
    restDefault: false,
    // Read by the window rule; applied (and echoed) only when on.
    check: (given: boolean | null | undefined): Checked<true> => ({
      effective: given === true ? true : null,
    }),
  },
  search: {
    facts: ['text'],
    kind: 'string',
    rest: 'search',
    restDescription: 'Events whose title, excerpt or description contain every word',
    description: 'Every word must appear in the title, excerpt or description',
    price: 100,
    onWithheld: true,
    limit: (given: string | null | undefined) => (searchTooLong(given) ? SEARCH_TOO_LONG : null),
    // Every word in the title, excerpt or description, as WordPress reads it (SQLite's trigram index
    // names a list's events). An empty search is no search (the REST adapter cannot tell `search=` from
    // no search, so GraphQL does the same).
    check: (given: string | null | undefined, request: FilterRequest): Checked<string> => {
      const search = given?.trim() || null;
      if (!search) return { effective: null };
      return { effective: search, ...eventSearchCondition(search, request.databaseProvider) };
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
    lookup: async (given: readonly number[], ctx, { databaseProvider }): Promise<Checked<number[]>> => {
      const ids = [...new Set(given)];
      const where = { id: { in: ids }, ...readableWhere(ctx.viewer) };
      const known = await ctx.db.venue.findMany({ where, select: { id: true } });
      if (!allKnown(ids, known)) return refused('venues');
      return { effective: ids, ...linkCondition(EVENT_LINKS.venues, ids, databaseProvider) };
    },
  },
  organizers: {
    facts: ['organizers'],
    kind: 'intList',
    rest: 'organizer',
    restDescription: 'Events should be assigned one of the specified organizer IDs',
    description: 'Organizer ids (any of them)',
    onWithheld: true,
    lookup: async (given: readonly number[], ctx, { databaseProvider }): Promise<Checked<number[]>> => {
      const ids = [...new Set(given)];
      const where = { id: { in: ids }, ...readableWhere(ctx.viewer) };
      const known = await ctx.db.organizer.findMany({ where, select: { id: true } });
      if (!allKnown(ids, known)) return refused('organizers');
      return { effective: ids, ...linkCondition(EVENT_LINKS.organizers, ids, databaseProvider) };
    },
  },
  featured: {
    facts: ['featured'],
    kind: 'boolean',
    rest: 'featured',
    restDescription: 'Events should be filtered by their featured status',
    description: 'true: only featured events; false: only the others',
    onWithheld: true,
    check: flag((featured) => ({ featured })),
  },
  eventStatus: {
    facts: ['eventStatus'],
    kind: 'stringList',
    rest: 'event_status',
    enum: 'EventStatus',
    restDescription: 'Events with one of these event statuses (scheduled, canceled, postponed)',
    description: 'Events with one of these event statuses',
    check: choice('eventStatus', EVENT_STATUSES, INVALID_EVENT_STATUS, (values) => ({
      eventStatus: { in: values },
    })),
  },
  attendanceMode: {
    facts: ['attendanceMode'],
    kind: 'stringList',
    rest: 'attendance_mode',
    enum: 'AttendanceMode',
    restDescription: `Events attended in one of these ways (${ATTENDANCE_MODES.join(', ')})`,
    description: 'Events attended in one of these ways (offline, online, mixed)',
    check: choice('attendanceMode', ATTENDANCE_MODES, EVENT_FIELDS.attendanceMode.invalid, (values) => ({
      attendanceMode: { in: values },
    })),
  },
  status: {
    facts: ['status'],
    kind: 'stringList',
    rest: 'status',
    enum: 'PostStatus',
    restDescription: 'The event post status(es); other than publish needs the right to read them',
    description: 'Statuses other than publish need an account that may edit events',
    // The capability rules decide what each viewer may list; `any` (or none) is every status it may.
    check: (
      given: readonly string[] | null | undefined,
      { viewer }: FilterRequest,
    ): Checked<{ statuses: string[]; any: boolean }> => {
      try {
        const listable = listableStatuses(viewer, given ? [...given] : null);
        const where: Prisma.EventWhereInput = { status: { in: listable.statuses } };
        const own = { OR: [{ status: 'publish' }, { authorId: viewer.userId ?? -1 }] };
        return {
          effective: { statuses: listable.statuses, any: listable.any },
          where: listable.ownOnlyBeyondPublish ? { AND: [where, own] } : where,
        };
      } catch (error) {
        if (!isApiError(error) || error.code !== 'rest_invalid_param') throw error;
        return refused('status');
      }
    },
    // Every status the viewer may list was asked for (no `status`, or `any`): echoed as `any`.
    echo: ({ statuses, any }: { statuses: string[]; any: boolean }): EchoValue => (any ? 'any' : statuses),
  },
  geoloc: {
    facts: ['venues'],
    kind: 'boolean',
    rest: 'geoloc',
    restDescription: 'Events should be filtered by whether their venue has geolocation data',
    description: 'true: only events whose venue has coordinates',
    price: 100,
    onWithheld: 'whenTrue',
    check: (given: boolean | null | undefined): Checked<boolean> => ({
      effective: given ?? null,
      where: given === true ? VENUE_HAS_PLACE : undefined,
    }),
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
    check: (given: Near | null | undefined, { paramName }: FilterRequest): Checked<Point> => {
      const { lat, lng, radius } = given ?? {};
      const errors: FilterError[] = [];
      const hasLat = lat !== null && lat !== undefined;
      const hasLng = lng !== null && lng !== undefined;
      if (hasLat !== hasLng) {
        const reason = `${paramName('near.lat')} and ${paramName('near.lng')} go together.`;
        errors.push({ param: hasLat ? 'near.lng' : 'near.lat', reason });
      }
      if (hasLat && (!Number.isFinite(lat) || lat < -90 || lat > 90))
        errors.push({ param: 'near.lat', reason: INVALID });
      if (hasLng && (!Number.isFinite(lng) || lng < -180 || lng > 180))
        errors.push({ param: 'near.lng', reason: INVALID });
      const km = radius ?? DEFAULT_GEO_RADIUS_KM;
      if (!Number.isFinite(km) || km <= 0 || km > Math.PI * EARTH_RADIUS_KM)
        errors.push({ param: 'near.radius', reason: INVALID });
      const point = hasLat && hasLng ? { lat, lng, radius: km } : null;
      // The circle's bounding box (a condition of fixed size, however many venues it holds); the venues
      // in it have coordinates.
      const where = point
        ? { venues: { some: { venue: boundingBox(point.lat, point.lng, point.radius) } } }
        : undefined;
      return { effective: point, where, errors };
    },
    lookup: async (point: Point, ctx, { paramName }): Promise<Checked<Point>> => ({
      effective: point,
      distances: await venuesInRange(ctx, point, paramName('near.radius')),
    }),
  },
  include: {
    facts: ['order'],
    kind: 'intList',
    rest: 'include',
    restDescription:
      'Include events with one of the post IDs specified in the array or CSV list; date filters are ignored',
    description: 'Only these events, ordered by publication date; date filters are ignored',
    check: (given: readonly number[] | null | undefined): Checked<number[]> => {
      const ids = given?.length ? [...new Set(given)] : null;
      return { effective: ids, where: ids ? { id: { in: ids } } : undefined };
    },
    order: [{ publishedAt: 'asc' }, { id: 'asc' }],
  },
  postParent: {
    facts: ['parent'],
    kind: 'int',
    rest: 'post_parent',
    restDescription: 'Events should be filtered by their post_parent being the specified one',
    description: 'Children of this event',
    // One the viewer may not read is as unknown as a missing one.
    lookup: async (id: number, ctx, { paramName }): Promise<Checked<number>> => {
      const where = { id, ...readableWhere(ctx.viewer) };
      const parent = await ctx.db.event.findFirst({ where, select: { id: true } });
      if (parent) return { effective: parent.id, where: { postParentId: parent.id } };
      const message = `The specified ID for the "${paramName('postParent')}" parameter is not a valid event.`;
      return { effective: null, refusal: new ApiError(400, 'rest-invalid-event-id', message) };
    },
  },
  ticketed: {
    // A reservation leaves it as it was; a ticket type write names the event with every fact; a
    // canceled event sells nothing.
    facts: ['eventStatus'],
    kind: 'boolean',
    rest: 'ticketed',
    restDescription: 'Filter events with or without tickets',
    description: 'true: only events with a ticket type on sale now; false: only events without one',
    readsClock: true,
    check: (given: boolean | null | undefined, request): Checked<boolean> =>
      given === null || given === undefined
        ? { effective: null }
        : { effective: given, where: ticketedWhere(given, request.now) },
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

/** The filters errors are reported for: the domain names, `near.*` for the point's. */
export type FilterParam = Exclude<FilterName, 'near'> | 'near.lat' | 'near.lng' | 'near.radius';

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

/** A filter's value as the list applied it: what its lookup, else its check, makes of it; term tokens as given. */
export type EffectiveValue<K extends FilterName> = EventFilters[K] extends {
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
