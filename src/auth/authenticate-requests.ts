import type { Context as KoaContext, Middleware } from 'koa';
import { isApiError } from '../domain/errors.js';
import type { Viewer } from '../domain/permissions.js';
import { sendGraphqlError } from '../graphql/errors.js';
import { sendError, wordPressError } from '../rest/errors.js';
import type { Authenticator } from './authenticate.js';

/** Who the request is from, once `authenticateRequests` has run (undefined before it). */
export function viewerOf(ctx: KoaContext): Viewer | undefined {
  return ctx.state.viewer as Viewer | undefined;
}

/**
 * Every request is anonymous or authenticated here, once, for REST and GraphQL alike. Refused
 * credentials are answered in the dialect of the API the request addresses.
 */
export function authenticateRequests(authenticator: Authenticator, graphqlPath: string): Middleware {
  return async (ctx, next) => {
    try {
      ctx.state.viewer = await authenticator.viewerFor(ctx.get('authorization') || undefined, ctx.ip);
    } catch (error) {
      if (!isApiError(error)) throw error;
      const retryAfter = error.data.retry_after;
      if (typeof retryAfter === 'number') ctx.set('Retry-After', String(retryAfter));
      if (ctx.path !== graphqlPath)
        return sendError(ctx, wordPressError(error.status, error.code, error.message));
      return sendGraphqlError(ctx, error);
    }
    await next();
  };
}
