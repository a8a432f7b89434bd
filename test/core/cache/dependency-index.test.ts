import { describe, expect, it } from 'vitest';
import { DependencyIndex } from '../../../src/core/cache/dependency-index.js';
import {
  ANY_WRITE,
  type Dependencies,
  type DependencyKind,
  EVERYTHING,
  type EventSpan,
  type EventWindow,
  type WriteEffect,
  countedTerm,
  effectTest,
  writtenEvents,
} from '../../../src/core/cache/dependencies.js';

// The index judges a write by lookups and by the answers' lists only: over thousands of random answers
// and writes its verdicts are those of `effectTest`, the rule judging one answer whole. Removing every
// answer leaves it empty.

/** A small deterministic generator (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KINDS: DependencyKind[] = ['venue', 'organizer', 'term', 'term-counts', 'events'];
/** Event columns: the first two only fields showing them read (`EventMove.shown`). */
const COLUMNS = ['title', 'description', 'localStart', 'modifiedAt', 'id'];

function generator(seed: number) {
  const next = random(seed);
  const int = (n: number) => Math.floor(next() * n);
  const some = <T>(make: () => T, max: number) => Array.from({ length: int(max + 1) }, make);
  const tag = () =>
    [`event:${int(60)}`, `venue:${int(8)}`, `term:${int(12)}`, `term-count:${int(12)}`][int(4)]!;
  const day = () => `2031-${String(1 + int(12)).padStart(2, '0')}-${String(1 + int(28)).padStart(2, '0')}`;
  const span = (): EventSpan => {
    const start = `${day()} 10:00:00`;
    return {
      localStart: start,
      localEnd: start.replace('10:00', '12:00'),
      // A writer that cannot say an event's links leaves them out: any list filtered by them may hold it.
      ...(next() < 0.9 && { terms: some(() => int(12), 2) }),
      ...(next() < 0.9 && { venues: some(() => int(8), 1) }),
      ...(next() < 0.9 && { organizers: some(() => int(8), 1) }),
    };
  };
  /** A list's whole order, or a page of it (full or the last one). */
  const extent = (): EventWindow['extent'] => {
    if (next() < 0.4) return undefined;
    const [a, b] = [day(), day()].sort();
    return {
      first: [`${a} 10:00:00`, int(60)],
      last: [`${b} 10:00:00`, int(60)],
      ...(next() < 0.8 && { full: true }),
    };
  };
  const window = (): EventWindow => {
    const from = day();
    const shows = extent();
    return {
      ...(shows && { extent: shows }),
      startFrom: next() < 0.5 ? null : `${from} 00:00:00`,
      startTo: null,
      endFrom: null,
      endTo: next() < 0.5 ? null : `${from.slice(0, 8)}28 23:59:59`,
      facts: ['span', 'order', 'status', 'hidden', 'terms', 'venues'],
      statuses: null,
      terms: next() < 0.5 ? [] : next() < 0.9 ? [[int(12), int(12)]] : [[], [int(12)]],
      venues: next() < 0.7 ? null : next() < 0.9 ? [int(8)] : [],
      organizers: next() < 0.8 ? null : [int(8)],
    };
  };
  const dependencies = (): Dependencies => {
    if (next() < 0.05) return ANY_WRITE;
    const counts = some(() => int(12), 2);
    // Rows (an event list's, rendered in place) come with the one list they are rows of.
    const rows = next() < 0.3 ? [...new Set(some(() => int(60), 8))] : [];
    return {
      records: [...new Set(some(tag, 6))],
      kinds: [...new Set(some(() => KINDS[int(KINDS.length)]!, 1))],
      windows: rows.length ? [window()] : next() < 0.4 ? some(window, 2) : [],
      ...(counts.length && { counts }),
      ...(rows.length && { rows }),
      // A GraphQL document's answer says which event columns it shows.
      ...(next() < 0.4 && { eventColumns: some(() => COLUMNS[int(COLUMNS.length)]!, 3) }),
    };
  };
  const effect = (): WriteEffect => {
    const roll = next();
    if (roll < 0.02) return EVERYTHING;
    if (roll < 0.3) return { records: [`term-count:${int(12)}`], kinds: ['term-counts'], events: [] };
    if (roll < 0.4) return { records: [`venue:${int(8)}`], kinds: ['venue'], events: [] };
    if (roll < 0.45) return { records: [`event:${int(60)}`], kinds: ['events'], events: 'unknown' };
    const id = int(60);
    const created = next() < 0.2;
    const trashed = !created && next() < 0.2;
    const fact = (['text', 'span', 'terms', 'venues', 'status'] as const)[int(5)]!;
    return {
      // A create, a trash or a term change moves its terms' counts too.
      records: [`event:${id}`, ...(next() < 0.3 ? [`term-count:${int(12)}`] : [])],
      kinds: ['events'],
      events: [
        {
          id,
          before: created ? null : span(),
          after: trashed ? null : span(),
          facts: created ? 'all' : [fact],
          // A text edit may say which columns it wrote (the columns only their fields show).
          ...(fact === 'text' && next() < 0.7 && { shown: [COLUMNS[int(2)]!, 'modifiedAt'] }),
        },
      ],
    };
  };
  return { dependencies, effect };
}

describe('the dependency index', () => {
  it('judges every answer as the exact rule does, and reaches the answers it rules out by lookups', () => {
    const { dependencies, effect } = generator(29);
    const index = new DependencyIndex();
    const answers = new Map<string, Dependencies>();
    for (let i = 0; i < 2000; i++) {
      const deps = dependencies();
      answers.set(`answer ${i}`, deps);
      index.add(`answer ${i}`, deps);
    }
    const seen = {
      beyond: 0,
      countsOnly: 0,
      totalsOnly: 0,
      rowsOnly: 0,
      both: 0,
      untouched: 0,
      keptByColumns: 0,
    };
    for (let w = 0; w < 300; w++) {
      const write = effect();
      if (write.all) continue;
      const test = effectTest(write);
      const movedCounts = new Set(write.records.map(countedTerm).filter((id) => id !== undefined));
      const written = writtenEvents(write);
      const { beyond, countsOnly, totalsOnly, rowsOnly } = index.judge(write);
      for (const [key, deps] of answers) {
        // The exact rule: beyond what can be refreshed, else which of the three refreshes it needs.
        const affected = test.affects(deps);
        const whole = affected && test.beyondRefresh(deps);
        const counts = affected && !whole && !!deps.counts?.some((id) => movedCounts.has(id));
        const total = affected && !whole && test.windowsMeet(deps) === 'total';
        const rows = whole ? [] : (deps.rows ?? []).filter((id) => written.get(id));
        const context = () => `${key}: ${JSON.stringify(deps)} under ${JSON.stringify(write)}`;
        const judged = {
          beyond: beyond.has(key),
          counts: countsOnly.has(key),
          total: totalsOnly.has(key),
          rows: [...(rowsOnly.get(key) ?? [])].sort(),
        };
        const exact = { beyond: whole, counts, total, rows: rows.sort() };
        // Compared whole only on a difference: 600,000 verdicts.
        if (JSON.stringify(judged) !== JSON.stringify(exact)) expect(judged, context()).toEqual(exact);
        const refreshes = counts || total || rows.length > 0;
        if (affected !== (whole || refreshes)) expect(affected, context()).toBe(whole || refreshes);
        // Showing the event written, through none of the columns the write changed.
        if (!affected && deps.records.some((tag) => write.records.includes(tag))) seen.keptByColumns++;
        seen[
          !affected
            ? 'untouched'
            : whole
              ? 'beyond'
              : [counts, total, rows.length > 0].filter(Boolean).length > 1
                ? 'both'
                : counts
                  ? 'countsOnly'
                  : total
                    ? 'totalsOnly'
                    : 'rowsOnly'
        ]++;
      }
    }
    // Every verdict occurs, so the comparison above covered each.
    expect(seen.beyond).toBeGreaterThan(100);
    expect(seen.countsOnly).toBeGreaterThan(100);
    expect(seen.totalsOnly).toBeGreaterThan(100);
    expect(seen.rowsOnly).toBeGreaterThan(50);
    expect(seen.both).toBeGreaterThan(10);
    expect(seen.untouched).toBeGreaterThan(100);
    expect(seen.keptByColumns).toBeGreaterThan(50);
  });

  it('holds nothing once every answer has left it', () => {
    const { dependencies } = generator(7);
    const index = new DependencyIndex();
    const answers = Array.from({ length: 500 }, (_, i) => [`answer ${i}`, dependencies()] as const);
    for (const [key, deps] of answers) index.add(key, deps);
    expect(index.sizes.records).toBeGreaterThan(0);
    for (const [key, deps] of answers) index.remove(key, deps);
    expect(index.sizes).toEqual({ records: 0, kinds: 0, counts: 0, rows: 0, filters: 0 });
    expect(index.judge({ records: ['event:1'], kinds: ['events'], events: 'unknown' })).toEqual({
      beyond: new Set(),
      countsOnly: new Set(),
      totalsOnly: new Set(),
      rowsOnly: new Map(),
    });
  });
});
