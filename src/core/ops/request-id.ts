import { randomUUID } from 'node:crypto';
import type { Context as KoaContext, Next } from 'koa';
import type { Logger } from './logger.js';

// A client's id is kept when it is plausible (a UUID, a trace id, a short token); anything else —
// too long, or with characters a log line or a header should not carry — is replaced.
export const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** The request's own logger: every line it writes carries the request id. */
export function loggerOf(ctx: KoaContext, fallback: Logger): Logger {
  return (ctx.state.log as Logger | undefined) ?? fallback;
}

/** Accepts or generates the request id and returns it on the response. */
export function assignRequestId(ctx: KoaContext): string {
  const sent = ctx.get(REQUEST_ID_HEADER);
  const id = ACCEPTABLE_ID.test(sent) ? sent : randomUUID();
  ctx.state.requestId = id;
  ctx.set(REQUEST_ID_HEADER, id);
  return id;
}

/** Accepts or generates the request id, returns it on the response and scopes a child logger to it. */
export function requestIds(logger: Logger) {
  return async (ctx: KoaContext, next: Next) => {
    const id = assignRequestId(ctx);
    ctx.state.log = logger.child({ reqId: id });
    await next();
  };
}
