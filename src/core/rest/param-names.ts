import { ApiError, isApiError, missingParams } from '../errors/errors.js';

// Services name bad fields by their domain names; a REST client knows them by its parameter names.
// Each resource declares its table once (beside its body) and its routes rename through it here.

export type ParamNames = Readonly<Record<string, string>>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The names of what a field's own error (`details[field].data.cause`) is about: inline venues… */
export type NestedParamNames = Readonly<Record<string, ParamNames>>;

/** A cause carried in an error's details, its names as `names` spells them. */
function renamedCause(detail: unknown, names: ParamNames): unknown {
  if (!isRecord(detail) || !isRecord(detail.data) || !isRecord(detail.data.cause)) return detail;
  const { code, message, ...data } = detail.data.cause;
  const cause = withParamNames(new ApiError(400, String(code), String(message), data), names) as ApiError;
  return {
    ...detail,
    data: { ...detail.data, cause: { code: cause.code, message: cause.message, ...cause.data } },
  };
}

/**
 * A parameter error with its names as `names` spells them (and the causes in its details by
 * `nested`, keyed by the domain field they explain); any other error unchanged.
 */
export function withParamNames(error: unknown, names: ParamNames, nested: NestedParamNames = {}): unknown {
  if (!isApiError(error)) return error;
  const rename = (name: string) => names[name] ?? name;
  const renameKeys = (record: unknown) =>
    isRecord(record)
      ? Object.fromEntries(
          Object.entries(record).map(([key, value]) => [
            rename(key),
            nested[key] ? renamedCause(value, nested[key]) : value,
          ]),
        )
      : record;
  const { params, details, ...rest } = error.data;
  if (error.code === 'rest_missing_callback_param' && Array.isArray(params))
    return missingParams(params.map(String).map(rename));
  if (params === undefined) return error;
  const renamed = renameKeys(params) as Record<string, unknown>;
  const message =
    error.code === 'rest_invalid_param'
      ? `Invalid parameter(s): ${Object.keys(renamed).join(', ')}`
      : error.message;
  return new ApiError(error.status, error.code, message, {
    ...rest,
    params: renamed,
    ...(details !== undefined ? { details: renameKeys(details) } : {}),
  });
}

/** Runs a service call, its parameter errors renamed by `names` (and `nested`). */
export async function namingParams<T>(
  names: ParamNames,
  run: () => Promise<T>,
  nested: NestedParamNames = {},
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw withParamNames(error, names, nested);
  }
}
