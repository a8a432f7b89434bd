import fc from 'fast-check';
import type { OpenAPIV3 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, startHarness } from '../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../helpers/fixtures.js';
import { createUser } from '../helpers/users.js';

// Property-based probe of every route and method the OpenAPI document (/doc) describes: random and
// hostile parameters and bodies, anonymous and as an administrator. Whatever comes in, the answer is
// never a 5xx, and every 4xx is a WordPress error ({code, message, data.status}). Seeded and bounded;
// FUZZ_SEED and FUZZ_RUNS reproduce or widen a run.

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 600);

let h: Harness;
let admin: [string, string];
const operations: Array<{ path: string; method: Method; operation: OpenAPIV3.OperationObject }> = [];
const known = { id: 1, slug: 'x' };
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
type Method = (typeof METHODS)[number];

beforeAll(async () => {
  h = await startHarness();
  const user = await createUser(h, 'administrator');
  admin = [user.login, user.password];
  const venue = await createVenue(h.db, { geoLat: 48.85, geoLng: 2.35 });
  const organizer = await createOrganizer(h.db);
  const category = await createTerm(h.db, 'tribe_events_cat');
  const tag = await createTerm(h.db, 'post_tag');
  const event = await createEvent(h.db, {
    venueIds: [venue.id],
    organizerIds: [organizer.id],
    termIds: [category.id, tag.id],
    fields: { password: 'pw' },
  });
  Object.assign(known, { id: event.id, slug: event.slug });
  const doc = (await h.http.get(`${API}/doc`).expect(200)).body as OpenAPIV3.Document;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = item?.[method];
      if (operation) operations.push({ path, method, operation });
    }
  }
  expect(operations.length).toBeGreaterThan(30);
});

afterAll(async () => {
  await h?.close();
});

const HOSTILE = [
  '',
  ' ',
  '0',
  '-1',
  '2147483648',
  '99999999999999999999999',
  '1e308',
  'NaN',
  'null',
  'true',
  'false',
  '[]',
  '{}',
  '\u0000',
  'a\u0000b',
  '../../etc/passwd',
  "' OR 1=1 --",
  '"; DROP TABLE "Event"; --',
  '<script>alert(1)</script>',
  '%',
  '_',
  '\\',
  'tomorrow',
  'next wednesday 4pm',
  '2031-01-01 10:00:00',
  '0000-00-00 00:00:00',
  '9999-99-99',
  '-62135596800',
  '-infinity',
  'publish',
  'any',
  'draft,private,trash',
  '💥🗓️',
  '\ud800',
  'x'.repeat(300),
  'a b c d e f g h i j k l m n o p',
];

/** A hostile or random scalar. */
const scalar = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('id', 'name', 'venue', 'organizer', 'x'), scalar) },
  {
    weight: 1,
    arbitrary: fc.array(fc.integer({ min: -5, max: 2 ** 31 }), { minLength: 1, maxLength: 1200 }),
  },
);

function parameterNames(operation: OpenAPIV3.OperationObject, where: 'query' | 'path'): string[] {
  return (operation.parameters ?? [])
    .map((p) => p as OpenAPIV3.ParameterObject)
    .filter((p) => p.in === where)
    .map((p) => p.name);
}

function bodyNames(operation: OpenAPIV3.OperationObject): string[] {
  const content = (operation.requestBody as OpenAPIV3.RequestBodyObject | undefined)?.content;
  const schema = content?.['application/json']?.schema as OpenAPIV3.SchemaObject | undefined;
  return Object.keys(schema?.properties ?? {});
}

function queryString(params: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [name, v] of Object.entries(params)) {
    if (Array.isArray(v)) for (const item of v) search.append(`${name}[]`, String(item));
    else if (v !== null && typeof v === 'object') search.append(name, JSON.stringify(v));
    else search.append(name, String(v));
  }
  return search.toString();
}

const request = fc.record({
  pick: fc.nat(),
  asAdmin: fc.boolean(),
  pathValue: fc.oneof(
    fc.constant('known'),
    fc.constantFrom('0', '987654', '2147483648', 'x', 'a%00b', '%E0%A4%A'),
  ),
  query: fc.array(fc.tuple(fc.nat(), value), { maxLength: 5 }),
  body: fc.array(fc.tuple(fc.nat(), value), { maxLength: 6 }),
  rawBody: fc.option(
    fc.oneof(fc.string(), fc.constantFrom('{"title":', '[[[[', 'null', '"x"', '{"a":{"b":{"c":[1,2,{}]}}}')),
  ),
});

describe('every route answers random and hostile input without a 5xx', () => {
  it('fuzz', async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async (input) => {
        const { path, method, operation } = operations[input.pick % operations.length]!;
        const queryNames = parameterNames(operation, 'query');
        const fields = bodyNames(operation);
        const query: Record<string, unknown> = {};
        for (const [n, v] of input.query)
          if (queryNames.length) query[queryNames[n % queryNames.length]!] = v;
        const body: Record<string, unknown> = {};
        for (const [n, v] of input.body) if (fields.length) body[fields[n % fields.length]!] = v;
        const concrete = path.replace(/\{(\w+)\}/g, (_m, name: string) => {
          if (input.pathValue !== 'known') return input.pathValue;
          return name === 'slug' ? known.slug : String(known.id);
        });
        const qs = queryString(query);
        const url = `${API}${concrete}${qs ? `?${qs}` : ''}`;
        const call = h.http[method](url);
        if (input.asAdmin) call.auth(...admin);
        if (method !== 'get' && method !== 'delete') {
          if (input.rawBody !== null) call.set('Content-Type', 'application/json').send(input.rawBody);
          else call.send(body);
        }
        const res = await call;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const where = `${method.toUpperCase()} ${url} ${JSON.stringify(input.rawBody ?? body).slice(0, 300)}`;
        expect(res.status, where).toBeLessThan(500);
        if (res.status >= 400) {
          expect(res.body, where).toMatchObject({
            code: expect.any(String),
            message: expect.any(String),
            data: expect.objectContaining({ status: res.status }),
          });
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // The run reached past validation too (not only 400s).
    expect([...statuses.keys()].some((status) => status < 300)).toBe(true);
    expect([...statuses.keys()].some((status) => status >= 400)).toBe(true);
  }, 240_000);
});
