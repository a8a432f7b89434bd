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

/** An event's place in the default list order: its local start, then its id. */
type StartKey = readonly [localStart: string, id: number];

/**
 * How much of a list's order an answer shows: a page of the default order (local start, then id), by
 * the keys of its first and last rows, so that an event moving on the calendar wholly before or wholly
 * after the page leaves it as it was; `full`: it holds as many rows as a page can, so an event joining
 * or leaving after its last row changes the list's total but none of its rows (on a page that is not
 * full it would join it). Absent: all of it.
 */
export type ListExtent = { first: StartKey; last: StartKey; full?: boolean };

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
  /** The event's id, where the writer names it (a page's extent compares it after the start). */
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

/**
 * How a write meets an event list an answer holds: not at all; in the `rows` it shows (or its order, or
 * a whole list's members); or only in its `total` — who is in the list after the page's last row.
 */
type ListMeeting = false | 'rows' | 'total';

/** Families of records whose any write an answer depends on (a lookup by slug, a list of them). */
export type DependencyKind = 'venue' | 'organizer' | 'term' | 'term-counts' | 'events';

export interface Dependencies {
  /** Records the answer shows (`event:12`, `venue:3`, `term:5`): a write to one of them drops it. */
  records: string[];
  /** Families whose any write drops it (`events`: any event write, when membership is not decided). */
  kinds: DependencyKind[];
  /** The event lists it holds: an event written whose span lies in one of them, before or after, drops it. */
  windows: EventWindow[];
  /**
   * Terms whose counts the answer shows where its edge can rewrite them in place: a write that moves
   * one of them makes the answer stale, and the cache refreshes those numbers instead of dropping it
   * (`EffectTest.beyondRefresh`). A count shown otherwise is the record `term-count:5`.
   */
  counts?: number[];
  /**
   * Events the answer shows as rows its edge can render again (a REST list's `events`), in place of
   * their `event:12` records: a write to one of them that leaves the lists as they were (who is in
   * them, their order, their totals: `windows` judge that) makes the answer stale, and the cache
   * renders those rows again instead of dropping it (`EffectTest.beyondRefresh`).
   */
  rows?: number[];
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
function windowAdmits(window: EventWindow, span: EventSpan | null): boolean {
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
interface EffectTest {
  /** Whether the write can change an answer with these dependencies. */
  affects(dependencies: Dependencies): boolean;
  /**
   * Whether it changes more of it than what can be rewritten in place: the term counts the answer shows
   * (`Dependencies.counts`), the rows it can render again (`Dependencies.rows`) and the total of a
   * page's list (`ListMeeting` `total`). An answer it
   * `affects` only through those can be refreshed instead of recomputed.
   */
  beyondRefresh(dependencies: Dependencies): boolean;
  /** How it meets the answer's event lists: the strongest meeting of any of them. */
  windowsMeet(dependencies: Dependencies): ListMeeting;
}

const EVERY_ANSWER: EffectTest = {
  affects: () => true,
  beyondRefresh: () => true,
  windowsMeet: () => 'rows',
};

const COUNT_TAG = recordTag('term-count', '');
const EVENT_TAG = recordTag('event', '');

/** The event a record tag of a write names (`event:12` → 12), if it names one. */
const writtenEvent = (tag: string): number | undefined =>
  tag.startsWith(EVENT_TAG) ? Number(tag.slice(EVENT_TAG.length)) : undefined;

/**
 * A change of an event's terms shows other terms and their counts in its row, which the answers showing
 * the row seldom depend on already: they are recomputed at once. Its venues and organizers are records
 * of families every event list depends on whole (`rest-map/routes.ts`): a row showing others is
 * rendered again in place, as the edge checks (`src/core/rest/shown/shown-rows.ts`).
 */
const RELINKED_TERMS: EventFact = 'terms';

/**
 * The events a write changed, each with whether its row can be rendered again in place
 * (`Dependencies.rows`): not when it was created or deleted, its terms changed, or the writer did not
 * say what changed.
 */
export function writtenEvents(effect: WriteEffect): Map<number, boolean> {
  // One transaction may write an event more than once: in place only if every write of it is.
  const inPlace = new Map<number, boolean>();
  if (effect.events !== 'unknown')
    for (const move of effect.events)
      if (move.id !== undefined) inPlace.set(move.id, (inPlace.get(move.id) ?? true) && rendersInPlace(move));
  const written = new Map<number, boolean>();
  for (const tag of effect.records) {
    const id = writtenEvent(tag);
    if (id !== undefined) written.set(id, inPlace.get(id) ?? false);
  }
  return written;
}

const rendersInPlace = ({ before, after, facts }: EventMove) =>
  facts !== 'all' && before !== null && after !== null && !facts.includes(RELINKED_TERMS);

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

/** The term whose count a record tag of a write names (`term-count:5` → 5), if it names one. */
export const countedTerm = (tag: string): number | undefined =>
  tag.startsWith(COUNT_TAG) ? Number(tag.slice(COUNT_TAG.length)) : undefined;

/** The tests of the effects judged lately (a cache's recent effects are judged again on every store). */
const tests = new WeakMap<WriteEffect, EffectTest>();

/** `effect`'s records, families and moved term counts as sets, worked out once for all the answers. */
export function effectTest(effect: WriteEffect): EffectTest {
  if (effect.all) return EVERY_ANSWER;
  let test = tests.get(effect);
  if (!test) tests.set(effect, (test = buildTest(effect)));
  return test;
}

function buildTest(effect: WriteEffect): EffectTest {
  const records = new Set(effect.records);
  const kinds = new Set(effect.kinds);
  const counts = new Set<number>();
  for (const tag of effect.records) {
    const term = countedTerm(tag);
    if (term !== undefined) counts.add(term);
  }
  const events = writtenEvents(effect);
  const moves = effect.events;
  const windowsMeet = (dependencies: Dependencies): ListMeeting => {
    if (!dependencies.windows.length) return false;
    if (moves === 'unknown') return kinds.has('events') && 'rows';
    let meeting: ListMeeting = false;
    for (const window of dependencies.windows)
      for (const move of moves) {
        const met = moveMeets(move, window);
        if (met === 'rows') return met;
        meeting ||= met;
      }
    return meeting;
  };
  const narrowed = shownColumnsWritten(effect);
  const recordsMeet = (dependencies: Dependencies): boolean =>
    (records.size > 0 &&
      dependencies.records.some(
        (tag) => records.has(tag) && recordMeets(tag, narrowed, dependencies.eventColumns),
      )) ||
    (kinds.size > 0 && dependencies.kinds.some((kind) => kinds.has(kind)));
  return {
    affects: (dependencies) =>
      (counts.size > 0 && !!dependencies.counts?.some((id) => counts.has(id))) ||
      (events.size > 0 && !!dependencies.rows?.some((id) => events.has(id))) ||
      recordsMeet(dependencies) ||
      windowsMeet(dependencies) !== false,
    beyondRefresh: (dependencies) =>
      recordsMeet(dependencies) ||
      (events.size > 0 && !!dependencies.rows?.some((id) => events.get(id) === false)) ||
      windowsMeet(dependencies) === 'rows',
    windowsMeet,
  };
}

/** Whether (and how) an event written can join, leave or move within the list of `window`, as it shows. */
function moveMeets(move: EventMove, window: EventWindow): ListMeeting {
  const { before, after, facts } = move;
  const admitted = () => windowAdmits(window, before) || windowAdmits(window, after);
  if (facts === 'all' || before === null || after === null) return admitted() && rowsOrTotal(move, window);
  // The facts the list reads first: most writes change facts most lists never read (a text edit and
  // every list without a search), and this is the cheaper test, judged for every list a write may meet.
  const read = facts.filter(
    (fact) =>
      window.facts.includes(fact) &&
      // Texts its search judges alike before and after change neither who is in nor the order.
      !(fact === 'text' && window.search && textsJudgedAlike(window.search, before, after)),
  );
  if (!read.length || !admitted()) return false;
  if (!mechanismOn('page-verdicts')) return 'rows';
  if (window.extent === undefined || read.some((fact) => fact !== 'span')) return rowsOrTotal(move, window);
  // Only its place on the calendar changed of what the list reads, so its other criteria judge it as
  // before: it joins or leaves when the dates decide differently, else it moves within the list.
  const wasIn = withinDates(window, before);
  if (wasIn !== withinDates(window, after)) return rowsOrTotal(move, window);
  if (!wasIn) return false;
  if (move.id === undefined) return 'rows';
  const from: StartKey = [before.localStart, move.id];
  const to: StartKey = [after.localStart, move.id];
  const { first, last } = window.extent;
  // Wholly before the page or wholly after it, before and after the write: the page keeps its rows.
  const staysBefore = compareKeys(from, first) < 0 && compareKeys(to, first) < 0;
  const staysAfter = compareKeys(from, last) > 0 && compareKeys(to, last) > 0;
  return !staysBefore && !staysAfter && 'rows';
}

/**
 * A move that may change who is in the list: only its total, when the list is a full page and the
 * event lies after the page's last row wherever it is (the rows before it and so the page are as
 * they were); else its rows.
 */
function rowsOrTotal(move: EventMove, window: EventWindow): ListMeeting {
  if (!mechanismOn('page-verdicts')) return 'rows';
  const page = window.extent;
  if (typeof page !== 'object' || !page.full || move.id === undefined) return 'rows';
  const id = move.id;
  const afterPage = (span: EventSpan | null) =>
    span === null || compareKeys([span.localStart, id], page.last) > 0;
  return afterPage(move.before) && afterPage(move.after) ? 'total' : 'rows';
}

function textsJudgedAlike(terms: readonly SearchTerm[], before: EventSpan, after: EventSpan): boolean {
  if (!mechanismOn('search-verdicts')) return false;
  const was = searchVerdict(terms, before.texts);
  return was !== undefined && was === searchVerdict(terms, after.texts);
}

/** The default list order: local start (fixed-width text, so code-unit order), then id. */
function compareKeys(a: StartKey, b: StartKey): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] - b[1];
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
  const counts = [...new Set(parts.flatMap((part) => part.counts ?? []))];
  const rows = [...new Set(parts.flatMap((part) => part.rows ?? []))];
  // Narrowed only if every part says which columns it shows.
  const eventColumns = parts.every((part) => part.eventColumns)
    ? [...new Set(parts.flatMap((part) => part.eventColumns ?? []))]
    : undefined;
  return {
    records: [...new Set(parts.flatMap((part) => part.records))],
    kinds: [...new Set(parts.flatMap((part) => part.kinds))],
    windows: parts.flatMap((part) => part.windows),
    ...(counts.length && { counts }),
    ...(rows.length && { rows }),
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
