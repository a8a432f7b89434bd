import type { EventMove, EventSpan } from '../../../core/cache/dependencies.js';
import { SEARCHED_FIELDS, eventSearchTexts } from '../../../core/rules/search.js';
import { type EventLinks, changedFacts } from '../event-facts.js';

// What an event write (`event-writes.ts`) tells the caches, derived from the event's rows before and after
// it: where it was and is on the calendar, the texts `search` reads, its status and links (for cached
// lists and searches to be judged against), and which of its facts the write changed.

type SearchedTexts = Record<(typeof SEARCHED_FIELDS.Event)[number], string>;

/** An event as a write read or wrote it: its row (the columns read; those it lacks count as changed) and links. */
export interface EventState {
  row: EventSpan & SearchedTexts & { status: string };
  links: EventLinks;
}

function placeOf({ row, links }: EventState): EventSpan {
  const texts = eventSearchTexts(row);
  return {
    localStart: row.localStart,
    localEnd: row.localEnd,
    ...(texts && { texts }),
    status: row.status,
    ...links,
  };
}

/** The move of an event from `before` to `after` (null: it was created, or deleted: every fact moved). */
export function eventMove(before: EventState | null, after: EventState | null): EventMove {
  const places = { before: before && placeOf(before), after: after && placeOf(after) };
  if (!before || !after) return { ...places, facts: 'all' };
  return { ...places, ...changedFacts(before, after) };
}
