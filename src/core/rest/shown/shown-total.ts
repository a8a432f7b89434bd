import type { TotalRewrite } from '../../cache/response-cache.js';
import { totalPages } from '../../rules/paging.js';
import type { ShownTotal } from '../../cache/read-log.js';

// Where a REST list answer shows its total as the cache can rewrite it: the envelope ends with
// `,"total":1697,"total_pages":170}` (the reference's key order puts them last, and nothing but the
// top-level object can end the body), and the route's headers repeat both numbers. An event created,
// trashed or moved after a full page changes those numbers and nothing else on the page, so the
// answer stays cached and gets them rewritten (`AnswerMeta.rewriteTotal`) instead of a whole miss.
// Nothing is searched for: the answer's own numbers spell the tail its body must end with, and where
// that tail starts is recorded the first time; every rewrite keeps the bytes before it as they were.

const tailOf = (total: number, pages: number) => Buffer.from(`,"total":${total},"total_pages":${pages}}`);

/** The envelope's last two members, read from their recorded place; null when they are not exactly those. */
function shownNumbers(body: Buffer, at: number): { total: number; pages: number } | null {
  let tail: unknown;
  try {
    tail = JSON.parse(`{${body.toString('latin1', at + 1)}`);
  } catch {
    return null;
  }
  const { total, total_pages: pages, ...rest } = (tail ?? {}) as Record<string, unknown>;
  return Number.isSafeInteger(total) && Number.isSafeInteger(pages) && !Object.keys(rest).length
    ? { total: total as number, pages: pages as number }
    : null;
}

/**
 * The rewrite of a list answer showing `shown` (a full page of its list) with `answered` as its total
 * and page count, whose route puts them in `headers` (header name → result key).
 */
export function totalRewrite(
  shown: ShownTotal,
  answered: { total: number; pages: number },
  headers: Readonly<Record<string, string>>,
): TotalRewrite {
  const headerOf = (key: string) =>
    Object.entries(headers)
      .find(([, field]) => field === key)?.[0]
      ?.toLowerCase();
  const totalHeader = headerOf('total');
  const pagesHeader = headerOf('total_pages');
  const answeredTail = tailOf(answered.total, answered.pages);
  /** Where the tail starts (-1: the body does not end with it); the bytes before it never change. */
  let tailAt: number | undefined;
  return {
    recount: shown.recount,
    holds: shown.holds,
    rewrite({ body, headers: kept }, total) {
      tailAt ??=
        body.length > answeredTail.length && body.subarray(-answeredTail.length).equals(answeredTail)
          ? body.length - answeredTail.length
          : -1;
      const was = tailAt < 0 ? null : shownNumbers(body, tailAt);
      if (!was) return null;
      const pages = totalPages(total, shown.perPage);
      // The links (`next_rest_url`, `previous_rest_url`) follow the page count only around the last
      // page: a page before the last one, before and after, keeps them.
      if (pages !== was.pages && shown.page >= Math.min(pages, was.pages)) return null;
      const rewritten = Buffer.concat([body.subarray(0, tailAt), tailOf(total, pages)]);
      const rewrittenHeaders = { ...kept };
      if (totalHeader) rewrittenHeaders[totalHeader] = String(total);
      if (pagesHeader) rewrittenHeaders[pagesHeader] = String(pages);
      return { body: rewritten, headers: rewrittenHeaders };
    },
  };
}
