import type { Middleware } from 'koa';
import { API_PREFIX } from '../rules/urls.js';
import { sendError, wordPressError } from '../errors/rest-errors.js';

// A browser sends another site's form (urlencoded, multipart, text/plain) without a preflight, with
// whatever credentials it holds for this site (a Basic login it remembers), so the CORS policy never
// decides it. REST must take form bodies (TEC clients send them), so a REST write — any method but
// GET, HEAD and OPTIONS as it arrives, whatever `_method` or X-HTTP-Method-Override it tunnels — is
// refused when the browser says it comes from another site:
// - an `Origin` that is neither the site's own (CALENDAR_SITE_URL, or the address the request was sent
//   to: a page of another site cannot be served from it) nor listed in CALENDAR_CORS_ORIGINS. `*` lists
//   none (it opens anonymous reads), and `null` (sandboxed frames, file: pages, some redirects) is any
//   page at all;
// - without `Origin`, `Sec-Fetch-Site` `cross-site` or `same-site` (a sibling host is another site).
// An allowed origin passes whatever its `Sec-Fetch-Site` says (another site's app is `cross-site` by
// definition). Clients that are not browsers send neither header and are not concerned.
// `/graphql` needs no such rule: it takes JSON POSTs only (always preflighted, so decided by the same
// CORS list, never with credentials for `*`) and runs no mutation over GET.

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
const API_PATH = new RegExp(`^(?:/[^/]+)?${API_PREFIX}(?:/|$)`);

const CROSS_SITE_REQUEST = () =>
  wordPressError(
    403,
    'rest_cross_site_request',
    'Writes from a page of another site are not allowed: its origin is not one this site allows.',
  );

interface CrossSiteOptions {
  /** The site's public URL (CALENDAR_SITE_URL). */
  siteUrl: string;
  /** CALENDAR_CORS_ORIGINS, lower-cased. */
  corsOrigins: readonly string[];
}

/** Whether a request with these headers comes from a page of a site this one does not allow. */
function fromForeignSite(
  headers: { origin: string; secFetchSite: string; ownOrigin: string },
  allowed: ReadonlySet<string>,
): boolean {
  const origin = headers.origin.trim().toLowerCase();
  if (origin) return !(allowed.has(origin) || origin === headers.ownOrigin.toLowerCase());
  const site = headers.secFetchSite.trim().toLowerCase();
  return site === 'cross-site' || site === 'same-site';
}

/** Refuses REST writes sent by a page of another site (403 `rest_cross_site_request`). */
export function crossSiteWrites({ siteUrl, corsOrigins }: CrossSiteOptions): Middleware {
  const allowed = new Set([
    new URL(siteUrl).origin.toLowerCase(),
    ...corsOrigins.filter((origin) => origin !== '*' && origin !== 'null'),
  ]);
  return (ctx, next) => {
    if (READS.has(ctx.method) || !API_PATH.test(ctx.path)) return next();
    const headers = {
      origin: ctx.get('Origin'),
      secFetchSite: ctx.get('Sec-Fetch-Site'),
      // Not `ctx.origin`: Koa 3 answers the Origin header there.
      ownOrigin: `${ctx.protocol}://${ctx.host}`,
    };
    if (fromForeignSite(headers, allowed)) return sendError(ctx, CROSS_SITE_REQUEST());
    return next();
  };
}
