// A `search` as WordPress reads it (WP_Query::parse_search and parse_search_terms), for events, venues
// and organizers alike: words and "quoted phrases", each of which must match one of the searched
// fields (in any order); a term starting with `-` must match none of them.

/** A term of a search: its text, and whether records containing it are excluded rather than required. */
export interface SearchTerm {
  text: string;
  exclude: boolean;
}

/** More terms than this and WordPress searches the whole input as one phrase (which bounds the SQL). */
const MAX_SEARCH_TERMS = 9;

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

/**
 * The texts `search` reads of an event, for the caches to judge a write against a cached search
 * (`searchVerdict`); none past `MAX_JUDGED_TEXT` characters, which the caches then take as unknown.
 */
export function eventSearchTexts(event: Record<(typeof SEARCHED_FIELDS.Event)[number], string>) {
  const texts = SEARCHED_FIELDS.Event.map((field) => event[field]);
  return texts.reduce((length, text) => length + text.length, 0) > MAX_JUDGED_TEXT ? undefined : texts;
}

const MAX_JUDGED_TEXT = 65_536;

/**
 * Whether a record with these `texts` meets a search's `terms` as both databases decide it: `true` or
 * `false` when certain, `undefined` when not (a term with a non-ASCII character or a LIKE wildcard, or
 * texts unknown). SQLite's LIKE folds ASCII case only; PostgreSQL's ILIKE lowers both sides, where two
 * non-ASCII characters lower to ASCII (U+0130 to `i`, the Kelvin sign to `k`), and SQLite's trigram
 * index folds the Kelvin sign and the long s (U+017F) to `k` and `s`: an ASCII term folded against the
 * texts folded alike is certainly contained, and certainly absent when those characters, lowered as
 * well, do not contain it either.
 */
export function searchVerdict(
  terms: readonly SearchTerm[],
  texts: readonly string[] | undefined,
): boolean | undefined {
  if (!texts) return undefined;
  const { folded, lowered } = foldedOf(texts);
  let verdict: boolean | undefined = true;
  for (const { text, exclude } of terms) {
    // eslint-disable-next-line no-control-regex -- ASCII is the point
    if (!/^[\x00-\x7f]*$/.test(text) || /[%_]/.test(text)) return undefined;
    const term = foldAscii(text);
    const surely = folded.some((field) => field.includes(term));
    const possibly = surely || (lowered?.some((field) => field.includes(term)) ?? false);
    const met = surely ? !exclude : !possibly ? exclude : undefined;
    if (met === false) return false;
    if (met === undefined) verdict = undefined;
  }
  return verdict;
}

const foldAscii = (text: string) => text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());

/**
 * The texts folded once however many cached searches a write is judged against (each write's texts
 * are compared with every cached search's terms); `lowered` only when they hold one of the three
 * characters a database folds to ASCII (lowering them commutes with the ASCII fold).
 */
const foldedTexts = new WeakMap<readonly string[], { folded: string[]; lowered: string[] | null }>();

function foldedOf(texts: readonly string[]) {
  let known = foldedTexts.get(texts);
  if (!known) {
    const folded = texts.map(foldAscii);
    const lowered = folded.some((text) => /[\u0130\u212a\u017f]/.test(text))
      ? folded.map((text) =>
          text
            .replace(/\u0130/g, 'i')
            .replace(/\u212a/g, 'k')
            .replace(/\u017f/g, 's'),
        )
      : null;
    known = { folded, lowered };
    foldedTexts.set(texts, known);
  }
  return known;
}
