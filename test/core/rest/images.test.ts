import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_IMAGE_URL_LENGTH } from '../../../src/core/db/media.js';
import { API, type Harness } from '../../helpers/harness.js';
import { type Users, startWithRoles } from '../../helpers/users.js';
import { graphqlClient } from '../../helpers/graphql.js';

// The `image` of events, venues and organizers given as a URL (deviation D24): stored and shown as
// given, never downloaded — so a URL no one can reach is kept, where the reference answers 400 — and
// checked at the boundary instead: only an absolute http(s) URL with a host, no credentials, at most
// MAX_IMAGE_URL_LENGTH characters; anything else is 400 `rest_invalid_param` naming `image`, on both
// APIs, on create and update.

let h: Harness;
let users: Users;

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
const gql = graphqlClient(() => h);

let sequence = 0;
const EVENT_DATES = { start_date: '2031-03-01 18:00:00', end_date: '2031-03-01 21:00:00' };

/** A REST create body of each kind, named uniquely (venues and organizers detect duplicates by name). */
const REST_BODIES = {
  events: () => ({ title: `Pictured event ${++sequence}`, ...EVENT_DATES }),
  venues: () => ({ venue: `Pictured venue ${++sequence}` }),
  organizers: () => ({ organizer: `Pictured organizer ${++sequence}` }),
} as const;

const GRAPHQL_CREATES = {
  event: {
    query: `mutation($input: CreateEventInput!) { createEvent(input: $input) { databaseId content { image { url } } } }`,
    input: () => ({
      title: `Graph event ${++sequence}`,
      startDate: EVENT_DATES.start_date,
      endDate: EVENT_DATES.end_date,
    }),
    field: 'createEvent',
    read: `query($id: Int!) { item: event(id: $id) { content { image { url } } } }`,
    imageOf: (item: any) => item.content.image,
  },
  venue: {
    query: `mutation($input: CreateVenueInput!) { createVenue(input: $input) { databaseId image { url } } }`,
    input: () => ({ name: `Graph venue ${++sequence}` }),
    field: 'createVenue',
    read: `query($id: Int!) { item: venue(id: $id) { image { url } } }`,
    imageOf: (item: any) => item.image,
  },
  organizer: {
    query: `mutation($input: CreateOrganizerInput!) { createOrganizer(input: $input) { databaseId image { url } } }`,
    input: () => ({ name: `Graph organizer ${++sequence}` }),
    field: 'createOrganizer',
    read: `query($id: Int!) { item: organizer(id: $id) { image { url } } }`,
    imageOf: (item: any) => item.image,
  },
} as const;

// `.invalid` never resolves (RFC 2606); 10.255.255.1 is a private address nothing answers here.
const UNREACHABLE = [
  'https://images.unreachable.invalid/poster.png',
  'http://10.255.255.1/private/poster.jpg',
];

const LONGEST = `https://cdn.example/${'a'.repeat(MAX_IMAGE_URL_LENGTH - 'https://cdn.example/'.length)}`;

const INVALID = [
  'javascript:alert(1)',
  'data:image/png;base64,iVBORw0KGgo=',
  'file:///etc/passwd',
  'ftp://cdn.example/poster.png',
  '/uploads/poster.png',
  '//cdn.example/poster.png',
  'poster.png',
  'https://user:secret@cdn.example/poster.png',
  'https://token@cdn.example/poster.png',
  `${LONGEST}b`,
  'https://',
];

describe('an image URL no one can reach is stored and shown as given (D24)', () => {
  it.each(Object.keys(REST_BODIES) as Array<keyof typeof REST_BODIES>)('REST %s', async (kind) => {
    for (const url of [...UNREACHABLE, LONGEST]) {
      const created = await h.http
        .post(`${API}/${kind}`)
        .auth(users.editor.login, users.editor.password)
        .send({ ...REST_BODIES[kind](), image: url });
      expect(created.status, url).toBe(201);
      expect(created.body.image.url).toBe(url);
      const read = await h.http
        .get(`${API}/${kind}/${created.body.id}`)
        .auth(users.editor.login, users.editor.password);
      expect(read.status).toBe(200);
      expect(read.body.image.url).toBe(url);
    }
  });

  it.each(Object.keys(GRAPHQL_CREATES) as Array<keyof typeof GRAPHQL_CREATES>)('GraphQL %s', async (kind) => {
    const { query, input, field, read, imageOf } = GRAPHQL_CREATES[kind];
    for (const url of [...UNREACHABLE, LONGEST]) {
      const created = await gql(query, { input: { ...input(), image: url } }, users.editor);
      expect(created.errors, url).toBeUndefined();
      expect(imageOf(created.data![field])).toEqual({ url });
      const again = await gql(read, { id: created.data![field].databaseId }, users.editor);
      expect(again.errors).toBeUndefined();
      expect(imageOf(again.data!.item)).toEqual({ url });
    }
  });
});

describe('an image that is not an absolute http(s) URL is refused, naming image', () => {
  it.each(Object.keys(REST_BODIES) as Array<keyof typeof REST_BODIES>)(
    'REST %s: create and update',
    async (kind) => {
      const existing = await h.http
        .post(`${API}/${kind}`)
        .auth(users.editor.login, users.editor.password)
        .send({ ...REST_BODIES[kind](), image: UNREACHABLE[0] });
      expect(existing.status).toBe(201);
      for (const url of INVALID) {
        const created = await h.http
          .post(`${API}/${kind}`)
          .auth(users.editor.login, users.editor.password)
          .send({ ...REST_BODIES[kind](), image: url });
        expect(created.status, url).toBe(400);
        expect(created.body).toMatchObject({ code: 'rest_invalid_param', data: { status: 400 } });
        expect(Object.keys(created.body.data.params), url).toEqual(['image']);
        const updated = await h.http
          .post(`${API}/${kind}/${existing.body.id}`)
          .auth(users.editor.login, users.editor.password)
          .send({ image: url });
        expect(updated.status, url).toBe(400);
        expect(updated.body.code).toBe('rest_invalid_param');
        expect(Object.keys(updated.body.data.params), url).toEqual(['image']);
      }
      // Nothing was stored, and the record keeps its image.
      const read = await h.http
        .get(`${API}/${kind}/${existing.body.id}`)
        .auth(users.editor.login, users.editor.password);
      expect(read.body.image.url).toBe(UNREACHABLE[0]);
      expect(await h.db.media.count({ where: { url: { in: INVALID } } })).toBe(0);
    },
  );

  it.each(Object.keys(GRAPHQL_CREATES) as Array<keyof typeof GRAPHQL_CREATES>)('GraphQL %s', async (kind) => {
    const { query, input } = GRAPHQL_CREATES[kind];
    for (const url of INVALID) {
      const { data, errors } = await gql(query, { input: { ...input(), image: url } }, users.editor);
      expect(data, url).toBeNull();
      expect(errors![0]!.extensions).toMatchObject({
        code: 'rest_invalid_param',
        http: { status: 400 },
        data: { params: { image: 'Invalid parameter.' } },
      });
      expect(Object.keys(errors![0]!.extensions.data.params), url).toEqual(['image']);
    }
  });
});
