import type { Context as KoaContext } from 'koa';
import type { ServedEntry } from '../cache/response-cache.js';
import type { Viewer } from '../rules/permissions.js';
import type { Logger } from '../ops/logger.js';

// What a request's middlewares leave for those after them on Koa's `ctx.state`, typed once here.

declare module 'koa' {
  interface DefaultState {
    /** Who is asking, set by authentication (absent before it). */
    viewer?: Viewer;
    /** The request id (accepted from the client or generated), in logs and error bodies. */
    requestId?: string;
    /** The request's own logger, whose lines carry the request id. */
    log?: Logger;
    /** The shared cache entry that answered (stored or hit): the fast path records an alias to it. */
    cacheEntry?: ServedEntry;
    /** A GraphQL POST body, read once (by the fast path or the normal path). */
    graphqlBody?: Promise<string>;
  }
}

/** Who the request is from, once authentication (`users/authenticate-requests.ts`) has run (undefined before it). */
export function viewerOf(ctx: KoaContext): Viewer | undefined {
  return ctx.state.viewer as Viewer | undefined;
}
