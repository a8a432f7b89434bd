import { type SearchTerm, searchVerdict } from '../rules/search.js';
import { mechanismOn } from '../config/cache-mechanisms.js';

// What a cached answer depends on, and what a committed write changed: the two halves of selective
// invalidation (the response cache drops an answer only when a write's effect meets its dependencies).
// Both are plain data, so that an answer carries its dependencies back to the edge with its value and a
// write's effect travels to the other instances as one small JSON message.

/**
 * An event as the lists see it: its local wall-clock start and end, and where its writer knows them,
 * its status and the ids of its terms, venues and organizers (absent: any, for the comparison).
 */
export interface EventSpan {
  localStart: string;
  localEnd: string;
  /** The texts `search` reads (`eventSearchTexts`): kept to this instance, never sent to others. */
  texts?: readonly string[];
  status?: string;
  terms?: readonly number[];
  venues?: readonly number[];
  organizers?: readonly number[];
}

/**
 * What of an event decides whether (and where) a list holds it: its place on the calendar (`span`), its
 * publication date (`order` of `include` lists), status and author (`status`), `hidden` from listings,
 * `password`, and what filters read (`text` for search, `terms`, `venues`, `organizers`, `featured`,
 * `eventStatus`, `attendanceMode`, `parent`).
 */
export type EventFact =
  | 'span'
  | 'order'
  | 'status'
  | 'hidden'
  | 'password'
  | 'text'
  | 'terms'
  | 'venues'
  | 'organizers'
  | 'featured'
  | 'eventStatus'
  | 'attendanceMode'
  | 'parent';

/** What every event list's membership and order read, whatever its filters. */
export const LIST_FACTS: readonly EventFact[] = ['span', 'order', 'status', 'hidden'];

/**
 * How much of a list an answer shows: `members` — only who is in it (a total: an event moving within
 * the list's dates leaves it as it was). Absent: its rows in their order.
 */
export type ListExtent = 'members';

/**
 * An event list: the wall-clock bounds it applies to its events' local start and end (`null`:
 * unbounded, taken inclusively: an event outside them is no member, before or after any write), and
 * the facts its membership and order read.
 */
export interface EventWindow {
  startFrom: string | null;
  startTo: string | null;
  endFrom: string | null;
  endTo: string | null;
  facts: readonly EventFact[];
  /** The statuses it lists. */
  statuses: readonly string[] | null;
  /** Term filters: a member has one term of each set. */
  terms: ReadonlyArray<readonly number[]>;
  /** Venue and organizer filters: a member has one of them. */
  venues: readonly number[] | null;
  organizers: readonly number[] | null;
  /** The terms of its `search`, if it has one. */
  search?: readonly SearchTerm[];
  extent?: ListExtent;
}

/**
 * An event written: where it was and is (null: it did not exist, or no longer does), and which of its
 * facts the write may have changed (`all`: any, as a creation or a deletion does).
 */
export interface EventMove {
  /** The event's id, where the writer names it. */
  id?: number;
  before: EventSpan | null;
  after: EventSpan | null;
  facts: readonly EventFact[] | 'all';
  /**
   * The columns it wrote, where the write changed only columns that nothing reads but the fields
   * showing them (its text, its cost, `modifiedAt`…: not its dates, status, slug, links or password):
   * an answer showing the event through other fields only (`Dependencies.eventColumns`) stays as it was.
   * Absent: anything of the event may have changed for any answer showing it.
   */
  shown?: readonly string[];
}

/** Families of records whose any write an answer depends on (a lookup by slug, a list of them). */
export type DependencyKind = 'venue' | 'organizer' | 'term' | 'term-counts' | 'events';

export interface Dependencies {
  /**
   * Records the answer shows (`event:12`, `venue:3`, `term:5`, a term's count `term-count:5`): a write
   * to one of them drops it.
   */
  records: string[];
  /** Families whose any write drops it (`events`: any event write, when membership is not decided). */
  kinds: DependencyKind[];
  /** The event lists it holds: an event written whose span lies in one of them, before or after, drops it. */
  windows: EventWindow[];
  /**
   * The event columns the fields showing its `event:12` records read, where its edge can say (a GraphQL
   * document's selection): a write that changed only other columns (`EventMove.shown`) leaves it as it
   * was. Absent: any column.
   */
  eventColumns?: readonly string[];
}

/** What a committed write changed, as the caches need to know it. */
export interface WriteEffect {
  /** Everything may have changed (users, roles, or a writer that cannot say): every answer is dropped. */
  all?: boolean;
  /** Records written (`event:12`, `term:5`). */
  records: string[];
  /** Families touched beyond those records: a write to a venue is a write to the `venue` family. */
  kinds: DependencyKind[];
  /** The events written, as the lists see them; `unknown` when a writer did not say. */
  events: EventMove[] | 'unknown';
}

export const EVERYTHING: WriteEffect = { all: true, records: [], kinds: [], events: 'unknown' };

/** An answer that depends on everything: dropped by every write (GraphQL documents, feeds). */
export const ANY_WRITE: Dependencies = {
  records: [],
  kinds: ['venue', 'organizer', 'term', 'term-counts', 'events'],
  windows: [],
};

export const recordTag = (kind: string, id: number | string): string => `${kind}:${id}`;

/** Whether `span` lies within the date bounds of `window` (its other criteria aside). */
function withinDates(window: EventWindow, span: EventSpan): boolean {
  return (
    (window.startFrom === null || span.localStart >= window.startFrom) &&
    (window.startTo === null || span.localStart <= window.startTo) &&
    (window.endFrom === null || span.localEnd >= window.endFrom) &&
    (window.endTo === null || span.localEnd <= window.endTo)
  );
}

/** Whether the list of `window` could hold an event at `span`. */
export function windowAdmits(window: EventWindow, span: EventSpan | null): boolean {
  return (
    span !== null &&
    withinDates(window, span) &&
    (window.statuses === null || span.status === undefined || window.statuses.includes(span.status)) &&
    window.terms.every((set) => meets(set, span.terms)) &&
    meets(window.venues, span.venues) &&
    meets(window.organizers, span.organizers) &&
    (!window.search || !mechanismOn('search-verdicts') || searchVerdict(window.search, span.texts) !== false)
  );
}

/** A filter of ids (null: none) against an event's ids (undefined: unknown, so possibly any). */
const meets = (filter: readonly number[] | null, ids: readonly number[] | undefined) =>
  filter === null || ids === undefined || filter.some((id) => ids.includes(id));

/** Whether a write with `effect` can change an answer with `dependencies`. */
export const affects = (effect: WriteEffect, dependencies: Dependencies): boolean =>
  effectTest(effect).affects(dependencies);

/** One write's effect, ready to be judged against many answers' dependencies (a cache's every entry). */
export interface EffectTest {
  /** Whether the write can change an answer with these dependencies. */
  affects(dependencies: Dependencies): boolean;
  /** Whether it can change one of the answer's event lists (who is in it, their order). */
  windowsMeet(dependencies: Dependencies): boolean;
}

const EVERY_ANSWER: EffectTest = { affects: () => true, windowsMeet: () => true };

/**
 * The record tags of the events a write changed only in columns that only the fields showing them read
 * (`EventMove.shown`), with those columns: an answer that says which columns it shows
 * (`Dependencies.eventColumns`) meets such a record only through them.
 */
export function shownColumnsWritten(effect: WriteEffect): Map<string, ReadonlySet<string>> {
  const written = new Map<string, Set<string> | null>();
  if (effect.events !== 'unknown')
    for (const move of effect.events) {
      if (move.id === undefined) continue;
      const tag = recordTag('event', move.id);
      const columns = written.get(tag);
      if (columns === null) continue;
      // One transaction may write an event more than once: narrow only if every write of it is.
      if (!move.shown) written.set(tag, null);
      else written.set(tag, new Set([...(columns ?? []), ...move.shown]));
    }
  const narrowed = new Map<string, ReadonlySet<string>>();
  for (const [tag, columns] of written) if (columns) narrowed.set(tag, columns);
  return narrowed;
}

/** Whether a record a write names (`tag`) meets an answer showing it, with `shownColumnsWritten`'s verdicts. */
export function recordMeets(
  tag: string,
  narrowed: ReadonlyMap<string, ReadonlySet<string>>,
  eventColumns: readonly string[] | ReadonlySet<string> | undefined,
): boolean {
  const written = narrowed.get(tag);
  if (!written || !eventColumns || !mechanismOn('column-verdicts')) return true;
  for (const column of eventColumns) if (written.has(column)) return true;
  return false;
}

/** The tests of the effects judged lately (a cache's recent effects are judged again on every store). */
const tests = new WeakMap<WriteEffect, EffectTest>();

/** `effect`'s records, families and moved events as sets, worked out once for all the answers. */
export function effectTest(effect: WriteEffect): EffectTest {
  if (effect.all) return EVERY_ANSWER;
  let test = tests.get(effect);
  if (!test) tests.set(effect, (test = buildTest(effect)));
  return test;
}

function buildTest(effect: WriteEffect): EffectTest {
  const records = new Set(effect.records);
  const kinds = new Set(effect.kinds);
  const moves = effect.events;
  const windowsMeet = (dependencies: Dependencies): boolean => {
    if (!dependencies.windows.length) return false;
    if (moves === 'unknown') return kinds.has('events');
    return dependencies.windows.some((window) => moves.some((move) => moveMeets(move, window)));
  };
  const narrowed = shownColumnsWritten(effect);
  const recordsMeet = (dependencies: Dependencies): boolean =>
    (records.size > 0 &&
      dependencies.records.some(
        (tag) => records.has(tag) && recordMeets(tag, narrowed, dependencies.eventColumns),
      )) ||
    (kinds.size > 0 && dependencies.kinds.some((kind) => kinds.has(kind)));
  return {
    affects: (dependencies) => recordsMeet(dependencies) || windowsMeet(dependencies),
    windowsMeet,
  };
}

/** Whether an event written can join, leave or move within the list of `window`, as it shows. */
function moveMeets(move: EventMove, window: EventWindow): boolean {
  const { before, after, facts } = move;
  const admitted = () => windowAdmits(window, before) || windowAdmits(window, after);
  if (facts === 'all' || before === null || after === null) return admitted();
  // The facts the list reads first: most writes change facts most lists never read (a text edit and
  // every list without a search), and this is the cheaper test, judged for every list a write may meet.
  const read = facts.filter(
    (fact) =>
      window.facts.includes(fact) &&
      // A total does not read the order (publication dates order the lists of `include`)...
      !(fact === 'order' && window.extent === 'members') &&
      // ...and texts its search judges alike before and after change neither who is in nor the order.
      !(fact === 'text' && window.search && textsJudgedAlike(window.search, before, after)),
  );
  if (!read.length || !admitted()) return false;
  // A total reads who is in the list: an event that only moved within its dates (or outside them)
  // leaves it as it was.
  if (window.extent === 'members' && read.every((fact) => fact === 'span'))
    return withinDates(window, before) !== withinDates(window, after);
  return true;
}

function textsJudgedAlike(terms: readonly SearchTerm[], before: EventSpan, after: EventSpan): boolean {
  if (!mechanismOn('search-verdicts')) return false;
  const was = searchVerdict(terms, before.texts);
  return was !== undefined && was === searchVerdict(terms, after.texts);
}

/** The same dependencies for a number that reads only who is in each list (a total). */
export function membersOnly(dependencies: Dependencies): Dependencies {
  return {
    ...dependencies,
    windows: dependencies.windows.map((window) => ({ ...window, extent: 'members' as const })),
  };
}

/** The effect without the events' texts: what is sent to other instances, or remembered a while. */
export function withoutTexts(effect: WriteEffect): WriteEffect {
  if (effect.events === 'unknown' || !effect.events.some((move) => move.before?.texts || move.after?.texts))
    return effect;
  const strip = (span: EventSpan | null) => {
    if (!span?.texts) return span;
    const { texts: _texts, ...rest } = span;
    return rest;
  };
  return {
    ...effect,
    events: effect.events.map((move) => ({ ...move, before: strip(move.before), after: strip(move.after) })),
  };
}

/** The union of several answers' dependencies (a GraphQL document of several fields, a merged list). */
export function mergeDependencies(...parts: Dependencies[]): Dependencies {
  // Narrowed only if every part says which columns it shows.
  const eventColumns = parts.every((part) => part.eventColumns)
    ? [...new Set(parts.flatMap((part) => part.eventColumns ?? []))]
    : undefined;
  return {
    records: [...new Set(parts.flatMap((part) => part.records))],
    kinds: [...new Set(parts.flatMap((part) => part.kinds))],
    windows: parts.flatMap((part) => part.windows),
    ...(eventColumns && { eventColumns }),
  };
}

/** The union of several writes' effects (one transaction's changes). */
export function mergeEffects(effects: WriteEffect[]): WriteEffect {
  if (effects.some((effect) => effect.all)) return EVERYTHING;
  const events: EventMove[] = [];
  for (const effect of effects) {
    if (effect.events === 'unknown') return { ...union(effects), events: 'unknown' };
    events.push(...effect.events);
  }
  return { ...union(effects), events };
}

function union(effects: WriteEffect[]) {
  return {
    records: [...new Set(effects.flatMap((effect) => effect.records))],
    kinds: [...new Set(effects.flatMap((effect) => effect.kinds))],
  };
}

/** A record as a read found it, with what it shows (`records`; null: it cannot say, so it is not kept). */
export interface ReadRecord<T extends object> {
  value: T;
  dependencies: Dependencies | null;
}
