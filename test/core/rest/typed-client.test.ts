import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { REST_API_TYPES, restApiTypes } from '../../../scripts/schema/rest-client-types.js';
import { RestError, createRestClient } from '../../../examples/rest-client.js';
import type { components } from '../../../examples/generated/rest-api.js';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent } from '../../helpers/fixtures.js';
import { createUser } from '../../helpers/users.js';

// The typed REST client (examples/rest-client.ts): openapi-fetch over the types openapi-typescript
// wrote from `/doc` (`npm run codegen`). The written types are those of the live document; the client
// runs against a real server; and TypeScript reads each JSON route's answer as JSON only (the
// `expectTypeOf` and `@ts-expect-error` lines are checked by `npm run typecheck`).

let h: Harness;
let server: Server;
let apiRoot: string;

beforeAll(async () => {
  h = await startHarness();
  server = h.app.listen(0);
  apiRoot = `http://127.0.0.1:${(server.address() as AddressInfo).port}${API}`;
  for (const [title, slug] of [
    ['Typed one', 'typed-one'],
    ['Typed two', 'typed-two'],
    ['Typed three', 'typed-three'],
  ])
    await createEvent(h.db, { title, fields: { slug } });
  await createEvent(h.db, { title: 'Typed draft', status: 'draft', fields: { slug: 'typed-draft' } });
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

describe('the typed REST client', () => {
  it('is typed from the live /doc: the written types are what openapi-typescript makes of it', async () => {
    const doc = (await h.http.get(`${API}/doc`).expect(200)).body;
    const written = readFileSync(REST_API_TYPES, 'utf8');
    // Stale after a change to the REST schema or the route table: `npm run codegen` writes it again.
    expect(written === (await restApiTypes(doc)), `${REST_API_TYPES} is stale: run npm run codegen`).toBe(
      true,
    );
  });

  it('reads a list with its envelope, a single event by id and by slug', async () => {
    const rest = createRestClient(apiRoot);
    const page = await rest.events({ per_page: 2 });
    expectTypeOf(page).toEqualTypeOf<components['schemas']['TecEventList']>();
    expectTypeOf(page.total).toEqualTypeOf<number>();
    // @ts-expect-error a list answer has no title (the answer is typed, not `any`)
    expect(page.title).toBeUndefined();
    expect([page.total, page.total_pages]).toEqual([3, 2]);
    expect(page.events.map((event) => event.title)).toEqual(['Typed one', 'Typed two']);

    const single = await rest.event(page.events[1]!.id);
    expectTypeOf(single.title).toEqualTypeOf<string>();
    expect([single.title, single.slug]).toEqual(['Typed two', 'typed-two']);
    expect((await rest.eventBySlug('typed-three')).title).toBe('Typed three');
  });

  it('sends list parameters and credentials as the document describes them', async () => {
    const editor = await createUser(h, 'editor');
    const anonymous = createRestClient(apiRoot);
    const signedIn = createRestClient(apiRoot, { credentials: editor });
    const ids = (await anonymous.events()).events.map((event) => event.id);
    const some = await anonymous.events({ include: [ids[0]!, ids[2]!] });
    expect(some.events.map((event) => event.id)).toEqual([ids[0], ids[2]]);
    expect((await signedIn.events({ status: ['draft'] })).events.map((event) => event.title)).toEqual([
      'Typed draft',
    ]);
  });

  it('throws the typed WordPress error of a refusal', async () => {
    const rest = createRestClient(apiRoot);
    const missing = await rest.event(987654).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(RestError);
    expect(missing).toMatchObject({ status: 404, error: { code: 'rest-event-not-found' } });
    const unknownSlug = await rest.eventBySlug('no-such-event').catch((error: unknown) => error);
    expect(unknownSlug).toMatchObject({
      status: 400,
      error: { code: 'rest_invalid_param', data: { params: { slug: 'Invalid parameter.' } } },
    });
  });
});
