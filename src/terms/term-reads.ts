import type { Scope } from '../core/context/scope.js';
import type { Prisma, Term } from '../generated/sqlite/client.js';
import type { Taxonomy } from '../core/rules/urls.js';
import type { Tx } from '../core/db/transactions.js';
import { CATEGORY } from './terms.js';
import { inIdOrder } from '../core/rules/ids.js';

// What a category or tag read may show, decided here: list pages, cursor pages, the change stream and
// the subscriptions' re-reads load their terms through these functions. Terms have no status and no
// author: every term is readable by everyone, so the rule is only that a category id never finds a
// tag, nor the reverse.

type Reader = Pick<Scope, 'db'>;

/** What the APIs select of a term: Prisma's `include` or `select`. */
export interface TermSelection {
  include?: object;
  select?: object;
}

/** The terms anyone may read: all of them, of `taxonomy` when it is given. */
export function termsVisibleTo(taxonomy?: Taxonomy | null): Prisma.TermWhereInput {
  return taxonomy ? { taxonomy } : {};
}

/** These terms (of `taxonomy`, when given) in the order of `ids`; missing ones left out. */
export async function visibleTerms<T = Term>(
  reader: Reader,
  ids: readonly number[],
  selection: TermSelection = {},
  taxonomy?: Taxonomy | null,
): Promise<T[]> {
  if (!ids.length) return [];
  const rows = await reader.db.term.findMany({
    ...selection,
    where: { id: { in: [...ids] }, ...termsVisibleTo(taxonomy) },
  } as Prisma.TermFindManyArgs);
  return inIdOrder(ids, rows) as T[];
}

/** One term of `taxonomy`, or null. */
export async function visibleTerm<T = Term>(
  reader: Reader,
  taxonomy: Taxonomy,
  id: number,
  selection: TermSelection = {},
): Promise<T | null> {
  const [term] = await visibleTerms<T>(reader, [id], selection, taxonomy);
  return term ?? null;
}

/** Which of `ids` exist among the terms matching `conditions` (a subscription's filter). */
export async function visibleTermIds(
  reader: Reader,
  ids: readonly number[],
  conditions: readonly Prisma.TermWhereInput[],
): Promise<number[]> {
  const rows = await reader.db.term.findMany({
    where: { AND: [{ id: { in: [...ids] } }, ...conditions] },
    select: { id: true },
  });
  return rows.map((row) => row.id);
}

/** Every category's slug and parent: what a child category's URL is made of. */
export async function categoryTree(
  reader: Reader,
): Promise<Map<number, { slug: string; parentId: number | null }>> {
  const rows = await reader.db.term.findMany({
    where: { taxonomy: CATEGORY },
    select: { id: true, slug: true, parentId: true },
  });
  return new Map(rows.map((row) => [row.id, { slug: row.slug, parentId: row.parentId }]));
}

/** The term a write just made or changed, read inside its transaction for its answer. */
export function writtenTerm(selection: TermSelection = {}) {
  return (tx: Tx, id: number): Promise<Term> =>
    tx.term.findUniqueOrThrow({ ...selection, where: { id } } as Prisma.TermFindUniqueOrThrowArgs);
}
