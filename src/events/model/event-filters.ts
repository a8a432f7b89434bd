import { EVENT_STATUSES, INVALID_EVENT_STATUS } from './event-status.js';
import { DateTime } from 'luxon';
import {
  DATE_YEARS,
  WALL_CLOCK,
  endOfDayWall,
  parseDateInput,
  startOfDayWall,
} from '../../core/rules/dates.js';
import { ApiError, isApiError } from '../../core/errors/errors.js';
import { SEARCH_TOO_LONG, searchTooLong } from '../../core/rules/limits.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import { listableStatuses, readableWhere } from '../../core/rules/permissions.js';
import { EVENT_LINKS, linkCondition } from '../../core/db/queries/list-conditions.js';
import { eventSearchCondition } from '../../core/db/queries/text-search.js';
import { DEFAULT_GEO_RADIUS_KM, EARTH_RADIUS_KM, boundingBox, venuesInRange } from '../service/events-geo.js';
import { ATTENDANCE_MODES, EVENT_FIELDS } from './event-fields.js';
import type {
  Checked,
  EchoValue,
  FilterDeclaration,
  FilterError,
  FilterRequest,
  Near,
  WindowBound,
} from './filter-shapes.js';

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
// (`core/graphql/limits.ts`) all come from here, through `filter-catalog.ts`; the declarations' types
// are `filter-shapes.ts`.

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
} as const satisfies Record<WindowBound, unknown>;
export const WINDOW_BOUNDS = Object.keys(WINDOW) as WindowBound[];

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
type TicketedCondition = (ticketed: boolean, now: Date) => Prisma.EventWhereInput;

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

/** A relative bound (`starts_before` …): the events that start or end before or after a date. */
const relativeBound = <Rest extends string>(
  name: WindowBound,
  rest: Rest,
  verb: 'start' | 'end',
  side: 'before' | 'after',
) =>
  ({
    facts: ['span'],
    kind: 'string',
    rest,
    restDescription: `Events that ${verb} ${side} the specified date`,
    description: dates(`Events ${verb}ing ${side}`),
    check: windowBound(name),
  }) as const;

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
  startsBefore: relativeBound('startsBefore', 'starts_before', 'start', 'before'),
  startsAfter: relativeBound('startsAfter', 'starts_after', 'start', 'after'),
  endsBefore: relativeBound('endsBefore', 'ends_before', 'end', 'before'),
  endsAfter: relativeBound('endsAfter', 'ends_after', 'end', 'after'),
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
    // A protected event's listing shows no ticket types: either way the filter would tell (D21).
    onWithheld: true,
    check: (given: boolean | null | undefined, request): Checked<boolean> =>
      given === null || given === undefined
        ? { effective: null }
        : { effective: given, where: ticketedWhere(given, request.now) },
  },
} as const satisfies Record<string, FilterDeclaration>;
