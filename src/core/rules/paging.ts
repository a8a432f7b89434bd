import { invalidParams } from '../errors/errors.js';

export const DEFAULT_PER_PAGE = 10;
export const MAX_PER_PAGE = 50;

export interface Paging {
  page: number;
  perPage: number;
}

/** Reference rules: both must be positive integers; `per_page` above the maximum is clamped, not refused. */
export function normalizePaging(page: number | null | undefined, perPage: number | null | undefined): Paging {
  const bad: Record<string, string> = {};
  const p = page ?? 1;
  const pp = perPage ?? DEFAULT_PER_PAGE;
  if (!Number.isInteger(p) || p < 1) bad.page = 'Invalid parameter.';
  if (!Number.isInteger(pp) || pp < 1) bad.per_page = 'Invalid parameter.';
  if (Object.keys(bad).length) throw invalidParams(bad);
  return { page: p, perPage: Math.min(pp, MAX_PER_PAGE) };
}

export function totalPages(total: number, perPage: number): number {
  return total === 0 ? 0 : Math.ceil(total / perPage);
}

export function skipTake({ page, perPage }: Paging): { skip: number; take: number } {
  return { skip: (page - 1) * perPage, take: perPage };
}

/**
 * The reference's archive links: `rest_url` echoes the effective query unencoded with `page` first;
 * `next`/`previous` are form-encoded with `page` moved to the end (dropped when going back to page 1).
 */
export function archiveLinks(
  base: string,
  params: Array<[string, string]>,
  page: number,
  pages: number,
): { restUrl: string; nextRestUrl: string | null; previousRestUrl: string | null } {
  const restUrl = `${base}?${[['page', String(page)], ...params].map(([k, v]) => `${k}=${v}`).join('&')}`;
  const linkTo = (target: number): string => {
    const query = new URLSearchParams(params);
    if (target > 1) query.append('page', String(target));
    const qs = query.toString();
    return qs ? `${base}?${qs}` : base;
  };
  return {
    restUrl,
    nextRestUrl: page < pages ? linkTo(page + 1) : null,
    previousRestUrl: page > 1 && page - 1 <= pages ? linkTo(page - 1) : null,
  };
}
