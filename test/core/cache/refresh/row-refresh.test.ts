import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CacheEvent } from '../../../../src/core/cache/response-cache.js';
import type { Dependencies } from '../../../../src/core/cache/dependencies.js';
import { type RowReader, rowRewrite, shownRows } from '../../../../src/core/rest/shown/shown-rows.js';
import { API, type Harness, startHarness } from '../../../helpers/harness.js';
import { cachedAndFresh } from '../../../helpers/cached-app.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../../helpers/fixtures.js';
import { type Users, withRoles } from '../../../helpers/users.js';

// A write that changes an event a cached REST list shows as a row, and not the list around it (who is
// in it, their order, its total), leaves the list cached: its next read renders that row again and
// puts it in place (`X-Cache: refresh`) instead of recomputing the page. Every answer read again is
// what an app without a cache answers, byte for byte, validators and totals included.

let h: Harness;
let cached: ReturnType<typeof supertest>;
let users: Users;
let events: CacheEvent[];
let readBoth: ReturnType<typeof cachedAndFresh>['readBoth'];
const ids: number[] = [];
let category: number;

const YEAR = 2034;
const LIST = `${API}/events?start_date=${YEAR}-01-01&end_date=${YEAR}-12-31&per_page=4`;

beforeAll(async () => {
  h = await startHarness();
  ({ cached, events, readBoth } = cachedAndFresh(h));
  users = await withRoles(h);
  category = (await createTerm(h.db, 'tribe_events_cat', `Folk ${YEAR}`)).id;
  for (let day = 1; day <= 8; day++)
    ids.push(
      (
        await createEvent(h.db, {
          title: `Evening ${day}`,
          start: `${YEAR}-02-${String(day).padStart(2, '0')} 19:00:00`,
          termIds: [category],
        })
      ).id,
    );
});
afterAll(() => h.close());

/** Page `n` from the cached app, checked against the app without a cache; how the cache answered. */
async function page(n: number, accept: 'gzip' | 'identity' = 'gzip'): Promise<string> {
  const answer = await readBoth(`${LIST}&page=${n}`, accept);
  return answer.headers['x-cache'] as string;
}

const admin = () => [users.administrator.login, users.administrator.password] as const;

const restEdit = (id: number, body: object) =>
  cached
    .post(`${API}/events/${id}`)
    .auth(...admin())
    .send(body)
    .expect(200);

async function graphqlEdit(id: number, input: object): Promise<void> {
  const res = await cached
    .post('/graphql')
    .auth(...admin())
    .send({
      query: 'mutation($input: UpdateEventInput!) { updateEvent(id: ' + id + ', input: $input) { id } }',
      variables: { input },
    });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
}

const refreshes = () => events.filter((event) => event === 'refreshed').length;

describe('an event row rendered again in place', () => {
  it('renders the rows a write changed, through either API, for clients with and without gzip', async () => {
    expect([await page(1), await page(2)]).toEqual(['miss', 'miss']);
    expect([await page(1), await page(2)]).toEqual(['hit', 'hit']);

    events.length = 0;
    await restEdit(ids[1]!, { title: 'Evening two, renamed' });
    expect([await page(1), await page(2)]).toEqual(['refresh', 'hit']);
    expect([await page(1), await page(2)]).toEqual(['hit', 'hit']);
    expect(refreshes()).toBe(1);
    expect(events).not.toContain('dropped');

    await graphqlEdit(ids[5]!, { description: '<p>Bring a lantern.</p>' });
    expect([await page(1, 'identity'), await page(2, 'identity')]).toEqual(['hit', 'refresh']);
    // Refreshed for a client without gzip, the body stays plain a while (it is coded again later).
    expect([await page(1, 'identity'), await page(2, 'identity')]).toEqual(['hit', 'hit']);
  });

  it('renders several rows of one page in one refresh, with the counts that moved meanwhile', async () => {
    await page(1);
    events.length = 0;
    await restEdit(ids[0]!, { title: 'Evening one, renamed' });
    await graphqlEdit(ids[3]!, { title: 'Evening four, renamed' });
    // A new event in the category, after both pages: the category's count on every row moves.
    await cached
      .post(`${API}/events`)
      .auth(...admin())
      .send({
        title: 'Late addition',
        status: 'publish',
        start_date: `${YEAR - 1}-12-01 10:00:00`,
        end_date: `${YEAR - 1}-12-01 11:00:00`,
        categories: [category],
      })
      .expect(201);
    expect(await page(1)).toBe('refresh');
    expect(refreshes()).toBe(1);
    expect(await page(1)).toBe('hit');
  });

  it('renders a row showing another venue or organizer: an event list depends on every one', async () => {
    await page(1);
    await page(2);
    events.length = 0;
    const venue = await createVenue(h.db, { name: `Barn ${YEAR}` });
    const organizer = await createOrganizer(h.db);
    await restEdit(ids[1]!, { venue: venue.id });
    await graphqlEdit(ids[6]!, { organizers: [{ id: organizer.id }] });
    expect([await page(1), await page(2)]).toEqual(['refresh', 'refresh']);
    expect(events).not.toContain('dropped');
    expect([await page(1), await page(2)]).toEqual(['hit', 'hit']);
  });

  it('reads a row once for every list one write made stale, and again after the next write', async () => {
    const window = `${API}/events?start_date=${YEAR}-01-01&end_date=${YEAR}-12-31`;
    const lists = [
      `${LIST}&page=1`,
      `${window}&per_page=8`,
      `${window}&per_page=6&categories=${category}`,
      `${window}&per_page=5`,
    ];
    const readCached = async (path: string) =>
      (await cached.get(path).set('Accept-Encoding', 'gzip').expect(200)).headers['x-cache'] as string;
    for (const list of lists) await readCached(list);
    const edited = ids[2]!;
    for (const title of ['Evening three, renamed', 'Evening three, renamed again']) {
      await restEdit(edited, { title });
      h.queries.length = 0;
      expect(await readCached(lists[0]!)).toBe('refresh');
      expect(h.queries.length).toBeGreaterThan(0);
      h.queries.length = 0;
      for (const list of lists.slice(1)) expect(await readCached(list)).toBe('refresh');
      expect(h.queries).toEqual([]);
      for (const list of lists) expect((await readBoth(list)).text).toContain(title);
    }
  });

  it('recomputes a page whose rows a write moved, or whose row shows a record it did not show', async () => {
    await page(1);
    await page(2);
    // The first event of page 2 moves before page 1's last row: both pages change their rows.
    await restEdit(ids[4]!, { start_date: `${YEAR}-02-02 20:00:00`, end_date: `${YEAR}-02-02 21:00:00` });
    expect([await page(1), await page(2)]).toEqual(['miss', 'miss']);
    // A tag linked: the row shows a term the page did not show (its count too).
    const tag = await createTerm(h.db, 'post_tag', `Acoustic ${YEAR}`);
    await restEdit(ids[2]!, { tags: [tag.id] });
    expect(await page(1)).toBe('miss');
  });
});

describe('the rows of a list body', () => {
  const row = (id: number, title: string, extra: object = {}) => ({
    id,
    title,
    start_date: 'x',
    all_day: false,
    ...extra,
  });
  const body = (rows: object[]) =>
    Buffer.from(JSON.stringify({ events: rows, rest_url: 'https://example.com/', total: 9, total_pages: 3 }));
  const depends: Dependencies = { records: ['venue:3'], kinds: [], windows: [], rows: [1, 2] };
  /** The rows `read` returns for `events`, fitted to an answer with these dependencies. */
  const render = async (read: RowReader, events: number[], dependencies: Dependencies) => {
    const rewrite = rowRewrite(read, 'rows', null);
    return rewrite.fit(await rewrite.read(events), events, dependencies);
  };

  it('finds the rows an answer shows, and puts rendered rows where they were, the rest byte for byte', async () => {
    const before = body([row(1, 'A “quoted” \u2028 title'), row(2, 'B')]);
    expect(shownRows(JSON.parse(before.toString()))).toEqual([1, 2]);
    const apply = await render(async () => [row(2, 'B, renamed')], [2], depends);
    expect(apply?.(before)?.toString()).toBe(
      body([row(1, 'A “quoted” \u2028 title'), row(2, 'B, renamed')]).toString(),
    );
  });

  it('refuses rows it cannot render in place', async () => {
    const before = body([row(1, 'A'), row(2, 'B')]);
    // Gone from the viewer's list.
    expect(await render(async () => [], [2], depends)).toBeNull();
    // The route refused.
    expect(await render(async () => null, [2], depends)).toBeNull();
    // Showing a venue the answer does not depend on; one it does is fine.
    const atVenue = (venue: number) => row(2, 'B', { venue: { id: venue, venue: 'Hall' } });
    expect(await render(async () => [atVenue(4)], [2], depends)).toBeNull();
    expect(await render(async () => [atVenue(3)], [2], depends)).not.toBeNull();
    // Any venue, where the answer depends on every one (an event list does).
    expect(await render(async () => [atVenue(4)], [2], { ...depends, kinds: ['venue'] })).not.toBeNull();
    // Showing a count the answer cannot rewrite.
    const counted = row(2, 'B', {
      categories: [{ taxonomy: 'tribe_events_cat', count: 4, filter: 'raw', id: 7 }],
    });
    expect(await render(async () => [counted], [2], depends)).toBeNull();
    expect(
      await render(async () => [counted], [2], {
        ...depends,
        records: ['term:7'],
        counts: [7],
      }),
    ).not.toBeNull();
    // A body that no longer shows the row.
    const apply = await render(async () => [row(5, 'E')], [5], { ...depends, rows: [5] });
    expect(apply?.(before)).toBeNull();
  });
});
