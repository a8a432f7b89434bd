import type { DateTime } from 'luxon';
import type { Context } from '../scope.js';
import { WALL_CLOCK, endOfDayWall, parseDateInput, startOfDayWall } from '../../domain/dates.js';
import { invalidParams, isApiError } from '../../domain/errors.js';
import {
  DECLARED_FILTERS,
  EVENT_FILTERS,
  type DeclaredFilterName,
  type DeclaredFilterValue,
  type EventListFilter,
  FILTER_NAMES,
  type FilterName,
  type FilterParam,
  LIST_FILTERS,
  LOOKUP_FILTERS,
  type LookupFilterName,
  TERM_FILTERS,
  type TermFilterName,
  applyDeclaredFilter,
  applyLookupFilter,
  termLookups,
  termWhere,
  onWithheld,
} from '../../model/event-filters.js';
import type { Unlisted } from './event-input.js';
import { SEARCH_TOO_LONG, exceeds, searchTooLong, tooManyValues } from '../../domain/limits.js';
import { type Viewer, listableStatuses } from '../../domain/permissions.js';
import { contentOpenWhere } from '../../domain/visibility.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import { eventSearchMatches } from '../text-search.js';
import { DEFAULT_GEO_RADIUS_KM, EARTH_RADIUS_KM, boundingBox, venuesInRange } from './events-geo.js';

// The event list (`GET /events`, GraphQL `events`): the reference's filters (docs/reference.md §5) turned
// into one Prisma `where` (`events.ts` pages it). Dates compare the filter's wall-clock in the site zone with each
// event's own local wall-clock (`localStart`/`localEnd`), the reference's default "event time zone" mode.

export type { EventListFilter } from '../../model/event-filters.js';

/** The filters as the list applied them: REST echoes them in `rest_url` and the paging links (D2). */
export type EffectiveEventFilter = HandEffective & {
  [K in DeclaredFilterName]: DeclaredFilterValue<K> | null;
} & { [K in LookupFilterName]: number[] | null } & { [K in TermFilterName]: string[] | null };

interface HandEffective {
  startDate: string | null;
  endDate: string | null;
  startsBefore: string | null;
  startsAfter: string | null;
  endsBefore: string | null;
  endsAfter: string | null;
  strictDates: boolean;
  status: string[];
  /** Every status the viewer may list was asked for (no `status`, or `any`): echoed as `any`. */
  statusAny: boolean;
  postParent: number | null;
  include: number[] | null;
  geoloc: boolean | null;
  near: { lat: number; lng: number; radius: number } | null;
}

// Every filter is applied: declared ones by their declaration, the others by hand below.
const everyFilter: Unlisted<
  Exclude<FilterName, DeclaredFilterName | LookupFilterName | TermFilterName>,
  keyof HandEffective
> = true;
void everyFilter;

type Param = FilterParam;

const INVALID = 'Invalid parameter.';
const DATE_FILTERS = [
  'startDate',
  'endDate',
  'startsBefore',
  'startsAfter',
  'endsBefore',
  'endsAfter',
] as const;
type DateFilter = (typeof DATE_FILTERS)[number];

export interface EventListOptions {
  /** How the API names the filters in its errors (domain name → its own); by default the domain names. */
  paramNames?: Readonly<Record<string, string>>;
  now?: Date;
  /** Opens the protected events of that password (their content, and the filters on it). */
  password?: string | null;
}

export interface EventQuery {
  where: Prisma.EventWhereInput;
  orderBy: Prisma.EventOrderByWithRelationInput[];
  effective: EffectiveEventFilter;
  /**
   * Geo lists only: the venues in range, with their distance in km. `where` then matches the events of
   * the venues in the circle's bounding box (a condition of fixed size, however many venues it holds):
   * `nearestEventIds` keeps those inside the circle, nearest first.
   */
  distances: Map<number, number> | null;
  /** The ids each term filter matches (an event must have one of each): what decides its membership. */
  termIds: number[][];
}

class ParamErrors {
  readonly reasons: Record<string, string> = {};
  readonly details: Record<string, { code: string; message: string; data: unknown }> = {};
  constructor(private readonly names: Readonly<Record<string, string>> = {}) {}

  name(param: Param): string {
    return this.names[param] ?? param;
  }

  add(param: Param, reason = INVALID, detail?: { code: string; message: string }): void {
    const name = this.name(param);
    this.reasons[name] = reason;
    if (detail) this.details[name] = { ...detail, data: { status: 400 } };
  }

  /** Folds an error a shared rule threw (e.g. the status rules) into this request's list. */
  absorb(error: unknown, param: Param): void {
    if (!isApiError(error) || error.code !== 'rest_invalid_param') throw error;
    this.add(param);
  }

  throwIfAny(): void {
    if (Object.keys(this.reasons).length) throw invalidParams(this.reasons, this.details);
  }
}

/**
 * A date filter → the site-zone wall-clock it compares with. Inclusive mode (the default) rounds
 * `start_date` to 00:00:00 and every other bound to 23:59:59 of its day (docs/reference.md §5.5).
 */
function dateBound(parsed: DateTime, filter: DateFilter, strict: boolean): string {
  if (strict) return parsed.toFormat(WALL_CLOCK);
  return (filter === 'startDate' ? parsed.startOf('day') : parsed.endOf('day')).toFormat(WALL_CLOCK);
}

type TermFilter = TermFilterName;

/**
 * Category/tag tokens (slug first, then numeric id, as the reference) → term ids, in one query, and the
 * filters naming a term that does not exist: the lookup of the list and of the event subscriptions.
 */
export async function resolveTerms(
  ctx: Context,
  wanted: Array<{ param: TermFilter; taxonomy: string; tokens: readonly string[] }>,
): Promise<{ ids: Record<TermFilter, number[]>; unknown: TermFilter[] }> {
  const ids = Object.fromEntries(TERM_FILTERS.map((name) => [name, []])) as unknown as Record<
    TermFilter,
    number[]
  >;
  const unknown = new Set<TermFilter>();
  const active = wanted.filter((w) => w.tokens.length);
  if (!active.length) return { ids, unknown: [] };
  const numeric = (tokens: readonly string[]) =>
    tokens
      .filter((t) => /^\d+$/.test(t))
      .map(Number)
      .filter(Number.isSafeInteger);
  const terms = await ctx.db.term.findMany({
    where: {
      OR: active.flatMap(({ taxonomy, tokens }) => [
        { taxonomy, slug: { in: tokens.map((token) => token.toLowerCase()) } },
        { taxonomy, id: { in: numeric(tokens) } },
      ]),
    },
    select: { id: true, slug: true, taxonomy: true },
  });
  for (const { param, taxonomy, tokens } of active) {
    const ofTaxonomy = terms.filter((term) => term.taxonomy === taxonomy);
    for (const token of tokens) {
      const term =
        ofTaxonomy.find((t) => t.slug === token.toLowerCase()) ??
        (/^\d+$/.test(token) ? ofTaxonomy.find((t) => t.id === Number(token)) : undefined);
      if (term) ids[param].push(term.id);
      else unknown.add(param);
    }
  }
  return { ids, unknown: [...unknown] };
}

/**
 * Validates the filters and builds the query. All parameter errors of a request are reported together
 * (400 `rest_invalid_param`), as WordPress validates every argument before answering.
 */
export async function resolveEventQuery(
  ctx: Context,
  filter: EventListFilter,
  options: EventListOptions,
): Promise<EventQuery> {
  const viewer: Viewer = ctx.viewer;
  const siteZone = ctx.config.siteTimezone;
  const now = options.now ?? new Date();
  const errors = new ParamErrors(options.paramNames);
  // Sizes first, before any lookup: no query grows with what the request sends.
  if (searchTooLong(filter.search)) errors.add('search', SEARCH_TOO_LONG);
  for (const param of LIST_FILTERS) {
    if (exceeds(filter[param] as readonly unknown[] | null | undefined))
      errors.add(param as Param, tooManyValues());
  }
  errors.throwIfAny();
  const and: Prisma.EventWhereInput[] = [{ hideFromListings: false }];

  // Dates
  const strict = filter.strictDates === true;
  const bounds: Record<DateFilter, string | null> = {
    startDate: null,
    endDate: null,
    startsBefore: null,
    startsAfter: null,
    endsBefore: null,
    endsAfter: null,
  };
  for (const key of DATE_FILTERS) {
    const raw = filter[key];
    if (raw === null || raw === undefined) continue;
    const parsed = parseDateInput(raw, siteZone, now);
    if (parsed) bounds[key] = dateBound(parsed, key, strict);
    else errors.add(key);
  }
  const include = filter.include?.length ? [...new Set(filter.include)] : null;
  const relative = bounds.startsBefore ?? bounds.startsAfter ?? bounds.endsBefore ?? bounds.endsAfter;
  if (include) {
    // D15: `include` ignores every date filter.
    for (const key of DATE_FILTERS) bounds[key] = null;
  } else if (relative === null) {
    bounds.startDate ??= startOfDayWall(now, siteZone, -1);
    bounds.endDate ??= endOfDayWall(now, siteZone, 24);
  }
  const localStart: Prisma.StringFilter = {};
  const localEnd: Prisma.StringFilter = {};
  if (bounds.startDate) localStart.gte = bounds.startDate;
  if (bounds.startsAfter) localStart.gt = bounds.startsAfter;
  if (bounds.startsBefore) localStart.lt = bounds.startsBefore;
  if (bounds.endDate) localEnd.lte = bounds.endDate;
  if (bounds.endsAfter) localEnd.gt = bounds.endsAfter;
  if (bounds.endsBefore) localEnd.lt = bounds.endsBefore;
  if (Object.keys(localStart).length) and.push({ localStart });
  if (Object.keys(localEnd).length) and.push({ localEnd });

  // Status (the capability rules decide what each viewer may list).
  let status: string[] = [];
  let statusAny = false;
  try {
    const listable = listableStatuses(viewer, filter.status ? [...filter.status] : null);
    status = listable.statuses;
    statusAny = listable.any;
    and.push({ status: { in: status } });
    if (listable.ownOnlyBeyondPublish)
      and.push({ OR: [{ status: 'publish' }, { authorId: viewer.userId ?? -1 }] });
  } catch (error) {
    errors.absorb(error, 'status');
  }

  // Geo
  let near: EffectiveEventFilter['near'] = null;
  const { lat, lng, radius } = filter.near ?? {};
  const hasLat = lat !== null && lat !== undefined;
  const hasLng = lng !== null && lng !== undefined;
  if (hasLat !== hasLng)
    errors.add(
      hasLat ? 'near.lng' : 'near.lat',
      `${errors.name('near.lat')} and ${errors.name('near.lng')} go together.`,
    );
  if (hasLat && (!Number.isFinite(lat) || lat < -90 || lat > 90)) errors.add('near.lat');
  if (hasLng && (!Number.isFinite(lng) || lng < -180 || lng > 180)) errors.add('near.lng');
  const km = radius ?? DEFAULT_GEO_RADIUS_KM;
  if (!Number.isFinite(km) || km <= 0 || km > Math.PI * EARTH_RADIUS_KM) errors.add('near.radius');
  if (hasLat && hasLng) near = { lat, lng, radius: km };
  if (filter.geoloc === true || near) {
    and.push({ venues: { some: { venue: { geoLat: { not: null }, geoLng: { not: null } } } } });
  }

  // The filters whose validation and condition are declared (`model/event-filters.ts`).
  const declared = {} as { [K in DeclaredFilterName]: DeclaredFilterValue<K> | null };
  const provider = ctx.config.databaseProvider;
  const search = filter.search?.trim();
  // SQLite's trigram index is asked for a search's events before the condition names them.
  const searchMatches = search ? await eventSearchMatches(ctx.db, search, provider) : null;
  const env = { databaseProvider: provider, searchMatches };
  for (const name of DECLARED_FILTERS) {
    const applied = applyDeclaredFilter(name, filter[name], env);
    Object.assign(declared, { [name]: applied && 'effective' in applied ? applied.effective : null });
    if (applied && 'reason' in applied) errors.add(name, applied.reason, applied.detail);
    else if (applied?.where) and.push(applied.where);
  }

  // Lookups that need the database: every id and slug must exist. Term tokens are echoed as given.
  const termTokens = {} as { [K in TermFilterName]: string[] | null };
  for (const name of TERM_FILTERS) termTokens[name] = filter[name]?.length ? [...filter[name]] : null;
  const [{ ids: terms, unknown: unknownTerms }, lookups, parent, inRange] = await Promise.all([
    resolveTerms(ctx, termLookups(filter)),
    // Venues and organizers, as declared.
    Promise.all(LOOKUP_FILTERS.map((name) => applyLookupFilter(name, filter[name], ctx))),
    filter.postParent !== null && filter.postParent !== undefined
      ? EVENT_FILTERS.postParent.parent.find(filter.postParent, ctx)
      : undefined,
    near ? venuesInRange(ctx, near, errors.name('near.radius')) : null,
  ]);
  for (const param of unknownTerms) errors.add(param);
  const looked = {} as { [K in LookupFilterName]: number[] | null };
  const lookedWhere: Prisma.EventWhereInput[] = [];
  LOOKUP_FILTERS.forEach((name, i) => {
    const applied = lookups[i];
    looked[name] = applied && 'effective' in applied ? applied.effective : null;
    if (applied && 'reason' in applied) errors.add(name, applied.reason, applied.detail);
    else if (applied?.where) lookedWhere.push(applied.where);
  });
  errors.throwIfAny();
  if (parent === null) throw EVENT_FILTERS.postParent.parent.invalid(errors.name('postParent'));

  for (const name of TERM_FILTERS) if (termTokens[name]) and.push(termWhere(terms[name]));
  and.push(...lookedWhere);
  if (include) and.push({ id: { in: include } });
  if (parent) and.push(EVENT_FILTERS.postParent.parent.where(parent.id));
  if (near) and.push({ venues: { some: { venue: boundingBox(near.lat, near.lng, near.radius) } } });
  // The listing blanks a protected event's venue, organizers, terms, flags and text for whoever cannot
  // unlock it; a filter on those must not match it either (D21: search included, whoever the viewer).
  const effective: EffectiveEventFilter = {
    ...bounds,
    strictDates: strict,
    status,
    statusAny,
    postParent: parent?.id ?? null,
    include,
    ...termTokens,
    geoloc: filter.geoloc ?? null,
    near,
    ...declared,
    ...looked,
  };
  if (FILTER_NAMES.some((name) => onWithheld(name, effective[name])))
    and.push(contentOpenWhere(viewer, options.password));

  return {
    where: { AND: and },
    orderBy: include ? [{ publishedAt: 'asc' }, { id: 'asc' }] : [{ localStart: 'asc' }, { id: 'asc' }],
    distances: inRange,
    termIds: TERM_FILTERS.flatMap((name) => (termTokens[name] ? [terms[name]] : [])),
    effective,
  };
}

/** The name the API gives the radius, for the errors of a geo list. */
export const radiusName = (options: EventListOptions) => options.paramNames?.['near.radius'] ?? 'near.radius';
