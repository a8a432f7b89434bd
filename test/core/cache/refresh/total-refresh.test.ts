import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CacheEvent } from '../../../../src/core/cache/response-cache.js';
import { totalRewrite } from '../../../../src/core/rest/shown/shown-total.js';
import { API, type Harness, startHarness } from '../../../helpers/harness.js';
import { cachedAndFresh } from '../../../helpers/cached-app.js';
import { createEvent } from '../../../helpers/fixtures.js';
import { type Users, withRoles } from '../../../helpers/users.js';

// An event that joins or leaves a list after a full page's last row changes the page's total and
// nothing else on it: the cached page stays, and its next read rewrites the total (body and headers,
// with new validators) from one count instead of recomputing the page. A page it lands on or before,
// a page that is not full, and a page whose links the new page count changes are recomputed. Every
// answer read again is what an app without a cache answers, byte for byte.

let h: Harness;
let cached: ReturnType<typeof supertest>;
let fresh: ReturnType<typeof supertest>;
let users: Users;
let events: CacheEvent[];
let readBoth: ReturnType<typeof cachedAndFresh>['readBoth'];

const YEAR = 2032;
const LIST = `${API}/events?start_date=${YEAR}-01-01&end_date=${YEAR}-12-31&per_page=3`;

beforeAll(async () => {
  h = await startHarness();
  ({ cached, fresh, events, readBoth } = cachedAndFresh(h));
  users = await withRoles(h);
  // Twelve events, one a day from January 1st: four full pages of three.
  for (let day = 1; day <= 12; day++)
    await createEvent(h.db, { start: `${YEAR}-01-${String(day).padStart(2, '0')} 10:00:00` });
});
afterAll(() => h.close());

/** Page `n` from the cached app, checked against the app without a cache; how the cache answered it. */
async function page(n: number, accept: 'gzip' | 'identity' = 'gzip') {
  const answer = await readBoth(`${LIST}&page=${n}`, accept);
  return {
    cache: answer.headers['x-cache'] as string,
    total: answer.body.total as number,
    pages: answer.body.total_pages as number,
    next: answer.body.next_rest_url !== undefined,
  };
}

async function pages(count: number, accept: 'gzip' | 'identity' = 'gzip') {
  const answers = [];
  for (let n = 1; n <= count; n++) answers.push(await page(n, accept));
  return answers;
}

const admin = () => [users.administrator.login, users.administrator.password] as const;

async function create(start: string): Promise<number> {
  const res = await cached
    .post(`${API}/events`)
    .auth(...admin())
    .send({
      title: `Joined ${start}`,
      status: 'publish',
      start_date: start,
      end_date: start.replace('10:', '11:'),
    })
    .expect(201);
  return res.body.id as number;
}

describe('a list total rewritten in place', () => {
  it('refreshes the full pages before an event created, trashed or moved after them, and recomputes the rest', async () => {
    expect((await pages(4)).map((p) => p.cache)).toEqual(['miss', 'miss', 'miss', 'miss']);
    expect((await pages(4)).map((p) => p.cache)).toEqual(['hit', 'hit', 'hit', 'hit']);

    // After every page: the three before the last keep their rows and links; the last gets a next page.
    const june = await create(`${YEAR}-06-01 10:00:00`);
    events.length = 0;
    const afterJune = await pages(5);
    expect(afterJune.map((p) => p.cache)).toEqual(['refresh', 'refresh', 'refresh', 'miss', 'miss']);
    expect(afterJune.map((p) => [p.total, p.pages])).toEqual(Array(5).fill([13, 5]));
    expect(afterJune[3]!.next).toBe(true);
    expect(events.filter((event) => event === 'refreshed')).toHaveLength(3);
    expect((await pages(5)).map((p) => p.cache)).toEqual(['hit', 'hit', 'hit', 'hit', 'hit']);

    // After a page that is not full: it gains a row; the full ones before it keep their links.
    await create(`${YEAR}-07-01 10:00:00`);
    const afterJuly = await pages(5);
    expect(afterJuly.map((p) => p.cache)).toEqual(['refresh', 'refresh', 'refresh', 'refresh', 'miss']);
    expect(afterJuly.map((p) => [p.total, p.pages])).toEqual(Array(5).fill([14, 5]));

    // Between the rows of page 2: page 1 keeps its rows, every page from 2 on shifts.
    await create(`${YEAR}-01-05 12:00:00`);
    expect((await pages(5)).map((p) => p.cache)).toEqual(['refresh', 'miss', 'miss', 'miss', 'miss']);

    // Trashed after page 4, from page 5, which loses it. The page count stays 5: page 4 keeps its links.
    await cached
      .delete(`${API}/events/${june}`)
      .auth(...admin())
      .expect(200);
    const afterTrash = await pages(5);
    expect(afterTrash.map((p) => p.cache)).toEqual(['refresh', 'refresh', 'refresh', 'refresh', 'miss']);
    expect(afterTrash.map((p) => [p.total, p.pages])).toEqual(Array(5).fill([14, 5]));

    // Moved from page 4 to before page 1 (a date change): the rows of pages 1 to 4 shift; page 5 had
    // it before its rows and still does.
    const ids = (await fresh.get(`${LIST}&page=4`).expect(200)).body.events.map(
      (event: { id: number }) => event.id,
    );
    await cached
      .post(`${API}/events/${ids[0]}`)
      .auth(...admin())
      .send({ start_date: `${YEAR}-01-01 09:00:00`, end_date: `${YEAR}-01-01 09:30:00` })
      .expect(200);
    expect((await pages(5)).map((p) => p.cache)).toEqual(['miss', 'miss', 'miss', 'miss', 'hit']);
  });

  it('counts a searched list again with the events its search finds now, not those it found then', async () => {
    // SQLite's trigram index names a search's events in the list's statements: a total read again
    // after an event that matches joins the list must ask the index again.
    const searched = `${API}/events?start_date=${YEAR + 1}-01-01&end_date=${YEAR + 1}-12-31&per_page=2&search=marimba`;
    for (let day = 1; day <= 3; day++)
      await createEvent(h.db, { title: `Marimba ${day}`, start: `${YEAR + 1}-01-0${day} 10:00:00` });
    const read = async () => {
      const answer = await cached.get(searched).expect(200);
      const expected = await fresh.get(searched).expect(200);
      expect(answer.text).toBe(expected.text);
      return [answer.headers['x-cache'], answer.body.total];
    };
    expect(await read()).toEqual(['miss', 3]);
    expect(await read()).toEqual(['hit', 3]);
    await cached
      .post(`${API}/events`)
      .auth(...admin())
      .send({
        title: 'Marimba night',
        status: 'publish',
        start_date: `${YEAR + 1}-09-01 10:00:00`,
        end_date: `${YEAR + 1}-09-01 11:00:00`,
      })
      .expect(201);
    expect(await read()).toEqual(['refresh', 4]);
  });

  it('answers a client without gzip the same rewritten bytes', async () => {
    await pages(3, 'identity');
    await create(`${YEAR}-11-01 10:00:00`);
    const answers = await pages(3, 'identity');
    expect(answers.map((p) => p.cache)).toEqual(['refresh', 'refresh', 'refresh']);
  });
});

describe('the rewrite of a list body', () => {
  const shown = { recount: async () => 0, holds: null, page: 2, perPage: 10 };
  const headers = { 'X-TEC-Total': 'total', 'X-TEC-TotalPages': 'total_pages' };
  /** The rewrite of an answer that showed `total` and `pages`. */
  const rewriteOf = (total: number, pages: number) => totalRewrite(shown, { total, pages }, headers);
  const answer = (total: number, pages: number, title = 'A') => ({
    body: Buffer.from(
      `{"events":[{"title":${JSON.stringify(title)}}],"total":${total},"total_pages":${pages}}`,
    ),
    headers: { 'x-tec-total': String(total), 'x-tec-totalpages': String(pages), etag: '"x"' },
  });

  it('rewrites the numbers at the end of the envelope and in the headers, again and again', () => {
    const title = '"total":1,"total_pages":1}';
    const rewrite = rewriteOf(41, 5);
    const rewritten = rewrite.rewrite(answer(41, 5, title), 39);
    expect(rewritten?.body.toString()).toBe(answer(39, 4, title).body.toString());
    expect(rewritten?.headers).toEqual({ 'x-tec-total': '39', 'x-tec-totalpages': '4', etag: '"x"' });
    // A refreshed body is rewritten at the same place: the bytes before the tail never change.
    expect(rewrite.rewrite(rewritten!, 1_234)?.body.toString()).toBe(
      answer(1_234, 124, title).body.toString(),
    );
  });

  it('refuses when the page count moves at or before the page (its links change), or the tail is not the one answered', () => {
    expect(rewriteOf(20, 2).rewrite(answer(20, 2), 21)).toBeNull();
    expect(rewriteOf(21, 3).rewrite(answer(21, 3), 20)).toBeNull();
    expect(rewriteOf(30, 3).rewrite(answer(30, 3), 31)?.body.toString()).toBe(answer(31, 4).body.toString());
    // Not the numbers the answer showed, or not at the end: nothing is searched for.
    expect(rewriteOf(30, 3).rewrite(answer(29, 3), 31)).toBeNull();
    expect(
      rewriteOf(3, 1).rewrite({ body: Buffer.from('{"events":[],"total":3}'), headers: {} }, 4),
    ).toBeNull();
    const trailing = { body: Buffer.from('{"total":3,"total_pages":1,"more":1}'), headers: {} };
    expect(rewriteOf(3, 1).rewrite(trailing, 4)).toBeNull();
  });
});
