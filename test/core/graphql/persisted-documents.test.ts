import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kind, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CalendarClient, documentIdOf } from '../../../examples/client.js';
import {
  CreateEventDocument,
  EventChangedDocument,
  EventWithVenueAndOrganizersDocument,
  EventsConnectionDocument,
  UpcomingEventsDocument,
} from '../../../examples/generated/graphql.js';
import {
  CalendarEventChangedDocument,
  CalendarEventDocument,
  CalendarEventsDocument,
  CalendarFiltersDocument,
  CalendarRsvpDocument,
} from '../../../examples/generated/calendar-view/graphql.js';
import { ConfigError, loadConfig } from '../../../src/core/config/config.js';
import { PersistedDocuments } from '../../../src/core/graphql/persisted.js';
import { documentHash } from '../../../src/core/config/trusted-documents.js';
import { calendarDocuments } from '../../../src/core/http/embed.js';
import { createEvent } from '../../helpers/fixtures.js';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { createUser } from '../../helpers/users.js';

// Persisted documents (src/core/graphql/persisted.ts): the trusted documents codegen writes
// (examples/generated/persisted-documents.json) as the only documents a server started with
// CALENDAR_TRUSTED_DOCUMENTS runs, and automatic persisted queries (hash first, then hash and query)
// otherwise — with the response cache keying a document named by its hash like its text; and in either
// mode the documents of the service's own <calendar-view>, run by id from the first request.

const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));
const MANIFEST = join(EXAMPLES, 'generated/persisted-documents.json');
const MODERN = 'application/graphql-response+json';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const manifest = () => JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, string>;
const idOf = (document: object) => documentIdOf(document)!;
const hexOf = (document: object) => idOf(document).replace(/^sha256:/, '');

describe('the manifest codegen writes', () => {
  it("holds every example operation, each under the SHA-256 of its text, the generated documents' ids", () => {
    const documents = manifest();
    for (const [id, text] of Object.entries(documents)) expect(id).toBe(`sha256:${sha256(text)}`);
    const names = (texts: string[]) =>
      texts
        .flatMap((text) => parse(text).definitions)
        .map((definition) => (definition.kind === Kind.OPERATION_DEFINITION ? definition.name?.value : null))
        .sort();
    const operations = readdirSync(join(EXAMPLES, 'operations'))
      .filter((file) => file.endsWith('.graphql'))
      .map((file) => readFileSync(join(EXAMPLES, 'operations', file), 'utf8'));
    expect(names(Object.values(documents))).toEqual(names(operations));
    expect(names(operations)).toEqual([
      'CalendarEvent',
      'CalendarEventChanged',
      'CalendarEvents',
      'CalendarFilters',
      'CalendarRsvp',
      'CreateEvent',
      'EventChanged',
      'EventWithVenueAndOrganizers',
      'EventsConnection',
      'UpcomingEvents',
    ]);
    for (const document of [
      CreateEventDocument,
      EventChangedDocument,
      EventWithVenueAndOrganizersDocument,
      EventsConnectionDocument,
      UpcomingEventsDocument,
    ]) {
      const id = idOf(document);
      expect(documents[id]).toBeDefined();
      expect(parse(documents[id]!).definitions.map((definition) => definition.kind)).toEqual([
        Kind.OPERATION_DEFINITION,
      ]);
    }
  });
});

describe('CALENDAR_TRUSTED_DOCUMENTS is validated at start-up', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trusted-'));
  const write = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const problem = (path: string) => {
    try {
      loadConfig({ CALENDAR_TRUSTED_DOCUMENTS: path });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('accepted');
  };

  it('loads the manifest codegen writes', () => {
    const config = loadConfig({ CALENDAR_TRUSTED_DOCUMENTS: MANIFEST });
    expect(config.trustedDocuments?.path).toBe(MANIFEST);
    expect(config.trustedDocuments?.documents.size).toBe(Object.keys(manifest()).length);
    expect(loadConfig({}).trustedDocuments).toBeUndefined();
  });

  it.each([
    ['a missing file', () => join(dir, 'nope.json'), /CALENDAR_TRUSTED_DOCUMENTS: cannot read .*nope\.json/],
    ['a file that is not JSON', () => write('bad.json', '{'), /is not JSON/],
    ['an array', () => write('array.json', '["{ a }"]'), /must be a JSON object of document id/],
    ['an empty manifest', () => write('empty.json', '{}'), /holds no documents/],
    ['an id that is no hash', () => write('id.json', '{"abc": "{ __typename }"}'), /not a SHA-256 id/],
    [
      'an id that is not the hash of its document',
      () => write('wrong.json', JSON.stringify({ [`sha256:${sha256('{ a }')}`]: '{ b }' })),
      /does not hash to it/,
    ],
    [
      'a document that does not parse',
      () => write('parse.json', JSON.stringify({ [sha256('{ a')]: '{ a' })),
      /does not parse/,
    ],
  ])('refuses %s, naming the setting', (_name, path, message) => {
    expect(problem(path())).toMatch(message);
  });
});

describe('trusted documents only', () => {
  let h: Harness;
  let server: Server;
  let endpoint: string;
  const upcoming = idOf(UpcomingEventsDocument);
  const unknown = `sha256:${sha256('{ __typename }')}`;

  beforeAll(async () => {
    h = await startHarness({ CALENDAR_TRUSTED_DOCUMENTS: MANIFEST });
    await createEvent(h.db, { title: 'Harbour Concert' });
    await createEvent(h.db, { title: 'Quiet Reading' });
    server = h.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await h?.close();
  });

  const titles = (body: { data?: { events?: { items: Array<{ title: string }> } } }) =>
    body.data?.events?.items.map((item) => item.title).sort();

  it('runs a trusted document named by documentId, POST and GET', async () => {
    const variables = { perPage: 5 };
    const post = await h.http
      .post('/graphql')
      .set('Accept', MODERN)
      .send({ documentId: upcoming, variables });
    expect(post.status).toBe(200);
    expect(titles(post.body)).toEqual(['Harbour Concert', 'Quiet Reading']);
    const get = await h.http
      .get('/graphql')
      .set('Accept', MODERN)
      .query({ documentId: upcoming, variables: JSON.stringify(variables) });
    expect(get.status).toBe(200);
    expect(get.body).toEqual(post.body);
  });

  it('runs a trusted document named by extensions.persistedQuery.sha256Hash, POST and GET', async () => {
    const extensions = { persistedQuery: { version: 1, sha256Hash: hexOf(UpcomingEventsDocument) } };
    const post = await h.http.post('/graphql').send({ extensions, variables: { perPage: 5 } });
    expect(post.status).toBe(200);
    expect(titles(post.body)).toEqual(['Harbour Concert', 'Quiet Reading']);
    const get = await h.http
      .get('/graphql')
      .query({ extensions: JSON.stringify(extensions), variables: JSON.stringify({ perPage: 5 }) });
    expect(get.status).toBe(200);
    expect(get.body).toEqual(post.body);
  });

  it.each([
    ['application/graphql-response+json', MODERN, /^application\/graphql-response\+json/],
    ['application/json', 'application/json', /^application\/json/],
  ])('refuses an unknown id: 400 PERSISTED_QUERY_NOT_FOUND in %s', async (_name, accept, type) => {
    for (const res of [
      await h.http.post('/graphql').set('Accept', accept).send({ documentId: unknown }),
      await h.http.get('/graphql').set('Accept', accept).query({ documentId: unknown }),
      await h.http
        .post('/graphql')
        .set('Accept', accept)
        .send({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ x }') } } }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(type);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      expect(res.body.errors[0].message).toMatch(/trusted documents/);
    }
  });

  it('refuses a raw query, even the text of a trusted document: 400 PERSISTED_QUERY_ONLY', async () => {
    const text = manifest()[upcoming]!;
    for (const res of [
      await h.http.post('/graphql').set('Accept', MODERN).send({ query: '{ __typename }' }),
      await h.http.post('/graphql').set('Accept', MODERN).send({ query: text }),
      await h.http.get('/graphql').set('Accept', MODERN).query({ query: text }),
      await h.http.post('/graphql').set('Accept', MODERN).send({ query: text, documentId: upcoming }),
      await h.http.post('/graphql').set('Accept', MODERN).send({}),
    ]) {
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
      expect(res.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_ONLY');
      expect(res.body.errors[0].message).toMatch(/runs only trusted documents/);
    }
  });

  it('still refuses a mutation over GET, named by its id', async () => {
    const res = await h.http
      .get('/graphql')
      .set('Accept', MODERN)
      .query({ documentId: idOf(CreateEventDocument), variables: JSON.stringify({ input: { title: 'x' } }) });
    expect(res.status).toBe(405);
    expect(await h.db.event.count()).toBe(2);
  });

  it('does not serve GraphiQL, which could run none of its documents', async () => {
    const res = await h.http.get('/graphql').set('Accept', 'text/html');
    expect(res.headers['content-type'] ?? '').not.toMatch(/text\/html/);
  });

  it('serves the typed example client sending ids', async () => {
    const client = new CalendarClient(endpoint, undefined, { persistedDocuments: true });
    const { pageInfo, items } = await client.upcomingEvents({}, 1, 5);
    expect(pageInfo.total).toBe(2);
    const event = await client.event(items[0]!.databaseId);
    expect(event?.title).toBe(items[0]!.title);
    // The same client sending texts is refused.
    await expect(new CalendarClient(endpoint).upcomingEvents()).rejects.toMatchObject({
      code: 'PERSISTED_QUERY_ONLY',
    });
  });

  it('runs a trusted mutation by id (POST), and a trusted subscription by id over SSE', async () => {
    const editor = await createUser(h, 'editor');
    const writer = new CalendarClient(endpoint, editor, { persistedDocuments: true });
    const listener = new CalendarClient(endpoint, undefined, { persistedDocuments: true });
    const stop = new AbortController();
    const changes = listener.eventChanges({}, stop.signal);
    const first = changes.next();
    // The stream opens on the first `next`; write until it has heard one (it may open after a write).
    let written = 0;
    const writing = (async () => {
      while (!stop.signal.aborted && written < 50) {
        const created = await writer.createEvent({
          title: `Trusted ${++written}`,
          startDate: '2031-06-01 18:00:00',
          endDate: '2031-06-01 20:00:00',
        });
        expect(created.title).toBe(`Trusted ${written}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const { value } = await first;
    stop.abort();
    await writing;
    expect(value).toMatchObject({
      operation: 'created',
      event: { title: expect.stringMatching(/^Trusted \d+$/) },
    });
  });
});

describe('automatic persisted queries (any document runs)', () => {
  let h: Harness;
  const listQuery = '{ events(perPage: 5) { pageInfo { total } items { title } } }';
  const otherQuery = '{ events(perPage: 5) { items { id: databaseId } } }';
  let eventId = 0;
  const apq = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(query) } });

  beforeAll(async () => {
    h = await startHarness({ CALENDAR_CACHE: 'on' });
    eventId = (await createEvent(h.db, { title: 'Harbour Concert' })).id;
  });
  afterAll(async () => {
    await h?.close();
  });

  it('serves GraphiQL', async () => {
    const res = await h.http.get('/graphql').set('Accept', 'text/html');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('Calendar GraphQL');
  });

  it('round trip: hash alone → PERSISTED_QUERY_NOT_FOUND, hash and query → runs, then the hash alone runs', async () => {
    const extensions = apq(listQuery);
    const first = await h.http.post('/graphql').set('Accept', MODERN).send({ extensions });
    expect(first.status).toBe(400);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const firstGet = await h.http.get('/graphql').query({ extensions: JSON.stringify(extensions) });
    expect(firstGet.status).toBe(400);
    expect(firstGet.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');

    const register = await h.http
      .post('/graphql')
      .set('Accept', MODERN)
      .send({ query: listQuery, extensions });
    expect(register.status).toBe(200);
    expect(register.body.data.events.items).toEqual([{ title: 'Harbour Concert' }]);

    const post = await h.http.post('/graphql').set('Accept', MODERN).send({ extensions });
    expect(post.status).toBe(200);
    expect(post.body).toEqual(register.body);
    const get = await h.http
      .get('/graphql')
      .set('Accept', MODERN)
      .query({ extensions: JSON.stringify(extensions) });
    expect(get.status).toBe(200);
    expect(get.body).toEqual(register.body);
    // documentId names the same document.
    const byId = await h.http
      .post('/graphql')
      .set('Accept', MODERN)
      .send({ documentId: `sha256:${sha256(listQuery)}` });
    expect(byId.body).toEqual(register.body);
  });

  // The hash in extensions.persistedQuery or as documentId; a GET spelled with escapes, which the
  // cache's fast path must decode before it may answer from an alias.
  const spellings = {
    'extensions.persistedQuery (POST)': (query: string) => ({
      register: () =>
        h.http
          .post('/graphql')
          .set('Accept', MODERN)
          .send({ query, extensions: apq(query) }),
      hashOnly: () =>
        h.http
          .post('/graphql')
          .set('Accept', MODERN)
          .send({ extensions: apq(query) }),
    }),
    'documentId (POST)': (query: string) => ({
      register: () =>
        h.http
          .post('/graphql')
          .set('Accept', MODERN)
          .send({ query, documentId: `sha256:${sha256(query)}` }),
      hashOnly: () =>
        h.http
          .post('/graphql')
          .set('Accept', MODERN)
          .send({ documentId: `sha256:${sha256(query)}` }),
    }),
    'escaped parameter names (GET)': (query: string) => {
      const extensions = encodeURIComponent(JSON.stringify(apq(query)));
      return {
        register: () =>
          h.http
            .get(`/graphql?qu%65ry=${encodeURIComponent(query)}&%65xtensions=${extensions}`)
            .set('Accept', MODERN),
        hashOnly: () => h.http.get(`/graphql?extensions=${extensions}`).set('Accept', MODERN),
      };
    },
  };

  it.each(Object.keys(spellings))(
    'registers a hash again after the bounded store dropped it, even while its answer is cached: %s',
    async (spelling) => {
      const query = `{ events(perPage: 2) { pageInfo { total } } ${spelling.split(' ')[0]!.replace(/\W/g, '')}: __typename }`;
      const { register, hashOnly } = spellings[spelling as keyof typeof spellings](query);
      expect((await register()).status).toBe(200);
      expect((await register()).headers['x-cache']).toBe('hit');
      // 1,000 other documents push it out of the store (least recently used first).
      for (let i = 0; i < 1000; i++) {
        const other = `{ t${i}: __typename }`;
        await h.http
          .post('/graphql')
          .send({ query: other, extensions: apq(other) })
          .expect(200);
      }
      expect((await hashOnly()).body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      // The client sends hash and query again: answered (from the cache is fine) and registered.
      const again = await register();
      expect(again.status).toBe(200);
      const res = await hashOnly();
      expect(res.status).toBe(200);
      expect(res.body).toEqual(again.body);
    },
    // A thousand requests: seconds on an idle machine, more on a busy one.
    90_000,
  );

  it("refuses a hash that is not the query's, and keeps nothing", async () => {
    const wrong = { persistedQuery: { version: 1, sha256Hash: sha256('{ somethingElse }') } };
    const res = await h.http
      .post('/graphql')
      .set('Accept', MODERN)
      .send({ query: listQuery, extensions: wrong });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_HASH_MISMATCH');
    const after = await h.http.post('/graphql').set('Accept', MODERN).send({ extensions: wrong });
    expect(after.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('a query sent with a documentId runs too', async () => {
    const res = await h.http
      .post('/graphql')
      .set('Accept', MODERN)
      .send({ query: otherQuery, documentId: `sha256:${sha256(otherQuery)}` });
    expect(res.status).toBe(200);
    expect(res.body.data.events.items).toHaveLength(1);
  });

  it('the response cache keys a document named by its hash like its text, never mixing documents', async () => {
    const get = (params: Record<string, string>) =>
      h.http.get('/graphql').set('Accept', MODERN).query(params);
    const listExt = JSON.stringify(apq(listQuery));
    const otherExt = JSON.stringify(apq(otherQuery));
    await get({ query: listQuery, extensions: listExt }).expect(200);
    await get({ query: otherQuery, extensions: otherExt }).expect(200);

    const list = await get({ extensions: listExt });
    const listAgain = await get({ extensions: listExt });
    const listByText = await get({ query: listQuery });
    const other = await get({ extensions: otherExt });
    const otherAgain = await get({ extensions: otherExt });
    for (const res of [list, listAgain, listByText, other, otherAgain]) expect(res.status).toBe(200);
    expect(listAgain.headers['x-cache']).toBe('hit');
    expect(listByText.headers['x-cache']).toBe('hit');
    expect(otherAgain.headers['x-cache']).toBe('hit');
    for (const res of [listAgain, listByText]) expect(res.text).toBe(list.text);
    expect(otherAgain.text).toBe(other.text);
    expect(list.body.data.events.items).toEqual([{ title: 'Harbour Concert' }]);
    expect(other.body.data.events.items).toEqual([{ id: expect.any(Number) }]);
    // Variables are part of the key as for a text.
    const five = await get({ extensions: listExt, variables: '{}' });
    expect(five.text).toBe(list.text);
    // A document that mentions a password is never shared, named by its hash or not.
    const secret = `query($password: String) { event(id: ${eventId}, password: $password) { title } }`;
    const secretExt = JSON.stringify(apq(secret));
    await get({ query: secret, extensions: secretExt }).expect(200);
    for (let i = 0; i < 2; i++) {
      const res = await get({ extensions: secretExt });
      expect(res.status).toBe(200);
      expect(res.body.data.event.title).toBe('Harbour Concert');
      expect(res.headers['x-cache']).toBeUndefined();
      expect(res.headers['cache-control']).toMatch(/^private/);
    }
  });

  it('never caches a refusal: an id unknown at first runs once registered', async () => {
    const query = '{ events(perPage: 1) { pageInfo { totalPages } } }';
    const params = { extensions: JSON.stringify(apq(query)) };
    for (let i = 0; i < 2; i++) {
      const res = await h.http.get('/graphql').set('Accept', MODERN).query(params);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    }
    await h.http
      .get('/graphql')
      .query({ ...params, query })
      .expect(200);
    const res = await h.http.get('/graphql').set('Accept', MODERN).query(params);
    expect(res.status).toBe(200);
    expect(res.body.data.events.pageInfo.totalPages).toBe(1);
  });

  it('keeps a bounded store, least recently used out first', () => {
    const store = new PersistedDocuments({ maxQueries: 2 });
    const texts = ['{ a }', '{ b }', '{ c }'];
    for (const text of texts) expect(store.register(documentHash(text), text)).toBe(true);
    expect(store.lookup(documentHash('{ a }'))).toBeUndefined();
    expect(store.lookup(documentHash('{ c }'))).toBe('{ c }');
    expect(store.register(documentHash('{ a }'), '{ b }')).toBe(false);
    expect(new PersistedDocuments({ trusted: new Map() }).register(documentHash('{ a }'), '{ a }')).toBe(
      false,
    );
  });
});

describe('trusted documents with the response cache (and its fast path)', () => {
  let h: Harness;
  const upcoming = idOf(UpcomingEventsDocument);

  beforeAll(async () => {
    h = await startHarness({ CALENDAR_TRUSTED_DOCUMENTS: MANIFEST, CALENDAR_CACHE: 'on' });
    await createEvent(h.db, { title: 'Harbour Concert' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('shares the answer of a trusted document, and never serves it to a raw query', async () => {
    const text = manifest()[upcoming]!;
    const variables = JSON.stringify({ perPage: 5 });
    const get = (params: Record<string, string>) =>
      h.http.get('/graphql').set('Accept', MODERN).query(params);
    const post = (body: object) => h.http.post('/graphql').set('Accept', MODERN).send(body);
    const answers = [
      await get({ documentId: upcoming, variables }),
      await get({ documentId: upcoming, variables }),
      await get({ documentId: upcoming, variables }),
      await post({ documentId: upcoming, variables: { perPage: 5 } }),
      await post({ documentId: upcoming, variables: { perPage: 5 } }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.text).toBe(answers[0]!.text);
    }
    expect(answers.slice(1).map((res) => res.headers['x-cache'])).toEqual(['hit', 'hit', 'hit', 'hit']);
    for (let i = 0; i < 2; i++)
      for (const res of [
        await get({ query: text, variables }),
        await post({ query: text, variables: { perPage: 5 } }),
      ]) {
        expect(res.status).toBe(400);
        expect(res.headers['x-cache']).toBeUndefined();
        expect(res.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_ONLY');
      }
  });
});

describe("the calendar's own documents (<calendar-view>), run by id from the first request", () => {
  const CALENDAR = [
    CalendarEventsDocument,
    CalendarEventDocument,
    CalendarFiltersDocument,
    CalendarEventChangedDocument,
    CalendarRsvpDocument,
  ];
  const calendarIds = CALENDAR.map(idOf);
  const eventsQuery = (id: string) =>
    ({ documentId: id, variables: JSON.stringify({ first: 5 }) }) as Record<string, string>;
  const calendarReads = (eventId: number) => [
    { documentId: idOf(CalendarEventsDocument), variables: JSON.stringify({ first: 5 }) },
    { documentId: idOf(CalendarEventDocument), variables: JSON.stringify({ id: eventId }) },
    { documentId: idOf(CalendarFiltersDocument) },
  ];

  it('are the ids the bundled component sends, each with its text', () => {
    const documents = calendarDocuments();
    expect([...documents.keys()].sort()).toEqual(calendarIds.map((id) => id.replace(/^sha256:/, '')).sort());
    for (const [id, text] of documents) expect(documentHash(text)).toBe(id);
  });

  it('are found beside the built bundle where there is no checkout (a container: dist/ alone)', () => {
    const dist = mkdtempSync(join(tmpdir(), 'dist-'));
    expect(() => calendarDocuments(dist)).toThrow(/the calendar's documents are missing/);
    mkdirSync(join(dist, 'embed'));
    writeFileSync(
      join(dist, 'embed/calendar-documents.json'),
      readFileSync(join(EXAMPLES, 'generated/calendar-view/persisted-documents.json')),
    );
    expect(calendarDocuments(dist)).toEqual(calendarDocuments());
    // Any client may run them by id: a manifest that writes is refused.
    const create = manifest()[idOf(CreateEventDocument)]!;
    writeFileSync(
      join(dist, 'embed/calendar-documents.json'),
      JSON.stringify({ [idOf(CreateEventDocument)]: create }),
    );
    expect(() => calendarDocuments(dist)).toThrow(/is a mutation: the calendar only reads/);
  });

  it('survive any number of automatic persisted queries, and their hash takes only their text', () => {
    const own = calendarDocuments();
    const [id, text] = [...own][0]!;
    const store = new PersistedDocuments({ own, maxQueries: 2 });
    for (const other of ['{ a }', '{ b }', '{ c }'])
      expect(store.register(documentHash(other), other)).toBe(true);
    expect(store.lookup(id)).toBe(text);
    expect(store.register(id, text)).toBe(true);
    expect(store.register(id, '{ a }')).toBe(false);
    expect(store.lookup(documentHash('{ a }'))).toBeUndefined();
  });

  describe('on a server configured by default (automatic persisted queries)', () => {
    let h: Harness;
    let eventId = 0;
    beforeAll(async () => {
      h = await startHarness();
      eventId = (await createEvent(h.db, { title: 'Harbour Concert' })).id;
    });
    afterAll(async () => {
      await h?.close();
    });

    it('runs each by id on its first request, as the component asks (GET)', async () => {
      for (const params of calendarReads(eventId)) {
        const res = await h.http.get('/graphql').set('Accept', MODERN).query(params);
        expect(res.status, params.documentId).toBe(200);
        expect(res.body.errors).toBeUndefined();
      }
      const events = await h.http.get('/graphql').query(eventsQuery(idOf(CalendarEventsDocument)));
      expect(
        events.body.data.eventsConnection.edges.map((edge: { node: { title: string } }) => edge.node.title),
      ).toEqual(['Harbour Concert']);
    });

    it('opens the subscription by id', async () => {
      const stop = new AbortController();
      const server = h.app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      try {
        const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`);
        url.searchParams.set('documentId', idOf(CalendarEventChangedDocument));
        url.searchParams.set('variables', JSON.stringify({ filter: {} }));
        const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: stop.signal });
        expect([res.status, res.headers.get('content-type')?.split(';')[0]]).toEqual([
          200,
          'text/event-stream',
        ]);
      } finally {
        stop.abort();
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('still asks for the text of any other id it does not know', async () => {
      const res = await h.http
        .get('/graphql')
        .set('Accept', MODERN)
        .query(eventsQuery(idOf(EventsConnectionDocument)));
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    });
  });

  describe("on a server whose trusted documents are another client's", () => {
    let h: Harness;
    let eventId = 0;
    const upcoming = idOf(UpcomingEventsDocument);
    beforeAll(async () => {
      // A manifest of one document, none of the calendar's.
      const path = join(mkdtempSync(join(tmpdir(), 'trusted-')), 'frontend.json');
      writeFileSync(path, JSON.stringify({ [upcoming]: manifest()[upcoming] }));
      h = await startHarness({ CALENDAR_TRUSTED_DOCUMENTS: path });
      eventId = (await createEvent(h.db, { title: 'Harbour Concert' })).id;
    });
    afterAll(async () => {
      await h?.close();
    });

    it("runs the calendar's documents by id, and the manifest's", async () => {
      for (const params of [
        ...calendarReads(eventId),
        { documentId: upcoming, variables: JSON.stringify({ perPage: 5 }) },
      ]) {
        const res = await h.http.get('/graphql').set('Accept', MODERN).query(params);
        expect(res.status, params.documentId).toBe(200);
        expect(res.body.errors).toBeUndefined();
      }
    });

    it("refuses any other id, even another example's, and the calendar's documents as text", async () => {
      const other = await h.http
        .get('/graphql')
        .set('Accept', MODERN)
        .query(eventsQuery(idOf(EventsConnectionDocument)));
      expect([other.status, other.body.errors[0].extensions.code]).toEqual([
        400,
        'PERSISTED_QUERY_NOT_FOUND',
      ]);
      const text = calendarDocuments().get(hexOf(CalendarFiltersDocument))!;
      for (const res of [
        await h.http.get('/graphql').set('Accept', MODERN).query({ query: text }),
        await h.http
          .post('/graphql')
          .set('Accept', MODERN)
          .send({ query: text, documentId: idOf(CalendarFiltersDocument) }),
      ]) {
        expect([res.status, res.body.errors[0].extensions.code]).toEqual([400, 'PERSISTED_QUERY_ONLY']);
      }
      // Still a server of trusted documents: no GraphiQL.
      const graphiql = await h.http.get('/graphql').set('Accept', 'text/html');
      expect(graphiql.headers['content-type'] ?? '').not.toMatch(/text\/html/);
    });
  });
});
