import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness } from '../../../helpers/harness.js';
import { createEvent } from '../../../helpers/fixtures.js';
import { type Users, startWithRoles } from '../../../helpers/users.js';

// With the response cache on, every answer the cache does not hold (another page size, the other API, a
// viewer's own list) counts its list's total once, by the index, and a committed write is counted at
// once: a total is never kept apart from the answer that shows it.

let h: Harness;
let users: Users;

beforeAll(async () => {
  ({ h, users } = await startWithRoles({ CALENDAR_CACHE: 'on' }));
  for (let i = 0; i < 12; i++) await createEvent(h.db, i === 0 ? { fields: { password: 'pw' } } : {});
});
afterAll(() => h.close());

const soon = new Date(Date.now() + 3 * 86400_000).toISOString().slice(0, 10);

/** The list's total and the statements counting it (a COUNT, or a sum of the list counts). */
async function list(path: string, auth = false) {
  h.queries.length = 0;
  const call = h.http.get(`${API}/events?${path}`);
  const res = await (auth ? call.auth(users.administrator.login, users.administrator.password) : call).expect(
    200,
  );
  return {
    total: res.body.total as number,
    counts: h.queries.filter((sql) => /COUNT\(|"EventListCount"/i.test(sql)).length,
  };
}

describe('list totals', () => {
  it('are counted once by each answer computed, for every page size and both APIs, and after a write', async () => {
    expect(await list('per_page=10')).toEqual({ total: 12, counts: 1 });
    expect(await list('per_page=10')).toEqual({ total: 12, counts: 0 });
    expect(await list('per_page=5')).toEqual({ total: 12, counts: 1 });
    expect(await list('per_page=5&page=2')).toEqual({ total: 12, counts: 1 });
    h.queries.length = 0;
    const graphql = await h.http
      .post('/graphql')
      .send({ query: '{ events(perPage: 3) { pageInfo { total } } }' })
      .expect(200);
    expect(graphql.body.data.events.pageInfo.total).toBe(12);
    expect(h.queries.filter((sql) => /COUNT\(|"EventListCount"/i.test(sql))).toHaveLength(1);

    await h.http
      .post(`${API}/events`)
      .auth(users.administrator.login, users.administrator.password)
      .send({ title: 'New', start_date: `${soon} 10:00:00`, end_date: `${soon} 11:00:00` })
      .expect(201);
    expect(await list('per_page=4')).toEqual({ total: 13, counts: 1 });
    expect(await list('per_page=10')).toEqual({ total: 13, counts: 1 });
  });

  it('are each viewer’s own, and counted for every answer holding a password', async () => {
    const anonymous = await list('per_page=8&status=publish');
    const own = await list('per_page=8&status=publish,draft', true);
    expect(own.counts).toBe(1);
    expect(own.total).toBeGreaterThanOrEqual(anonymous.total);
    expect((await list('per_page=9&password=pw')).counts).toBe(1);
    expect((await list('per_page=9&password=pw')).counts).toBe(1);
  });
});
