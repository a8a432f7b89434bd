import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, startHarness } from './helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from './helpers/fixtures.js';

// Lists must cost a constant number of SQL statements whatever the page size (no N+1).

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  const venues = await Promise.all(
    [1, 2, 3].map((n) => createVenue(h.db, { geoLat: 48.85 + n / 100, geoLng: 2.35 })),
  );
  const organizers = await Promise.all([1, 2, 3].map(() => createOrganizer(h.db)));
  const terms = [
    await createTerm(h.db, 'tribe_events_cat'),
    await createTerm(h.db, 'tribe_events_cat'),
    await createTerm(h.db, 'post_tag'),
  ];
  const media = await h.db.media.create({ data: { url: 'http://example.com/a.jpg', width: 10, height: 10 } });
  for (let i = 0; i < 60; i++) {
    const event = await createEvent(h.db, {
      venueIds: [venues[i % 3]!.id],
      organizerIds: [organizers[i % 3]!.id, organizers[(i + 1) % 3]!.id],
      termIds: terms.map((term) => term.id),
      fields: { imageId: media.id, title: `Event ${i} music`, ...(i % 7 === 0 ? { password: 'pw' } : {}) },
    });
    // Every other event has ticket types (the REST shape sums them), some drawing from a shared capacity.
    if (i % 2 === 0) await ticketTypes(event.id, i % 4 === 0);
  }
});

async function ticketTypes(eventId: number, shared: boolean) {
  const type = await h.db.ticketType.create({ data: { eventId, name: 'Entry', capacity: 20 } });
  await h.db.attendee.create({
    data: {
      eventId,
      ticketTypeId: type.id,
      name: 'Ada',
      email: 'ada@example.org',
      status: 'GOING',
      checkInCode: `code-${type.id}`,
      tokenHash: `hash-${type.id}`,
    },
  });
  if (!shared) return;
  const capacity = await h.db.sharedCapacity.create({ data: { eventId, capacity: 30 } });
  await h.db.ticketType.createMany({
    data: ['Early', 'Late'].map((name) => ({
      eventId,
      name,
      kind: 'TICKET',
      price: '10',
      currency: 'EUR',
      sharedCapacityId: capacity.id,
    })),
  });
}

/**
 * What a REST event page adds for its tickets (`src/tickets/summary.ts`), whatever its size: its ticket
 * types, then where it has any their shared capacities, the types sharing them (none beyond the page's:
 * `Places.count` asks anyway) and the places held.
 */
const TICKET_STATEMENTS = 5;
afterAll(() => h.close());

const postgres = () => h.config.databaseProvider === 'postgresql';

async function countQueries(run: () => Promise<unknown>): Promise<number> {
  h.queries.length = 0;
  await run();
  return h.queries.length;
}

const LIST_QUERY = `query($perPage: Int) { events(perPage: $perPage) {
  pageInfo { total }
  items { id: databaseId title image { url } author { name } venues { name image { url } } organizers { name } categories { name count parent { name } } tags { name count } }
} }`;

describe('SQL statements per list request', () => {
  it('REST /events: the same for per_page 10 and 50', async () => {
    const ten = await countQueries(() => h.http.get(`${API}/events?per_page=10`).expect(200));
    const fifty = await countQueries(() => h.http.get(`${API}/events?per_page=50`).expect(200));
    expect(fifty).toBe(ten);
    const page = (await h.http.get(`${API}/events?per_page=10`).expect(200)).body.events;
    expect(page.filter((event: { tickets: unknown }) => event.tickets !== null).length).toBeGreaterThan(2);
    // The count, then the page with its relations (image; venues with their images; organizers with
    // theirs; terms) in one statement on both databases; then the page's tickets.
    expect(ten).toBeLessThanOrEqual(2 + TICKET_STATEMENTS);
  });

  it('GraphQL events: the same for perPage 10 and 50', async () => {
    const run = (perPage: number) => async () => {
      const res = await h.http
        .post('/graphql')
        .send({ query: LIST_QUERY, variables: { perPage } })
        .expect(200);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.events.items).toHaveLength(perPage);
    };
    const ten = await countQueries(run(10));
    const fifty = await countQueries(run(50));
    expect(fifty).toBe(ten);
    // The count, then the page with its author and every relation family the query asks for (image,
    // venues with their images, organizers, terms with their parents) in one statement
    expect(ten).toBe(2);
  });

  it('GraphQL eventsConnection: the same for first 10 and 50, and for a later page', async () => {
    const CONNECTION = `query($first: Int, $after: String) { eventsConnection(first: $first, after: $after) {
      totalCount pageInfo { endCursor }
      edges { cursor node { databaseId title image { url } author { name } venues { name } organizers { name } categories { name } tags { name } } }
    } }`;
    let endCursor: string | null = null;
    const run =
      (first: number, after: string | null = null) =>
      async () => {
        const res = await h.http
          .post('/graphql')
          .send({ query: CONNECTION, variables: { first, after } })
          .expect(200);
        expect(res.body.errors).toBeUndefined();
        expect(res.body.data.eventsConnection.edges).toHaveLength(first);
        endCursor = res.body.data.eventsConnection.pageInfo.endCursor;
      };
    const ten = await countQueries(run(10));
    const fifty = await countQueries(run(50));
    const later = await countQueries(run(5, endCursor));
    expect(fifty).toBe(ten);
    expect(later).toBe(ten);
    expect(ten).toBe(2);
  });
});

describe('SQL statements per single event', () => {
  it('REST /events/{id} and GraphQL event: the page of one, its relation families joined', async () => {
    const rest = await countQueries(() => h.http.get(`${API}/events/2`).expect(200));
    // The event with its image, venues (with images), organizers (with theirs) and terms in one
    // statement; then its tickets (event 2 has none: its types only)
    expect(rest).toBeLessThanOrEqual(1 + 1);
    const graphql = await countQueries(async () => {
      const res = await h.http
        .post('/graphql')
        .send({
          query:
            '{ event(id: 2) { title image { url } venues { name image { url } } organizers { name } categories { name } tags { name } } }',
        })
        .expect(200);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.event.venues).toHaveLength(1);
    });
    expect(graphql).toBe(1);
  });
});

describe('SQL statements per filtered list request', () => {
  // Each filter adds at most one lookup (terms, venues, organizers, parent, venues in range), never one per
  // event; on SQLite, one more statement names the events that indexes find for the list (a search's
  // words, a venue's or an organizer's links), however many filters they answer.
  const FILTERED = [
    'categories=1,2&tags=3',
    // The password opens the protected events, which filters on venues and organizers skip otherwise.
    'venue=1,2&organizer=1,2,3&password=pw',
    'search=music%20event&featured=false',
    'geoloc=1',
    'geoloc_lat=48.86&geoloc_lng=2.35&geoloc_radius=20',
    'password=pw&include=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60',
  ];

  it.each(FILTERED)('REST /events?%s: the same for per_page 10 and 50', async (query) => {
    const run = (perPage: number) => async () => {
      const res = await h.http.get(`${API}/events?${query}&per_page=${perPage}`).expect(200);
      expect(res.body.events.length).toBeGreaterThanOrEqual(Math.min(perPage, 40));
    };
    const ten = await countQueries(run(10));
    const fifty = await countQueries(run(50));
    expect(fifty).toBe(ten);
    expect(ten).toBeLessThanOrEqual((postgres() ? 4 : 9) + TICKET_STATEMENTS);
  });

  it('GraphQL events(filter): the same for perPage 10 and 50', async () => {
    const query = `query($perPage: Int) { events(perPage: $perPage, filter: { categories: ["1"], venues: [1, 2, 3], near: { lat: 48.86, lng: 2.35 } }) {
      pageInfo { total } items { id: databaseId contentWithheld image { url } venues { name } organizers { name } categories { name } tags { name } }
    } }`;
    const run = (perPage: number) => async () => {
      const res = await h.http.post('/graphql').send({ query, variables: { perPage } }).expect(200);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.events.items).toHaveLength(perPage);
    };
    const ten = await countQueries(run(10));
    const fifty = await countQueries(run(50));
    expect(fifty).toBe(ten);
    expect(ten).toBeLessThanOrEqual(postgres() ? 5 : 11);
  });
});
