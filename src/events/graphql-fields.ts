import type { EnumRef, InputFieldRef } from '@pothos/core';
import type { PrismaModelTypes } from '@pothos/plugin-prisma';
import { builder } from '../core/graphql/schema/builder.js';
import { type InputFieldBuilder, showing } from '../core/graphql/schema/common.js';
import {
  type ChoiceField,
  type Declared,
  type DeclaredName,
  type FieldDeclaration,
  DECLARED_NAMES,
  declaration,
  declaredEntries,
} from './model/event-fields.js';
import { contentWithheld } from '../core/rules/visibility.js';

// The GraphQL side of the declared event fields (`events/model/event-fields.ts`): each kind's output field on
// `Event` / `EventContent`, its input field on the write inputs, and an enum per choice field.

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
type EventModel = PrismaModelTypes & Types['PrismaTypes']['Event'];

const WITHHELD = 'null when the content is withheld (a password-protected event read without its password)';

/** The GraphQL value of a declared field: choices are enums of their words. */
type GraphqlValue<F> = F extends ChoiceField<infer V> ? V : F extends { kind: 'flag' } ? boolean : string;

/** One enum per choice field, named by its declaration. */
const enums = new Map<DeclaredName, EnumRef<Types, string, string>>();
for (const name of DECLARED_NAMES) {
  const field = declaration(name);
  if (field.kind !== 'choice') continue;
  enums.set(
    name,
    builder.enumType(field.enum.name, {
      description: field.enum.description,
      values: Object.fromEntries(
        field.values.map((value) => [
          value,
          { description: (field.enum.values as Record<string, string>)[value] },
        ]),
      ),
    }) as EnumRef<Types, string, string>,
  );
}

/** The enum of a choice field (for filters on it). */
export function choiceEnum<K extends DeclaredName>(name: K): EnumRef<Types, GraphqlValue<Declared[K]>> {
  const ref = enums.get(name);
  if (!ref) throw new Error(`${name} is not a choice field`);
  return ref as EnumRef<Types, GraphqlValue<Declared[K]>>;
}

/**
 * The declared output fields, placed by their domain anchors: the withheld ones (`withheld: true`) for
 * `EventContent` and the deprecated copies on `Event`, or the others for `Event` itself.
 */
export function declaredObjectFields<Shape extends EventModel['Shape']>(
  t: PothosSchemaTypes.PrismaObjectFieldBuilder<Types, EventModel, Shape>,
  withheld: boolean,
  deprecationReason?: string,
) {
  const make = (name: DeclaredName, field: FieldDeclaration): unknown => {
    const blank = (event: Shape) => field.withheld && contentWithheld(event as EventModel['Shape']);
    const value = (event: Shape) => (event as EventModel['Shape'])[name];
    // A withheld field is null without the password; the others are never null.
    if (field.withheld) {
      const options = {
        description: `${field.description}; ${WITHHELD}`,
        deprecationReason,
        nullable: true,
        extensions: showing('password', name),
      } as const;
      if (field.kind === 'flag')
        return t.boolean({ ...options, resolve: (e) => (blank(e) ? null : (value(e) as boolean)) });
      if (field.kind === 'url' || field.kind === 'text')
        return t.string({ ...options, resolve: (e) => (blank(e) ? null : String(value(e)) || null) });
      return t.field({
        ...options,
        type: choiceEnum(name),
        resolve: (e) => (blank(e) ? null : String(value(e))),
      });
    }
    const options = { description: field.description, deprecationReason, extensions: showing(name) } as const;
    if (field.kind === 'flag') return t.boolean({ ...options, resolve: (e) => value(e) as boolean });
    if (field.kind === 'url' || field.kind === 'text')
      return t.string({ ...options, resolve: (e) => String(value(e)) });
    return t.field({ ...options, type: choiceEnum(name), resolve: (e) => String(value(e)) });
  };
  // Refs of several types, placed among hand-written fields (a field map Pothos types loosely anyway).
  return declaredEntries<unknown>('domain', make, (field) => field.withheld === withheld);
}

/** The declared input fields of the event writes, by domain name (null: unchanged). */
export type DeclaredInputRefs = {
  [K in DeclaredName]: InputFieldRef<Types, GraphqlValue<Declared[K]> | null | undefined>;
};

export function declaredInputFields(t: InputFieldBuilder) {
  return declaredEntries('domain', (name, field) => {
    switch (field.kind) {
      case 'flag':
        return t.boolean({ description: field.description });
      case 'url':
      case 'text':
        return t.string({ description: field.description });
      case 'choice':
        return t.field({ type: choiceEnum(name), description: field.description });
    }
  });
}
