import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent, createEventsInBulk } from '../../helpers/fixtures.js';
import { MAX_NAMED_EVENTS, conditionsNow, namedIds } from '../../../src/core/db/queries/list-conditions.js';
import {
  EVENT_SEARCH_FIELDS,
  eventSearchCondition,
  searchWhere,
  trigramIndexable,
} from '../../../src/core/db/queries/text-search.js';

// `search` reads a trigram index instead of every event's texts (#29, item 4): SQLite's FTS5 table
// `EventSearch` (kept by triggers), PostgreSQL's pg_trgm GIN indexes. The answers stay those of the
// plain LIKE / ILIKE on the event's columns, whatever the writes since (on SQLite, but for the two
// characters whose case the index folds to ASCII).

let h: Harness;
let postgres: boolean;

beforeAll(async () => {
  h = await startHarness();
  postgres = h.config.databaseProvider === 'postgresql';
  const texts = [
    { title: 'Xylophone Night', excerpt: '', description: 'Mallets and more' },
    { title: 'Café Ébène', excerpt: 'Jazz at the café', description: '' },
    { title: 'CAFÉ CONCERT', excerpt: '', description: 'xylophone solo' },
    { title: 'Quiet evening', excerpt: '50% off, a_z guide', description: 'jazz night' },
    { title: 'Plain', excerpt: 'night\nowl', description: 'Jazz\ttrio' },
  ];
  for (const [i, fields] of texts.entries())
    await createEvent(h.db, { start: `2033-06-0${i + 1} 18:00:00`, fields });
});
afterAll(() => h.close());

async function searchIds(search: string): Promise<number[]> {
  const res = await h.http
    .get(`${API}/events`)
    .query({ search, start_date: '2033-06-01', end_date: '2033-06-30', per_page: 50 })
    .expect(200);
  return (res.body.events as Array<{ id: number }>).map((event) => event.id).sort((a, b) => a - b);
}

/** The events the index names for a search (null: it cannot narrow it). */
async function indexMatches(search: string): Promise<number[] | null> {
  const condition = eventSearchCondition(search, h.config.databaseProvider);
  if (!condition.indexed) return null;
  const [named] = await conditionsNow(h.db, [condition]);
  const ids = (named as { id?: { in: number[] } }).id?.in;
  return ids ? [...new Set(ids)] : null;
}

async function whereIds(where: object): Promise<number[]> {
  const rows = await h.db.event.findMany({ where, select: { id: true }, orderBy: { id: 'asc' } });
  return rows.map((row) => row.id);
}

describe('search through the trigram index', () => {
  it('finds exactly what the plain LIKE on the columns finds, term by term', async () => {
    const provider = h.config.databaseProvider;
    const searches = [
      'xylophone',
      'XYLO night',
      'café',
      'CAFÉ',
      'ébène',
      '"jazz night"',
      'jazz -café',
      '-xylophone',
      'a_z',
      '50%',
      'ja',
      'owl',
      'zzyzx',
    ];
    for (const search of searches) {
      const plain = await whereIds(searchWhere(search, EVENT_SEARCH_FIELDS, provider));
      const read = await conditionsNow(h.db, [eventSearchCondition(search, provider)]);
      expect(await whereIds({ AND: read }), search).toEqual(plain);
    }
    // The index is asked on SQLite, and finds the events with the term (it is no empty table).
    const matches = await indexMatches('xylophone');
    expect(matches?.length ?? null).toBe(postgres ? null : 2);
  });

  it('folds in the texts the two characters whose case folds to ASCII, on SQLite', async () => {
    // The index's phrase match folds the Kelvin sign to "k" and the long s to "s", as PostgreSQL's
    // ILIKE lowers the Kelvin sign (docs/reference/filters.md); every other text is LIKE's answer.
    const kelvin = await createEvent(h.db, {
      title: '\u212aelvin Lecture',
      start: '2033-06-21 10:00:00',
      fields: { description: '', excerpt: '' },
    });
    const street = await createEvent(h.db, {
      title: 'Long \u017ftreet party',
      start: '2033-06-22 10:00:00',
      fields: { description: '', excerpt: '' },
    });
    if (!postgres) {
      expect(await searchIds('kelvin')).toEqual([kelvin.id]);
      expect(await searchIds('street party')).toEqual([street.id]);
    }
    // A term the phrase cannot carry (not ASCII) is LIKE's, on both databases: no fold past ASCII.
    expect(await searchIds('\u212aelvin')).toEqual([kelvin.id]);
    await h.db.event.deleteMany({ where: { id: { in: [kelvin.id, street.id] } } });
  });

  it('follows every write of the texts: insert, update, delete', async () => {
    const event = await createEvent(h.db, {
      title: 'Theremin Workshop',
      start: '2033-06-20 10:00:00',
      fields: { description: '', excerpt: '' },
    });
    expect(await searchIds('theremin')).toEqual([event.id]);

    await h.db.event.update({ where: { id: event.id }, data: { title: 'Ondes Workshop' } });
    expect(await searchIds('theremin')).toEqual([]);
    expect(await searchIds('ondes')).toEqual([event.id]);

    await h.db.event.update({ where: { id: event.id }, data: { description: 'with a theremin' } });
    expect(await searchIds('theremin workshop')).toEqual([event.id]);

    // A write that leaves the texts alone keeps the event's entry as it was.
    await h.db.event.update({ where: { id: event.id }, data: { featured: true } });
    expect(await searchIds('ondes theremin')).toEqual([event.id]);

    await h.db.event.delete({ where: { id: event.id } });
    expect(await searchIds('theremin')).toEqual([]);
    expect(await searchIds('ondes')).toEqual([]);
  });

  it('asks the index on SQLite, the columns on PostgreSQL', async () => {
    h.queries.length = 0;
    expect(await searchIds('xylophone ni')).toHaveLength(1);
    const statements = h.queries.filter((sql) => /LIKE/.test(sql));
    if (postgres) {
      expect(statements.length).toBeGreaterThan(0);
      for (const sql of statements) expect(sql).toMatch(/"title" ILIKE/);
      return;
    }
    // One statement asks the index for the 3-character term (an ASCII phrase: `MATCH`); the list's own
    // statements name the events it found, and test on those rows the 2-character term the index
    // cannot answer.
    const lookups = h.queries.filter((sql) => /FROM "EventSearch"/.test(sql));
    expect(lookups).toEqual([expect.stringMatching(/WHERE "EventSearch" MATCH \? LIMIT \d+$/)]);
    const lists = statements;
    expect(lists.length).toBeGreaterThan(0);
    for (const sql of lists) {
      expect(sql).toMatch(/`Event`\.`id` IN \(\?,\?\)/); // the two events with "xylophone"
      expect(sql).toMatch(/`Event`\.`title` LIKE/);
      expect(sql).not.toMatch(/EventSearch/);
    }
  });

  it('reads the trigram index in the plan of a search', async () => {
    if (postgres) {
      const plan = await h.db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
        const rows = await tx.$queryRawUnsafe<Array<{ 'QUERY PLAN': string }>>(
          `EXPLAIN SELECT "id" FROM "Event" WHERE "title" ILIKE $1 OR "excerpt" ILIKE $1 OR "description" ILIKE $1`,
          '%xylophone%',
        );
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      });
      for (const column of EVENT_SEARCH_FIELDS)
        expect(plan).toMatch(new RegExp(`Bitmap Index Scan on "?Event_${column}_trgm_idx`));
      return;
    }
    // An ASCII term is a phrase MATCH (`M`), a non-ASCII one the LIKE on each text (`L<column>`), both
    // answered from the index; a scan of its table would be plain `0:`.
    h.queries.length = 0;
    await indexMatches('xylophone ébène');
    const [lookup] = h.queries;
    const rows = await h.db.$queryRawUnsafe<Array<{ detail: string }>>(
      `EXPLAIN QUERY PLAN ${lookup}`,
      '"xylophone"',
      ...Array<string>(3).fill('%'),
    );
    const plan = rows.map((row) => row.detail).join('\n');
    expect(plan).toMatch(/SCAN EventSearch VIRTUAL TABLE INDEX 0:M/);
    for (const column of [0, 1, 2])
      expect(plan).toContain(`SCAN EventSearch VIRTUAL TABLE INDEX 0:L${column}`);
    expect(plan).not.toMatch(/SCAN Event\b|SEARCH Event\b/);
  });

  it('names thousands of events found (one of a dozen statement texts), then tests the LIKE on the rows', async () => {
    // More than SQLite's old 999 values a statement, which Prisma assumed before it was told the limit.
    await createEventsInBulk(h.db, 1500, 'Marimba', '2033-07-01 10:00:00');
    const found = await indexMatches('marimba');
    if (!postgres) expect(found).toHaveLength(1500);
    h.queries.length = 0;
    const named = await h.http
      .get(`${API}/events`)
      .query({ search: 'marimba', start_date: '2033-07-01', end_date: '2033-07-01' })
      .expect(200);
    expect(named.headers['x-tec-total']).toBe('1500');
    if (!postgres) {
      const lists = h.queries.filter(
        (sql) => /FROM `main`\.`Event`/.test(sql) && /`Event`\.`id` IN/.test(sql),
      );
      expect(lists.length).toBeGreaterThan(0);
      // 1,500 ids named as 1,536 (the last repeated): lists of any length share a few statement texts.
      for (const sql of lists) expect(sql.match(/\?/g)!.length).toBeGreaterThanOrEqual(1536);
    }
    expect(namedIds([])).toEqual([]);
    expect(namedIds([7])).toEqual([7]);
    expect(namedIds([1, 2, 3])).toEqual([1, 2, 3]);
    const lengths = (n: number) => namedIds(Array.from({ length: n }, (_, i) => i)).length;
    expect([15, 17, 1024, 1025, 1500, 4171, 8192].map(lengths)).toEqual([
      15, 18, 1024, 1152, 1536, 4608, 8192,
    ]);
    // ~8 texts a doubling: every length from 1,025 to 2,048 is one of 8.
    expect(new Set(Array.from({ length: 1024 }, (_, i) => lengths(1025 + i))).size).toBe(8);

    await createEventsInBulk(h.db, MAX_NAMED_EVENTS + 1 - 1500, 'Marimba', '2033-07-01 10:00:00');
    expect(await indexMatches('marimba')).toBeNull();
    const res = await h.http
      .get(`${API}/events`)
      .query({ search: 'marimba', start_date: '2033-07-01', end_date: '2033-07-01' })
      .expect(200);
    expect(res.headers['x-tec-total']).toBe(String(MAX_NAMED_EVENTS + 1));
  });

  it('leaves to the plain LIKE the terms without 3 characters between wildcards', () => {
    expect(['jaz', 'café', 'a%bcd', '“no”'].map(trigramIndexable)).toEqual([true, true, true, true]);
    expect(['ja', 'é', 'ab%cd', 'a_b_c', '%%%'].map(trigramIndexable)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
