import { type NormalizedProblem, createConfig, lintFromString } from '@redocly/openapi-core';
import { Ajv } from 'ajv';
import { type GraphQLSchema, buildSchema, getNamedType, isInterfaceType, isObjectType } from 'graphql';
import type { OpenAPIV3 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../../../rest-map/routes.js';
import { declaredShape } from '../../../src/core/rest/discovery/json-shapes.js';
import { restSchema } from '../../../src/schema.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../helpers/fixtures.js';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { createUser } from '../../helpers/users.js';

// `/doc` as a maintained OpenAPI linter (Redocly's recommended rules) and a client generator read it:
// no problem at all, `null` admitted only where OpenAPI 3.0 can say so, no object a client would
// type as empty (`Record<string, never>`) where the real answer has keys, no value left untyped (`{}`)
// but the free-form ones, and the real answers of every route valid against their schema.

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
      // clients drop it before joining a path (test/core/rest/discovery/discovery.test.ts joins one).
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

/** The JSON fields of a schema's object types that declare no shape for `/doc`. */
function undeclaredJsonFields(schema: GraphQLSchema): string[] {
  return Object.values(schema.getTypeMap())
    .filter((type) => isObjectType(type) || isInterfaceType(type))
    .flatMap((type) =>
      Object.values(type.getFields())
        .filter((field) => getNamedType(field.type).name === 'JSON' && !declaredShape(field))
        .map((field) => `${type.name}.${field.name}`),
    );
}

/**
 * The values that are free-form for real, so `{}` (any value) is their true schema: a WordPress
 * error's per-parameter `details` (whatever the failing check reports).
 */
const FREE_FORM = [/^#\/components\/schemas\/WordPressError\/properties\/data\/properties\/details$/];

describe('/doc types every part of the answers', () => {
  it('every JSON field of the REST schema declares its shape (and a field without one is found)', () => {
    expect(undeclaredJsonFields(restSchema)).toEqual([]);
    expect(undeclaredJsonFields(buildSchema('scalar JSON type Query { shaped: Int, loose: JSON }'))).toEqual([
      'Query.loose',
    ]);
  });

  it('leaves no schema untyped (`{}`, any value) but the free-form values', () => {
    /** Where a schema says nothing: no type, no combination, no enum (`not: {}`, no value, is said). */
    const untypedOf = (document: OpenAPIV3.Document) =>
      schemasOf(document)
        .filter(([at, schema]) => {
          if ('$ref' in schema || at.endsWith('/not')) return false;
          const keywords = ['type', 'anyOf', 'allOf', 'oneOf', 'enum', 'not'] as const;
          return !keywords.some((keyword) => schema[keyword] !== undefined);
        })
        .map(([at]) => at)
        .filter((at) => !FREE_FORM.some((pattern) => pattern.test(at)));
    expect(untypedOf(doc)).toEqual([]);
    expect(schemasOf(doc).map(([at]) => at)).toContain(
      '#/components/schemas/WordPressError/properties/data/properties/details',
    );
    // The check has teeth: a venue's key left untyped is found.
    const broken = structuredClone(doc);
    (broken.components!.schemas!.TecVenue as OpenAPIV3.SchemaObject).properties!.city = {};
    expect(untypedOf(broken)).toEqual(['#/components/schemas/TecVenue/properties/city']);
  });

  describe('the real answers of every route match its response schema, every key described', () => {
    type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    type Answer = Record<string, unknown>;
    const covered = new Set<string>();
    let admin: { login: string; password: string };
    const ids = { full: 0, several: 0, bare: 0, secret: 0, mapped: 0, locked: 0, host: 0, child: 0, tag: 0 };
    const slugs = { full: '', mapped: '', host: '' };
    let since = '';

    const ajv = () => {
      // OpenAPI 3.0's `nullable` is one of Ajv's own keywords; `example` and the like are ignored.
      const instance = new Ajv({ strict: false, allErrors: true, validateFormats: false });
      instance.addSchema({ components: doc.components }, 'doc');
      return instance;
    };

    function responseSchema(method: Method, path: string, status: number): Schema {
      const operation = doc.paths[path]?.[method.toLowerCase() as OpenAPIV3.HttpMethods];
      expect(operation, `${method} ${path}`).toBeDefined();
      let response = operation!.responses[String(status)] ?? operation!.responses.default!;
      if ('$ref' in response) response = doc.components!.responses![response.$ref.split('/').pop()!]!;
      const schema = (response as OpenAPIV3.ResponseObject).content?.['application/json']?.schema;
      expect(schema, `${method} ${path} ${status}: a JSON schema`).toBeDefined();
      return schema!;
    }

    /** What the schema says is wrong with `body`: Ajv's errors, then the keys it does not describe. */
    function problems(schema: Schema, body: unknown): string[] {
      // Refs inside the document resolve against it: the schema is checked as a part of it.
      const check = ajv().compile({
        allOf: [JSON.parse(JSON.stringify(schema).replaceAll('"#/', '"doc#/'))],
      });
      const errors = check(body) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
      return [...errors, ...undescribed(schema, body)];
    }

    /** Sends one request, checks its status, and its answer against the operation's schema. */
    async function answer(
      method: Method,
      path: string,
      values: Record<string, string | number>,
      status: number,
      options: { body?: object; query?: string; auth?: boolean } = {},
    ): Promise<Answer> {
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name]));
      let request = h.http[method.toLowerCase() as 'get'](`${API}${url}${options.query ?? ''}`);
      if (options.auth !== false && method !== 'GET') request = request.auth(admin.login, admin.password);
      const res = await (options.body ? request.send(options.body) : request);
      expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBe(status);
      expect(problems(responseSchema(method, path, status), res.body), `${method} ${url}`).toEqual([]);
      covered.add(`${method} ${path}`);
      return res.body as Answer;
    }

    beforeAll(async () => {
      admin = await createUser(h, 'administrator');
      const media = (url: string) =>
        h.db.media.create({ data: { url, width: 800, height: 600, filesize: 12_345 } });
      const poster = await media('https://images.example/poster.png');
      const mapped = await createVenue(h.db, { imageId: poster.id, geoLat: 39.8, geoLng: -89.6 });
      const plain = await createVenue(h.db);
      // Its content is withheld from whoever may not edit it: `image` false, `show_map` null.
      const locked = await createVenue(h.db, { imageId: poster.id, password: 'venue secret' });
      const host = await createOrganizer(h.db, { imageId: poster.id });
      const other = await createOrganizer(h.db);
      const parent = await createTerm(h.db, 'tribe_events_cat');
      const child = await createTerm(h.db, 'tribe_events_cat');
      await h.db.term.update({ where: { id: child.id }, data: { parentId: parent.id } });
      const tag = await createTerm(h.db, 'post_tag');
      const full = await createEvent(h.db, {
        venueIds: [mapped.id],
        organizerIds: [host.id],
        termIds: [child.id, tag.id],
        fields: { imageId: poster.id },
      });
      const several = await createEvent(h.db, {
        venueIds: [mapped.id, plain.id],
        organizerIds: [host.id, other.id],
        termIds: [parent.id],
      });
      await createEvent(h.db, { venueIds: [locked.id] });
      const secret = await createEvent(h.db, { fields: { password: 'event secret' } });
      const bare = await createEvent(h.db, { fields: { cost: '' } });
      Object.assign(ids, {
        full: full.id,
        several: several.id,
        bare: bare.id,
        secret: secret.id,
        mapped: mapped.id,
        locked: locked.id,
        host: host.id,
        child: child.id,
        tag: tag.id,
      });
      Object.assign(slugs, { full: full.slug!, mapped: mapped.slug, host: host.slug });
      since = ((await h.http.get(`${API}/changes`).expect(200)).body as { next: string }).next;
    });

    it('reads: lists and single records of every kind, anonymous (withheld content included)', async () => {
      await answer('GET', '/', {}, 200);
      await answer('GET', '/doc', {}, 200);
      const list = await answer('GET', '/events', {}, 200);
      const events = list.events as Answer[];
      // The forms the list holds: an image or false, one venue, several or none, a withheld event.
      expect(events.map((event) => typeof event.image)).toEqual(
        expect.arrayContaining(['object', 'boolean']),
      );
      expect(events.some((event) => Array.isArray(event.venue) && event.venue.length > 1)).toBe(true);
      expect(events.some((event) => Array.isArray(event.venue) && event.venue.length === 0)).toBe(true);
      expect(events.some((event) => event.all_day === null)).toBe(true);
      const withheld = events.find((event) => (event.venue as { id?: number }).id === ids.locked)!;
      expect(withheld.venue).toMatchObject({ image: false, show_map: null });

      const full = await answer('GET', '/events/{id}', { id: ids.full }, 200);
      expect(full.json_ld).toMatchObject({
        image: expect.any(String),
        location: {},
        organizer: {},
        offers: {},
      });
      expect(full.venue).toMatchObject({ image: { url: expect.any(String) }, json_ld: {}, geo_lat: 39.8 });
      expect(full.categories).toEqual([
        expect.objectContaining({ urls: expect.objectContaining({ up: expect.any(String) }) }),
      ]);
      const several = await answer('GET', '/events/{id}', { id: ids.several }, 200);
      expect((several.json_ld as { organizer: unknown }).organizer).toHaveLength(2);
      await answer('GET', '/events/{id}', { id: ids.bare }, 200);
      // Opened by its password, and still without JSON-LD (as the reference).
      const opened = await answer('GET', '/events/{id}', { id: ids.secret }, 200, {
        query: '?password=event%20secret',
      });
      expect(opened.json_ld ?? null).toBeNull();
      await answer('GET', '/events/by-slug/{slug}', { slug: slugs.full }, 200);

      for (const [kind, id, slug] of [
        ['venues', ids.mapped, slugs.mapped],
        ['organizers', ids.host, slugs.host],
      ] as const) {
        await answer('GET', `/${kind}`, {}, 200);
        const one = await answer('GET', `/${kind}/{id}`, { id }, 200);
        expect(one.image).toMatchObject({ url: expect.any(String) });
        await answer('GET', `/${kind}/by-slug/{slug}`, { slug }, 200);
      }
      expect(await answer('GET', '/venues/{id}', { id: ids.locked }, 200)).toMatchObject({ image: false });
      for (const [kind, id] of [
        ['categories', ids.child],
        ['tags', ids.tag],
      ] as const) {
        await answer('GET', `/${kind}`, {}, 200);
        await answer('GET', `/${kind}/{id}`, { id }, 200);
      }
      expect(await answer('GET', '/categories/{id}', { id: ids.child }, 200)).toMatchObject({
        _links: { up: [{ embeddable: true }] },
      });
    });

    it('writes: create, update (every method) and delete of every kind, by id and by slug', async () => {
      const event = { title: 'Doc check', start_date: 'tomorrow 10:00', end_date: 'tomorrow 12:00' };
      const bodies: Record<string, object> = {
        events: {
          ...event,
          venue: ids.mapped,
          organizer: [ids.host],
          categories: [ids.child],
          image: 'https://images.example/e.png',
        },
        venues: { venue: 'Doc check hall', city: 'Springfield' },
        organizers: { organizer: 'Doc check org', email: 'doc@example.com' },
        categories: { name: 'Doc check category', parent: ids.child },
        tags: { name: 'Doc check tag' },
      };
      const update = {
        events: { title: 'Renamed' },
        venues: { city: 'Chicago' },
        organizers: { phone: '555' },
        categories: { description: 'x' },
        tags: { description: 'y' },
      };
      for (const kind of Object.keys(bodies)) {
        const routes = restRoutes.filter((route) => route.path.split('/')[1] === kind && !route.document);
        const createStatus =
          routes.find((route) => route.path === `/${kind}` && route.methods.includes('POST'))!.status ?? 200;
        const made = await answer('POST', `/${kind}`, {}, createStatus, { body: bodies[kind]! });
        for (const method of ['POST', 'PUT', 'PATCH'] as const) {
          await answer(method, `/${kind}/{id}`, { id: made.id as number }, 200, {
            body: update[kind as 'tags'],
          });
          if (routes.some((route) => route.path.endsWith('by-slug/:slug') && route.methods.includes(method)))
            await answer(method, `/${kind}/by-slug/{slug}`, { slug: made.slug as string }, 200, {
              body: update[kind as 'tags'],
            });
        }
        await answer('DELETE', `/${kind}/{id}`, { id: made.id as number }, 200, { query: '?force=true' });
        if (
          routes.some((route) => route.path.endsWith('by-slug/:slug') && route.methods.includes('DELETE'))
        ) {
          const again = await answer('POST', `/${kind}`, {}, createStatus, {
            body: {
              ...bodies[kind]!,
              ...(kind === 'events' ? { title: 'Doc check 2' } : { [kind.slice(0, -1)]: 'Doc check 2' }),
            },
          });
          await answer('DELETE', `/${kind}/by-slug/{slug}`, { slug: again.slug as string }, 200);
        }
      }
    });

    it('the change stream, with records of every kind and deleted ids', async () => {
      // Kept, so the stream has venues and organizers as well as the ids of those deleted above.
      await answer('POST', '/venues', {}, 201, { body: { venue: 'Doc check kept hall' } });
      await answer('POST', '/organizers', {}, 201, { body: { organizer: 'Doc check kept org' } });
      const changes = await answer('GET', '/changes', {}, 200, { query: `?since=${since}` });
      for (const kind of ['events', 'venues', 'organizers', 'categories', 'tags'])
        expect(
          (changes[kind] as unknown[]).length + (changes.deleted as Record<string, unknown[]>)[kind]!.length,
          kind,
        ).toBeGreaterThan(0);
      expect((changes.venues as unknown[]).length).toBeGreaterThan(0);
      expect((changes.organizers as unknown[]).length).toBeGreaterThan(0);
      expect((changes.deleted as { events: number[] }).events.length).toBeGreaterThan(0);
    });

    it('errors, in the WordPress shape their statuses document', async () => {
      await answer('GET', '/events', {}, 400, { query: '?page=foo' });
      await answer('POST', '/events', {}, 401, { body: { title: 'x' }, auth: false });
      await answer('GET', '/venues/{id}', { id: 999_999 }, 404);
      const trashed = await answer('POST', '/events', {}, 201, {
        body: { title: 'Trash me', start_date: 'tomorrow 10:00', end_date: 'tomorrow 12:00' },
      });
      await answer('DELETE', '/events/{id}', { id: trashed.id as number }, 200);
      await answer('DELETE', '/events/{id}', { id: trashed.id as number }, 410);
    });

    it('covers every JSON route and method of the route table', () => {
      const expected = restRoutes
        .filter((route) => !route.document)
        .flatMap((route) =>
          route.methods.map((method) => `${method} ${route.path.replace(/:(\w+)/g, '{$1}')}`),
        );
      expect(expected.filter((route) => !covered.has(route))).toEqual([]);
    });

    it('and the check has teeth: a wrong form or an undescribed key is caught', async () => {
      const schema = responseSchema('GET', '/events/{id}', 200);
      const full = (await h.http.get(`${API}/events/${ids.full}`).expect(200)).body as Answer & {
        json_ld: Answer;
        venue: Answer;
      };
      expect(problems(schema, full)).toEqual([]);
      expect(problems(schema, { ...full, image: null })).not.toEqual([]);
      expect(problems(schema, { ...full, venue: 'Main Hall' })).not.toEqual([]);
      expect(problems(schema, { ...full, custom_fields: ['x'] })).not.toEqual([]);
      expect(problems(schema, { ...full, json_ld: { ...full.json_ld, organizer: 'Acme' } })).not.toEqual([]);
      expect(problems(schema, { ...full, venue: { ...full.venue, id: undefined } })).not.toEqual([]);
      expect(problems(schema, { ...full, venue: { ...full.venue, capacity: 300 } })).toEqual([
        '/venue/capacity: not described',
      ]);
    });
  });
});
