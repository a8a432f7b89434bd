import type { z } from 'zod';
import type { RestField } from './route-table.js';
import type { ParamNames } from './param-names.js';

// A REST write body declared once per resource: each WordPress parameter names the domain field it
// fills, how its wire value is read (strings or numbers, `1/0` booleans…) and how it is documented. The
// reading, the documentation (namespace index, `/doc`) and the renaming of the services' errors back to
// REST names (`paramNames`) all come from that one table.

export interface BodyField<Domain> {
  /** The domain input field the parameter fills. */
  to: keyof Domain & string;
  /** The wire value → the domain value; a failure names the parameter in the 400. */
  read: z.ZodType;
  doc: RestField;
}

/** REST parameter name → its field, in documentation order. */
export type BodyTable<Domain> = Record<string, BodyField<Domain>>;

/** A body read into the domain: fields that could not be read are listed, for the service's one 400. */
export interface ReadBody<Domain> {
  input: Domain;
  unreadable: Array<keyof Domain & string>;
}

/**
 * The body's known parameters, read. Null means "not sent" (WordPress drops null parameters, and a
 * non-object body is empty); `keepNull` names the parameters whose null means something.
 */
export function readBody<Domain>(
  table: BodyTable<Domain>,
  body: unknown,
  keepNull: readonly string[] = [],
): ReadBody<Domain> {
  const sent =
    body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const input: Record<string, unknown> = {};
  const unreadable: Array<keyof Domain & string> = [];
  for (const [param, field] of Object.entries(table)) {
    const value = sent[param];
    if (value === undefined || (value === null && !keepNull.includes(param))) continue;
    const read = field.read.safeParse(value);
    if (read.success) input[field.to] = read.data;
    else unreadable.push(field.to);
  }
  // Each reader yields its field's domain type: the table is typed by field name, not by value.
  return { input: input as Domain, unreadable };
}

/** The documentation of the body (`required` as declared: create routes). */
export function bodyDoc<Domain>(table: BodyTable<Domain>): Record<string, RestField> {
  return Object.fromEntries(Object.entries(table).map(([param, field]) => [param, field.doc]));
}

/** Domain field → REST parameter, for renaming the services' errors (`../param-names.ts`). */
export function paramNames<Domain>(table: BodyTable<Domain>): ParamNames {
  return Object.fromEntries(Object.entries(table).map(([param, field]) => [field.to, param]));
}
