import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedAndFresh } from '../../helpers/cached-app.js';
import { createEvent } from '../../helpers/fixtures.js';
import { dataOf, graphqlClient } from '../../helpers/graphql.js';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { type Credentials, type Users, basicAuth, withRoles } from '../../helpers/users.js';
import { createType } from '../tickets-setup.js';

// The events list's `ticketed` filter, on both APIs: events with a ticket type on sale now (true), or
// without one (false) — a type whose sales are over or not yet open does not count.

let h: Harness;
let users: Users;
const gql = graphqlClient(() => h);
const MONTH = 'start_date=2031-05-01&end_date=2031-05-31';

beforeAll(async () => {
  h = await startHarness();
  users = await withRoles(h);
  const selling = await createEvent(h.db, { title: 'Selling', start: '2031-05-10 10:00:00' });
  const over = await createEvent(h.db, { title: 'Over', start: '2031-05-11 10:00:00' });
  await createEvent(h.db, { title: 'Plain', start: '2031-05-12 10:00:00' });
  await createType(h, users.editor, selling.id, { capacity: 5 });
  await createType(h, users.editor, over.id, { salesEnd: '2020-01-01 00:00:00' });
});
afterAll(() => h?.close());

const restTitles = async (ticketed: string) =>
  (await h.http.get(`${API}/events?${MONTH}&ticketed=${ticketed}`).expect(200)).body.events.map(
    (event: { title: string }) => event.title,
  );

const graphqlTitles = async (ticketed: boolean) =>
  dataOf(
    await gql(
      `query ($ticketed: Boolean) {
      events(filter: { ticketed: $ticketed, startDate: "2031-05-01", endDate: "2031-05-31" }) { items { title } }
    }`,
      { ticketed },
    ),
  ).events.items.map((event: { title: string }) => event.title);

describe('ticketed', () => {
  it('REST: 1 lists the events with a type on sale, 0 the others, and the filter is echoed', async () => {
    expect(await restTitles('1')).toEqual(['Selling']);
    expect(await restTitles('0')).toEqual(['Over', 'Plain']);
    const res = await h.http.get(`${API}/events?${MONTH}&ticketed=true`).expect(200);
    expect(res.body.rest_url).toContain('ticketed=1');
  });

  it('GraphQL: the same events', async () => {
    expect(await graphqlTitles(true)).toEqual(['Selling']);
    expect(await graphqlTitles(false)).toEqual(['Over', 'Plain']);
  });

  it('never tells whether a protected event has tickets, unless the viewer may open it', async () => {
    const locked = await createEvent(h.db, {
      title: 'Locked',
      start: '2031-06-10 10:00:00',
      fields: { password: 'secret' },
    });
    await createType(h, users.editor, locked.id, { capacity: 5 });
    const june = 'start_date=2031-06-01&end_date=2031-06-30';
    const titles = async (ticketed: string, as?: Credentials) => {
      const request = h.http.get(`${API}/events?${june}&ticketed=${ticketed}`);
      const res = await (as ? request.set('Authorization', basicAuth(as)) : request).expect(200);
      return res.body.events.map((event: { title: string }) => event.title);
    };
    // Its listing shows no ticket types: to a reader without the password neither answer may tell
    // whether it has some, so it is in neither.
    expect([await titles('1'), await titles('0')]).toEqual([[], []]);
    expect((await h.http.get(`${API}/events?${june}`).expect(200)).body.events).toHaveLength(1);
    expect([await titles('1', users.editor), await titles('0', users.editor)]).toEqual([['Locked'], []]);
    const graphql = dataOf(
      await gql(
        `{ events(filter: { ticketed: true, startDate: "2031-06-01", endDate: "2031-06-30" }) { items { title } } }`,
      ),
    );
    expect(graphql.events.items).toEqual([]);
  });

  it('is never shared by the response cache: a sales window opens and closes at any minute', async () => {
    const { cached } = cachedAndFresh(h);
    const cacheOf = async (path: string) => (await cached.get(path).expect(200)).headers['x-cache'];
    const plain = `${API}/events?${MONTH}`;
    expect([await cacheOf(plain), await cacheOf(plain)]).toEqual(['miss', 'hit']);
    for (const ticketed of ['1', '0']) {
      const filtered = `${API}/events?${MONTH}&ticketed=${ticketed}`;
      // No `X-Cache`: computed, never stored (a stored answer says `miss`, then `hit`).
      expect([await cacheOf(filtered), await cacheOf(filtered)]).toEqual([undefined, undefined]);
    }
    const ask = (query: string) => cached.post('/graphql').send({ query }).expect(200);
    const onSale =
      '{ events(filter: { startDate: "2031-05-01", endDate: "2031-05-31" }) { items { ticketTypes { onSale } } } }';
    const titles =
      '{ events(filter: { startDate: "2031-05-01", endDate: "2031-05-31" }) { items { title } } }';
    const shared = async (query: string) => [
      (await ask(query)).headers['x-cache'],
      (await ask(query)).headers['x-cache'],
    ];
    expect(await shared(titles)).toEqual(['miss', 'hit']);
    expect(await shared(onSale)).toEqual([undefined, undefined]);
  });
});
