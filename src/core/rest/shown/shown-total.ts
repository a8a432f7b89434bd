import type { TotalRewrite } from '../../cache/response-cache.js';
import { totalPages } from '../../rules/paging.js';
import type { ShownTotal } from '../../cache/read-log.js';

// Where a REST list answer shows its total as the cache can rewrite it: the envelope ends with
// `,"total":1697,"total_pages":170}` (the reference's key order puts them last, and nothing but the
// top-level object can end the body), and the route's headers repeat both numbers. An event created,
// trashed or moved after a full page changes those numbers and nothing else on the page, so the
// answer stays cached and gets them rewritten (`AnswerMeta.rewriteTotal`) instead of a whole miss.

const TAIL = /,"total":(\d+),"total_pages":(\d+)\}$/;
/** Enough of the body's end for the tail with the largest numbers. */
const TAIL_BYTES = 64;

/**
 * The rewrite of a list answer showing `shown` (a full page of its list), whose route puts the total
 * and the page count in `headers` (header name → result key).
 */
export function totalRewrite(shown: ShownTotal, headers: Readonly<Record<string, string>>): TotalRewrite {
  const headerOf = (key: string) =>
    Object.entries(headers)
      .find(([, field]) => field === key)?.[0]
      ?.toLowerCase();
  const totalHeader = headerOf('total');
  const pagesHeader = headerOf('total_pages');
  return {
    recount: shown.recount,
    holds: shown.holds,
    rewrite({ body, headers: kept }, total) {
      const tailStart = Math.max(0, body.length - TAIL_BYTES);
      const match = TAIL.exec(body.toString('latin1', tailStart));
      if (!match) return null;
      const pages = totalPages(total, shown.perPage);
      const shownPages = Number(match[2]);
      // The links (`next_rest_url`, `previous_rest_url`) follow the page count only around the last
      // page: a page before the last one, before and after, keeps them.
      if (pages !== shownPages && shown.page >= Math.min(pages, shownPages)) return null;
      const tail = `,"total":${total},"total_pages":${pages}}`;
      const rewritten = Buffer.concat([body.subarray(0, tailStart + match.index), Buffer.from(tail)]);
      const rewrittenHeaders = { ...kept };
      if (totalHeader) rewrittenHeaders[totalHeader] = String(total);
      if (pagesHeader) rewrittenHeaders[pagesHeader] = String(pages);
      return { body: rewritten, headers: rewrittenHeaders };
    },
  };
}
