import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent, createTerm, createVenue } from '../../helpers/fixtures.js';
import { type Users, withRoles } from '../../helpers/users.js';
import { graphqlClient } from '../../helpers/graphql.js';

// `Event.content(password:)`: a password-protected event's content, decided by the field's own
// argument (and the viewer's right to edit), never by the request's other arguments — so a normalised
// client cache, which keys an object by type and id and a field by its arguments, never shows the
// withheld content where the unlocked one was read, or the other way round.

const PASSWORD = 'open-sesame';
const SECRET = '<p>Members only</p>';
let h: Harness;
let server: Server;
let endpoint = '';
let eventId = 0;
let users: Users;

beforeAll(async () => {
  h = await startHarness();
  const venue = await createVenue(h.db, { name: 'Crypt' });
  const category = await createTerm(h.db, 'tribe_events_cat', 'Secret Society');
  users = await withRoles(h);
  const event = await createEvent(h.db, {
    title: 'Protected Gala',
    venueIds: [venue.id],
    termIds: [category.id],
    fields: { password: PASSWORD, description: SECRET, authorId: users.editor.id },
  });
  eventId = event.id;
  server = h.app.listen(0, '127.0.0.1');
  await new Promise((done) => server.once('listening', done));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
  await h.close();
});

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
// `gql` is Apollo's tag here.
const gql$ = graphqlClient(() => h, { status: 200 });

describe('Event.content', () => {
  it('is withheld without its password and opened by it, in lists and single reads', async () => {
    const list = await gql$(
      `{ events(filter: { include: [${eventId}] }) { items {
          locked: content { withheld description venues { name } categories { name } }
          open: content(password: "${PASSWORD}") { withheld description venues { name } categories { name } }
          wrong: content(password: "nope") { withheld description }
      } } }`,
    );
    expect(list.errors).toBeUndefined();
    const [item] = list.data!.events.items;
    expect(item.locked).toEqual({ withheld: true, description: '', venues: [], categories: [] });
    expect(item.wrong).toEqual({ withheld: true, description: '' });
    expect(item.open).toEqual({
      withheld: false,
      description: SECRET,
      venues: [{ name: 'Crypt' }],
      categories: [{ name: 'Secret Society' }],
    });
    const single = await gql$(
      `{ event(id: ${eventId}, password: "${PASSWORD}") { content(password: "${PASSWORD}") { description } } }`,
    );
    expect(single.data!.event.content.description).toBe(SECRET);
  });

  it("decides by its own argument alone: the request's password does not open it", async () => {
    const body = await gql$(
      `{ events(password: "${PASSWORD}", filter: { include: [${eventId}] }) { items {
          description contentWithheld content { withheld description }
      } } }`,
    );
    const [item] = body.data!.events.items;
    // The deprecated fields follow the request's password; `content` does not.
    expect(item).toEqual({
      description: SECRET,
      contentWithheld: false,
      content: { withheld: true, description: '' },
    });
  });

  it('is open to whoever may edit the event, without a password', async () => {
    const body = await gql$(
      `{ events(filter: { include: [${eventId}] }) { items { content { withheld description } } } }`,
      {},
      users.editor,
    );
    expect(body.data!.events.items[0].content).toEqual({ withheld: false, description: SECRET });
  });

  it('costs no SQL statement of its own: it joins the event query', async () => {
    const count = async (selection: string) => {
      h.queries.length = 0;
      await gql$(`{ events(perPage: 10) { items { id: databaseId ${selection} } } }`);
      return h.queries.length;
    };
    for (let i = 0; i < 12; i++) await createEvent(h.db, { title: `Filler ${i}` });
    const plain = await count('venues { name } categories { name }');
    const viaContent = await count('content { venues { name } categories { name } }');
    expect(viaContent).toBe(plain);
  });
});

describe('Apollo Client InMemoryCache', () => {
  const LIST = gql`
    query ProtectedInList($id: Int!) {
      events(filter: { include: [$id] }) {
        items {
          id: databaseId
          title
          content {
            withheld
            description
          }
        }
      }
    }
  `;
  const SINGLE = gql`
    query ProtectedUnlocked($id: Int!, $password: String!) {
      event(id: $id, password: $password) {
        id: databaseId
        title
        content(password: $password) {
          withheld
          description
        }
      }
    }
  `;
  // The same two reads through the request-wide password (deprecated fields): `Event:<id>` is one
  // cache entry, so the last answer overwrites the other — the mix-up `content(password:)` prevents.
  const LIST_DEPRECATED = gql`
    query ProtectedInListDeprecated($id: Int!) {
      events(filter: { include: [$id] }) {
        items {
          id: databaseId
          description
          contentWithheld
        }
      }
    }
  `;
  const SINGLE_DEPRECATED = gql`
    query ProtectedUnlockedDeprecated($id: Int!, $password: String!) {
      event(id: $id, password: $password) {
        id: databaseId
        description
        contentWithheld
      }
    }
  `;

  const newClient = () =>
    new ApolloClient({ cache: new InMemoryCache(), link: new HttpLink({ uri: endpoint }) });

  async function readBoth(order: 'list first' | 'single first', list = LIST, single = SINGLE) {
    const client = newClient();
    const variables = { id: eventId, password: PASSWORD };
    const reads = [
      () => client.query({ query: list, variables: { id: eventId } }),
      () => client.query({ query: single, variables }),
    ];
    if (order === 'single first') reads.reverse();
    for (const read of reads) await read();
    return {
      list: client.readQuery<any>({ query: list, variables: { id: eventId } }),
      single: client.readQuery<any>({ query: single, variables }),
    };
  }

  it.each(['list first', 'single first'] as const)(
    'keeps the withheld and the unlocked content apart (%s)',
    async (order) => {
      const cached = await readBoth(order);
      expect(cached.list.events.items[0].content).toMatchObject({ withheld: true, description: '' });
      expect(cached.single.event.content).toMatchObject({ withheld: false, description: SECRET });
    },
  );

  it('mixes them through the deprecated request-wide password (why `content` exists)', async () => {
    const cached = await readBoth('single first', LIST_DEPRECATED, SINGLE_DEPRECATED);
    // The list answered "withheld" last, and the single read now shows it too.
    expect(cached.single.event).toMatchObject({ contentWithheld: true, description: '' });
  });
});
