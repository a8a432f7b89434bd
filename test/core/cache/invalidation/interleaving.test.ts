import { DateTime } from 'luxon';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../../src/app.js';
import { createLogger } from '../../../../src/core/ops/logger.js';
import { API, type Harness, startHarness } from '../../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../../helpers/fixtures.js';
import { type Credentials, type Users, withRoles } from '../../../helpers/users.js';

// A seeded random mix of reads and writes across both APIs: every read of the app with a cache
// answers exactly what the app without one answers on the same data at the same moment. Reads name
// many distinct filters (date windows over several months, categories, tags, venue, organizer, search,
// featured, pages and page sizes) and come mostly from anonymous visitors (the shared entries), some
// from signed-in users (computed, with kept records); writes move dates, change terms, venues and organizers, set
// passwords and statuses, trash, create, and rename venues and terms, through either app and either API.

/** Operations in the run; a failure names its step, and the seed replays it. */
const OPERATIONS = 1500;
const SEED = 20261125;

let h: Harness;
let cached: ReturnType<typeof supertest>;
let uncached: ReturnType<typeof supertest>;
let users: Users;
/** The first of next month in the site zone (UTC): the fixtures' months count from it. */
const firstMonth = DateTime.utc().startOf('month').plus({ months: 1 });
const MONTHS = 6;
const WORDS = ['jazz', 'market', 'lecture', 'film', 'yoga', 'choir'];

const venueIds: number[] = [];
const organizerIds: number[] = [];
const categories: Array<{ id: number; slug: string }> = [];
const tags: Array<{ id: number; slug: string }> = [];

beforeAll(async () => {
  h = await startHarness({ CALENDAR_CACHE: 'on' });
  cached = h.http;
  // One instance's view of the data without a cache, writing through the same pipeline.
  uncached = supertest(
    buildApp({
      db: h.db,
      config: { ...h.config, cache: { enabled: false, maxBytes: 0 } },
      writes: h.writes,
      logger: createLogger('silent'),
    }).callback(),
  );
  users = await withRoles(h);
  const next = random(SEED - 1);
  for (let i = 0; i < 4; i++) venueIds.push((await createVenue(h.db, { name: `Hall ${i}` })).id);
  for (let i = 0; i < 3; i++) organizerIds.push((await createOrganizer(h.db)).id);
  for (const name of ['Music', 'Theatre', 'Family', 'Sport'])
    categories.push(await createTerm(h.db, 'tribe_events_cat', name));
  for (const name of ['Free', 'Outdoor', 'Online']) tags.push(await createTerm(h.db, 'post_tag', name));
  for (let i = 0; i < 60; i++) {
    const day = firstMonth.plus({ months: i % MONTHS, days: Math.floor(next() * 27) });
    await createEvent(h.db, {
      title: `${WORDS[i % WORDS.length]} night ${i}`,
      start: day.set({ hour: 9 + (i % 10) }).toFormat('yyyy-MM-dd HH:mm:ss'),
      status: i % 11 === 0 ? 'draft' : 'publish',
      venueIds: [venueIds[i % venueIds.length]!],
      organizerIds: i % 2 ? [organizerIds[i % organizerIds.length]!] : [],
      termIds: [categories[i % categories.length]!.id, ...(i % 3 ? [] : [tags[i % tags.length]!.id])],
      fields: { featured: i % 5 === 0, ...(i % 13 === 0 ? { password: 'pw' } : {}) },
    });
  }
});
afterAll(() => h.close());

/** mulberry32: a small seeded generator, so that a failure replays. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = ReturnType<typeof random>;
const pick = <T>(next: Random, items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
const chance = (next: Random, p: number) => next() < p;
const day = (date: DateTime) => date.toFormat('yyyy-MM-dd');

/** The events as they are now (ids and slugs of those not in the trash): what reads and writes name. */
async function currentEvents() {
  return h.db.event.findMany({ where: { status: { not: 'trash' } }, select: { id: true, slug: true } });
}

interface Filter {
  startDate?: string;
  endDate?: string;
  categories?: string[];
  tags?: string[];
  venue?: number;
  organizer?: number;
  search?: string;
  featured?: boolean;
  page?: number;
  perPage?: number;
}

/** A random event-list filter: a date window most of the time, then a few of the other filters. */
function randomFilter(next: Random): Filter {
  const filter: Filter = {};
  const window = next();
  const from = firstMonth.plus({ months: Math.floor(next() * MONTHS) });
  if (window < 0.4) {
    filter.startDate = day(from);
    filter.endDate = day(from.endOf('month'));
  } else if (window < 0.6) {
    filter.startDate = day(from);
    filter.endDate = day(from.plus({ months: 1 }).endOf('month'));
  } else if (window < 0.75) {
    const start = from.plus({ days: Math.floor(next() * 20) });
    filter.startDate = day(start);
    filter.endDate = day(start.plus({ days: 6 }));
  } else if (window < 0.85) filter.startDate = day(from);
  if (chance(next, 0.25)) {
    const term = pick(next, categories);
    filter.categories = [chance(next, 0.5) ? term.slug : String(term.id)];
  }
  if (chance(next, 0.15)) filter.tags = [pick(next, tags).slug];
  if (chance(next, 0.15)) filter.venue = pick(next, venueIds);
  if (chance(next, 0.1)) filter.organizer = pick(next, organizerIds);
  if (chance(next, 0.1)) filter.search = pick(next, WORDS);
  if (chance(next, 0.1)) filter.featured = true;
  if (chance(next, 0.3)) filter.perPage = pick(next, [3, 5, 20]);
  if (chance(next, 0.2)) filter.page = 2;
  return filter;
}

function restQuery(filter: Filter): string {
  const query = new URLSearchParams();
  if (filter.startDate) query.set('start_date', filter.startDate);
  if (filter.endDate) query.set('end_date', filter.endDate);
  if (filter.categories) query.set('categories', filter.categories.join(','));
  if (filter.tags) query.set('tags', filter.tags.join(','));
  if (filter.venue) query.set('venue', String(filter.venue));
  if (filter.organizer) query.set('organizer', String(filter.organizer));
  if (filter.search) query.set('search', filter.search);
  if (filter.featured) query.set('featured', '1');
  if (filter.page) query.set('page', String(filter.page));
  if (filter.perPage) query.set('per_page', String(filter.perPage));
  return query.toString();
}

const EVENT_FIELDS =
  'id title startDate endDate status featured venues { name } organizers { name } categories { name count } tags { name }';
/**
 * Fields that each say which event columns they show: answers selecting only those stay cached through
 * writes of the other columns only they show (a description, a website, a cost).
 */
const COLUMN_FIELDS =
  'databaseId title localStartDate eventStatus content { withheld allDay excerpt website cost { formatted } venues { name } categories { name count } }';
const eventFields = (next: Random) => (chance(next, 0.5) ? EVENT_FIELDS : COLUMN_FIELDS);

function graphqlList(filter: Filter, fields: string): { query: string; variables: Record<string, unknown> } {
  const { page, perPage, venue, organizer, ...rest } = filter;
  return {
    query: `query($filter: EventFilter, $page: Int, $perPage: Int) {
      events(filter: $filter, page: $page, perPage: $perPage) {
        pageInfo { total totalPages } items { ${fields} } } }`,
    variables: {
      filter: {
        ...rest,
        ...(venue ? { venues: [venue] } : {}),
        ...(organizer ? { organizers: [organizer] } : {}),
      },
      page,
      perPage,
    },
  };
}

type Request = { path: string } | { query: string; variables: Record<string, unknown> };

/** A random read. */
function randomRead(next: Random, events: Array<{ id: number; slug: string | null }>): Request {
  const event = pick(next, events);
  const kind = next();
  if (kind < 0.35) return { path: `${API}/events?${restQuery(randomFilter(next))}` };
  if (kind < 0.55) return graphqlList(randomFilter(next), eventFields(next));
  if (kind < 0.62) return { path: `${API}/events/${event.id}` };
  if (kind < 0.66) return { path: `${API}/events/by-slug/${event.slug}` };
  if (kind < 0.7)
    return {
      query: `query($id: Int!) { event(id: $id) { ${eventFields(next)} } }`,
      variables: { id: event.id },
    };
  if (kind < 0.73) return { path: `${API}/events/${event.id}?password=pw` };
  if (kind < 0.77) return { path: `${API}/venues/${pick(next, venueIds)}` };
  if (kind < 0.8) return { path: `${API}/organizers/${pick(next, organizerIds)}` };
  if (kind < 0.84) return { path: `${API}/categories/${pick(next, categories).id}` };
  if (kind < 0.87) return { path: `${API}/tags/${pick(next, tags).id}` };
  if (kind < 0.9) return { path: `${API}/venues${chance(next, 0.5) ? '?only_with_upcoming=1' : ''}` };
  if (kind < 0.93) return { path: `${API}/categories${chance(next, 0.5) ? '?hide_empty=0' : ''}` };
  if (kind < 0.96)
    return {
      query: `{ venues { items { id name } } organizers { items { id name } } categories { items { id name count } } }`,
      variables: {},
    };
  return {
    query: `query($first: Int) { eventsConnection(first: $first) { totalCount edges { node { id title } } } }`,
    variables: { first: pick(next, [2, 5]) },
  };
}

type Write =
  | 'text'
  | 'move'
  | 'terms'
  | 'venue'
  | 'organizer'
  | 'password'
  | 'status'
  | 'trash'
  | 'create'
  | 'rename-venue'
  | 'rename-term';
const WRITES: Write[] = [
  'text',
  'text',
  'move',
  'move',
  'terms',
  'venue',
  'organizer',
  'password',
  'status',
  'trash',
  'create',
  'create',
  'rename-venue',
  'rename-term',
];

/** A random write through `via`, REST or GraphQL; returns its HTTP status and text. */
async function randomWrite(
  next: Random,
  via: ReturnType<typeof supertest>,
  as: Credentials,
  events: Array<{ id: number }>,
  n: number,
) {
  const write = pick(next, WRITES);
  const id = pick(next, events).id;
  const start = firstMonth.plus({
    months: Math.floor(next() * MONTHS),
    days: Math.floor(next() * 27),
    hours: 12,
  });
  const dates = [
    start.toFormat('yyyy-MM-dd HH:mm:ss'),
    start.plus({ hours: 2 }).toFormat('yyyy-MM-dd HH:mm:ss'),
  ];
  const category = pick(next, categories).id;
  const tag = pick(next, tags).id;
  const venue = pick(next, venueIds);
  const organizer = pick(next, organizerIds);
  const status = chance(next, 0.5) ? 'draft' : 'publish';
  const password = chance(next, 0.5) ? 'pw' : '';
  const title = `${pick(next, WORDS)} interleaved ${n}`;
  // A text edit writes one column that only the fields showing it read.
  const [column, value] = pick(next, [
    ['title', title],
    ['description', `<p>Details ${n}</p>`],
    ['excerpt', `Short ${n}`],
    ['website', `https://example.com/${n}`],
  ] as const);
  if (chance(next, 0.5)) {
    const body: Record<Write, object> = {
      text: { [column]: value },
      move: { start_date: dates[0], end_date: dates[1] },
      terms: { categories: [category], tags: chance(next, 0.5) ? [tag] : [] },
      venue: { venue },
      organizer: { organizer: [organizer] },
      password: { password },
      status: { status },
      trash: {},
      create: { title, start_date: dates[0], end_date: dates[1], categories: [category], venue },
      'rename-venue': { venue: `Hall ${n}` },
      'rename-term': { name: `Category ${n}` },
    };
    const path =
      write === 'create'
        ? `${API}/events`
        : write === 'rename-venue'
          ? `${API}/venues/${venue}`
          : write === 'rename-term'
            ? `${API}/categories/${category}`
            : `${API}/events/${id}`;
    const request = write === 'trash' ? via.delete(path) : via.post(path).send(body[write]);
    return request.auth(as.login, as.password);
  }
  const input: Record<Write, string> = {
    text: `updateEvent(id: ${id}, input: { ${column}: "${value}" })`,
    move: `updateEvent(id: ${id}, input: { startDate: "${dates[0]}", endDate: "${dates[1]}" })`,
    terms: `updateEvent(id: ${id}, input: { categories: [{ id: ${category} }], tags: [${chance(next, 0.5) ? `{ id: ${tag} }` : ''}] })`,
    venue: `updateEvent(id: ${id}, input: { venues: [{ id: ${venue} }] })`,
    organizer: `updateEvent(id: ${id}, input: { organizers: [{ id: ${organizer} }] })`,
    password: `updateEvent(id: ${id}, input: { password: "${password}" })`,
    status: `updateEvent(id: ${id}, input: { status: ${status} })`,
    trash: `deleteEvent(id: ${id})`,
    create: `createEvent(input: { title: "${title}", startDate: "${dates[0]}", endDate: "${dates[1]}", categories: [{ id: ${category} }], venues: [{ id: ${venue} }] })`,
    'rename-venue': `updateVenue(id: ${venue}, input: { name: "Hall ${n}" })`,
    'rename-term': `updateCategory(id: ${category}, input: { name: "Category ${n}" })`,
  };
  return via
    .post('/graphql')
    .auth(as.login, as.password)
    .send({ query: `mutation { w: ${input[write]} { id } }` });
}

describe('cache on and cache off answer the same', () => {
  it(`${OPERATIONS} seeded operations`, async () => {
    const next = random(SEED);
    let events = await currentEvents();
    // Popular reads come back (as a calendar's do: some pages far more than others), so that many
    // answers are served from the cache after writes; a fifth are new, naming the events as they are.
    const popular = Array.from({ length: 400 }, () => randomRead(next, events));
    const counts = { reads: 0, signedIn: 0, writes: 0, hits: 0, refreshes: 0 };
    for (let step = 0; step < OPERATIONS; step++) {
      if (chance(next, 0.07)) {
        const res = await randomWrite(
          next,
          pick(next, [cached, uncached]),
          users.administrator,
          events,
          step,
        );
        expect(res.status, `${step}: ${res.text}`).toBeLessThan(500);
        counts.writes++;
        events = await currentEvents();
        continue;
      }
      const read = chance(next, 0.8)
        ? popular[Math.floor(popular.length * next() ** 2)]!
        : randomRead(next, events);
      // Mostly anonymous visitors; some signed-in users, whose answers are never shared but whose
      // lists use the kept records.
      const as = chance(next, 0.04)
        ? pick(next, [users.administrator, users.author, users.subscriber])
        : undefined;
      const [a, b] = await Promise.all(
        [cached, uncached].map((http) => {
          // The same request id on both: error bodies name it, and the answers are compared byte for byte.
          const request = 'path' in read ? http.get(read.path) : http.post('/graphql').send(read);
          request.set('X-Request-Id', `step-${step}`);
          return as ? request.auth(as.login, as.password) : request;
        }),
      );
      counts.reads++;
      if (as) counts.signedIn++;
      if (a!.headers['x-cache'] === 'hit') counts.hits++;
      if (a!.headers['x-cache'] === 'refresh') counts.refreshes++;
      // The validator too: a refreshed answer's tag is the one its bytes would get computed whole.
      expect(
        { status: a!.status, body: a!.text, etag: a!.headers.etag },
        `${step}: ${JSON.stringify(read)}`,
      ).toEqual({ status: b!.status, body: b!.text, etag: b!.headers.etag });
    }
    // The run exercised what it claims: writes, signed-in reads, and answers shared from the cache.
    expect(counts.writes).toBeGreaterThan(OPERATIONS * 0.05);
    expect(counts.signedIn).toBeGreaterThan(OPERATIONS * 0.02);
    expect(counts.hits).toBeGreaterThan(counts.reads * 0.1);
    expect(counts.refreshes).toBeGreaterThan(0);
  }, 240_000);
});
