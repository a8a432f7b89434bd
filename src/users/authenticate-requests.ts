import type { Middleware } from 'koa';
import { isApiError } from '../core/errors/errors.js';
import { sendGraphqlError } from '../core/graphql/errors.js';
import { sendError, wordPressError } from '../core/errors/rest-errors.js';
import type { Authenticator } from './authenticate.js';

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
