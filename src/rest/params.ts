import {
  type GraphQLArgument,
  type GraphQLInputType,
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  GraphQLString,
  getNullableType,
  isInputObjectType,
  isListType,
} from 'graphql';
import { MAX_RECORD_ID } from '../domain/ids.js';
import { readBoolean } from './booleans.js';

// WordPress clients send `1`/`0`/`yes` booleans, comma lists and `a[]=` arrays; SOFA understands none of
// them. Values are normalised here, by the GraphQL type of the argument they feed, before SOFA sees them.

export type ParamValue = string | number | boolean | null | ParamValue[] | { [key: string]: unknown };

const INVALID = Symbol('invalid');

function normalizeScalar(value: unknown, type: GraphQLInputType): ParamValue | typeof INVALID {
  if (Array.isArray(value) || (value !== null && typeof value === 'object')) {
    return isInputObjectType(type) ? (value as { [key: string]: unknown }) : INVALID;
  }
  const text = typeof value === 'string' ? value.trim() : String(value);
  // GraphQL's Int is 32-bit: a larger number is a bad parameter here, not an error inside SOFA.
  if (type === GraphQLInt)
    return /^[-+]?\d+$/.test(text) && Math.abs(Number(text)) <= MAX_RECORD_ID ? Number(text) : INVALID;
  if (type === GraphQLFloat) return text !== '' && Number.isFinite(Number(text)) ? Number(text) : INVALID;
  if (type === GraphQLBoolean) {
    return readBoolean(text) ?? INVALID;
  }
  if (type === GraphQLString) return typeof value === 'string' ? value : text;
  return text;
}

function normalize(value: unknown, type: GraphQLInputType): ParamValue | typeof INVALID {
  const inner = getNullableType(type) as GraphQLInputType;
  if (isListType(inner)) {
    const items = Array.isArray(value)
      ? value
      : typeof value === 'string'
        ? value
            .split(',')
            .map((item) => item.trim())
            .filter((item) => item !== '')
        : [value];
    const normalized = items.map((item) => normalize(item, inner.ofType));
    return normalized.includes(INVALID) ? INVALID : (normalized as ParamValue[]);
  }
  return normalizeScalar(value, inner);
}

/**
 * Picks each argument from the raw request (path > body > query, as WordPress) and normalises it.
 * Returns the variables and, per bad parameter, WordPress' reason.
 */
export function argumentsFromRequest(
  args: readonly GraphQLArgument[],
  sources: { path: Record<string, string>; query: Record<string, unknown>; body: Record<string, unknown> },
  bodyArgument?: string,
): { variables: Record<string, ParamValue>; invalid: Record<string, string> } {
  const variables: Record<string, ParamValue> = {};
  const invalid: Record<string, string> = {};
  for (const arg of args) {
    if (arg.name === bodyArgument) {
      variables[arg.name] = sources.body as { [key: string]: unknown };
      continue;
    }
    const raw = sources.path[arg.name] ?? sources.body[arg.name] ?? sources.query[arg.name];
    if (raw === undefined) continue;
    const value = normalize(raw, arg.type);
    if (value === INVALID) invalid[arg.name] = 'Invalid parameter.';
    else variables[arg.name] = value;
  }
  return { variables, invalid };
}

/** The query string SOFA parses back (repeated keys for lists). */
export function toSofaQuery(variables: Record<string, ParamValue>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(variables)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== null && typeof item !== 'object') query.append(name, String(item));
    }
  }
  return query.toString();
}
