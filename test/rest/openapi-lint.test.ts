import { type NormalizedProblem, createConfig, lintFromString } from '@redocly/openapi-core';
import type { OpenAPIV3 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, startHarness } from '../helpers/harness.js';

// `/doc` as a maintained OpenAPI linter (Redocly's recommended rules) and a client generator read it:
// no problem at all, `null` admitted only where OpenAPI 3.0 can say so, and no object a client would
// type as empty (`Record<string, never>`) where the real answer has keys.

type Schema = OpenAPIV3.SchemaObject | OpenAPIV3.ReferenceObject;

let h: Harness;
let doc: OpenAPIV3.Document;
beforeAll(async () => {
  h = await startHarness();
  doc = (await h.http.get(`${API}/doc`).expect(200)).body as OpenAPIV3.Document;
});
afterAll(() => h.close());

async function lint(document: unknown): Promise<string[]> {
  const config = await createConfig({
    extends: ['recommended'],
    rules: {
      // The service is not published under a license: there is none to name.
      'info-license': 'off',
      // The reference's root ends with a slash, and so does ours (#30): Swagger UI and generated
      // clients drop it before joining a path (test/discovery.test.ts joins one).
      'no-server-trailing-slash': 'off',
    },
  });
  const problems = await lintFromString({
    source: JSON.stringify(document),
    absoluteRef: 'doc.json',
    config,
  });
  const where = (problem: NormalizedProblem) => problem.location[0]?.pointer ?? '';
  return problems.map(
    (problem) => `${problem.severity} ${problem.ruleId} ${where(problem)}: ${problem.message}`,
  );
}

/** Every schema of the document, with its JSON pointer: wherever a schema may stand, recursively. */
function schemasOf(document: OpenAPIV3.Document): Array<[string, Schema]> {
  const found: Array<[string, Schema]> = [];
  const schema = (node: Schema, at: string) => {
    found.push([at, node]);
    if ('$ref' in node) return;
    for (const [name, property] of Object.entries(node.properties ?? {}))
      schema(property, `${at}/properties/${name}`);
    if ('items' in node && node.items) schema(node.items, `${at}/items`);
    if (typeof node.additionalProperties === 'object')
      schema(node.additionalProperties, `${at}/additionalProperties`);
    for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const)
      node[keyword]?.forEach((branch, i) => schema(branch, `${at}/${keyword}/${i}`));
    if (node.not) schema(node.not, `${at}/not`);
  };
  // Outside the schemas themselves, a schema is the value of a `schema` key.
  const walk = (node: unknown, at: string) => {
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'schema' && value && typeof value === 'object') schema(value as Schema, `${at}/schema`);
      else walk(value, `${at}/${key}`);
    }
  };
  for (const [name, component] of Object.entries(document.components?.schemas ?? {}))
    schema(component, `#/components/schemas/${name}`);
  walk({ paths: document.paths, components: { ...document.components, schemas: undefined } }, '#');
  return found;
}

/** `null` alone (OpenAPI 3.0 has no `null` type): the branch that admits it beside others. */
const isNullOnly = (schema: Schema) =>
  !('$ref' in schema) && schema.nullable === true && schema.enum?.length === 1 && schema.enum[0] === null;

function resolve(schema: Schema): OpenAPIV3.SchemaObject {
  if (!('$ref' in schema)) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  return resolve(doc.components!.schemas![name]!);
}

/**
 * Where `data` (a real answer) has an object with keys that `schema` leaves undescribed: a schema
 * without properties (or additionalProperties) for it, or a key none of its properties names.
 */
function undescribed(schema: Schema, data: unknown, at = ''): string[] {
  const node = resolve(schema);
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = node[keyword]?.map(resolve) ?? [];
    const kind = Array.isArray(data) ? 'array' : data === null ? 'null' : typeof data;
    const fitting = branches.filter((branch) =>
      kind === 'null'
        ? isNullOnly(branch)
        : branch.type === kind || (kind === 'number' && branch.type === 'integer'),
    );
    if (branches.length)
      return fitting.length ? undescribed(fitting[0]!, data, at) : [`${at}: no ${kind} branch`];
  }
  if (Array.isArray(data))
    return 'items' in node ? data.flatMap((item, i) => undescribed(node.items, item, `${at}/${i}`)) : [];
  if (!data || typeof data !== 'object' || Object.keys(data).length === 0) return [];
  if (!node.properties && node.additionalProperties === undefined) return [`${at}: keys without a schema`];
  return Object.entries(data).flatMap(([key, value]) => {
    const property = node.properties?.[key];
    if (property) return undescribed(property, value, `${at}/${key}`);
    const more = node.additionalProperties;
    if (more === undefined || more === false) return [`${at}/${key}: not described`];
    return more === true ? [] : undescribed(more, value, `${at}/${key}`);
  });
}

describe('/doc read by a linter and a client generator', () => {
  it("passes Redocly's recommended rules without a problem, errors and warnings alike", async () => {
    expect(await lint(doc)).toEqual([]);
  });

  it('and the linter does catch a nullable without a type, and a schema nothing uses', async () => {
    const broken = structuredClone(doc);
    const create = broken.paths['/events']!.post!.requestBody as OpenAPIV3.RequestBodyObject;
    const body = create.content['application/json']!.schema as OpenAPIV3.SchemaObject;
    body.properties!.categories = {
      oneOf: [{ type: 'array', items: {} }, { type: 'string' }],
      nullable: true,
    };
    broken.components!.schemas!.Unused = { type: 'object' };
    const problems = await lint(broken);
    expect(problems).toContainEqual(expect.stringMatching(/^error nullable-type-sibling .*categories/));
    expect(problems).toContainEqual(expect.stringMatching(/^warn no-unused-components .*Unused/));
  });

  it('admits null only where OpenAPI 3.0 can say so: no `nullable` without a `type`', () => {
    const schemas = schemasOf(doc);
    expect(schemas.length).toBeGreaterThan(500);
    const untyped = schemas
      .filter(([, schema]) => !('$ref' in schema) && schema.nullable && schema.type === undefined)
      .map(([at]) => at);
    expect(untyped).toEqual([]);
    // The fields whose null means "not sent" (or "remove the link") still admit it.
    const body = (doc.paths['/events']!.post!.requestBody as OpenAPIV3.RequestBodyObject).content[
      'application/json'
    ]!.schema as OpenAPIV3.SchemaObject;
    for (const name of ['categories', 'tags', 'venue', 'organizer'])
      expect((body.properties![name] as OpenAPIV3.SchemaObject).anyOf!.some(isNullOnly), name).toBe(true);
  });

  it('leaves no object schema without properties or additionalProperties', () => {
    const empty = schemasOf(doc)
      .filter(([, schema]) => !('$ref' in schema) && schema.type === 'object' && !isNullOnly(schema))
      .filter(([, schema]) => {
        const object = schema as OpenAPIV3.SchemaObject;
        return object.properties === undefined && object.additionalProperties === undefined;
      })
      .map(([at]) => at);
    expect(empty).toEqual([]);
  });

  it('describes every key of the discovery answers and the errors (`_links` included)', async () => {
    const schemaOf = (path: string) =>
      (doc.paths[path]!.get!.responses['200'] as OpenAPIV3.ResponseObject).content!['application/json']!
        .schema!;
    const index = (await h.http.get(API).expect(200)).body as Record<string, unknown>;
    expect(index._links).toEqual({ up: [{ href: expect.any(String) }] });
    expect(undescribed(schemaOf('/'), index)).toEqual([]);
    expect(undescribed(schemaOf('/doc'), doc)).toEqual([]);
    const error = (await h.http.get(`${API}/events?page=foo`).expect(400)).body;
    expect(undescribed({ $ref: '#/components/schemas/WordPressError' }, error)).toEqual([]);
    // The check has teeth: the untyped `_links` #30 found is caught.
    const before = structuredClone(doc.components!.schemas!.NamespaceIndex);
    try {
      const schema = doc.components!.schemas!.NamespaceIndex as OpenAPIV3.SchemaObject;
      schema.properties!._links = { type: 'object' };
      expect(undescribed(schemaOf('/'), index)).toEqual(['/_links: keys without a schema']);
    } finally {
      doc.components!.schemas!.NamespaceIndex = before!;
    }
  });
});
