import type Koa from 'koa';
import type { Context as KoaContext, Middleware } from 'koa';
import type { Logger } from '../ops/logger.js';
import { loggerOf } from '../ops/request-id.js';
import { INTERNAL_ERROR, sendError } from '../errors/rest-errors.js';

const ABORT_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

/**
 * Koa prints errors it sees after a response started (a client that hung up mid-stream) as plain text
 * on stderr; with a listener they become JSON log lines, aborted requests at debug.
 */
export function logResponseFailures(app: Koa, logger: Logger): void {
  app.on('error', (error: NodeJS.ErrnoException, ctx?: KoaContext) => {
    const log = ctx ? loggerOf(ctx, logger) : logger;
    if (error.code !== undefined && ABORT_CODES.has(error.code))
      log.debug({ code: error.code }, 'client closed the connection');
    else log.error({ err: error }, 'response failed');
  });
}

/** Last line of defence: nothing escapes as a stack trace or an HTML page. */
export function answerUnhandledErrors(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      loggerOf(ctx, logger).error({ err: error, method: ctx.method, path: ctx.path }, 'unhandled error');
      sendError(ctx, INTERNAL_ERROR());
    }
  };
}
