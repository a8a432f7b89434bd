import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, startHarness } from './helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from './helpers/fixtures.js';

// Lists must cost a constant number of SQL statements whatever the page size (no N+1).

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  const venues = await Promise.all([1, 2, 3].map(() => createVenue(h.db)));
  const organizers = await Promise.all([1, 2, 3].map(() => createOrganizer(h.db)));
  const terms = [
    await createTerm(h.db, 'tribe_events_cat'),
    await createTerm(h.db, 'tribe_events_cat'),
    await createTerm(h.db, 'post_tag'),
  ];
  const media = await h.db.media.create({ data: { url: 'http://example.com/a.jpg', width: 10, height: 10 } });
  for (let i = 0; i < 60; i++) {
    await createEvent(h.db, {
      venueIds: [venues[i % 3]!.id],
      organizerIds: [organizers[i % 3]!.id, organizers[(i + 1) % 3]!.id],
      termIds: terms.map((term) => term.id),
      fields: { imageId: media.id },
    });
  }
});
afterAll(() => h.close());

async function countQueries(run: () => Promise<unknown>): Promise<number> {
  h.queries.length = 0;
  await run();
  return h.queries.length;
}

const LIST_QUERY = `query($perPage: Int) { events(perPage: $perPage) {
  pageInfo { total }
  items { id title image { url } author { name } venues { name image { url } } organizers { name } categories { name count parent { name } } tags { name count } }
} }`;

describe('SQL statements per list request', () => {
  it('REST /events: the same for per_page 10 and 50', async () => {
    const ten = await countQueries(() => h.http.get(`${API}/events?per_page=10`).expect(200));
    const fifty = await countQueries(() => h.http.get(`${API}/events?per_page=50`).expect(200));
    expect(fifty).toBe(ten);
    // count, page, then one per relation level (links, records, images) and one grouped term count
    expect(ten).toBeLessThanOrEqual(12);
  });

  it('GraphQL events: the same for perPage 10 and 50', async () => {
    const run = (perPage: number) => async () => {
      const res = await h.http.post('/graphql').send({ query: LIST_QUERY, variables: { perPage } }).expect(200);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.events.items).toHaveLength(perPage);
    };
    const ten = await countQueries(run(10));
    const fifty = await countQueries(run(50));
    expect(fifty).toBe(ten);
    // one per relation level the query asks for (13 here), never one per event
    expect(ten).toBeLessThanOrEqual(14);
  });
});
