import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../../src/app.js';
import { ResponseCache } from '../../../../src/core/cache/response-cache.js';
import { ANONYMOUS } from '../../../../src/core/rules/permissions.js';
import { createLogger } from '../../../../src/core/ops/logger.js';
import { WritePipeline } from '../../../../src/core/db/transactions.js';
import { API, type Harness, startHarness } from '../../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../../helpers/fixtures.js';
import { type Users, withRoles } from '../../../helpers/users.js';

// Kept records (`ResponseCache.keepRecords`, read by `events/service/reads/event-reads.ts`): event rows
// with their linked records, by id and version, for every viewer. Two apps over one database, one
// keeping records and one reading every row, answer the same reads alike after each kind of write;
// and the write makes the kept app read again exactly the events whose rows show what it changed.

let h: Harness;
let users: Users;
let kept: ReturnType<typeof supertest>;
let fresh: ReturnType<typeof supertest>;
let writes: WritePipeline;
/** The events whose rows the kept app read from the database (not from kept records), in order. */
const reread: number[] = [];

beforeAll(async () => {
  h = await startHarness();
  const config = { ...h.config, cache: { enabled: true, maxBytes: 16 * 1024 * 1024 } };
  const cache = new ResponseCache({ ...config.cache, siteTimezone: config.siteTimezone });
  // Every record the kept app reads from the database is noted (a record's key ends with its event's
  // id and version).
  const keepRecords = cache.keepRecords.bind(cache);
  cache.keepRecords = (keys, read) =>
    keepRecords(keys, (missing) => {
      for (const index of missing) reread.push(Number(keys[index]!.split(' ')[2]));
      return read(missing);
    });
  writes = new WritePipeline();
  kept = supertest(buildApp({ db: h.db, config, writes, cache, logger: createLogger('silent') }).callback());
  fresh = supertest(buildApp({ db: h.db, config: h.config, logger: createLogger('silent') }).callback());
  users = await withRoles(h);
});
afterAll(() => h.close());

/** One year of its own per case: A (venue V1, organizer O1, category C1 under P, tag T), B (V2, O2, C2), C. */
interface World {
  year: number;
  a: number;
  b: number;
  c: number;
  venue1: number;
  venue2: number;
  organizer1: number;
  category1: number;
  parent: number;
  category2: number;
}

let years = 2051;

async function makeWorld(): Promise<World> {
  const year = years++;
  const [venue1, venue2] = [
    await createVenue(h.db, { name: `Hall ${year}` }),
    await createVenue(h.db, { name: `Club ${year}` }),
  ];
  const [organizer1, organizer2] = [await createOrganizer(h.db), await createOrganizer(h.db)];
  const parent = await createTerm(h.db, 'tribe_events_cat', `Arts ${year}`);
  const category1 = await createTerm(h.db, 'tribe_events_cat', `Music ${year}`);
  await h.db.term.update({ where: { id: category1.id }, data: { parentId: parent.id } });
  const category2 = await createTerm(h.db, 'tribe_events_cat', `Film ${year}`);
  const tag = await createTerm(h.db, 'post_tag', `Outdoor ${year}`);
  const a = await createEvent(h.db, {
    title: `Concert ${year}`,
    start: `${year}-03-10 10:00:00`,
    venueIds: [venue1.id],
    organizerIds: [organizer1.id],
    termIds: [category1.id, tag.id],
  });
  const b = await createEvent(h.db, {
    title: `Screening ${year}`,
    start: `${year}-05-12 10:00:00`,
    venueIds: [venue2.id],
    organizerIds: [organizer2.id],
    termIds: [category2.id],
  });
  const c = await createEvent(h.db, { title: `Walk ${year}`, start: `${year}-07-01 10:00:00` });
  return {
    year,
    a: a.id,
    b: b.id,
    c: c.id,
    venue1: venue1.id,
    venue2: venue2.id,
    organizer1: organizer1.id,
    category1: category1.id,
    parent: parent.id,
    category2: category2.id,
  };
}

type As = 'administrator' | 'subscriber' | 'anonymous';

/** The reads compared: REST list and single, GraphQL list; as an administrator, a subscriber, anyone. */
const READS: Array<{ as: As; read: (w: World) => { path: string } | { graphql: string } }> = [
  ...(['administrator', 'subscriber', 'anonymous'] as const).map((as) => ({
    as,
    read: (w: World) => ({ path: `/events?start_date=${w.year}-01-01&end_date=${w.year}-12-31` }),
  })),
  { as: 'administrator', read: (w) => ({ path: `/events/${w.a}` }) },
  {
    as: 'administrator',
    read: (w) => ({
      graphql: `{ events(filter: { startDate: "${w.year}-01-01", endDate: "${w.year}-12-31" }) {
        items { databaseId title status venues { name } organizers { name }
          categories { name count parent { name } } tags { name count } } } }`,
    }),
  },
];

/** Every read from both apps, compared; the kept app's answers. */
async function readAlike(w: World): Promise<string[]> {
  const answers: string[] = [];
  for (const { as, read } of READS) {
    const spec = read(w);
    const send = (agent: ReturnType<typeof supertest>) => {
      const call =
        'path' in spec
          ? agent.get(`${API}${spec.path}`)
          : agent.post('/graphql').send({ query: spec.graphql });
      return as === 'anonymous' ? call : call.auth(users[as].login, users[as].password);
    };
    const [fromKept, fromFresh] = [await send(kept), await send(fresh)];
    const label = `${as} ${JSON.stringify(spec)}`;
    expect(fromKept.status, label).toBe(fromFresh.status);
    expect(fromKept.text, label).toBe(fromFresh.text);
    answers.push(fromKept.text);
  }
  return answers;
}

async function rest(method: 'post' | 'delete', path: string, body?: object): Promise<void> {
  const admin = users.administrator;
  const request = kept[method](`${API}${path}`).auth(admin.login, admin.password);
  const res = await (body ? request.send(body) : request);
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
}

async function graphql(query: string): Promise<void> {
  const admin = users.administrator;
  const res = await kept.post('/graphql').auth(admin.login, admin.password).send({ query });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
}

interface Case {
  write: string;
  run: (w: World) => Promise<unknown>;
  /** The events read again from the database afterwards (by world); every other row stays kept. */
  reread: (w: World) => number[];
  /** What the kept app's answers show after the write. */
  shows?: (w: World) => string;
}

const CASES: Case[] = [
  {
    write: 'event text (REST)',
    run: (w) => rest('post', `/events/${w.a}`, { title: `Recital ${w.year}` }),
    reread: (w) => [w.a],
    shows: (w) => `Recital ${w.year}`,
  },
  {
    write: 'event text (GraphQL)',
    run: (w) =>
      graphql(`mutation { updateEvent(id: ${w.b}, input: { title: "Premiere ${w.year}" }) { id } }`),
    reread: (w) => [w.b],
    shows: (w) => `Premiere ${w.year}`,
  },
  {
    write: 'venue rename',
    run: (w) => rest('post', `/venues/${w.venue1}`, { venue: `Opera ${w.year}` }),
    reread: (w) => [w.a],
    shows: (w) => `Opera ${w.year}`,
  },
  {
    write: 'organizer rename',
    run: (w) => rest('post', `/organizers/${w.organizer1}`, { organizer: `Orchestra ${w.year}` }),
    reread: (w) => [w.a],
    shows: (w) => `Orchestra ${w.year}`,
  },
  {
    write: 'category rename',
    run: (w) => rest('post', `/categories/${w.category1}`, { name: `Jazz ${w.year}` }),
    reread: (w) => [w.a],
    shows: (w) => `Jazz ${w.year}`,
  },
  {
    write: 'parent category rename',
    run: (w) =>
      graphql(`mutation { updateCategory(id: ${w.parent}, input: { name: "Culture ${w.year}" }) { id } }`),
    reread: (w) => [w.a],
    shows: (w) => `Culture ${w.year}`,
  },
  {
    write: "another event joins B's category (its count moves)",
    run: (w) =>
      rest('post', '/events', {
        title: `Festival ${w.year}`,
        start_date: `${w.year}-09-01 10:00:00`,
        end_date: `${w.year}-09-01 12:00:00`,
        status: 'publish',
        categories: [w.category2],
      }),
    // The new event is read once it is listed (it has no record yet); A's terms' counts did not move.
    reread: (w) => [w.b, -1],
    shows: (w) => `Festival ${w.year}`,
  },
  {
    write: 'relink A to the other venue',
    run: (w) => rest('post', `/events/${w.a}`, { venue: w.venue2 }),
    reread: (w) => [w.a],
  },
  {
    write: 'password on B',
    run: (w) => rest('post', `/events/${w.b}`, { password: 'secret' }),
    reread: (w) => [w.b],
  },
  {
    write: 'C trashed',
    run: (w) => rest('delete', `/events/${w.c}`),
    reread: () => [],
  },
  {
    write: 'venue deleted',
    run: (w) => rest('delete', `/venues/${w.venue1}?force=true`),
    reread: (w) => [w.a],
  },
  {
    write: 'category deleted',
    run: (w) => graphql(`mutation { deleteCategory(id: ${w.category1}) { id } }`),
    reread: (w) => [w.a],
  },
  {
    write: 'user role change',
    run: () =>
      writes.run({ db: h.db, config: h.config, viewer: ANONYMOUS }, async (s) => {
        const user = users.editor;
        await s.tx.user.update({ where: { id: user.id }, data: { role: 'author' } });
        s.changed('user', user.id, 'updated');
      }),
    reread: (w) => [w.a, w.b, w.c],
  },
];

describe('kept records', () => {
  it.each(CASES)(
    '$write: read again for exactly the rows it changed, alike with the app reading every row',
    async (c) => {
      const w = await makeWorld();
      await readAlike(w);
      // The second round is answered from kept records.
      reread.length = 0;
      await readAlike(w);
      expect(reread).toEqual([]);

      await c.run(w);
      const answers = await readAlike(w);
      const expected = c.reread(w);
      const known = new Set([w.a, w.b, w.c]);
      // Each event read again, by whichever selections read it; a new event (-1) is any id not in the world.
      expect(new Set(reread.map((id) => (known.has(id) ? id : -1)))).toEqual(new Set(expected));
      if (c.shows) expect(answers.join('\n')).toContain(c.shows(w));
      reread.length = 0;
      await readAlike(w);
      expect(reread).toEqual([]);
    },
  );

  it('does not share a viewer’s verdict through a kept record', async () => {
    const w = await makeWorld();
    await rest('post', `/events/${w.a}`, { password: 'pw' });
    for (let round = 0; round < 2; round++) {
      const path = `${API}/events?start_date=${w.year}-01-01&end_date=${w.year}-12-31`;
      const admin = users.administrator;
      const locked = (body: { events: Array<{ id: number; description: string }> }) =>
        body.events.find((event) => event.id === w.a)!.description;
      const asAdmin = (await kept.get(path).auth(admin.login, admin.password).expect(200)).body;
      const asSubscriber = (
        await kept.get(path).auth(users.subscriber.login, users.subscriber.password).expect(200)
      ).body;
      expect(locked(asAdmin)).not.toBe('');
      expect(locked(asSubscriber)).toBe('');
    }
  });
});

describe('a read of kept records', () => {
  it('sends one statement for its page’s ids and versions, and none for the kept rows', async () => {
    const w = await makeWorld();
    const admin = users.administrator;
    const path = `${API}/events?start_date=${w.year}-01-01&end_date=${w.year}-12-31`;
    /** The statements of one read that read events, their links or counts (authentication aside). */
    const eventStatements = async (agent: ReturnType<typeof supertest>) => {
      h.queries.length = 0;
      await agent.get(path).auth(admin.login, admin.password).expect(200);
      return h.queries.filter((sql) =>
        /\bFROM\s+(?:[`"]\w+[`"]\.)?[`"](Event|EventVenue|EventOrganizer|EventTerm|EventListCount|Media)[`"]/.test(
          sql,
        ),
      );
    };
    await eventStatements(kept);
    const fromKept = await eventStatements(kept);
    const fromRows = await eventStatements(fresh);
    // The page's ids and versions, and its total; the app without records reads its rows with their
    // families in one statement instead.
    expect(fromKept).toHaveLength(2);
    expect(fromKept.filter((sql) => /^SELECT\s+\S*id\S*,\s*\S*modifiedAt\S*\s+FROM/.test(sql))).toHaveLength(
      1,
    );
    expect(fromKept.filter((sql) => /COUNT\(|"EventListCount"/i.test(sql))).toHaveLength(1);
    expect(fromRows).toHaveLength(2);
    expect(fromRows.filter((sql) => /"EventVenue"/.test(sql))).toHaveLength(1);
    expect(fromKept.filter((sql) => /"EventVenue"/.test(sql))).toHaveLength(0);
  });
});

describe('keepRecords', () => {
  const record = (id: number) => ({ id, title: `Event ${id}` });
  const shows = (id: number) => ({ records: [`event:${id}`], kinds: [], windows: [] });
  const newCache = () => new ResponseCache({ enabled: true, maxBytes: 1024 * 1024, siteTimezone: 'UTC' });

  it('keeps what it read unless a write meeting it came meanwhile, and shares it frozen', async () => {
    const cache = newCache();
    let reads = 0;
    /** Keeps records `r<id>`, read as event <id>; `write` comes while they are read. */
    const keep = (ids: number[], write?: () => void) =>
      cache.keepRecords(
        ids.map((id) => `r${id}`),
        async (missing) => {
          reads += missing.length;
          write?.();
          return missing.map((index) => ({ value: record(ids[index]!), dependencies: shows(ids[index]!) }));
        },
      );
    const written = (id: number) => () =>
      cache.invalidate({ records: [`event:${id}`], kinds: [], events: [] });
    // Event 1 is written while it is read: not kept. Event 9's write meets neither 2 nor 3.
    await keep([1], written(1));
    await keep([2, 3], written(9));
    reads = 0;
    const [one, two, three] = await keep([1, 2, 3]);
    expect(reads).toBe(1);
    expect([one, two, three]).toEqual([record(1), record(2), record(3)]);
    expect(Object.isFrozen(two)).toBe(true);
    // A write to event 2 drops its record alone.
    written(2)();
    reads = 0;
    await keep([1, 2, 3]);
    expect(reads).toBe(1);
  });

  it('keeps nothing that cannot say what it shows, nor while suspended; a gone record is undefined', async () => {
    const cache = newCache();
    let reads = 0;
    const read = async (missing: readonly number[]) => {
      reads += missing.length;
      return missing.map((index) => (index === 0 ? { value: record(1), dependencies: null } : undefined));
    };
    expect(await cache.keepRecords(['a', 'gone'], read)).toEqual([record(1), undefined]);
    await cache.keepRecords(['a', 'gone'], read);
    expect(reads).toBe(4);
    cache.suspend();
    const kept = async (missing: readonly number[]) =>
      missing.map((index) => ({ value: record(index), dependencies: shows(index) }));
    await cache.keepRecords(['b'], kept);
    expect(cache.recordBytes).toBe(0);
    cache.resume();
    await cache.keepRecords(['b'], kept);
    expect(cache.recordBytes).toBeGreaterThan(0);
  });
});
