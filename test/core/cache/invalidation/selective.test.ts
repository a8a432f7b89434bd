import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../../src/app.js';
import { addApplicationPassword, deleteUser } from '../../../../src/users/users.js';
import { type CacheEvent, ResponseCache } from '../../../../src/core/cache/response-cache.js';
import { ANONYMOUS } from '../../../../src/core/rules/permissions.js';
import { createLogger } from '../../../../src/core/ops/logger.js';
import { WritePipeline } from '../../../../src/core/db/transactions.js';
import { API, type Harness, startHarness } from '../../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../../helpers/fixtures.js';
import { type Credentials, type Users, createUser, withRoles } from '../../../helpers/users.js';

// Selective invalidation (src/core/cache/dependencies.ts): for each kind of write, through each API that
// offers it, a named set of anonymous cached answers is warmed, the write is made, and each answer is
// read again. The table says which answers went stale (read again from the database) and which stayed
// (`X-Cache: hit`); every answer read again, stale or not, is what an app without a cache answers.

let h: Harness;
let app: ReturnType<typeof supertest>;
let fresh: ReturnType<typeof supertest>;
let cache: ResponseCache;
let writes: WritePipeline;
let users: Users;
const events: CacheEvent[] = [];

beforeAll(async () => {
  h = await startHarness();
  // The app under test holds a cache this file can empty and listen to, and its own write pipeline
  // (the user administration below writes through it, as the CLI does through a server's).
  const config = { ...h.config, cache: { enabled: true, maxBytes: 16 * 1024 * 1024 } };
  cache = new ResponseCache({
    ...config.cache,
    siteTimezone: config.siteTimezone,
    onEvent: (event) => events.push(event),
  });
  writes = new WritePipeline();
  app = supertest(buildApp({ db: h.db, config, writes, cache, logger: createLogger('silent') }).callback());
  fresh = supertest(buildApp({ db: h.db, config: h.config, logger: createLogger('silent') }).callback());
  users = await withRoles(h);
});
afterAll(() => h.close());

/**
 * One calendar year of its own per case, so that no case sees another's events: event A in March
 * (venue V1, organizer O1, category C1, tag T1), event B in May (V2, O2, C2); July is empty.
 */
interface World {
  year: number;
  a: { id: number; slug: string };
  b: { id: number; slug: string };
  venue1: number;
  venue2: number;
  organizer1: number;
  category1: number;
  category2: number;
  /** The user event A is written by (the user-deletion case deletes them). */
  author: Credentials;
  /** A second application password of theirs (the revocation case revokes it). */
  authorSecondPassword: number;
}

let years = 2031;

async function makeWorld(): Promise<World> {
  const year = years++;
  const admin = { db: h.db, config: h.config, writes };
  const author = await createUser(admin, 'author');
  const second = await addApplicationPassword(admin, author.id, 'second');
  const [venue1, venue2] = [
    await createVenue(h.db, { name: `Hall ${year}` }),
    await createVenue(h.db, { name: `Club ${year}` }),
  ];
  const [organizer1, organizer2] = [await createOrganizer(h.db), await createOrganizer(h.db)];
  const category1 = await createTerm(h.db, 'tribe_events_cat', `Music ${year}`);
  const category2 = await createTerm(h.db, 'tribe_events_cat', `Art ${year}`);
  const tag1 = await createTerm(h.db, 'post_tag', `Outdoor ${year}`);
  const a = await createEvent(h.db, {
    title: `Concert ${year}`,
    start: `${year}-03-10 10:00:00`,
    venueIds: [venue1.id],
    organizerIds: [organizer1.id],
    termIds: [category1.id, tag1.id],
    fields: { authorId: author.id },
  });
  const b = await createEvent(h.db, {
    title: `Exhibition ${year}`,
    start: `${year}-05-12 10:00:00`,
    venueIds: [venue2.id],
    organizerIds: [organizer2.id],
    termIds: [category2.id],
  });
  return {
    year,
    a: { id: a.id, slug: a.slug! },
    b: { id: b.id, slug: b.slug! },
    venue1: venue1.id,
    venue2: venue2.id,
    organizer1: organizer1.id,
    category1: category1.id,
    category2: category2.id,
    author,
    authorSecondPassword: second.id,
  };
}

/** 25 June events of `year`, one a day at 10:00, by day (ids[0] is June 1st). */
async function juneDays(year: number): Promise<number[]> {
  const ids: number[] = [];
  for (let d = 1; d <= 25; d++)
    ids.push(
      (
        await createEvent(h.db, {
          title: `June ${d}`,
          start: `${year}-06-${String(d).padStart(2, '0')} 10:00:00`,
        })
      ).id,
    );
  return ids;
}

/** A cached read: a REST path, or a GraphQL query (POST). */
type Read = { path: string } | { graphql: string };

const month = (year: number, m: string, last: number) =>
  `start_date=${year}-${m}-01&end_date=${year}-${m}-${last}`;

const NAMES = [
  'eventA',
  'eventABySlug',
  'eventB',
  'march',
  'may',
  'july',
  'inCategory',
  'atVenue',
  'venue',
  'venues',
  'organizer',
  'category',
  'categories',
  'doc',
  'gqlEventB',
  'gqlMarch',
  'gqlMarchTitles',
] as const;
type Name = (typeof NAMES)[number];

/** The named answers each case warms, anonymous. */
function warmed(w: World): Record<Name, Read> {
  const y = w.year;
  const wholeYear = `start_date=${y}-01-01&end_date=${y}-12-31`;
  return {
    eventA: { path: `${API}/events/${w.a.id}` },
    eventABySlug: { path: `${API}/events/by-slug/${w.a.slug}` },
    eventB: { path: `${API}/events/${w.b.id}` },
    march: { path: `${API}/events?${month(y, '03', 31)}` },
    may: { path: `${API}/events?${month(y, '05', 31)}` },
    july: { path: `${API}/events?${month(y, '07', 31)}` },
    inCategory: { path: `${API}/events?categories=${w.category1}&${wholeYear}` },
    atVenue: { path: `${API}/events?venue=${w.venue1}&${wholeYear}` },
    venue: { path: `${API}/venues/${w.venue1}` },
    venues: { path: `${API}/venues?search=${y}` },
    organizer: { path: `${API}/organizers/${w.organizer1}` },
    category: { path: `${API}/categories/${w.category1}` },
    categories: { path: `${API}/categories?search=${y}` },
    doc: { path: `${API}/doc` },
    gqlEventB: { graphql: `{ event(id: ${w.b.id}) { id title startDate categories { name count } } }` },
    gqlMarch: {
      graphql: `{ events(filter: { startDate: "${y}-03-01", endDate: "${y}-03-31" }) {
        pageInfo { total } items { id title venues { name } categories { name count } } } }`,
    },
    // Fields that each say which columns they show (`showing`, core/graphql/schema/common.ts): no description.
    gqlMarchTitles: {
      graphql: `{ events(filter: { startDate: "${y}-03-01", endDate: "${y}-03-31" }) {
        items { databaseId title localStartDate content { withheld allDay } } } }`,
    },
  };
}

function read(http: ReturnType<typeof supertest>, target: Read) {
  // One request id for both apps: error bodies name it, and the answers are compared byte for byte.
  return 'path' in target
    ? http.get(target.path).set('X-Request-Id', 'selective')
    : http.post('/graphql').set('X-Request-Id', 'selective').send({ query: target.graphql });
}

type Api = 'REST' | 'GraphQL' | 'user administration';

interface Row {
  write: string;
  api: Api;
  /** Makes the write; `as` is the administrator. */
  run: (w: World, as: Credentials) => Promise<void>;
  /** The answers that must go stale; every other one stays cached. */
  stale: Name[];
  /**
   * Of those, the REST answers whose only change is a term count they show, or event rows they show
   * (`A_ROWS`): refreshed in place (the counts read again, the rows rendered again), not recomputed.
   */
  refreshed?: Name[];
}

async function rest(
  method: 'post' | 'delete',
  path: string,
  body: object | undefined,
  as: Credentials,
): Promise<void> {
  const request = app[method](`${API}${path}`).auth(as.login, as.password);
  const res = await (body ? request.send(body) : request);
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
}

/** A GraphQL create, in June of the world's year, of an event without category or venue. */
const createTalk = (w: World, as: Credentials) =>
  graphql(
    `mutation { createEvent(input: { title: "Talk", startDate: "${w.year}-06-01 12:00:00", endDate: "${w.year}-06-01 13:00:00" }) { id } }`,
    as,
  );

async function graphql(query: string, as: Credentials, variables: object = {}): Promise<void> {
  const res = await app.post('/graphql').auth(as.login, as.password).send({ query, variables });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
}

/** The same event write through both APIs: a REST body, and the GraphQL `UpdateEventInput`. */
function eventUpdate(
  write: string,
  stale: Name[],
  restBody: (w: World) => object,
  input: (w: World) => object,
): Row[] {
  return [
    {
      write,
      api: 'REST',
      run: (w, as) => rest('post', `/events/${w.a.id}`, restBody(w), as),
      stale,
    },
    {
      write,
      api: 'GraphQL',
      run: (w, as) =>
        graphql(
          `mutation($input: UpdateEventInput!) { updateEvent(id: ${w.a.id}, input: $input) { id } }`,
          as,
          {
            input: input(w),
          },
        ),
      stale,
    },
  ];
}

// What each kind of write must drop. Event A's own answers and the lists that show it always; the
// lists of another month, event B and the venue, organizer and term answers only when the write
// changes what they show (a term's count is shown wherever the term is). By design, coarser in three
// places: a venue or organizer write drops every event answer (one turning private changes events
// that did not show it, rest-map/routes.ts); a term deletion reports its events without their dates,
// so every event list goes; and any user write drops everything.
const A_SHOWN: Name[] = [
  'eventA',
  'eventABySlug',
  'march',
  'gqlMarch',
  'gqlMarchTitles',
  'inCategory',
  'atVenue',
];
/**
 * The answers showing event A's description and categories: not the GraphQL page that selects neither
 * (its fields say which columns they show), which a description or a term count leaves as it was.
 */
const A_IN_FULL: Name[] = A_SHOWN.filter((name) => name !== 'gqlMarchTitles');
/**
 * The REST lists showing event A as a row: a write that changes its row and not the lists (who is in
 * them, their order, their totals) nor the records the row shows renders the row again in place.
 */
const A_ROWS: Name[] = ['march', 'inCategory', 'atVenue'];
const A_AND_COUNTS: Name[] = [...A_SHOWN, 'category', 'categories'];
/** The answers showing category C1's count (event A shows it). */
const C1_COUNTED: Name[] = [...A_IN_FULL, 'category', 'categories'];
const B_SHOWN: Name[] = ['eventB', 'gqlEventB', 'may'];
const EVENT_ANSWERS: Name[] = [...A_SHOWN, ...B_SHOWN, 'july'];

const ROWS: Row[] = [
  ...eventUpdate(
    'text update',
    A_SHOWN,
    () => ({ title: 'Renamed concert' }),
    () => ({ title: 'Renamed concert' }),
  ).map((row) => ({ ...row, refreshed: A_ROWS })),
  {
    write: 'text update by slug',
    api: 'REST',
    run: (w, as) => rest('post', `/events/by-slug/${w.a.slug}`, { description: 'New words' }, as),
    stale: A_IN_FULL,
    refreshed: A_ROWS,
  },
  {
    write: 'text update by slug',
    api: 'GraphQL',
    run: (w, as) =>
      graphql(
        `mutation { updateEventBySlug(slug: "${w.a.slug}", input: { description: "New words" }) { id } }`,
        as,
      ),
    stale: A_IN_FULL,
    refreshed: A_ROWS,
  },
  ...eventUpdate(
    'date move from March to May',
    [...A_SHOWN, 'may'],
    (w) => ({ start_date: `${w.year}-05-20 18:00:00`, end_date: `${w.year}-05-20 20:00:00` }),
    (w) => ({ startDate: `${w.year}-05-20 18:00:00`, endDate: `${w.year}-05-20 20:00:00` }),
  ),
  // C1 loses event A and C2 gains it: both counts move, and event B shows C2 (with its count): its
  // REST answers are refreshed, its GraphQL document asking for the count is recomputed. Event A's row
  // shows another category: the lists showing it are recomputed (a venue changed is rendered in place).
  ...eventUpdate(
    'term change',
    [...A_AND_COUNTS, ...B_SHOWN],
    (w) => ({ categories: [w.category2] }),
    (w) => ({ categories: [{ id: w.category2 }] }),
  ).map((row) => ({ ...row, refreshed: ['eventB', 'may'] as Name[] })),
  // Its row shows another venue, which the lists depend on already (every venue): the lists that
  // keep event A render its row again; the one filtered by the old venue loses it.
  ...eventUpdate(
    'venue change',
    A_SHOWN,
    (w) => ({ venue: w.venue2 }),
    (w) => ({ venues: [{ id: w.venue2 }] }),
  ).map((row) => ({ ...row, refreshed: ['march', 'inCategory'] as Name[] })),
  // A July event in C1 at V1: C1's count moves, which event A shows.
  {
    write: 'event create',
    api: 'REST',
    run: (w, as) =>
      rest(
        'post',
        '/events',
        {
          title: 'Open air',
          start_date: `${w.year}-07-04 20:00:00`,
          end_date: `${w.year}-07-04 23:00:00`,
          categories: [w.category1],
          venue: w.venue1,
        },
        as,
      ),
    stale: [...C1_COUNTED, 'july'],
    refreshed: ['eventA', 'eventABySlug', 'march'],
  },
  {
    write: 'event create',
    api: 'GraphQL',
    run: (w, as) =>
      graphql(
        `
          mutation ($input: CreateEventInput!) {
            createEvent(input: $input) {
              id
            }
          }
        `,
        as,
        {
          input: {
            title: 'Open air',
            startDate: `${w.year}-07-04 20:00:00`,
            endDate: `${w.year}-07-04 23:00:00`,
            categories: [{ id: w.category1 }],
            venues: [{ id: w.venue1 }],
          },
        },
      ),
    stale: [...C1_COUNTED, 'july'],
    refreshed: ['eventA', 'eventABySlug', 'march'],
  },
  ...(['trash', 'force delete'] as const).flatMap((kind): Row[] => {
    const force = kind === 'force delete';
    return [
      {
        write: kind,
        api: 'REST',
        run: (w, as) => rest('delete', `/events/${w.a.id}${force ? '?force=true' : ''}`, undefined, as),
        stale: A_AND_COUNTS,
      },
      {
        write: `${kind} by slug`,
        api: 'REST',
        run: (w, as) =>
          rest('delete', `/events/by-slug/${w.a.slug}${force ? '?force=true' : ''}`, undefined, as),
        stale: A_AND_COUNTS,
      },
      {
        write: kind,
        api: 'GraphQL',
        run: (w, as) => graphql(`mutation { deleteEvent(id: ${w.a.id}, force: ${force}) { id } }`, as),
        stale: A_AND_COUNTS,
      },
      {
        write: `${kind} by slug`,
        api: 'GraphQL',
        run: (w, as) =>
          graphql(`mutation { deleteEventBySlug(slug: "${w.a.slug}", force: ${force}) { id } }`, as),
        stale: A_AND_COUNTS,
      },
    ];
  }),
  // Its row shows it withheld; the lists filtered by a category or a venue no longer find it by them
  // (D21), so only the month's row is rendered in place.
  ...eventUpdate(
    'password set',
    A_SHOWN,
    () => ({ password: 'open sesame' }),
    () => ({ password: 'open sesame' }),
  ).map((row) => ({ ...row, refreshed: ['march'] as Name[] })),
  // Only published events are counted.
  ...eventUpdate(
    'status publish → draft',
    A_AND_COUNTS,
    () => ({ status: 'draft' }),
    () => ({ status: 'draft' }),
  ),
  {
    write: 'venue update',
    api: 'REST',
    run: (w, as) => rest('post', `/venues/${w.venue1}`, { venue: `Great Hall ${w.year}` }, as),
    stale: [...EVENT_ANSWERS, 'venue', 'venues'],
  },
  {
    write: 'venue update',
    api: 'GraphQL',
    run: (w, as) =>
      graphql(
        `mutation { updateVenue(id: ${w.venue1}, input: { name: "Great Hall ${w.year}" }) { id } }`,
        as,
      ),
    stale: [...EVENT_ANSWERS, 'venue', 'venues'],
  },
  {
    write: 'organizer update',
    api: 'REST',
    run: (w, as) => rest('post', `/organizers/${w.organizer1}`, { organizer: 'Promoter' }, as),
    stale: [...EVENT_ANSWERS, 'organizer'],
  },
  {
    write: 'organizer update',
    api: 'GraphQL',
    run: (w, as) =>
      graphql(`mutation { updateOrganizer(id: ${w.organizer1}, input: { name: "Promoter" }) { id } }`, as),
    stale: [...EVENT_ANSWERS, 'organizer'],
  },
  {
    write: 'term rename',
    api: 'REST',
    run: (w, as) => rest('post', `/categories/${w.category1}`, { name: `Jazz ${w.year}` }, as),
    stale: C1_COUNTED,
  },
  {
    write: 'term rename',
    api: 'GraphQL',
    run: (w, as) =>
      graphql(
        `mutation { updateCategory(id: ${w.category1}, input: { name: "Jazz ${w.year}" }) { id } }`,
        as,
      ),
    stale: C1_COUNTED,
  },
  {
    write: 'term delete',
    api: 'REST',
    run: (w, as) => rest('delete', `/categories/${w.category1}`, undefined, as),
    stale: [...A_AND_COUNTS, 'may', 'july'],
  },
  {
    write: 'term delete',
    api: 'GraphQL',
    run: (w, as) => graphql(`mutation { deleteCategory(id: ${w.category1}) { id } }`, as),
    stale: [...A_AND_COUNTS, 'may', 'july'],
  },
  // Users are administered by the `calendar` CLI (src/users/users.ts) and not by either API, except
  // revoking one's own application password (GraphQL). No command changes a role yet: the write below
  // is the pipeline write any role change makes.
  {
    write: 'user role change',
    api: 'user administration',
    run: (w) =>
      writes.run({ db: h.db, config: h.config, viewer: ANONYMOUS }, async (s) => {
        await s.tx.user.update({ where: { id: w.author.id }, data: { role: 'subscriber' } });
        s.changed('user', w.author.id, 'updated');
      }),
    stale: [...NAMES],
  },
  {
    write: 'user deletion (their events reassigned)',
    api: 'user administration',
    run: async (w, as) => {
      await deleteUser({ db: h.db, config: h.config, writes }, w.author.login, as.login);
    },
    stale: [...NAMES],
  },
  {
    write: 'application password revoked',
    api: 'GraphQL',
    run: (w) =>
      graphql(`mutation { revokeApplicationPassword(id: ${w.authorSecondPassword}) { id } }`, w.author),
    stale: [...NAMES],
  },
];

/** What the app answers, as compared with the app without a cache. */
const answer = (res: supertest.Response) => ({
  status: res.status,
  body: res.text,
  total: res.headers['x-tec-total'],
});

describe('a write drops the cached answers it can change, and only those', () => {
  it.each(ROWS)('$api: $write', async ({ run, stale, refreshed = [] }) => {
    const w = await makeWorld();
    // The fixtures were written past the pipeline: start from an empty cache.
    cache.invalidate();
    const targets = warmed(w);
    for (const name of NAMES) {
      const res = await read(app, targets[name]);
      expect(res.headers['x-cache'], `${name} warmed: ${res.status} ${res.text}`).toBe('miss');
    }
    events.length = 0;

    await run(w, users.administrator);

    const observed: Partial<Record<Name, 'stayed' | 'refreshed' | 'stale'>> = {};
    for (const name of NAMES) {
      const again = await read(app, targets[name]);
      // Not `hit` or `refresh`: recomputed (a `miss`, or an answer no longer shared such as a 404).
      const cached = again.headers['x-cache'];
      observed[name] = cached === 'hit' ? 'stayed' : cached === 'refresh' ? 'refreshed' : 'stale';
      expect.soft(answer(again), `${name} read again`).toEqual(answer(await read(fresh, targets[name])));
    }
    const expected = Object.fromEntries(
      NAMES.map((name) => [
        name,
        refreshed.includes(name) ? 'refreshed' : stale.includes(name) ? 'stale' : 'stayed',
      ]),
    );
    expect(observed).toEqual(expected);
    // The cache's own account: the write dropped exactly the answers recomputed, and kept the
    // refreshed ones.
    expect(events.filter((event) => event === 'dropped')).toHaveLength(stale.length - refreshed.length);
    expect(events.filter((event) => event === 'refreshed')).toHaveLength(refreshed.length);
  });
});

describe('the filters of a list decide, beside its dates', () => {
  // The issue's rule: an event write leaves in place the lists whose window and filters could not
  // contain the event before or after. Both lists cover the event's dates, but not its category or
  // venue.
  const cases: Array<{ api: Api; write: string; run: (w: World, as: Credentials) => Promise<void> }> = [
    {
      api: 'REST',
      write: 'text update of an event of another category and venue',
      run: (w, as) => rest('post', `/events/${w.b.id}`, { title: 'Renamed exhibition' }, as),
    },
    {
      api: 'GraphQL',
      write: 'create of an event without category or venue',
      run: createTalk,
    },
  ];
  cases.push(
    {
      api: 'REST',
      write: 'date move, across event A, of an event of another category and venue',
      run: (w, as) =>
        rest(
          'post',
          `/events/${w.b.id}`,
          { start_date: `${w.year}-02-03 10:00:00`, end_date: `${w.year}-02-03 12:00:00` },
          as,
        ),
    },
    {
      api: 'GraphQL',
      write: 'venue change of an event of another venue to a third one',
      run: async (w, as) => {
        const third = await createVenue(h.db, { name: `Barn ${w.year}` });
        await graphql(
          `mutation { updateEvent(id: ${w.b.id}, input: { venues: [{ id: ${third.id} }] }) { id } }`,
          as,
        );
      },
    },
    {
      api: 'REST',
      write: 'trash of an event of another category and venue',
      run: (w, as) => rest('delete', `/events/${w.b.id}`, undefined, as),
    },
    {
      api: 'GraphQL',
      write: 'permanent deletion of an event of another category and venue',
      run: (w, as) => graphql(`mutation { deleteEvent(id: ${w.b.id}, force: true) { id } }`, as),
    },
  );
  it.each(cases)('$api: $write leaves the category- and venue-filtered lists cached', async ({ run }) => {
    const w = await makeWorld();
    cache.invalidate();
    const targets = warmed(w);
    const lists = ['inCategory', 'atVenue'] as const;
    for (const name of lists) expect((await read(app, targets[name])).headers['x-cache']).toBe('miss');

    await run(w, users.administrator);

    const observed: Record<string, string | undefined> = {};
    for (const name of lists) {
      const again = await read(app, targets[name]);
      observed[name] = again.headers['x-cache'];
      expect.soft(answer(again)).toEqual(answer(await read(fresh, targets[name])));
    }
    expect(observed).toEqual({ inCategory: 'hit', atVenue: 'hit' });
  });
});

describe('an event moving within a list’s dates drops only the pages it passes', () => {
  // 25 June events, one a day at 10:00: pages of 10 hold days 1–10, 11–20 and 21–25. A move that stays
  // wholly before or wholly after a page leaves that page (and every total) as it was; one that leaves
  // the month changes every page's total.
  const junePage = (y: number, page: number): Read => ({
    path: `${API}/events?${month(y, '06', 30)}&per_page=10&page=${page}`,
  });
  const gqlJunePage = (y: number, page: number): Read => ({
    graphql: `{ events(filter: { startDate: "${y}-06-01", endDate: "${y}-06-30" }, page: ${page}, perPage: 10) {
      pageInfo { total } items { id title startDate } } }`,
  });
  const cases: Array<{
    api: Api;
    move: string;
    from: number;
    to: string;
    stale: Array<'page1' | 'page2' | 'page3' | 'gqlPage2' | 'july'>;
  }> = [
    { api: 'REST', move: 'within page 1', from: 3, to: '06-07', stale: ['page1'] },
    { api: 'GraphQL', move: 'within page 2', from: 12, to: '06-14', stale: ['page2', 'gqlPage2'] },
    {
      api: 'REST',
      move: 'from page 1 to page 3',
      from: 3,
      to: '06-23',
      stale: ['page1', 'page2', 'page3', 'gqlPage2'],
    },
    { api: 'GraphQL', move: 'from page 3 to its end', from: 22, to: '06-28', stale: ['page3'] },
    {
      api: 'REST',
      move: 'out of the month',
      from: 24,
      to: '07-04',
      stale: ['page1', 'page2', 'page3', 'gqlPage2', 'july'],
    },
  ];
  it.each(cases)('$api: a move $move', async ({ api, from, to, stale }) => {
    const w = await makeWorld();
    const ids = await juneDays(w.year);
    cache.invalidate();
    const targets = {
      page1: junePage(w.year, 1),
      page2: junePage(w.year, 2),
      page3: junePage(w.year, 3),
      gqlPage2: gqlJunePage(w.year, 2),
      july: warmed(w).july,
    };
    const names = Object.keys(targets) as Array<keyof typeof targets>;
    for (const name of names) expect((await read(app, targets[name])).headers['x-cache'], name).toBe('miss');

    const id = ids[from - 1]!;
    const start = `${w.year}-${to} 10:00:00`;
    const end = `${w.year}-${to} 12:00:00`;
    if (api === 'REST')
      await rest('post', `/events/${id}`, { start_date: start, end_date: end }, users.administrator);
    else
      await graphql(
        `mutation { updateEvent(id: ${id}, input: { startDate: "${start}", endDate: "${end}" }) { id } }`,
        users.administrator,
      );

    const observed: Record<string, string> = {};
    for (const name of names) {
      const again = await read(app, targets[name]);
      observed[name] = again.headers['x-cache'] === 'hit' ? 'stayed' : 'stale';
      expect.soft(answer(again), name).toEqual(answer(await read(fresh, targets[name])));
    }
    expect(observed).toEqual(
      Object.fromEntries(names.map((n) => [n, stale.includes(n) ? 'stale' : 'stayed'])),
    );
  });
});

describe('a cached search stays unless the write changes what it finds', () => {
  // The search names event B's title word; event A's texts are judged against it before and after.
  const cases: Array<{
    api: Api;
    write: string;
    run: (w: World, as: Credentials) => Promise<void>;
    stale: boolean;
  }> = [
    {
      api: 'REST',
      write: 'a text edit of an event it never finds',
      run: (w, as) => rest('post', `/events/${w.a.id}`, { description: 'Strings and brass' }, as),
      stale: false,
    },
    {
      api: 'GraphQL',
      write: 'a text edit that makes an event match',
      run: (w, as) =>
        graphql(`mutation { updateEvent(id: ${w.a.id}, input: { title: "Exhibition concert" }) { id } }`, as),
      stale: true,
    },
    {
      api: 'GraphQL',
      write: 'a create of an event it does not find',
      run: createTalk,
      stale: false,
    },
    {
      api: 'REST',
      write: 'a create of an event it finds',
      run: (w, as) =>
        rest(
          'post',
          '/events',
          {
            title: 'Talk',
            description: 'Before the exhibition',
            start_date: `${w.year}-06-01 12:00:00`,
            end_date: `${w.year}-06-01 13:00:00`,
          },
          as,
        ),
      stale: true,
    },
    {
      api: 'REST',
      write: 'a trash of an event it never finds',
      run: (w, as) => rest('delete', `/events/${w.a.id}`, undefined, as),
      stale: false,
    },
  ];
  it.each(cases)('$api: $write', async ({ run, stale }) => {
    const w = await makeWorld();
    cache.invalidate();
    const search: Read = {
      path: `${API}/events?search=exhibition&start_date=${w.year}-01-01&end_date=${w.year}-12-31`,
    };
    const first = await read(app, search);
    expect(first.headers['x-cache']).toBe('miss');
    expect(first.headers['x-tec-total']).toBe('1');

    await run(w, users.administrator);

    const again = await read(app, search);
    expect(again.headers['x-cache']).toBe(stale ? 'miss' : 'hit');
    expect(answer(again)).toEqual(answer(await read(fresh, search)));
  });
});

describe('a term count that moves refreshes or drops the answers showing that count, not those showing only the term', () => {
  // A create in category C1 moves C1's count: event A's answers show it (REST always shows a term's
  // count: refreshed in place), as does a GraphQL document asking for it (recomputed); one asking only
  // for the name keeps its answer.
  it.each(['REST', 'GraphQL'] as const)('%s: a create in the category', async (api) => {
    const w = await makeWorld();
    cache.invalidate();
    const named: Read = { graphql: `{ event(id: ${w.a.id}) { id title categories { name } } }` };
    const counted: Read = { graphql: `{ event(id: ${w.a.id}) { id title categories { name count } } }` };
    const single: Read = { path: `${API}/events/${w.a.id}` };
    for (const target of [named, counted, single])
      expect((await read(app, target)).headers['x-cache']).toBe('miss');

    const input = { title: 'Open air', start: `${w.year}-07-04 20:00:00`, end: `${w.year}-07-04 23:00:00` };
    if (api === 'REST')
      await rest(
        'post',
        '/events',
        { title: input.title, start_date: input.start, end_date: input.end, categories: [w.category1] },
        users.administrator,
      );
    else
      await graphql(
        `mutation { createEvent(input: { title: "${input.title}", startDate: "${input.start}", endDate: "${input.end}", categories: [{ id: ${w.category1} }] }) { id } }`,
        users.administrator,
      );

    const observed = [];
    for (const target of [named, counted, single]) {
      const again = await read(app, target);
      observed.push(again.headers['x-cache']);
      expect(answer(again)).toEqual(answer(await read(fresh, target)));
    }
    expect(observed).toEqual(['hit', 'miss', 'refresh']);
  });
});

describe('a cursor page drops only when an event moves into or across it', () => {
  // 25 June events, one a day at 10:00; GraphQL pages of 10 by cursor: the first (days 1–10, the row
  // of day 11 telling that more follow) and the one after day 10's cursor.
  const connection = (y: number, after: string | null): Read => ({
    graphql: `{ eventsConnection(filter: { startDate: "${y}-06-01", endDate: "${y}-06-30" }, first: 10${
      after ? `, after: "${after}"` : ''
    }) { pageInfo { hasNextPage endCursor } edges { node { databaseId title startDate } } } }`,
  });
  const cases: Array<{ move: string; from: number; to: string; stale: Array<'first' | 'second'> }> = [
    { move: 'within the first page', from: 3, to: '06-07 10:00:00', stale: ['first'] },
    { move: 'from the third page to its end', from: 22, to: '06-28 10:00:00', stale: [] },
    {
      move: 'from the first page into the second',
      from: 3,
      to: '06-15 10:00:00',
      stale: ['first', 'second'],
    },
    // Between the second page's cursor (day 10, 10:00) and its first row (day 11): it becomes that row.
    { move: 'to just after the cursor', from: 5, to: '06-10 11:00:00', stale: ['first', 'second'] },
  ];
  it.each(cases)('GraphQL: a move $move', async ({ from, to, stale }) => {
    const w = await makeWorld();
    const ids = await juneDays(w.year);
    cache.invalidate();
    const firstPage = await read(app, connection(w.year, null));
    expect(firstPage.headers['x-cache']).toBe('miss');
    const cursor = firstPage.body.data.eventsConnection.pageInfo.endCursor as string;
    const targets = { first: connection(w.year, null), second: connection(w.year, cursor) };
    expect((await read(app, targets.second)).headers['x-cache']).toBe('miss');

    const [day, time] = to.split(' ');
    const start = `${w.year}-${day} ${time}`;
    const end = `${w.year}-${day} 23:00:00`;
    await graphql(
      `mutation { updateEvent(id: ${ids[from - 1]}, input: { startDate: "${start}", endDate: "${end}" }) { id } }`,
      users.administrator,
    );

    const observed: Record<string, string> = {};
    for (const name of ['first', 'second'] as const) {
      const again = await read(app, targets[name]);
      observed[name] = again.headers['x-cache'] === 'hit' ? 'stayed' : 'stale';
      expect.soft(answer(again), name).toEqual(answer(await read(fresh, targets[name])));
    }
    expect(observed).toEqual({
      first: stale.includes('first') ? 'stale' : 'stayed',
      second: stale.includes('second') ? 'stale' : 'stayed',
    });
  });
});
