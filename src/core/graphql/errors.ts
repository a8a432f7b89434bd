import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context as KoaContext } from 'koa';

/**
 * Errors carry the REST status in `extensions.http.status` so clients can branch on it, but a GraphQL
 * response with field errors is still a 200 (it holds data, maybe partial). Yoga would do the opposite —
 * use the status for the response and strip it from the body — so the status is set aside before
 * Yoga sees the errors and written back when the body is serialised.
 */
export function exposeErrorStatusPlugin(): Plugin {
  return {
    onExecutionResult({ result, setResult }) {
      if (!result || Symbol.asyncIterator in result || !result.errors?.length) return;
      const statuses = result.errors.map(
        (error) => (error.extensions?.http as { status?: number } | undefined)?.status,
      );
      if (!statuses.some(Boolean)) return;
      // graphql-js words variable-coercion failures `Variable "$…`, and codes them no further.
      const codes = result.errors.map((error) =>
        error.extensions?.code === undefined && !('data' in result) && error.message.startsWith('Variable "$')
          ? 'BAD_USER_INPUT'
          : undefined,
      );
      // Yoga leaves `extensions.http` out of the body: it is written back for clients that branch on it.
      const stringify = (sanitized: ExecutionResult) =>
        JSON.stringify({
          ...sanitized,
          errors: sanitized.errors?.map((error, i) => {
            const json = error.toJSON();
            const status = statuses[i];
            const code = codes[i];
            return status || code
              ? {
                  ...json,
                  extensions: {
                    ...(code ? { code } : {}),
                    ...json.extensions,
                    ...(status ? { http: { status } } : {}),
                  },
                }
              : json;
          }),
        });
      // A request error (the document did not parse or validate, variables did not coerce, a limit
      // refused it) has no `data`: its status is the response's — GraphQL over HTTP: 4xx, or 200 for
      // legacy application/json clients where the spec says so — which yoga decides from the errors.
      if (!('data' in result)) return setResult({ ...result, stringify });
      const errors = result.errors.map((error) => {
        const { http: _http, ...extensions } = error.extensions ?? {};
        return new GraphQLError(error.message, {
          nodes: error.nodes,
          source: error.source,
          positions: error.positions,
          path: error.path,
          originalError: error.originalError,
          extensions,
        });
      });
      setResult({ ...result, errors, stringify });
    },
  };
}

/**
 * A refusal that says when to try again (`extensions.data.retry_after`: RATE_LIMITED, a busy ticket
 * type) sets the HTTP answer's `Retry-After`, as REST's does (`core/errors/rest-errors.ts`); the answer stays 200
 * when it holds data. Of several, the longest wait.
 */
export function retryAfterHeaderPlugin(): Plugin<Record<string, unknown>, { koa: KoaContext }> {
  return {
    onExecutionResult({ result, context }) {
      if (!result || Symbol.asyncIterator in result || !result.errors?.length) return;
      const waits = result.errors.flatMap((error) => {
        const wait = (error.extensions?.data as { retry_after?: unknown } | undefined)?.retry_after;
        return typeof wait === 'number' ? [wait] : [];
      });
      if (waits.length) context.koa.set('Retry-After', String(Math.max(...waits)));
    },
  };
}

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/**
 * A GraphQL error response of our own (authentication, the request body) in the media type the
 * client negotiated, as yoga answers its own: `application/graphql-response+json` when accepted,
 * `application/json` for legacy clients (and those that send no Accept), so a client trusts the body.
 */
export function sendGraphqlError(
  ctx: KoaContext,
  error: { status: number; code: string; message: string },
): void {
  const modern =
    ctx.get('accept') !== '' && ctx.accepts(GRAPHQL_RESPONSE, 'application/json') === GRAPHQL_RESPONSE;
  ctx.status = error.status;
  ctx.type = modern ? `${GRAPHQL_RESPONSE}; charset=utf-8` : 'application/json; charset=utf-8';
  ctx.body = JSON.stringify({
    errors: [{ message: error.message, extensions: { code: error.code, http: { status: error.status } } }],
  });
}
