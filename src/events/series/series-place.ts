import { invalidParams } from '../../core/errors/errors.js';
import type { Context } from '../../core/context/scope.js';
import { visibleEvents } from '../service/event-access.js';
import type { EventSelection } from '../service/reads/event-reads.js';

// What a series is as each of its events shows it: its place in the series (first event, occurrence or
// on its own), its lines and the scopes a write to one occurrence may take. Read by the APIs and the
// series writers alike; nothing here writes.

const RECURRENCE_SCOPES = ['this', 'following', 'all'] as const;
/** Which events of a series a write to one occurrence changes (Google Calendar's three choices). */
export type RecurrenceScope = (typeof RECURRENCE_SCOPES)[number];

/** The columns that tell an event's place in a series. */
export const SERIES_COLUMNS = {
  postParentId: true,
  originalStart: true,
  recurrence: true,
  isException: true,
} as const;

export interface SeriesPlace {
  id: number;
  postParentId: number | null;
  originalStart: Date | null;
  recurrence: string | null;
  isException: boolean;
}

/**
 * An occurrence has its first event and its slot; a first event has lines (every occurrence carries a
 * copy of them, which every event of a series shows); any other event is on its own.
 */
export function seriesRole(event: SeriesPlace): 'first' | 'occurrence' | 'single' {
  if (event.postParentId !== null && event.originalStart !== null) return 'occurrence';
  if (event.recurrence !== null) return 'first';
  return 'single';
}

/** The stored lines (one column, a line each) as a list, and back (none: null). */
export const linesOf = (stored: string | null): string[] => (stored ? stored.split('\n') : []);
export const storedLines = (lines: readonly string[]): string | null =>
  lines.length ? lines.join('\n') : null;

/** A `scope` as a client spells it (`this`, `following`, `all`; absent: `this`), or a 400 naming it. */
export function readScope(text: string | null | undefined): RecurrenceScope {
  if (text === null || text === undefined || text === '') return 'this';
  const scope = text.trim().toLowerCase();
  if ((RECURRENCE_SCOPES as readonly string[]).includes(scope)) return scope as RecurrenceScope;
  throw invalidParams({ scope: `Invalid parameter: one of ${RECURRENCE_SCOPES.join(', ')}.` });
}

/** The lines every event of a series shows: the first event's own, an occurrence's first event's. */
export function seriesLines(event: { recurrence: string | null }): string[] {
  return linesOf(event.recurrence);
}

/** The exceptions of a series the viewer may read, in slot order. */
export async function seriesExceptions(ctx: Context, firstId: number, selection: EventSelection) {
  const rows = await ctx.db.event.findMany({
    where: { postParentId: firstId, isException: true, originalStart: { not: null } },
    orderBy: { originalStart: 'asc' },
    select: { id: true },
  });
  return visibleEvents(
    ctx,
    rows.map((row) => row.id),
    selection,
  );
}

/** A series as its events name it: the first event's id, lines and zone (null: not in a series). */
export function seriesOf(event: SeriesPlace & { timezone: string }) {
  const role = seriesRole(event);
  if (role === 'single') return null;
  return {
    id: role === 'first' ? event.id : event.postParentId!,
    lines: linesOf(event.recurrence),
    timezone: event.timezone,
  };
}
export type SeriesRef = NonNullable<ReturnType<typeof seriesOf>>;
