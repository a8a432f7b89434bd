import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { DateTime } from 'luxon';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent } from '../../helpers/fixtures.js';

// A frontend's standard pagination helper against the connections: Apollo Client's
// `relayStylePagination` merges `fetchMore` pages into one cached list, keyed by the filter, and the
// keyset cursors keep that list exact when events are added between two loads.

let h: Harness;
let server: Server;
let endpoint = '';

const day = (offset: number) =>
  DateTime.utc()
    .plus({ days: offset })
    .set({ hour: 10, minute: 0, second: 0 })
    .toFormat('yyyy-MM-dd HH:mm:ss');

beforeAll(async () => {
  h = await startHarness();
  for (let i = 0; i < 7; i++) await createEvent(h.db, { title: `Concert ${i}`, start: day(2 + i) });
  await createEvent(h.db, { title: 'Lecture', start: day(3) });
  server = h.app.listen(0, '127.0.0.1');
  await new Promise((done) => server.once('listening', done));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
  await h.close();
});

const PAGE = gql`
  query Concerts($filter: EventFilter, $first: Int, $after: String) {
    eventsConnection(filter: $filter, first: $first, after: $after) {
      edges {
        cursor
        node {
          id
          databaseId
          title
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

interface Page {
  eventsConnection: {
    edges: Array<{ cursor: string; node: { id: string; databaseId: number; title: string } }>;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}

const client = () =>
  new ApolloClient({
    link: new HttpLink({ uri: endpoint }),
    cache: new InMemoryCache({
      typePolicies: { Query: { fields: { eventsConnection: relayStylePagination(['filter']) } } },
    }),
  });

describe("Apollo Client's relayStylePagination", () => {
  it('fetchMore appends the next pages to one cached list, in the order of the numbered list', async () => {
    const apollo = client();
    const filter = { search: 'Concert' };
    const first = await apollo.query<Page>({ query: PAGE, variables: { filter, first: 3 } });
    let page = first.data!.eventsConnection;
    expect(page.edges).toHaveLength(3);
    // fetchMore, as a component's "load more" calls it: the next page after the last cursor.
    const watched = apollo.watchQuery<Page>({ query: PAGE, variables: { filter, first: 3 } });
    for (let loads = 0; page.pageInfo.hasNextPage && loads < 5; loads++) {
      const more = await watched.fetchMore({ variables: { after: page.pageInfo.endCursor } });
      page = more.data!.eventsConnection as Page['eventsConnection'];
    }
    expect(page.pageInfo.hasNextPage).toBe(false);
    const merged = apollo.readQuery<Page>({ query: PAGE, variables: { filter } })!.eventsConnection;
    expect(merged.edges.map((edge) => edge.node.title)).toEqual(
      [0, 1, 2, 3, 4, 5, 6].map((i) => `Concert ${i}`),
    );
    // Normalised by global id: each event is one cache entry, whatever list it came from.
    const entry = apollo.cache.identify(merged.edges[0]!.node as { __typename?: string; id: string });
    expect(entry).toBe(`Event:${merged.edges[0]!.node.id}`);
    // Another filter is another list.
    const lectures = await apollo.query<Page>({ query: PAGE, variables: { filter: { search: 'Lecture' } } });
    expect(lectures.data!.eventsConnection.edges.map((edge) => edge.node.title)).toEqual(['Lecture']);
  });

  it('an event added before the cursor between two loads is neither repeated nor skips another', async () => {
    const apollo = client();
    const filter = { search: 'Concert' };
    const first = await apollo.query<Page>({ query: PAGE, variables: { filter, first: 4 } });
    const early = await createEvent(h.db, { title: 'Concert early', start: day(1) });
    await apollo
      .watchQuery<Page>({ query: PAGE, variables: { filter, first: 4 } })
      .fetchMore({ variables: { first: 10, after: first.data!.eventsConnection.pageInfo.endCursor } });
    const merged = apollo.readQuery<Page>({ query: PAGE, variables: { filter } })!.eventsConnection;
    const titles = merged.edges.map((edge) => edge.node.title);
    expect(titles).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `Concert ${i}`));
    expect(new Set(titles).size).toBe(titles.length);
    expect(titles).not.toContain('Concert early');
    await h.db.event.delete({ where: { id: early.id } });
  });
});
