import {
  EVERYTHING,
  type EventMove,
  type WriteEffect,
  mergeEffects,
  recordTag,
} from '../cache/dependencies.js';
import type { Change } from './transactions.js';

// What a committed write changed, in the terms of the caches (`core/cache/dependencies.ts`): the records it
// wrote, the families it touched, and where its events were and are. Decided here, beside the writes,
// so that the caches never guess what a write means.

/** The effect of one transaction's changes. */
export function writeEffectOf(changes: readonly Change[]): WriteEffect {
  return mergeEffects(changes.map(effectOfChange));
}

function effectOfChange(change: Change): WriteEffect {
  const records = [recordTag(change.kind, change.id)];
  switch (change.kind) {
    case 'event':
      // Every event write is an `events` write: answers that cannot say which events they hold drop.
      return {
        records,
        kinds: ['events'],
        events: change.move ? [{ ...change.move, id: change.id }] : 'unknown',
      };
    case 'term':
      // A count moves when an event is linked, unlinked, published or trashed: the answers showing the
      // term's count (`term-count:5`; an answer showing it without its count stays) and the term lists.
      // Its name, slug or parent change every answer showing it, lookups by slug and the lists' order.
      return change.countOnly
        ? { records: [recordTag('term-count', change.id)], kinds: ['term-counts'], events: [] }
        : { records, kinds: ['term', 'term-counts'], events: [] };
    case 'venue':
    case 'organizer':
      return { records, kinds: [change.kind], events: [] };
    case 'user':
      // Roles, passwords and deletions change what every viewer may see: nothing is kept.
      return EVERYTHING;
    case 'ticket':
    case 'attendee':
      return ticketsEffect(change);
  }
}

/**
 * A ticket type or attendee written: its event's answers showing its tickets. A reservation changes
 * nothing the lists read (`facts: []`), only the event's ticket fields (`shown`): lists that do not
 * show tickets stay. A type may change whether the event is `ticketed` (a list filter): every list
 * that could hold the event drops (`facts: 'all'`). A writer that did not name the event: everything.
 */
function ticketsEffect(change: Change): WriteEffect {
  const event = change.event;
  if (!event) return EVERYTHING;
  const { id, span } = event;
  const move: EventMove =
    change.kind === 'ticket'
      ? { id, before: span, after: span, facts: 'all' }
      : { id, before: span, after: span, facts: [], shown: ['tickets'] };
  return { records: [recordTag('event', id)], kinds: ['events'], events: [move] };
}
