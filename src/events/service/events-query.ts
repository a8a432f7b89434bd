import type { Context } from '../../core/context/scope.js';
import { type ApiError, invalidParams } from '../../core/errors/errors.js';
import { EVENT_FILTERS } from '../model/event-filters.js';
import type { Checked, FilterRequest, PartnerFilters } from '../model/filter-shapes.js';
import {
  CHECK_ORDER,
  type EffectiveEventFilter,
  type EventListFilter,
  FILTER_NAMES,
  type FilterName,
  TERM_FILTERS,
  type TermFilterName,
  filterDeclaration,
  onWithheld,
} from '../model/filter-catalog.js';
import { exceeds, tooManyValues } from '../../core/rules/limits.js';
import { contentOpenWhere } from '../../core/rules/visibility.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import { type Viewer, listableStatuses } from '../../core/rules/permissions.js';
import { type ListBuckets, listBuckets } from './list-counts.js';
import {
  type CountingLink,
  EVENT_LINKS,
  LISTED,
  type ListCondition,
  conditionsNow,
  countingLink,
  linkCondition,
} from '../../core/db/queries/list-conditions.js';

// The event list (`GET /events`, GraphQL `events`) and the event subscription's filter: the declared
// filters (`events/model/event-filters.ts`, docs/reference/filters.md) applied in one loop — sizes, checks,
// lookups — and turned into one Prisma `where` (`events.ts` pages it).

export type { EffectiveEventFilter, EventListFilter } from '../model/filter-catalog.js';

// The rules spanning several filters read their partners as `EventListFilter` declares them.
const partnersDeclared: EventListFilter extends PartnerFilters ? true : never = true;
void partnersDeclared;

export interface EventListOptions {
  /** How the API names the filters in its errors (domain name → its own); by default the domain names. */
  paramNames?: Readonly<Record<string, string>>;
  now?: Date;
  /** Opens the protected events of that password (their content, and the filters on it). */
  password?: string | null;
}

export interface EventQuery {
  /** The list's condition as this read applies it (naming the events an index found, on SQLite). */
  where: Prisma.EventWhereInput;
  /** How the list's total is counted. */
  total: ListTotal;
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

/**
 * The list's total: the condition counted (the list's, less the link it is counted over) now, and as
 * a later count reads it (the indexes asked again: a cached page's total counted after a write).
 */
export interface ListTotal {
  where: Prisma.EventWhereInput;
  through: CountingLink | null;
  whereAgain: () => Promise<Prisma.EventWhereInput>;
  /** The list counts' buckets that sum to the same total, when its conditions are whole days and statuses. */
  buckets: ListBuckets | null;
}

class ParamErrors {
  readonly reasons: Record<string, string> = {};
  readonly details: Record<string, { code: string; message: string; data: unknown }> = {};
  constructor(private readonly names: Readonly<Record<string, string>> = {}) {}

  name(param: string): string {
    return this.names[param] ?? param;
  }

  add(param: string, reason: string, detail?: { code: string; message: string }): void {
    const name = this.name(param);
    this.reasons[name] = reason;
    if (detail) this.details[name] = { ...detail, data: { status: 400 } };
  }

  throwIfAny(): void {
    if (Object.keys(this.reasons).length) throw invalidParams(this.reasons, this.details);
  }
}

/**
 * Category/tag tokens (slug first, then numeric id, as the reference) → term ids, in one query, and the
 * filters naming a term that does not exist: the lookup of the list and of the event subscriptions.
 */
async function resolveTerms(
  ctx: Context,
  wanted: Array<{ param: TermFilterName; taxonomy: string; tokens: readonly string[] }>,
): Promise<{ ids: Record<TermFilterName, number[]>; unknown: TermFilterName[] }> {
  const ids = Object.fromEntries(TERM_FILTERS.map((name) => [name, []])) as unknown as Record<
    TermFilterName,
    number[]
  >;
  const unknown = new Set<TermFilterName>();
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

/** The declared filters as a request applied them. */
interface AppliedFilters {
  effective: EffectiveEventFilter;
  /** Their conditions (D21's included): an event must meet each. */
  where: Prisma.EventWhereInput[];
  /** The same conditions, with how an index answers some of them for one read (a list's). */
  conditions: ListCondition[];
  /** The order a filter imposes (`include`: by publication); null: none does. */
  order: Prisma.EventOrderByWithRelationInput[] | null;
  distances: Map<number, number> | null;
  termIds: number[][];
}

const isSet = (value: unknown) =>
  value !== null && value !== undefined && !(Array.isArray(value) && !value.length);

/** A given value's size refusal, checked before any lookup: no query grows with what the request sends. */
function sizeRefusal(name: FilterName, given: unknown): string | null {
  const declaration = filterDeclaration(name);
  if (declaration.limit) return declaration.limit(given as never);
  const list = declaration.kind === 'stringList' || declaration.kind === 'intList';
  return list && exceeds(given as readonly unknown[] | null | undefined) ? tooManyValues() : null;
}

/**
 * Applies the declared filters (`only` some of them: the subscription's): every size first, then every
 * check (in `CHECK_ORDER`), then the lookups together (the term filters in one query). All parameter
 * errors of a request are reported together (400 `rest_invalid_param`), as WordPress validates every
 * argument before answering; a filter's own refusal (`post_parent`) comes alone after them.
 */
export async function applyFilters(
  ctx: Context,
  filter: EventListFilter,
  options: EventListOptions & { only?: readonly FilterName[] },
): Promise<AppliedFilters> {
  const names = options.only ?? FILTER_NAMES;
  const errors = new ParamErrors(options.paramNames);
  for (const name of names) {
    const reason = sizeRefusal(name, filter[name]);
    if (reason) errors.add(name, reason);
  }
  errors.throwIfAny();

  const request: FilterRequest = {
    filter,
    viewer: ctx.viewer,
    now: options.now ?? new Date(),
    siteZone: ctx.config.siteTimezone,
    databaseProvider: ctx.config.databaseProvider,
    paramName: (param) => errors.name(param),
  };
  const effective = Object.fromEntries(FILTER_NAMES.map((name) => [name, null])) as Record<
    FilterName,
    unknown
  >;
  const conditions: ListCondition[] = [];
  const refusals: ApiError[] = [];
  let distances: Map<number, number> | null = null;
  const apply = (name: FilterName, checked: Checked<unknown>) => {
    effective[name] = checked.effective;
    if (checked.effective !== null && checked.effective !== undefined && filterDeclaration(name).readsClock)
      ctx.reads?.readClock();
    for (const error of checked.errors ?? []) errors.add(error.param, error.reason, error.detail);
    const { where, indexed, link } = checked;
    if (where) conditions.push({ where, ...(indexed && { indexed }), ...(link && { link }) });
    if (checked.refusal) refusals.push(checked.refusal);
    if (checked.distances) distances = checked.distances;
  };

  for (const name of CHECK_ORDER) {
    const { check } = filterDeclaration(name);
    if (check && names.includes(name)) apply(name, check(filter[name] as never, request));
  }

  // Lookups that need the database: every id and slug must exist. Term tokens are echoed as given.
  const terms = TERM_FILTERS.filter((name) => names.includes(name) && isSet(filter[name]));
  const lookups = names.flatMap((name) => {
    const { check, lookup } = filterDeclaration(name);
    const value = check ? effective[name] : filter[name];
    return lookup && isSet(value) ? [{ name, looked: lookup(value as never, ctx, request) }] : [];
  });
  const [resolved, looked] = await Promise.all([
    resolveTerms(
      ctx,
      terms.map((name) => ({
        param: name,
        taxonomy: EVENT_FILTERS[name].term.taxonomy,
        tokens: filter[name]!,
      })),
    ),
    Promise.all(lookups.map(({ looked }) => looked)),
  ]);
  for (const name of resolved.unknown) errors.add(name, 'Invalid parameter.');
  for (const name of terms) {
    effective[name] = [...filter[name]!];
    conditions.push(linkCondition(EVENT_LINKS.terms, resolved.ids[name]));
  }
  lookups.forEach(({ name }, i) => apply(name, looked[i]!));
  errors.throwIfAny();
  if (refusals.length) throw refusals[0];

  // The listing blanks a protected event's venue, organizers, terms, flags and text for whoever cannot
  // unlock it; a filter on those must not match it either (D21: search included, whoever the viewer).
  if (names.some((name) => onWithheld(name, effective[name])))
    conditions.push({ where: contentOpenWhere(ctx.viewer, options.password) });
  const ordering = names.find((name) => filterDeclaration(name).order && isSet(effective[name]));
  return {
    effective: effective as EffectiveEventFilter,
    where: conditions.map((condition) => condition.where),
    conditions,
    order: ordering ? [...filterDeclaration(ordering).order!] : null,
    distances,
    termIds: terms.map((name) => resolved.ids[name]),
  };
}

/** The list's order unless a filter sets another: local start, then id (what a page's extent compares). */
export const DEFAULT_EVENT_ORDER: Prisma.EventOrderByWithRelationInput[] = [
  { localStart: 'asc' },
  { id: 'asc' },
];

/** Days of starts past which a window likely holds more events than one record's links. */
const LINKS_FIRST_DAYS = 180;

/**
 * Whether the events' starts a window admits span `LINKS_FIRST_DAYS` or more (unbounded included):
 * a total counted over one record's links then starts from them. SQLite's planner guesses the default
 * window (two years) smaller than a category's links and reads the window first: 32 ms where the
 * links take 8 ms at 100,000 events. A month, it reads better itself.
 */
function spansMonths(effective: EffectiveEventFilter): boolean {
  const bounds = (walls: Array<string | null>) =>
    walls.filter((wall): wall is string => wall !== null).sort();
  const from = bounds([effective.startDate, effective.startsAfter]).at(-1);
  const to = bounds([effective.startsBefore, effective.endDate, effective.endsBefore])[0];
  if (from === undefined || to === undefined) return true;
  const days =
    (Date.parse(`${to.replace(' ', 'T')}Z`) - Date.parse(`${from.replace(' ', 'T')}Z`)) / 86_400_000;
  return days >= LINKS_FIRST_DAYS;
}

/** Validates the filters and builds the list's query: the events listed (`LISTED`) that meet them. */
export async function resolveEventQuery(
  ctx: Context,
  filter: EventListFilter,
  options: EventListOptions,
): Promise<EventQuery> {
  const applied = await applyFilters(ctx, filter, options);
  const { db } = ctx;
  const listed = (wheres: Prisma.EventWhereInput[]) => ({ AND: [LISTED, ...wheres] });
  // Counted over a link, the link's own condition is what the count starts from.
  const through = countingLink(
    applied.conditions,
    ctx.config.databaseProvider,
    spansMonths(applied.effective),
  );
  const counted = (wheres: Prisma.EventWhereInput[]) =>
    listed(through ? wheres.filter((where) => where !== through.condition.where) : wheres);
  const wheres = await conditionsNow(db, applied.conditions);
  return {
    where: listed(wheres),
    total: {
      where: counted(wheres),
      through,
      whereAgain: async () => counted(await conditionsNow(db, applied.conditions)),
      buckets: listBuckets(applied.effective, ownOnlyBeyondPublish(ctx.viewer, filter)),
    },
    orderBy: applied.order ?? DEFAULT_EVENT_ORDER,
    distances: applied.distances,
    termIds: applied.termIds,
    effective: applied.effective,
  };
}

/** Whether the viewer lists others' events in `publish` only and its own in the other statuses asked. */
function ownOnlyBeyondPublish(viewer: Viewer, filter: EventListFilter): boolean {
  // The filters were checked: the statuses asked are ones the viewer may list.
  return listableStatuses(viewer, filter.status ? [...filter.status] : null).ownOnlyBeyondPublish;
}

/** The name the API gives the radius, for the errors of a geo list. */
export const radiusName = (options: EventListOptions) => options.paramNames?.['near.radius'] ?? 'near.radius';
