import { EVERYTHING, type WriteEffect, mergeEffects, recordTag } from '../domain/dependencies.js';
import type { Change } from './transactions.js';

// What a committed write changed, in the terms of the caches (`domain/dependencies.ts`): the records it
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
  }
}
