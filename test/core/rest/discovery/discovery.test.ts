import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv } from 'ajv';
import type { OpenAPIV3 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../../../../rest-map/routes.js';
import { routeRegex } from '../../../../src/core/rest/discovery/discovery.js';
import { documentedBody } from '../../../../src/core/rest/discovery/paths.js';
import { restSchema } from '../../../../src/schema.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../../helpers/fixtures.js';
import { createUser } from '../../../helpers/users.js';
import { API, API_ROOT, type Harness, SITE_URL, startHarness } from '../../../helpers/harness.js';

// The namespace index, /doc and the Swagger UI of the real app: generated from the rest-map, shaped as the
// reference's captures, valid OpenAPI 3.0, and true to what the routes actually answer.

const sample = JSON.parse(
  readFileSync(new URL('../../../samples/01-namespace-index.json', import.meta.url), 'utf8'),
);
const SAMPLE_PREFIX = '/tribe/events/v1';
const ARG_KEYWORDS = new Set(['type', 'items', 'format', 'enum', 'description', 'default', 'required']);

let h: Harness;
let eventId: number;
/** A record of each resource, by the first segment of its routes (for `:id` and `:slug`). */
const records: Record<string, { id: number; slug: string }> = {};
beforeAll(async () => {
  h = await startHarness();
  const venue = await createVenue(h.db);
  const organizer = await createOrganizer(h.db);
  const category = await createTerm(h.db, 'tribe_events_cat');
  const tag = await createTerm(h.db, 'post_tag');
  const event = await createEvent(h.db, {
    venueIds: [venue.id],
    organizerIds: [organizer.id],
    termIds: [category.id, tag.id],
  });
  eventId = event.id;
  await createEvent(h.db);
  Object.assign(records, {
    events: event,
    venues: venue,
    organizers: organizer,
    categories: category,
    tags: tag,
  });
});
afterAll(() => h.close());

const byPath = () => {
  const paths = new Map<string, Set<string>>();
  for (const route of restRoutes)
    paths.set(route.path, new Set([...(paths.get(route.path) ?? []), ...route.methods]));
  return paths;
};

describe('GET /calendar/events/v1 (namespace index)', () => {
  it('has the shape of the reference: namespace, routes in registration order, _links.up', async () => {
    const res = await h.http.get(API).expect(200);
    expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(res.headers.allow).toBe('GET');
    expect(Object.keys(res.body)).toEqual(Object.keys(sample));
    expect(res.body.namespace).toBe('calendar/events/v1');
    expect(res.body._links).toEqual({ up: [{ href: `${SITE_URL}/` }] });
    const expected = [API, `${API}/doc`, ...[...byPath().keys()].map((path) => `${API}${routeRegex(path)}`)];
    expect(Object.keys(res.body.routes)).toEqual(expected);
  });

  it('lists every rest-map route with its methods, and arguments as WordPress does', async () => {
    const { routes } = (await h.http.get(API).expect(200)).body as {
      routes: Record<string, Record<string, unknown>>;
    };
    for (const [path, methods] of byPath()) {
      const entry = routes[`${API}${routeRegex(path)}`] as {
        namespace: string;
        methods: string[];
        endpoints: Array<{ methods: string[]; args: unknown }>;
        _links?: unknown;
      };
      expect(entry.namespace).toBe('calendar/events/v1');
      expect(new Set(entry.methods)).toEqual(methods);
      expect(new Set(entry.endpoints.flatMap((endpoint) => endpoint.methods))).toEqual(methods);
      expect(Object.keys(entry)).toEqual(
        path.includes(':')
          ? ['namespace', 'methods', 'endpoints']
          : ['namespace', 'methods', 'endpoints', '_links'],
      );
      for (const endpoint of entry.endpoints) {
        expect(Object.keys(endpoint)).toEqual(['methods', 'args']);
        if (Array.isArray(endpoint.args)) {
          expect(endpoint.args).toEqual([]);
          continue;
        }
        for (const [name, arg] of Object.entries(endpoint.args as Record<string, Record<string, unknown>>)) {
          expect(
            Object.keys(arg).every((key) => ARG_KEYWORDS.has(key)),
            `${path} ${name}`,
          ).toBe(true);
          expect(typeof arg.required).toBe('boolean');
          // Undocumented arguments fail here: give the rest field's argument a `description`.
          expect(
            typeof arg.description === 'string' && arg.description.length > 0,
            `${path} ${name} has no description`,
          ).toBe(true);
        }
        for (const name of [...path.matchAll(/:(\w+)/g)].map((match) => match[1]!)) {
          expect(
            (endpoint.args as Record<string, { required: boolean }>)[name]?.required,
            `${path} ${name}`,
          ).toBe(true);
        }
      }
    }
  });

  it("has the reference's routes, in its order, each with the reference's methods", async () => {
    const { routes } = (await h.http.get(API).expect(200)).body as {
      routes: Record<string, { methods: string[]; endpoints: Array<{ methods: string[] }> }>;
    };
    // The iCalendar feeds and the change stream are this service's additions to the reference's routes.
    const all = Object.keys(routes).map((key) => key.slice(API.length));
    const added = (key: string) => key.includes('.ics') || key === '/changes';
    expect(all.filter(added)).toEqual([
      '/events.ics',
      '/events/(?P<id>\\d+).ics',
      '/events/by-slug/(?P<slug>[^/]+).ics',
      '/changes',
    ]);
    const ours = all.filter((key) => !added(key));
    const theirs = Object.keys(sample.routes).map((key) => key.slice(SAMPLE_PREFIX.length));
    expect(ours).toEqual(theirs);
    for (const key of ours) {
      const reference = sample.routes[`${SAMPLE_PREFIX}${key}`] as {
        methods: string[];
        endpoints: Array<{ methods: string[] }>;
      };
      expect(new Set(routes[`${API}${key}`]!.methods), key).toEqual(new Set(reference.methods));
      const endpoints = (entry: { endpoints: Array<{ methods: string[] }> }) =>
        entry.endpoints.map((endpoint) => [...endpoint.methods].sort().join()).sort();
      expect(endpoints(routes[`${API}${key}`]!), key).toEqual(endpoints(reference));
    }
    expect(sample.routes[SAMPLE_PREFIX].endpoints[0].args.namespace.default).toBe('tribe/events/v1');
    expect(
      (routes[API] as unknown as { endpoints: Array<{ args: Record<string, { default: string }> }> })
        .endpoints[0]!.args.namespace!.default,
    ).toBe('calendar/events/v1');
  });

  it("documents each argument of the reference's endpoints that this service takes", async () => {
    type Args = Record<string, { required: boolean; type?: string | string[] }>;
    type Entry = { endpoints: Array<{ methods: string[]; args: Args | [] }> };
    const { routes } = (await h.http.get(API).expect(200)).body as { routes: Record<string, Entry> };
    // Events Calendar Pro's and Event Tickets' filters are not part of this service.
    const notOurs = new Set(['geoloc', 'geoloc_lat', 'geoloc_lng', 'ticketed']);
    for (const [key, reference] of Object.entries(sample.routes as Record<string, Entry>)) {
      const entry = routes[`${API}${key.slice(SAMPLE_PREFIX.length)}`]!;
      for (const endpoint of reference.endpoints) {
        const ours = entry.endpoints.find(
          (candidate) => candidate.methods.join() === endpoint.methods.join(),
        )!;
        for (const [name, arg] of Object.entries(endpoint.args)) {
          if (notOurs.has(name) && !(name in ours.args)) continue;
          const documented = (ours.args as Args)[name];
          expect(documented, `${endpoint.methods.join()} ${key} ${name}`).toBeDefined();
          const path = key.includes(`<${name}>`);
          if (!path)
            expect(documented!.required, `${endpoint.methods.join()} ${key} ${name}`).toBe(arg.required);
        }
      }
    }
  });

  it('accepts the namespace and context query parameters, and a trailing slash', async () => {
    const res = await h.http.get(`${API}?namespace=calendar/events/v1&context=view`).expect(200);
    expect(res.body.namespace).toBe('calendar/events/v1');
    expect((await h.http.get(`${API}/`).expect(200)).body).toEqual((await h.http.get(API)).body);
  });

  it('keeps the language segment in its links', async () => {
    const res = await h.http.get(`/fr${API}`).expect(200);
    expect(res.body._links.up[0].href).toBe(`${SITE_URL}/fr/`);
    expect(res.body.routes[`${API}/doc`]._links.self[0].href).toBe(`${SITE_URL}/fr${API}/doc`);
  });

  it("answers OPTIONS on a route with that route's entry, as WordPress does", async () => {
    const res = await h.http.options(`${API}/events/${eventId}`).expect(200);
    const { routes } = (await h.http.get(API)).body as { routes: Record<string, unknown> };
    expect(res.body).toEqual(routes[`${API}/events/(?P<id>\\d+)`]);
    expect(res.headers.allow).toBe([...byPath().get('/events/:id')!].join(', '));
  });
});

describe('GET /calendar/events/v1/doc (OpenAPI)', () => {
  let doc: OpenAPIV3.Document;
  beforeAll(async () => {
    doc = (await h.http.get(`${API}/doc`).expect(200)).body;
  });

  it('is a valid OpenAPI 3.0 document (and the validator does refuse a broken one)', async () => {
    const result = await new Validator().validate(structuredClone(doc) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toMatch(/^3\.0\.\d$/);
    const broken = structuredClone(doc) as unknown as Record<string, unknown>;
    delete broken.info;
    (broken.paths as Record<string, unknown>)['/events'] = { get: { parameters: [{ name: 'x' }] } };
    expect((await new Validator().validate(broken as never)).valid).toBe(false);
  });

  it('keeps the reference key order and names the real API root, port included (D5)', async () => {
    expect(Object.keys(doc).slice(0, 5)).toEqual(['openapi', 'info', 'components', 'servers', 'tags']);
    // Ending with a slash, as the reference's (`http://127.0.0.1/wp-json/tribe/events/v1/`).
    expect(doc.servers![0]!.url).toBe(`${API_ROOT}/`);
    expect(doc.servers![0]!.url).toContain(':8080');
    const localized = (await h.http.get(`/pt-BR${API}/doc`).expect(200)).body as OpenAPIV3.Document;
    expect(localized.servers![0]!.url).toBe(`${SITE_URL}/pt-BR${API}/`);
    // What a client joins the server and a path into (trailing slash dropped, as Swagger UI and
    // generated clients do) reaches the route.
    const joined = `${doc.servers![0]!.url.replace(/\/$/, '')}/events`;
    await h.http.get(new URL(joined).pathname).expect(200);
  });

  it('documents every route and method of the rest-map, with unique operation ids', () => {
    const ids = new Set<string>();
    expect(Object.keys(doc.paths).slice(0, 2)).toEqual(['/', '/doc']);
    for (const route of restRoutes) {
      const item = doc.paths[route.path.replace(/:(\w+)/g, '{$1}')]!;
      expect(item, route.path).toBeDefined();
      for (const method of route.methods) {
        const operation = item[method.toLowerCase() as OpenAPIV3.HttpMethods]!;
        expect(operation, `${method} ${route.path}`).toBeDefined();
        expect(operation.summary).toBe(route.description);
        expect(ids.has(operation.operationId!)).toBe(false);
        ids.add(operation.operationId!);
        const pathNames = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]);
        const inPath = (operation.parameters as OpenAPIV3.ParameterObject[])
          .filter((p) => p.in === 'path')
          .map((p) => p.name);
        expect(inPath.sort()).toEqual(pathNames.sort());
        expect(Object.keys(operation.responses)).toContain(String(route.status ?? 200));
        for (const status of ['400', '401', '403', '404', 'default']) {
          expect(operation.responses[status], `${method} ${route.path} ${status}`).toBeDefined();
        }
        if (['POST', 'PUT', 'PATCH'].includes(method)) {
          const body = operation.requestBody as OpenAPIV3.RequestBodyObject;
          expect(Object.keys(body.content)).toEqual([
            'application/json',
            'application/x-www-form-urlencoded',
          ]);
        }
      }
    }
  });

  it('describes query parameters with their types', () => {
    const list = doc.paths['/events']!.get!;
    const page = (list.parameters as OpenAPIV3.ParameterObject[]).find((p) => p.name === 'page')!;
    expect(page).toMatchObject({ in: 'query', required: false, schema: { type: 'integer' } });
    const headers = (list.responses['200'] as OpenAPIV3.ResponseObject).headers!;
    expect(headers['X-TEC-Total']).toMatchObject({ schema: { type: 'integer' } });
  });

  it('resolves every $ref', () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(5);
    for (const ref of new Set(refs)) {
      const pointer = ref.slice('"$ref":"#/'.length, -1).split('/');
      const target = pointer.reduce<unknown>(
        (node, key) => (node as Record<string, unknown> | undefined)?.[key],
        doc,
      );
      expect(target, ref).toBeDefined();
    }
  });

  describe('matches what the routes answer', () => {
    const ajv = () => {
      const instance = new Ajv({ strict: false, validateFormats: false, allErrors: true });
      instance.addSchema({ components: doc.components }, 'doc');
      return instance;
    };
    const validate = (schema: OpenAPIV3.SchemaObject | OpenAPIV3.ReferenceObject, data: unknown) => {
      const reference = '$ref' in schema ? { $ref: `doc${schema.$ref}` } : schema;
      const check = ajv().compile(reference);
      return check(data) ? [] : check.errors;
    };
    const successSchema = (path: string, method: 'get' | 'post', status = '200') =>
      (doc.paths[path]![method as OpenAPIV3.HttpMethods]!.responses[status] as OpenAPIV3.ResponseObject)
        .content!['application/json']!.schema!;
    const errorSchema = { $ref: '#/components/schemas/WordPressError' };

    it('the event list and a single event', async () => {
      const list = await h.http.get(`${API}/events`).expect(200);
      expect(list.body.events.length).toBeGreaterThan(0);
      expect(validate(successSchema('/events', 'get'), list.body)).toEqual([]);
      const single = await h.http.get(`${API}/events/${eventId}`).expect(200);
      expect(validate(successSchema('/events/{id}', 'get'), single.body)).toEqual([]);
      // And the check has teeth: a wrong type is caught.
      expect(validate(successSchema('/events/{id}', 'get'), { ...single.body, id: 'x' })).not.toEqual([]);
    });

    it('every GET route of the rest-map', async () => {
      // Document routes (iCalendar) answer text/calendar, checked in events-ical.test.ts.
      const gets = restRoutes.filter((route) => route.methods.includes('GET') && !route.document);
      expect(gets.length).toBeGreaterThan(2);
      for (const route of gets) {
        const record = records[route.path.split('/')[1]!];
        if (route.path.includes(':')) expect(record, route.path).toBeDefined();
        const url = route.path.replace(':id', String(record?.id)).replace(':slug', record?.slug ?? '');
        const res = await h.http.get(`${API}${url}`);
        expect(res.status, url).toBe(200);
        expect(validate(successSchema(route.path.replace(/:(\w+)/g, '{$1}'), 'get'), res.body), url).toEqual(
          [],
        );
      }
    });

    it('every create route, from the required body fields it documents', async () => {
      const admin = await createUser(h, 'administrator');
      const samples: Record<string, string> = { start_date: 'tomorrow 10:00', end_date: 'tomorrow 12:00' };
      const creates = restRoutes.filter(
        (route) => route.methods.includes('POST') && !route.path.includes(':'),
      );
      for (const route of creates) {
        const body = Object.fromEntries(
          Object.entries(documentedBody(restSchema, route))
            .filter(([, field]) => field.required)
            .map(([name]) => [name, samples[name] ?? `Doc check ${name}`]),
        );
        const res = await h.http.post(`${API}${route.path}`).auth(admin.login, admin.password).send(body);
        expect(res.status, `${route.path} ${JSON.stringify(res.body)}`).toBe(route.status ?? 200);
        expect(
          validate(successSchema(route.path, 'post', String(route.status ?? 200)), res.body),
          route.path,
        ).toEqual([]);
      }
    });

    it('the iCalendar feeds: the document with its headers, errors as JSON (and no JSON schema for them)', async () => {
      const feeds = restRoutes.filter((route) => route.document);
      expect(feeds.map((route) => route.path)).toEqual([
        '/events.ics',
        '/events/:id.ics',
        '/events/by-slug/:slug.ics',
      ]);
      for (const route of feeds) {
        const operation = doc.paths[route.path.replace(/:(\w+)/g, '{$1}')]!.get!;
        const ok = operation.responses['200'] as OpenAPIV3.ResponseObject;
        expect(Object.keys(ok.content!), route.path).toEqual(['text/calendar']);
        expect(ok.content!['text/calendar']!.schema).toMatchObject({ type: 'string' });
        expect(ok.headers).toHaveProperty('Content-Disposition');
        expect(ok.headers).toHaveProperty('ETag');
        const url = route.path.replace(':id', String(eventId)).replace(':slug', records.events!.slug);
        const res = await h.http.get(`${API}${url}`).expect(200);
        expect(res.headers['content-type']).toMatch(/^text\/calendar\b/);
        expect(res.headers['content-disposition']).toMatch(/^inline; filename=".+\.ics"$/);
        expect(res.text).toMatch(/^BEGIN:VCALENDAR/);
        await h.http.get(`${API}${url}`).set('If-None-Match', res.headers.etag!).expect(304);
        expect(Object.keys(operation.responses)).toContain('304');
        for (const status of ['400', '404', 'default']) {
          const error = operation.responses[status] as OpenAPIV3.ReferenceObject;
          const response = doc.components!.responses![
            error.$ref.split('/').pop()!
          ] as OpenAPIV3.ResponseObject;
          expect(Object.keys(response.content!), `${route.path} ${status}`).toEqual(['application/json']);
        }
      }
      const missing = await h.http.get(`${API}/events/987654.ics`).expect(404);
      expect(missing.headers['content-type']).toMatch(/^application\/json\b/);
      expect(validate(errorSchema, missing.body)).toEqual([]);
      expect(JSON.stringify(doc)).not.toContain('TecFeed');
      // `?ical=1` on the JSON routes answers the same documents: a boolean parameter there, whose
      // document is the `.ics` route's; their own answers stay JSON only (a typed client's reading).
      for (const path of ['/events', '/events/{id}', '/events/by-slug/{slug}']) {
        const operation = doc.paths[path]!.get!;
        const ical = (operation.parameters as OpenAPIV3.ParameterObject[]).find((p) => p.name === 'ical');
        expect(ical, path).toMatchObject({ in: 'query', required: false, schema: { type: 'boolean' } });
        expect(ical!.description).toContain(`\`GET ${path}.ics\``);
        for (const response of Object.values(operation.responses) as OpenAPIV3.ResponseObject[])
          if ('content' in response)
            expect(Object.keys(response.content!), path).toEqual(['application/json']);
      }
      const flagged = await h.http.get(`${API}/events/${eventId}?ical=1`).expect(200);
      expect(flagged.headers['content-type']).toMatch(/^text\/calendar\b/);
    });

    it('the index, and the errors in the WordPress shape', async () => {
      expect(validate(successSchema('/', 'get'), (await h.http.get(API)).body)).toEqual([]);
      for (const res of [
        await h.http.get(`${API}/nothing`).expect(404),
        await h.http.get(`${API}/events?page=foo`).expect(400),
        await h.http.delete(`${API}/doc`).expect(405),
      ]) {
        expect(validate(errorSchema, res.body)).toEqual([]);
      }
    });
  });
});

describe('routing around the API', () => {
  it('answers unknown routes with the WordPress 404, and wrong methods with 405 and Allow', async () => {
    for (const path of [`${API}/nothing`, `${API}/events/abc`, `${API}/doc/extra`, `/fr${API}/nothing`]) {
      const res = await h.http.get(path).expect(404);
      expect(res.body).toEqual({
        code: 'rest_no_route',
        message: 'No route was found matching the URL and request method.',
        data: { status: 404, request_id: expect.any(String) },
      });
    }
    for (const path of [API, `${API}/doc`, `/fr${API}`]) {
      const res = await h.http.post(path).send({}).expect(405);
      expect(res.headers.allow).toBe('GET');
      expect(res.body.code).toBe('rest_no_route');
      expect(res.body.data.status).toBe(405);
    }
    const wrong = await h.http.patch(`${API}/events`).send({}).expect(405);
    expect(wrong.headers.allow).toBe([...byPath().get('/events')!].join(', '));
  });

  it('serves HEAD like GET', async () => {
    const get = await h.http.get(`${API}/events`).expect(200);
    const head = await h.http.head(`${API}/events`).expect(200);
    expect(head.headers['x-tec-total']).toBe(get.headers['x-tec-total']);
    expect(Number(head.headers['x-tec-total'])).toBeGreaterThan(0);
    expect(head.text ?? '').toBe('');
  });

  it('refuses an invalid language segment on every discovery route', async () => {
    for (const path of ['', '/doc', '/docs']) {
      expect((await h.http.get(`/not_a_language${API}${path}`).expect(404)).body.code).toBe('rest_no_route');
    }
  });

  it('has a service root that names every entry point', async () => {
    const res = await h.http.get('/').expect(200);
    expect(res.body.namespaces).toEqual(['calendar/events/v1']);
    expect(res.body._links['calendar/events/v1'][0].href).toBe(API_ROOT);
    expect(res.body._links.openapi[0].href).toBe(`${API_ROOT}/doc`);
    expect(res.body._links.graphql[0].href).toBe(`${SITE_URL}/graphql`);
    const localized = await h.http.get('/fr').expect(200);
    expect(localized.body._links['calendar/events/v1'][0].href).toBe(`${SITE_URL}/fr${API}`);
    expect(localized.body._links.graphql[0].href).toBe(`${SITE_URL}/graphql`);
  });
});

describe('discovery headers (TEC announces its API on the site with them)', () => {
  /** What the reference sends: `v1`, the REST root with its trailing slash, the site. */
  const announced = (site: string) => ({
    'x-tec-api-version': 'v1',
    'x-tec-api-root': `${site}${API}/`,
    'x-tec-api-origin': site,
  });

  it('are sent on GET and HEAD of the site root and of the namespace index', async () => {
    for (const path of ['/', API, `${API}/`]) {
      for (const method of ['get', 'head'] as const) {
        const res = await h.http[method](path).expect(200);
        expect(res.headers, `${method} ${path}`).toMatchObject(announced(SITE_URL));
      }
    }
  });

  it('keep the language segment, and name a root that answers the namespace index', async () => {
    for (const path of ['/fr', `/fr${API}`]) {
      expect((await h.http.get(path).expect(200)).headers).toMatchObject(announced(`${SITE_URL}/fr`));
    }
    // A client's discovery: from the site's root to the API root the headers name.
    const root = (await h.http.head('/').expect(200)).headers['x-tec-api-root'] as string;
    expect(new URL(root).origin).toBe(SITE_URL);
    const index = await h.http.get(new URL(root).pathname).expect(200);
    expect(index.body.namespace).toBe('calendar/events/v1');
  });

  it('are not sent on the other routes, nor on refusals', async () => {
    for (const res of [
      await h.http.get(`${API}/events`).expect(200),
      await h.http.get(`${API}/doc`).expect(200),
      await h.http.post(API).send({}).expect(405),
      await h.http.post('/').send({}).expect(405),
    ]) {
      expect(res.headers).not.toHaveProperty('x-tec-api-version');
      expect(res.headers).not.toHaveProperty('x-tec-api-root');
    }
  });

  it('are sent on answers the response cache gives too', async () => {
    const cached = await startHarness({ CALENDAR_CACHE: 'on' });
    try {
      for (const path of [API, API, '/', '/']) {
        const res = await cached.http.get(path).expect(200);
        expect(res.headers, path).toMatchObject(announced(SITE_URL));
      }
      expect((await cached.http.get(API).expect(200)).headers['x-cache']).toBe('hit');
    } finally {
      await cached.close();
    }
  });
});

describe('Swagger UI at /calendar/events/v1/docs', () => {
  it('is served with its assets from this server only', async () => {
    const page = await h.http.get(`/fr${API}/docs`).expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).not.toMatch(/https?:\/\//);
    expect(page.text).toContain(`"url":"/fr${API}/doc"`);
    const assets = [...page.text.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets).toHaveLength(3);
    for (const asset of assets) {
      expect(asset.startsWith(`/fr${API}/docs/`)).toBe(true);
      const res = await h.http.get(asset).expect(200);
      expect(Number(res.headers['content-length'] ?? res.body.length ?? res.text.length)).toBeGreaterThan(0);
    }
    await h.http.get(`${API}/docs/package.json`).expect(404);
    await h.http.get(`${API}/docs/..%2Fpackage.json`).expect(404);
  });
});
