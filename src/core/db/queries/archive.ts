import type { ApiError } from '../../errors/errors.js';
import { type Paging, skipTake, totalPages } from '../../rules/paging.js';

/** One page of a filtered list: what to fetch, and the totals the envelope and headers report. */
export interface ArchivePage<Where, OrderBy> {
  where: Where;
  orderBy: OrderBy;
  skip: number;
  take: number;
  paging: Paging;
  total: number;
  totalPages: number;
}

/** Counts the matches; a page past the last one is an error for post types (not for terms). */
export async function archivePage<Where, OrderBy>(
  query: { where: Where; orderBy: OrderBy },
  paging: Paging,
  count: (where: Where) => Promise<number>,
  pageNotFound?: () => ApiError,
): Promise<ArchivePage<Where, OrderBy>> {
  const total = await count(query.where);
  const pages = totalPages(total, paging.perPage);
  if (pageNotFound && paging.page > 1 && paging.page > pages) throw pageNotFound();
  return { ...query, ...skipTake(paging), paging, total, totalPages: pages };
}
