// A `search` as WordPress reads it (WP_Query::parse_search and parse_search_terms), for events, venues
// and organizers alike: words and "quoted phrases", each of which must match one of the searched
// fields (in any order); a term starting with `-` must match none of them.

/** A term of a search: its text, and whether records containing it are excluded rather than required. */
export interface SearchTerm {
  text: string;
  exclude: boolean;
}

/** More terms than this and WordPress searches the whole input as one phrase (which bounds the SQL). */
export const MAX_SEARCH_TERMS = 9;

/** WordPress's English stopwords (`get_search_stopwords`): dropped from a search of several terms. */
const STOPWORDS = new Set(
  'about,an,are,as,at,be,by,com,for,from,how,in,is,it,of,on,or,that,the,this,to,was,what,when,where,who,will,with,www'.split(
    ',',
  ),
);

/** A quoted phrase (to the next quote or the end), or a run of anything but tab, space, `"`, `,` and `+`. */
const TERM = /".*?("|$)|((?<=[\t ",+])|^)[^\t ",+]+/g;

/** PHP's `trim($text, $characters)`. */
function trimCharacters(text: string, characters: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && characters.includes(text[start]!)) start++;
  while (end > start && characters.includes(text[end - 1]!)) end--;
  return text.slice(start, end);
}

/**
 * The terms of a search, in order. Quoted phrases keep their inner spaces; single ASCII letters, lone
 * dashes and stopwords are dropped; when nothing is left, or more than `MAX_SEARCH_TERMS` are, the whole
 * search is one term. `-` in front of a term excludes it.
 */
export function searchTerms(search: string): SearchTerm[] {
  const input = search.replace(/[\r\n]/g, '');
  const terms: string[] = [];
  for (const [match] of input.matchAll(TERM)) {
    const text = /^".+"$/.test(match) ? trimCharacters(match, `"'`) : trimCharacters(match, `"' `);
    if (text === '' || /^[a-z-]$/i.test(text)) continue;
    if (STOPWORDS.has(text.toLowerCase())) continue;
    terms.push(text);
  }
  const chosen = terms.length === 0 || terms.length > MAX_SEARCH_TERMS ? [input] : terms;
  return chosen.map((text) =>
    text.startsWith('-') ? { text: text.slice(1), exclude: true } : { text, exclude: false },
  );
}

/**
 * The columns `search` reads on each model (WordPress searches a post's title, excerpt and content; TEC
 * adds a venue's and an organizer's own fields). The services' conditions and PostgreSQL's trigram
 * indexes (`scripts/db/derive.ts`) both read this, so a searched column always has its index.
 */
export const SEARCHED_FIELDS = {
  Event: ['title', 'excerpt', 'description'],
  Venue: [
    'name',
    'description',
    'excerpt',
    'address',
    'city',
    'province',
    'state',
    'stateprovince',
    'zip',
    'phone',
  ],
  Organizer: ['name', 'description', 'excerpt', 'phone', 'email', 'website'],
} as const;
