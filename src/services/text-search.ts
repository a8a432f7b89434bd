import type { Config } from '../config.js';
import type { Prisma } from '../generated/sqlite/client.js';
import { searchTerms } from '../domain/search.js';

// The one `search` condition of the event, venue and organizer lists: the terms WordPress would read
// (domain/search.ts), each matched case-insensitively against the list's own fields. Events are searched
// through a trigram index on both databases: PostgreSQL's `pg_trgm` GIN indexes serve the ILIKE on the
// columns as they are; on SQLite, Prisma cannot write FTS5's MATCH, so a term's LIKE is asked of the
// `EventSearch` FTS5 table, whose trigram index finds the candidates before SQLite tests the LIKE itself
// on each (the answer is the plain LIKE's, ASCII case folding included).

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
): SearchWhere<Field> {
  return {
    AND: searchTerms(search).map(({ text, exclude }) => {
      const each = anyField(text, fields, provider);
      return exclude ? { NOT: each } : { OR: each };
    }),
  };
}

/** The event texts `search` reads (the columns of `EventSearch`, SQLite's index of them). */
export const EVENT_SEARCH_FIELDS = ['title', 'excerpt', 'description'] as const;

/**
 * Whether SQLite's trigram index can answer a term's `LIKE '%term%'`: FTS5 needs a run of 3 characters
 * between LIKE's wildcards (`%` and `_` are wildcards there, see `containsText`) and scans its whole
 * table otherwise, which costs more than the plain LIKE on the list's own rows.
 */
export function trigramIndexable(text: string): boolean {
  return text.split(/[%_]/).some((run) => [...run].length >= 3);
}

/**
 * `search` over the event texts, as `searchWhere`; on SQLite each term the trigram index can answer is
 * asked of `EventSearch` (`id IN (SELECT rowid FROM EventSearch WHERE title LIKE ? OR …)`), the others
 * keep the LIKE on the event's columns.
 */
export function eventSearchWhere(
  search: string,
  provider: Config['databaseProvider'],
): Prisma.EventWhereInput {
  if (provider === 'postgresql') return searchWhere(search, EVENT_SEARCH_FIELDS, provider);
  return {
    AND: searchTerms(search).map(({ text, exclude }): Prisma.EventWhereInput => {
      const inSomeField = { OR: anyField(text, EVENT_SEARCH_FIELDS, provider) };
      const match = trigramIndexable(text) ? { search: { is: inSomeField } } : inSomeField;
      return exclude ? { NOT: match } : match;
    }),
  };
}
