import type { Config } from '../../config/config.js';
import type { Prisma } from '../../../generated/sqlite/client.js';
import { SEARCHED_FIELDS, type SearchTerm, searchTerms } from '../../rules/search.js';
import type { ListCondition } from './list-conditions.js';

// The one `search` condition of the event, venue and organizer lists: the terms WordPress would read
// (core/rules/search.ts), each matched case-insensitively against the list's own fields. Event searches
// read a trigram index on both databases: PostgreSQL's `pg_trgm` GIN indexes serve the ILIKE on the
// columns as it is. On SQLite the index is the FTS5 table `EventSearch`; Prisma can neither write its
// queries nor join it usefully (its to-one and `some` filters probe it once per event), so the events
// of a search are asked of it first, in raw SQL (`eventSearchCondition`), and a list read names them
// (`id IN (…)`, `list-conditions.ts`). FTS5 answers an ASCII term as a phrase of trigrams, and any
// other by finding candidates by trigram and testing the `LIKE` on each: those ids are what the plain
// `LIKE` on the columns finds (ASCII case folding alike), but for two characters the phrase folds too
// (`indexedTerm`).

/**
 * Case-insensitive `contains` on both databases: PostgreSQL needs ILIKE (`mode: 'insensitive'`, which
 * the SQLite client does not know), SQLite's LIKE already ignores ASCII case. Prisma does not escape
 * LIKE wildcards: PostgreSQL's default escape character is the backslash; SQLite has none, so there a
 * `%` or `_` in a search term matches any text/character (a known, harmless widening).
 */
function containsText(text: string, provider: Config['databaseProvider']): Prisma.StringFilter {
  if (provider !== 'postgresql') return { contains: text };
  return { contains: text.replace(/[\\%_]/g, '\\$&'), mode: 'insensitive' } as Prisma.StringFilter;
}

type FieldMatch<Field extends string> = Record<Field, Prisma.StringFilter>;

/** A term's match of one of `fields`. */
function anyField<Field extends string>(
  text: string,
  fields: readonly Field[],
  provider: Config['databaseProvider'],
): Array<FieldMatch<Field>> {
  const match = containsText(text, provider);
  return fields.map((field) => ({ [field]: match }) as FieldMatch<Field>);
}

/** A condition on `Field` columns, valid in each model's where input that has them all. */
export interface SearchWhere<Field extends string> {
  AND: Array<{ OR: Array<FieldMatch<Field>> } | { NOT: Array<FieldMatch<Field>> }>;
}

/**
 * `search` over `fields`: every term in at least one of them, each excluded (`-`) term in none. At most
 * `MAX_SEARCH_TERMS` terms, so the condition's size is bounded.
 */
export function searchWhere<Field extends string>(
  search: string,
  fields: readonly Field[],
  provider: Config['databaseProvider'],
  tested: (term: SearchTerm) => boolean = () => true,
): SearchWhere<Field> {
  return {
    AND: searchTerms(search)
      .filter(tested)
      .map(({ text, exclude }) => {
        const each = anyField(text, fields, provider);
        return exclude ? { NOT: each } : { OR: each };
      }),
  };
}

/** The event texts `search` reads (the columns of `EventSearch`, SQLite's index of them). */
export const EVENT_SEARCH_FIELDS = SEARCHED_FIELDS.Event;

/**
 * Whether SQLite's trigram index can answer a term's `LIKE '%term%'`: FTS5 needs a run of 3 characters
 * between LIKE's wildcards (`%` and `_` are wildcards there, see `containsText`) and scans its whole
 * table otherwise, which costs more than the plain LIKE on the list's own rows.
 */
export function trigramIndexable(text: string): boolean {
  return text.split(/[%_]/).some((run) => [...run].length >= 3);
}

/** Whether SQLite's index answers a term: a required one with a run of 3 characters. */
const answeredByIndex = ({ text, exclude }: SearchTerm) => !exclude && trigramIndexable(text);

/**
 * A term's events from the index, and the values its statement binds. An ASCII term without LIKE
 * wildcards is a phrase `MATCH`: the trigrams' positions say where it occurs, without reading a text,
 * ~5× faster than the `LIKE`, which FTS5 tests on every candidate's texts. The phrase folds case as
 * LIKE does for ASCII, and in the texts folds two more characters to ASCII letters (the Kelvin sign
 * to `k`, the long s `ſ` to `s`; `searchVerdict` judges them possible matches). Any other term is the
 * `LIKE`, as Prisma writes `contains` on SQLite (`%` and `_` in a term stay wildcards).
 */
function indexedTerm({ text }: SearchTerm): { sql: string; values: string[] } {
  // eslint-disable-next-line no-control-regex -- ASCII is the point
  if (/^[\x00-\x7f]{3,}$/.test(text) && !/[%_]/.test(text))
    return {
      sql: `SELECT rowid AS id FROM "EventSearch" WHERE "EventSearch" MATCH ?`,
      values: [`"${text.replace(/"/g, '""')}"`],
    };
  const termMatch = EVENT_SEARCH_FIELDS.map((field) => `"${field}" LIKE '%' || ? || '%'`).join(' OR ');
  return {
    sql: `SELECT rowid AS id FROM "EventSearch" WHERE ${termMatch}`,
    values: EVENT_SEARCH_FIELDS.map(() => text),
  };
}

/**
 * `search` over the event texts, as `searchWhere`. On SQLite a list read asks the index for the events
 * having every required term it answers (each term in one of the texts, `indexedTerm`), from
 * `EventSearch`, in one statement; only the other terms (excluded ones, terms without 3 characters)
 * test the `LIKE`, on those events alone. The index cannot narrow a search without such a term, nor
 * one matching more than `MAX_NAMED_EVENTS` events: the list tests the `LIKE` on its own rows.
 */
export function eventSearchCondition(search: string, provider: Config['databaseProvider']): ListCondition {
  const where = searchWhere(search, EVENT_SEARCH_FIELDS, provider);
  const terms = searchTerms(search).filter(answeredByIndex);
  if (provider !== 'sqlite' || !terms.length) return { where };
  const selects = terms.map(indexedTerm);
  const sql = selects.map((select) => select.sql).join(' INTERSECT ');
  const values = selects.flatMap((select) => select.values);
  const rest = searchWhere(search, EVENT_SEARCH_FIELDS, provider, (term) => !answeredByIndex(term));
  return { where, indexed: { sql, values, ...(rest.AND.length && { rest }) } };
}
