import { GraphQLError } from 'graphql';

/**
 * A failure the client caused or may see, carrying the WordPress REST error code and HTTP status.
 * GraphQL exposes it as `extensions.code` / `extensions.http.status`; the REST adapter turns it into
 * `{code, message, data: {status, ...data}}`.
 */
export class ApiError extends GraphQLError {
  readonly code: string;
  readonly status: number;
  readonly data: Record<string, unknown>;

  constructor(status: number, code: string, message: string, data: Record<string, unknown> = {}) {
    super(message, { extensions: { code, http: { status }, ...(Object.keys(data).length ? { data } : {}) } });
    this.code = code;
    this.status = status;
    this.data = data;
  }
}

/**
 * WordPress' `rest_invalid_param`: every bad parameter is named, with a reason. A validator's own error
 * goes in `details[param]` as `{code, message, data}` (e.g. `ticketed` → `event-tickets-not-active`).
 */
export function invalidParams(
  reasons: Record<string, string>,
  details: Record<string, { code: string; message: string; data: unknown }> = {},
): ApiError {
  const names = Object.keys(reasons);
  return new ApiError(400, 'rest_invalid_param', `Invalid parameter(s): ${names.join(', ')}`, {
    params: reasons,
    details: Object.keys(details).length ? details : [],
  });
}

/** WordPress' `rest_missing_callback_param`: required parameters that were not sent. */
export function missingParams(names: string[]): ApiError {
  return new ApiError(400, 'rest_missing_callback_param', `Missing parameter(s): ${names.join(', ')}`, {
    params: names,
  });
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}
