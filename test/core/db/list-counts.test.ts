import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Viewer, ANONYMOUS } from '../../../src/core/rules/permissions.js';
import type { Context } from '../../../src/core/context/scope.js';
import { type EventListFilter, resolveEventQuery } from '../../../src/events/service/events-query.js';
import { compactListCounts } from '../../../src/core/db/queries/list-counts.js';
import { countListed } from '../../../src/events/service/list-counts.js';
import { runImport } from '../../../src/imports/engine.js';
import { IcsReader } from '../../../src/imports/ics.js';
import { API, type Harness } from '../../helpers/harness.js';
import { type Users, startWithRoles } from '../../helpers/users.js';
import { importScope } from '../../imports/helpers.js';

// The list counts (`EventListCount`) against a direct COUNT: after random writes of every kind —
// REST creates, date moves, status changes, trash, deletes, series with their occurrences (one with an
// excluded first start), an import, and raw SQL the service never sees — every bucketed total of many
// windows and viewers equals the count of the list's own condition. The database's triggers keep the
// table; nothing in a writer knows of it.

let h: Harness;
let users: Users;
const NOW = new Date();
const ZONES = ['UTC', 'America/New_York', 'Pacific/Auckland'];
const STATUSES = ['publish', 'draft', 'pending', 'private'];
const postgres = () => h.config.databaseProvider === 'postgresql';

/** A reproducible sequence: the same writes on every run. */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  return {
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}
const rand = random(51);

/** A wall-clock some days from today (the default window runs from yesterday to 24 months ahead). */
function wall(days: number, hour = rand.int(24), minute = rand.pick([0, 30, 59])): string {
  return DateTime.fromJSDate(NOW, { zone: 'UTC' })
    .plus({ days })
    .set({ hour, minute, second: 0, millisecond: 0 })
    .toFormat('yyyy-MM-dd HH:mm:ss');
}
/** Days around both edges of the default window, and inside it. */
const someDay = () => rand.pick([rand.int(10) - 5, rand.int(760), 725 + rand.int(20)]);

const admin = () => users.administrator;
const post = (path: string, body: object) =>
  h.http.post(`${API}${path}`).auth(admin().login, admin().password).send(body);

const ids = async () => (await h.db.event.findMany({ select: { id: true } })).map((row) => row.id);

async function createOne(): Promise<void> {
  const start = someDay();
  await post('/events', {
    title: `Event ${rand.int(1e6)}`,
    start_date: wall(start),
    end_date: wall(start + rand.pick([0, 0, 1, 3]), 23, 59),
    timezone: rand.pick(ZONES),
    status: rand.pick(STATUSES),
    hide_from_listings: rand.chance(0.15),
  }).expect(201);
}

async function createSeries(): Promise<void> {
  const start = someDay();
  const first = wall(start, 9, 0);
  const zone = rand.pick(ZONES);
  const excluded = rand.chance(0.5);
  // An EXDATE on the first start: it holds the series without being listed (`startExcluded`).
  const exdate = `EXDATE;TZID=${zone}:${first.replace(/[-:]/g, '').replace(' ', 'T')}`;
  await post('/events', {
    title: `Series ${rand.int(1e6)}`,
    start_date: first,
    end_date: wall(start, 10, 0),
    timezone: zone,
    recurrence: [...(excluded ? [exdate] : []), `RRULE:FREQ=DAILY;INTERVAL=${1 + rand.int(20)};COUNT=6`],
  }).expect(201);
}

async function moveSeries(): Promise<void> {
  const first = await h.db.event.findFirst({ where: { recurrence: { not: null } }, select: { id: true } });
  if (!first) return;
  const start = someDay();
  await post(`/events/${first.id}?scope=all`, { start_date: wall(start, 8, 0), end_date: wall(start, 9, 0) });
}

async function moveOne(): Promise<void> {
  const id = rand.pick(await ids());
  const start = someDay();
  await post(`/events/${id}`, { start_date: wall(start), end_date: wall(start + rand.int(2), 23, 0) });
}

async function restatus(): Promise<void> {
  const id = rand.pick(await ids());
  await post(`/events/${id}`, { status: rand.pick(STATUSES), hide_from_listings: rand.chance(0.1) });
}

async function trashOrDelete(): Promise<void> {
  const id = rand.pick(await ids());
  const force = rand.chance(0.4) ? '?force=true' : '';
  await h.http.delete(`${API}/events/${id}${force}`).auth(admin().login, admin().password);
}

async function importFeed(): Promise<void> {
  const start = DateTime.fromJSDate(NOW, { zone: 'UTC' }).plus({ days: someDay() });
  const stamp = (at: DateTime) => at.toFormat("yyyyMMdd'T'HHmmss'Z'");
  const uid = rand.int(1e6);
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    ...[0, 1, 2].flatMap((n) => [
      'BEGIN:VEVENT',
      `UID:import-${uid}-${n}@example.org`,
      `DTSTART:${stamp(start.plus({ days: n * 3 }))}`,
      `DTEND:${stamp(start.plus({ days: n * 3, hours: 26 }))}`,
      ...(n === 2 ? ['RRULE:FREQ=WEEKLY;COUNT=4'] : []),
      `SUMMARY:Imported ${uid} ${n}`,
      'END:VEVENT',
    ]),
    'END:VCALENDAR',
  ];
  const summary = await runImport(
    importScope(h),
    new IcsReader(`feed-${uid}.ics`, lines.join('\r\n'), { siteTimezone: 'UTC' }),
  );
  expect(summary.failed).toBe(0);
}

/** Writes the service never sees: bulk updates and inserts in SQL, several events a statement. */
async function rawWrites(): Promise<void> {
  const all = await ids();
  const some = all.filter(() => rand.chance(0.2));
  if (!some.length) return;
  const list = some.join(', ');
  const days = rand.int(40) - 20;
  const t = (column: string) => `"${column}"`;
  switch (rand.int(4)) {
    case 0: {
      // Moves some events by whole days, in their wall-clocks.
      const shifted = (column: string) =>
        postgres()
          ? `to_char(${t(column)}::timestamp + interval '${days} days', 'YYYY-MM-DD HH24:MI:SS')`
          : `strftime('%Y-%m-%d %H:%M:%S', ${t(column)}, '${days} days')`;
      await h.db.$executeRawUnsafe(
        `UPDATE "Event" SET "localStart" = ${shifted('localStart')}, "localEnd" = ${shifted('localEnd')} WHERE "id" IN (${list})`,
      );
      break;
    }
    case 1:
      await h.db.$executeRawUnsafe(
        `UPDATE "Event" SET "hideFromListings" = NOT "hideFromListings" WHERE "id" IN (${list})`,
      );
      break;
    case 2:
      await h.db.event.updateMany({ where: { id: { in: some } }, data: { status: rand.pick(STATUSES) } });
      break;
    default: {
      const at = DateTime.fromJSDate(NOW, { zone: 'UTC' }).plus({ days: someDay() }).startOf('hour');
      await h.db.event.createMany({
        data: Array.from({ length: 1 + rand.int(8) }, (_, i) => {
          const start = at.plus({ hours: i * 7 });
          const end = start.plus({ hours: 30 });
          return {
            title: `Bulk ${rand.int(1e6)}`,
            status: rand.pick(STATUSES),
            startsAt: start.toJSDate(),
            endsAt: end.toJSDate(),
            localStart: start.toFormat('yyyy-MM-dd HH:mm:ss'),
            localEnd: end.toFormat('yyyy-MM-dd HH:mm:ss'),
            timezone: 'UTC',
          };
        }),
      });
    }
  }
}

const WRITES = [
  createOne,
  createOne,
  createOne,
  createSeries,
  moveSeries,
  moveOne,
  moveOne,
  restatus,
  trashOrDelete,
  importFeed,
  rawWrites,
];

const contextOf = (viewer: Viewer): Context =>
  ({ db: h.db, config: h.config, writes: h.writes, viewer }) as unknown as Context;

const viewerOf = (role: keyof Users | null): Viewer =>
  role ? { userId: users[role].id, login: users[role].login, role } : ANONYMOUS;

const day = (days: number) => wall(days).slice(0, 10);

/** Windows the count table answers: the default one, whole days in every mode, and bounds on either side. */
function bucketedFilters(): EventListFilter[] {
  const from = someDay() - 3;
  const to = from + rand.int(60);
  return [
    {},
    { startDate: day(from) },
    { endDate: day(to) },
    { startDate: day(from), endDate: day(to) },
    { startDate: day(from), endDate: day(from) },
    { startsAfter: day(from) },
    { endsAfter: day(from), endDate: day(to) },
    { startDate: `${day(from)} 00:00:00`, endDate: `${day(to)} 23:59:59`, strictDates: true },
    { startsBefore: `${day(to)} 00:00:00`, strictDates: true },
    { endsBefore: `${day(to)} 00:00:00`, startDate: day(from), strictDates: true },
  ];
}

/** Each viewer with the status sets it may list. */
const VIEWERS: Array<[keyof Users | null, Array<string[] | null>]> = [
  [null, [null, ['publish']]],
  ['administrator', [null, ['any'], ['draft'], ['publish', 'private'], ['pending', 'draft', 'future']]],
  ['editor', [null, ['private']]],
  ['author', [['publish']]],
];

async function compareTotals(): Promise<number> {
  let compared = 0;
  for (const filter of bucketedFilters()) {
    for (const [role, statusSets] of VIEWERS) {
      const ctx = contextOf(viewerOf(role));
      for (const status of statusSets) {
        const query = await resolveEventQuery(ctx, { ...filter, status }, { now: NOW });
        const where = query.total.where;
        expect(query.total.buckets, JSON.stringify({ filter, role, status })).not.toBeNull();
        const [bucketed, direct] = await Promise.all([
          countListed(h.db, h.config.databaseProvider, query.total.buckets!),
          h.db.event.count({ where }),
        ]);
        expect(bucketed, JSON.stringify({ filter, role, status })).toBe(direct);
        compared++;
      }
    }
  }
  return compared;
}

beforeAll(async () => {
  ({ h, users } = await startWithRoles({ CALENDAR_CACHE: 'off' }));
});
afterAll(() => h.close());

describe(`list counts (${process.env.DATABASE_URL ? 'the run database' : 'sqlite'})`, () => {
  it('sum to the direct count of every bucketed list after random writes of every kind', async () => {
    let compared = 0;
    for (let round = 0; round < 12; round++) {
      for (let step = 0; step < 6; step++) await rand.pick(WRITES)();
      if (postgres() && rand.chance(0.5)) await compactListCounts(h.db, 'postgresql');
      compared += await compareTotals();
    }
    // The writes reached both sides of the window and every kind of event.
    const listed = await h.db.event.count({ where: { hideFromListings: false, startExcluded: false } });
    expect(listed).toBeGreaterThan(50);
    expect(await h.db.event.count({ where: { startExcluded: true } })).toBeGreaterThan(0);
    expect(await h.db.event.count({ where: { status: 'trash' } })).toBeGreaterThan(0);
    expect(compared).toBeGreaterThan(1000);
  }, 300_000);

  it('leaves the totals it cannot express exactly to the direct count', async () => {
    const ctx = contextOf(viewerOf('author'));
    const at = day(10);
    const counted = [
      [viewerOf(null), { startsBefore: at }], // inclusive: before 23:59:59 of that day
      [viewerOf(null), { startDate: `${at} 10:00:00`, strictDates: true }],
      [viewerOf(null), { featured: true }],
      [viewerOf(null), { search: 'event' }],
      [ctx.viewer, { status: ['draft'] }], // an author lists only its own drafts
    ] as const;
    for (const [viewer, filter] of counted) {
      const query = await resolveEventQuery(contextOf(viewer), filter, { now: NOW });
      expect(query.total.buckets, JSON.stringify(filter)).toBeNull();
    }
  });

  it('answers the REST and GraphQL totals from the count table in one statement', async () => {
    const expected = await h.db.event.count({
      where: {
        status: 'publish',
        hideFromListings: false,
        startExcluded: false,
        localStart: { gte: `${day(-1)} 00:00:00` },
        localEnd: {
          lte: `${DateTime.fromJSDate(NOW, { zone: 'UTC' }).plus({ months: 24 }).toISODate()} 23:59:59`,
        },
      },
    });
    h.queries.length = 0;
    const rest = await h.http.get(`${API}/events?per_page=1`).expect(200);
    expect(Number(rest.headers['x-tec-total'])).toBe(expected);
    expect(h.queries.filter((sql) => sql.includes('"EventListCount"'))).toHaveLength(1);
    h.queries.length = 0;
    const graphql = await h.http
      .post('/graphql')
      .send({ query: '{ events(perPage: 1) { pageInfo { total } } }' })
      .expect(200);
    expect(graphql.body.data.events.pageInfo.total).toBe(expected);
    expect(h.queries.filter((sql) => sql.includes('"EventListCount"'))).toHaveLength(1);
  });

  it('keeps exact under concurrent writers and compactions (PostgreSQL), then holds one row a bucket', async () => {
    const at = (n: number) => wall(100 + (n % 3), 12, 0);
    const writes = Array.from({ length: 24 }, (_, n) =>
      n % 4 === 3
        ? compactListCounts(h.db, h.config.databaseProvider)
        : post('/events', { title: `Concurrent ${n}`, start_date: at(n), end_date: at(n + 1) }).expect(201),
    );
    await Promise.all(writes);
    await compareTotals();
    await compactListCounts(h.db, h.config.databaseProvider);
    const rows = await h.db.$queryRawUnsafe<Array<{ rows: bigint; buckets: bigint; zero: bigint }>>(
      `SELECT count(*) AS "rows",
                (SELECT count(*) FROM (SELECT DISTINCT "status", "startDay", "endDay" FROM "EventListCount") AS b) AS "buckets",
                sum(CASE WHEN "count" = 0 THEN 1 ELSE 0 END) AS "zero"
         FROM "EventListCount"`,
    );
    expect(Number(rows[0]!.rows)).toBe(Number(rows[0]!.buckets));
    expect(Number(rows[0]!.zero)).toBe(0);
    await compareTotals();
  }, 120_000);
});
