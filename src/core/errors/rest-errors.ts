import type { Context as KoaContext } from 'koa';

export const JSON_CONTENT_TYPE = 'application/json; charset=UTF-8';

export interface WordPressError {
  code: string;
  message: string;
  data: { status: number; [key: string]: unknown };
  /** Earlier data of the same error code, as WordPress lists them (e.g. `term_exists`: the term id). */
  additional_data?: unknown[];
}

export function wordPressError(
  status: number,
  code: string,
  message: string,
  data: Record<string, unknown> = {},
): WordPressError {
  return { code, message, data: { status, ...data } };
}

export const NO_ROUTE = (status = 404) =>
  wordPressError(status, 'rest_no_route', 'No route was found matching the URL and request method.');

export const INTERNAL_ERROR = () =>
  wordPressError(
    500,
    'internal_server_error',
    'The server could not complete the request. The failure has been logged.',
  );

/** The error as sent: its `data` names the request (`request_id`), so a client report leads to the logs. */
function withRequestId(ctx: KoaContext, error: WordPressError): WordPressError {
  const requestId = ctx.state.requestId;
  return requestId ? { ...error, data: { ...error.data, request_id: requestId } } : error;
}

export function sendError(
  ctx: KoaContext,
  error: WordPressError,
  headers: Record<string, string> = {},
): void {
  ctx.status = error.data.status;
  // A refusal that says when to come back (429, 503) says it in the header too.
  const retryAfter = error.data.retry_after;
  if (typeof retryAfter === 'number') ctx.set('Retry-After', String(retryAfter));
  ctx.set(headers);
  ctx.type = JSON_CONTENT_TYPE;
  ctx.body = JSON.stringify(withRequestId(ctx, error));
}

/** An error out of GraphQL execution → the WordPress body; anything not made for clients is a logged 500. */
export function fromGraphQLError(error: unknown, log: (error: unknown) => void): WordPressError {
  const extensions = (error as { extensions?: Record<string, unknown> } | undefined)?.extensions ?? {};
  const http = extensions.http as { status?: number } | undefined;
  if (typeof extensions.code === 'string' && http?.status) {
    const message = (error as Error).message;
    const { additional_data: additional, ...data } = (extensions.data as Record<string, unknown>) ?? {};
    const shaped = wordPressError(http.status, extensions.code, message, data);
    return Array.isArray(additional) ? { ...shaped, additional_data: additional } : shaped;
  }
  if (http?.status === 400) {
    return wordPressError(400, 'rest_invalid_param', 'Invalid parameter(s)', { params: {}, details: [] });
  }
  log(error);
  return INTERNAL_ERROR();
}
