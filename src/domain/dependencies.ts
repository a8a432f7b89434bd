// What a cached answer depends on, and what a committed write changed: the two halves of selective
// invalidation (the response cache drops an answer only when a write's effect meets its dependencies).
// Both are plain data, so that an answer carries its dependencies back to the edge with its value and a
// write's effect travels to the other instances as one small JSON message.

/** An event's place on the calendar: its local wall-clock start and end, as the lists compare them. */
export interface EventSpan {
  localStart: string;
  localEnd: string;
}

/**
 * The wall-clock bounds an event list applies to its events' local start and end (`null`: unbounded),
 * taken inclusively: an event outside them is no member of the list, before or after any write.
 */
export interface EventWindow {
  startFrom: string | null;
  startTo: string | null;
  endFrom: string | null;
  endTo: string | null;
}

/** Families of records whose any write an answer depends on (a lookup by slug, a list of them). */
export type DependencyKind = 'venue' | 'organizer' | 'term' | 'term-counts' | 'events';

export interface Dependencies {
  /** Records the answer shows (`event:12`, `venue:3`, `term:5`): a write to one of them drops it. */
  records: string[];
  /** Families whose any write drops it (`events`: any event write, when membership is not decided). */
  kinds: DependencyKind[];
  /** The event lists it holds: an event written whose span lies in one of them, before or after, drops it. */
  windows: EventWindow[];
}

/** What a committed write changed, as the caches need to know it. */
export interface WriteEffect {
  /** Everything may have changed (users, roles, or a writer that cannot say): every answer is dropped. */
  all?: boolean;
  /** Records written (`event:12`, `term:5`). */
  records: string[];
  /** Families touched beyond those records: a write to a venue is a write to the `venue` family. */
  kinds: DependencyKind[];
  /** Where the written events were and are now; `unknown` when a writer did not say. */
  spans: EventSpan[] | 'unknown';
}

export const EVERYTHING: WriteEffect = { all: true, records: [], kinds: [], spans: 'unknown' };

/** An answer that depends on everything: dropped by every write (GraphQL documents, feeds). */
export const ANY_WRITE: Dependencies = {
  records: [],
  kinds: ['venue', 'organizer', 'term', 'term-counts', 'events'],
  windows: [],
};

export const recordTag = (kind: string, id: number | string): string => `${kind}:${id}`;

/** Whether the list of `window` could hold an event at `span`. */
export function windowAdmits(window: EventWindow, span: EventSpan): boolean {
  return (
    (window.startFrom === null || span.localStart >= window.startFrom) &&
    (window.startTo === null || span.localStart <= window.startTo) &&
    (window.endFrom === null || span.localEnd >= window.endFrom) &&
    (window.endTo === null || span.localEnd <= window.endTo)
  );
}

/** Whether a write with `effect` can change an answer with `dependencies`. */
export function affects(effect: WriteEffect, dependencies: Dependencies): boolean {
  if (effect.all) return true;
  if (effect.records.length && dependencies.records.some((tag) => effect.records.includes(tag))) return true;
  if (effect.kinds.some((kind) => dependencies.kinds.includes(kind))) return true;
  if (!dependencies.windows.length) return false;
  const spans = effect.spans;
  if (spans === 'unknown') return effect.kinds.includes('events');
  return dependencies.windows.some((window) => spans.some((span) => windowAdmits(window, span)));
}

/** The union of several answers' dependencies (a GraphQL document of several fields, a merged list). */
export function mergeDependencies(...parts: Dependencies[]): Dependencies {
  return {
    records: [...new Set(parts.flatMap((part) => part.records))],
    kinds: [...new Set(parts.flatMap((part) => part.kinds))],
    windows: parts.flatMap((part) => part.windows),
  };
}

/** The union of several writes' effects (one transaction's changes). */
export function mergeEffects(effects: WriteEffect[]): WriteEffect {
  if (effects.some((effect) => effect.all)) return EVERYTHING;
  const spans: EventSpan[] = [];
  for (const effect of effects) {
    if (effect.spans === 'unknown') return { ...union(effects), spans: 'unknown' };
    spans.push(...effect.spans);
  }
  return { ...union(effects), spans };
}

function union(effects: WriteEffect[]) {
  return {
    records: [...new Set(effects.flatMap((effect) => effect.records))],
    kinds: [...new Set(effects.flatMap((effect) => effect.kinds))],
  };
}
