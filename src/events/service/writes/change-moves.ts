import type { EventSpan } from '../../../core/cache/dependencies.js';
import { SEARCHED_FIELDS, eventSearchTexts } from '../../../core/rules/search.js';

// What an event write (`event-writes.ts`) tells the caches of the event before and after it: where it
// is on the calendar and the texts `search` reads, for cached lists and searches to be judged against.

/** Where an event is on the calendar, as the change it makes tells the caches. */
export const spanOf = ({ localStart, localEnd }: EventSpan): EventSpan => ({ localStart, localEnd });

type SearchedTexts = Record<(typeof SEARCHED_FIELDS.Event)[number], string>;

/**
 * The texts `search` reads once `data` is written over `existing` (null: a creation, the columns'
 * defaults), as the change tells the caches; unknown when `data` writes one other than as a string.
 */
export function textsAfter(
  data: Partial<Record<keyof SearchedTexts, unknown>>,
  existing: SearchedTexts | null,
) {
  const texts: Partial<SearchedTexts> = {};
  for (const field of SEARCHED_FIELDS.Event) {
    const written = data[field] === undefined ? (existing?.[field] ?? '') : data[field];
    if (typeof written !== 'string') return {};
    texts[field] = written;
  }
  return textsOf(texts as SearchedTexts);
}

export const textsOf = (event: SearchedTexts) => {
  const texts = eventSearchTexts(event);
  return texts ? { texts } : {};
};
