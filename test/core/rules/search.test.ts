import { describe, expect, it } from 'vitest';
import { searchTerms, searchVerdict } from '../../../src/core/rules/search.js';

// A search split as WordPress splits it (WP_Query::parse_search, parse_search_terms).

const texts = (search: string) =>
  searchTerms(search).map((term) => (term.exclude ? `-${term.text}` : term.text));

describe('searchTerms', () => {
  it('splits on spaces, tabs, commas and plus signs, in order', () => {
    expect(texts('temple avenue')).toEqual(['temple', 'avenue']);
    expect(texts('jazz,blues+soul\tfunk')).toEqual(['jazz', 'blues', 'soul', 'funk']);
  });

  it('keeps a quoted phrase together, inner spaces included; an unclosed quote runs to the end', () => {
    expect(texts('"night out" jazz')).toEqual(['night out', 'jazz']);
    expect(texts('"  spaced  "')).toEqual(['  spaced  ']);
    expect(texts('jazz "night out')).toEqual(['jazz', 'night out']);
  });

  it('drops single letters, lone dashes and stopwords (any case)', () => {
    expect(texts('a night at The opera - x 5')).toEqual(['night', 'opera', '5']);
  });

  it('searches the whole input as one phrase when nothing is left or more than nine terms are', () => {
    expect(texts('the of')).toEqual(['the of']);
    const ten = 'one two three four five six seven eight nine ten';
    expect(texts(ten)).toEqual([ten]);
    expect(texts('one two three four five six seven eight nine')).toHaveLength(9);
  });

  it('reads a leading dash as an exclusion', () => {
    expect(searchTerms('jazz -blues')).toEqual([
      { text: 'jazz', exclude: false },
      { text: 'blues', exclude: true },
    ]);
    expect(searchTerms('"-night out"')).toEqual([{ text: 'night out', exclude: true }]);
    expect(searchTerms('FB-1')).toEqual([{ text: 'FB-1', exclude: false }]);
  });

  it('ignores line breaks', () => {
    expect(texts('jazz\r\nnight')).toEqual(['jazznight']);
  });
});

// What a cache may conclude about a record's texts against a search: certain only where both databases
// agree (SQLite folds ASCII case; PostgreSQL lowers both sides), unknown otherwise.
describe('searchVerdict', () => {
  const verdict = (search: string, ...texts: string[]) => searchVerdict(searchTerms(search), texts);

  it('is certain of ASCII terms, whatever their case, in any of the texts', () => {
    expect(verdict('JAZZ night', 'Late jazz', '', 'A NIGHT out')).toBe(true);
    expect(verdict('jazz', 'Late blues', '', '<p>Soul</p>')).toBe(false);
    expect(verdict('jazz blues', 'Late jazz', '', '')).toBe(false);
  });

  it('judges excluded terms the other way round', () => {
    expect(verdict('jazz -blues', 'Late jazz', '', '')).toBe(true);
    expect(verdict('jazz -blues', 'Late jazz', 'and Blues', '')).toBe(false);
  });

  it('does not guess past ASCII, LIKE wildcards or unknown texts', () => {
    expect(verdict('café', 'Un café', '', '')).toBeUndefined();
    expect(verdict('50%', 'Save 50% today', '', '')).toBeUndefined();
    expect(verdict('a_b', 'a-b', '', '')).toBeUndefined();
    expect(searchVerdict(searchTerms('jazz'), undefined)).toBeUndefined();
  });

  it('takes the characters a database folds to ASCII as possible matches', () => {
    // U+212A KELVIN SIGN lowers to "k", U+0130 to "i": ILIKE matches, SQLite's LIKE does not. SQLite's
    // trigram index folds the Kelvin sign and U+017F LATIN SMALL LETTER LONG S ("s").
    expect(verdict('kelvin', '\u212aelvin scale', '', '')).toBeUndefined();
    expect(verdict('istanbul', '\u0130stanbul', '', '')).toBeUndefined();
    expect(verdict('-kelvin', '\u212aelvin scale', '', '')).toBeUndefined();
    expect(verdict('street', '\u017ftreet', '', '')).toBeUndefined();
    expect(verdict('street', 'Main \u017ftreet', 'street', '')).toBe(true);
    expect(verdict('kelvin', 'Caf\u00e9 \u00e9t\u00e9', '', '')).toBe(false);
  });
});
