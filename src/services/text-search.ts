import type { Config } from '../config.js';
import type { Prisma } from '../generated/sqlite/client.js';
import { searchTerms } from '../domain/search.js';

// The one `search` condition of the event, venue and organizer lists: the terms WordPress would read
// (domain/search.ts), each matched case-insensitively against the list's own fields.

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
      const match = containsText(text, provider);
      const each = fields.map((field) => ({ [field]: match }) as FieldMatch<Field>);
      return exclude ? { NOT: each } : { OR: each };
    }),
  };
}
