import type { GraphQLInputField } from 'graphql';
import { z } from 'zod';
import type { RestField } from './route-table.js';
import { type ParamNames, namingParams } from './param-names.js';
import { readBoolean } from './booleans.js';

// A REST write body declared once per resource: each WordPress parameter names the domain field it
// fills, how its wire value is read (strings or numbers, `1/0` booleans…) and how it is documented. The
// body's GraphQL input type (`core/graphql/schema/rest-bodies.ts`), its reading, its documentation
// (namespace index, `/doc`) and the renaming of the services' errors back to REST names (`paramNames`)
// all come from that one table.

/**
 * A way of reading wire values, named: the GraphQL scalar of the body fields it reads is
 * `Body<name>` (one per reader), whose parsing is this reader's and never refuses a value.
 */
export interface BodyReader<T = unknown> {
  name: string;
  description: string;
  schema: z.ZodType<T>;
}

export function bodyReader<T>(name: string, description: string, schema: z.ZodType<T>): BodyReader<T> {
  return { name, description, schema };
}

export interface BodyField<Domain> {
  /** The domain input field the parameter fills. */
  to: keyof Domain & string;
  /** The wire value → the domain value; a failure names the parameter in the 400. */
  read: BodyReader;
  doc: RestField;
  /**
   * A null is read (it means something: no parent, no venues); otherwise it counts as not sent, as
   * WordPress drops null parameters.
   */
  keepNull?: true;
}

/** Strings, and numbers as their string forms (D19). */
export const TEXT = bodyReader(
  'Text',
  'A string, or a number read as its string form',
  z.union([z.string(), z.number().finite()]).transform(String),
);
/** Strings only (WordPress' `string` arguments). */
export const STRING = bodyReader('String', 'A string', z.string());
/** A record id as a number or its digits: whether it names a record is the service's check. */
export const ID = bodyReader(
  'Id',
  'A record id: a number or its digits',
  z.union([z.number(), z.string().trim().regex(/^\d+$/).transform(Number)]),
);

/** A boolean or a boolean word (`readBoolean`); anything else is unreadable. */
export const FLAG = bodyReader(
  'Flag',
  'A boolean, or a boolean word (true/false, 1/0, yes/no, on/off)',
  z.preprocess((value) => readBoolean(value) ?? value, z.boolean()),
);

/** REST parameter name → its field, in documentation order. */
export type BodyTable<Domain, Field extends BodyField<Domain> = BodyField<Domain>> = Record<string, Field>;

/** The mark of a wire value its reader could not read. */
const UNREADABLE: { readonly unreadable: true } = Object.freeze({ unreadable: true });

/**
 * A body field's wire value as its scalar parsed it: what its reader read (boxed, since GraphQL takes
 * an `undefined` or `NaN` parse for a refusal), or the mark that it could not be read: the 400 names it
 * with the service's own findings, so GraphQL never refuses a body.
 */
export type BodyValue = { readonly read: unknown } | typeof UNREADABLE;

/** A body as its input type's coercion leaves it: per parameter sent, its value (null as sent). */
export type ParsedBody = Readonly<Record<string, BodyValue | null | undefined>>;

export function parseBodyValue(reader: BodyReader, value: unknown): BodyValue {
  const read = reader.schema.safeParse(value);
  return read.success ? { read: read.data } : UNREADABLE;
}

/** A raw body parsed as its input type parses it (a body nested in another: an inline venue). */
export function parseBody<Domain>(table: BodyTable<Domain>, body: unknown): ParsedBody {
  const sent =
    body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const parsed: Record<string, BodyValue | null> = {};
  for (const [param, field] of Object.entries(table)) {
    const value = sent[param];
    if (value !== undefined) parsed[param] = value === null ? null : parseBodyValue(field.read, value);
  }
  return parsed;
}

/** A body read into the domain: fields that could not be read are listed, for the service's one 400. */
interface ReadBody<Domain> {
  input: Domain;
  unreadable: Array<keyof Domain & string>;
}

/**
 * The table's parameters of a parsed body, read into the domain; others are ignored. Null means "not
 * sent" (and a missing body is empty) but where the field keeps it (`keepNull`).
 */
export function readBody<Domain>(
  table: BodyTable<Domain>,
  body: ParsedBody | null | undefined,
): ReadBody<Domain> {
  const input: Record<string, unknown> = {};
  const unreadable: Array<keyof Domain & string> = [];
  for (const [param, field] of Object.entries(table)) {
    const sent = body?.[param];
    if (sent === undefined || (sent === null && !field.keepNull)) continue;
    // GraphQL hands a null over without parsing it.
    const value = sent ?? parseBodyValue(field.read, null);
    if ('read' in value) input[field.to] = value.read;
    else unreadable.push(field.to);
  }
  // Each reader yields its field's domain type: the table is typed by field name, not by value.
  return { input: input as Domain, unreadable };
}

/** The extensions of a body field's input field: its documentation, read back by the discovery. */
export const documentedAs = (doc: RestField): { rest: RestField } => ({ rest: doc });

/** A body type's field as the namespace index and `/doc` describe it (`required` as declared: creates). */
export function documentationOf(field: GraphQLInputField): RestField | undefined {
  return (field.extensions as { rest?: RestField }).rest;
}

/** Domain field → REST parameter, for renaming the services' errors (`param-names.ts`). */
export function paramNames<Domain>(table: BodyTable<Domain>): ParamNames {
  return Object.fromEntries(Object.entries(table).map(([param, field]) => [field.to, param]));
}

/** A create or update from a REST body read with its table, the service's errors under REST names. */
export function writingBody<Domain, T>(
  table: BodyTable<Domain>,
  body: ParsedBody | null | undefined,
  run: (input: Domain, unreadable: ReadBody<Domain>['unreadable']) => Promise<T>,
): Promise<T> {
  const { input, unreadable } = readBody(table, body);
  return namingParams(paramNames(table), () => run(input, unreadable));
}
