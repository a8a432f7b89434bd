import { type ValueNode, valueFromASTUntyped } from 'graphql';
import type { SchemaTypes } from '@pothos/core';
import { builder, REST } from './builder.js';
import {
  type BodyField,
  type BodyReader,
  type BodyTable,
  type BodyValue,
  type ParsedBody,
  documentedAs,
  parseBodyValue,
} from '../../rest/body-fields.js';

// A REST write body as a GraphQL input type of the rest sub-graph, derived from its body table
// (`core/rest/body-fields.ts`): one field per parameter, described by its documentation, typed by a
// scalar per reader whose parsing is the reader's. That parsing never refuses a value (it marks what it
// cannot read), so that a bad parameter is answered as WordPress does, in the service's one 400 naming
// every unreadable parameter; unknown parameters are dropped at the edge (`core/rest/params.ts`).

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T extends SchemaTypes> ? T : never;
type BodyScalar = PothosSchemaTypes.ScalarRef<Types, never, BodyValue>;

/** The scalar of each reader, by name: one reader per name. */
const scalars = new Map<string, { reader: BodyReader; scalar: BodyScalar }>();

function scalarOf(reader: BodyReader): BodyScalar {
  const known = scalars.get(reader.name);
  if (known) {
    if (known.reader !== reader) throw new Error(`rest bodies: two readers are named ${reader.name}`);
    return known.scalar;
  }
  const name = `Body${reader.name}`;
  // Pothos types a scalar by a name the builder declares; these are named by their readers.
  const scalar = builder.scalarType(name as 'JSON', {
    ...REST,
    description: `${reader.description}. Never refused by GraphQL: a value it cannot read is named in the write's 400`,
    serialize: () => {
      throw new Error(`${name} is an input scalar`);
    },
    parseValue: (value) => parseBodyValue(reader, value),
    parseLiteral: (ast: ValueNode, variables) => parseBodyValue(reader, valueFromASTUntyped(ast, variables)),
    // SOFA's OpenAPI document: any JSON value.
    extensions: { jsonSchema: {} },
  }) as unknown as BodyScalar;
  scalars.set(reader.name, { reader, scalar });
  return scalar;
}

/**
 * The input type of a body table (create and update routes share it: every field is optional here,
 * what a route requires is the service's check). The resolver reads it with `readBody(table, input)`.
 */
export function restBodyType<Domain, Field extends BodyField<Domain>>(
  name: string,
  description: string,
  table: BodyTable<Domain, Field>,
): PothosSchemaTypes.InputObjectRef<Types, ParsedBody> {
  const ref = builder.inputRef<Record<string, unknown>>(name).implement({
    ...REST,
    description,
    fields: (t) =>
      Object.fromEntries(
        Object.entries(table).map(([param, field]) => [
          param,
          t.field({
            type: scalarOf(field.read),
            description: field.doc.description,
            extensions: documentedAs(field.doc),
          }),
        ]),
      ),
  });
  // Its fields are the table's parameters, each parsed into a `BodyValue`.
  return ref as unknown as PothosSchemaTypes.InputObjectRef<Types, ParsedBody>;
}
