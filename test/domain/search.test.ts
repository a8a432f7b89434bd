import { describe, expect, it } from 'vitest';
import { searchTerms } from '../../src/domain/search.js';

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
