import type { GraphQLField } from 'graphql';
import type { OpenAPIV3 } from 'openapi-types';

// How a JSON field of the REST sub-graph says what its value looks like: beside its declaration,
// `extensions: jsonShape(…)` names an OpenAPI 3.0 schema, from which `/doc` types it. A shape may stand
// on a named component (`schemaComponent`), used in place of a schema: `jsonShape` replaces it with a
// reference and carries the component itself (and those it uses), so that `/doc` collects every
// component from the fields that use it. The rooms declare their shapes; the core knows none.

export type RestSchema = OpenAPIV3.SchemaObject | OpenAPIV3.ReferenceObject;

/**
 * A shape declared once under a name (`components.schemas` of `/doc`). It stands wherever a schema
 * does, as the reference to itself; its schema may use other components.
 */
export class SchemaComponent implements OpenAPIV3.ReferenceObject {
  readonly $ref: string;
  constructor(
    readonly name: string,
    readonly schema: OpenAPIV3.SchemaObject,
  ) {
    this.$ref = `#/components/schemas/${name}`;
  }
}

export const schemaComponent = (name: string, schema: OpenAPIV3.SchemaObject) =>
  new SchemaComponent(name, schema);

/** A shape as `/doc` prints it: plain references, and the named components they reach. */
interface DeclaredShape {
  schema: RestSchema;
  components: Record<string, OpenAPIV3.SchemaObject>;
}

interface Collected {
  component: SchemaComponent;
  schema: OpenAPIV3.SchemaObject;
}

/** One name, one schema: two components of one name would make `/doc` say one thing for two. */
function collect(component: SchemaComponent, components: Map<string, Collected>): void {
  const known = components.get(component.name);
  if (known?.component === component) return;
  if (known) throw new Error(`/doc: two shapes are named ${component.name}`);
  // Set before its schema is read: a component may reach itself.
  const collected = { component, schema: component.schema };
  components.set(component.name, collected);
  collected.schema = plain(component.schema, components);
}

/** The value with each component replaced by its reference (collected into `components`). */
function plain<T>(value: T, components: Map<string, Collected>): T {
  if (value instanceof SchemaComponent) {
    collect(value, components);
    return { $ref: value.$ref } as T;
  }
  if (Array.isArray(value)) return value.map((item: unknown) => plain(item, components)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, plain(item, components)]),
    ) as T;
  return value;
}

/** A shape in the form `/doc` prints, with the components it reaches (in the order first reached). */
export function declareShape(shape: RestSchema): DeclaredShape {
  const components = new Map<string, Collected>();
  const schema = plain(shape, components);
  return {
    schema,
    components: Object.fromEntries([...components].map(([name, collected]) => [name, collected.schema])),
  };
}

const EXTENSION = 'restSchema';

/**
 * A JSON field's extension naming the OpenAPI schema of its value (of each item, in a list of
 * JSON), as the REST answers give it: `extensions: jsonShape(TEC_VENUE)`.
 */
export function jsonShape(shape: RestSchema): Record<string, DeclaredShape> {
  return { [EXTENSION]: declareShape(shape) };
}

/** The shape a JSON field declared with `jsonShape`, if any. */
export function declaredShape(
  field: Pick<GraphQLField<unknown, unknown>, 'extensions'>,
): DeclaredShape | undefined {
  return field.extensions[EXTENSION] as DeclaredShape | undefined;
}

// Builders of the small schemas the shapes are made of.

export const str = (description: string): OpenAPIV3.SchemaObject => ({
  type: 'string',
  description,
});
export const uri = (description: string): OpenAPIV3.SchemaObject => ({
  type: 'string',
  format: 'uri',
  description,
});
export const int = (description: string): OpenAPIV3.SchemaObject => ({
  type: 'integer',
  description,
});
export const constant = (value: string): OpenAPIV3.SchemaObject => ({ type: 'string', enum: [value] });
export const listOf = (items: RestSchema, description?: string): OpenAPIV3.SchemaObject => ({
  type: 'array',
  items,
  ...(description ? { description } : {}),
});
