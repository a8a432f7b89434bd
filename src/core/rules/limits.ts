// Sizes a request may ask for, the same on REST and GraphQL: past them the answer is a 400 naming the
// parameter, before any query or lock — so no request's work grows with what an attacker sends, and
// no id list outgrows what SQLite binds in one statement.

/** Values in one list filter or write field (ids, slugs, names). */
export const MAX_LIST_VALUES = 100;
/** Venues or organizers one event write may link. */
export const MAX_LINKED_PER_WRITE = 20;
/** Characters and words of a `search`. */
const MAX_SEARCH_LENGTH = 200;
const MAX_SEARCH_WORDS = 20;

export const tooManyValues = (max = MAX_LIST_VALUES) => `At most ${max} values.`;
export const SEARCH_TOO_LONG = `At most ${MAX_SEARCH_LENGTH} characters and ${MAX_SEARCH_WORDS} words.`;

/** Whether a list holds more than `max` values. */
export function exceeds(values: readonly unknown[] | null | undefined, max = MAX_LIST_VALUES): boolean {
  return (values?.length ?? 0) > max;
}

/** Whether a search is longer than the limits (characters, or words split as WordPress splits them). */
export function searchTooLong(search: string | null | undefined): boolean {
  if (!search) return false;
  return search.length > MAX_SEARCH_LENGTH || search.trim().split(/\s+/).length > MAX_SEARCH_WORDS;
}
