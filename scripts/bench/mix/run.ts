// `npm run bench -- --mix`: the service under a calendar's traffic instead of one hot URL (issue #29).
// Thousands of distinct anonymous reads across REST and GraphQL, picked by Zipf popularity inside wrk
// (scripts/bench/mix/mix.lua, from a precomputed alias table), while a writer in this process edits events
// as an administrator through both APIs at a fixed rate. Each row says what the serving process did:
// req/s, latency, the response cache's hit ratio (its /metrics counters), SQL statements and CPU per
// request, and RSS (at each row's end, and the peak so far).
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createUser } from '../../../src/users/users.js';
import type { Config } from '../../../src/core/config/config.js';
import { createDb } from '../../../src/core/db/client.js';
import { recordChanges } from '../../../src/sync/change-log.js';
import { WritePipeline } from '../../../src/core/db/transactions.js';
import { CATEGORY_TAXONOMY, TAG_TAXONOMY } from '../../sample-data/generate.js';

const run = promisify(execFile);
const LUA_SCRIPT = new URL('./mix.lua', import.meta.url).pathname;
const API = '/calendar/events/v1';
/** Zipf exponent of URL popularity: the k-th most read URL is read 1/k as often as the first. */
const ZIPF_S = 1;
/** Answers vary on Accept: wrk sends the same (scripts/bench/mix/mix.lua). */
const READ_ACCEPT = 'application/json';
/** The mix's candidate read URLs (paths) over the database at `url`, most popular first. */
export async function mixReadUrls(url: string): Promise<string[]> {
  return readUrls(await catalogue(url), random(42));
}

/** Enough distinct reads that a cache cannot look good by holding a handful of answers. */
const MIN_URLS = 4000;

/** What the mix needs of a server child of `npm run bench`. */
export interface MixServer {
  readonly origin: string;
  resetSql(): Promise<number>;
  sql(): Promise<number>;
  cpuMicros(): Promise<number>;
  rssMb(): Promise<number>;
  /** The process's peak RSS so far: the mix's server is its own process, so its peak through the mix. */
  peakRssMb(): Promise<number>;
  /** Answers the response cache dropped for writes so far. */
  dropped(): Promise<number>;
  /** Starts counting the garbage collector's pauses afresh. */
  gcReset(): Promise<void>;
  /** The collector's pauses since `gcReset`: their sum and the longest, in ms. */
  gcPauses(): Promise<{ totalMs: number; longestMs: number }>;
  profileStart(): Promise<void>;
  profileStop(path: string): Promise<void>;
}

export interface MixRow {
  name: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** Reads answered other than 2xx, and socket errors. */
  non2xx: number;
  errors: number;
  /** Bytes received, headers included. */
  bytes: number;
  /** Hits / (hits + refreshes + misses) of the response cache over the measured run; undefined with it off. */
  hitRatio?: number;
  /** Refreshes (answers whose term counts a write moved, rewritten in place) / the same lookups. */
  refreshRatio?: number;
  /** Answers dropped to stay within CALENDAR_CACHE_MB during the measured run. */
  evictions?: number;
  /** Answers the writes made stale during the measured run (what selective invalidation dropped). */
  dropped?: number;
  sqlPerRequest: number;
  cpuPerRequest: number;
  rssMb: number;
  peakRssMb: number;
  /** The share of the measured run the event loop spent stopped for garbage collection, and its longest stop (ms). */
  gc: { share: number; longestMs: number };
  writes?: { sent: number; failed: number; rate: number };
  /** Answers dropped per kind of write, over the writes that ran alone (none overlapping another). */
  droppedByKind?: Partial<Record<WriteKind, { writes: number; dropped: number }>>;
}

// --- the reads ---------------------------------------------------------------------------------

/** A seeded PRNG (mulberry32): the same URL set and popularity order on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: T[], next: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

const ymd = (date: Date) => date.toISOString().slice(0, 10);
const addDays = (day: string, days: number) =>
  ymd(new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000));

/** The embeddable calendar's documents (examples/operations/calendar-view.graphql), one line each. */
const CALENDAR_EVENTS = `query CalendarEvents($filter: EventFilter, $first: Int, $after: String) {
  eventsConnection(filter: $filter, first: $first, after: $after) {
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    edges { node { databaseId title startDate endDate localStartDate localEndDate timezone eventStatus
      content { withheld allDay categories { slug name } venues { name city } } } } } }`;
const CALENDAR_EVENT = `query CalendarEvent($id: Int!) { event(id: $id) { databaseId title startDate endDate
  localStartDate localEndDate timezone timezoneAbbr eventStatus attendanceMode url
  content { withheld allDay excerpt eventStatusReason website onlineUrl cost { formatted }
    venues { databaseId name address city stateProvince zip country geoLat geoLng showMapLink }
    organizers { databaseId name email phone website } categories { slug name } tags { slug name } } } }`;
const oneLine = (text: string) => text.replace(/\s+/g, ' ');

function graphqlGet(query: string, operationName: string, variables: Record<string, unknown>): string {
  const params = new URLSearchParams({
    query: oneLine(query),
    operationName,
    variables: JSON.stringify(variables),
  });
  return `/graphql?${params}`;
}

interface Catalogue {
  eventIds: number[];
  slugs: string[];
  venueIds: number[];
  organizerIds: number[];
  categories: Array<{ id: number; slug: string }>;
  tags: Array<{ id: number; slug: string }>;
  searchWords: string[];
  /** Published, listed, unprotected events starting at least a week ahead: what the writer edits. */
  editable: Array<{ id: number; localStart: string; localEnd: string }>;
}

async function catalogue(url: string): Promise<Catalogue> {
  const db = await createDb(url);
  try {
    const [events, venues, organizers, terms] = await Promise.all([
      db.event.findMany({
        where: { status: 'publish', password: null, hideFromListings: false },
        select: { id: true, slug: true, title: true, localStart: true, localEnd: true },
        orderBy: { id: 'asc' },
      }),
      db.venue.findMany({ where: { status: 'publish' }, select: { id: true }, orderBy: { id: 'asc' } }),
      db.organizer.findMany({ where: { status: 'publish' }, select: { id: true }, orderBy: { id: 'asc' } }),
      db.term.findMany({
        select: { id: true, slug: true, taxonomy: true, eventCount: true },
        orderBy: { id: 'asc' },
      }),
    ]);
    // Search words a visitor would type: the commonest longer words of the titles.
    const counts = new Map<string, number>();
    for (const { title } of events)
      for (const word of title.toLowerCase().split(/[^a-z]+/))
        if (word.length >= 4) counts.set(word, (counts.get(word) ?? 0) + 1);
    const searchWords = [...counts.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 40)
      .map(([word]) => word);
    const weekAhead = `${addDays(ymd(new Date()), 7)} 00:00:00`;
    const used = terms.filter((term) => term.eventCount > 0);
    return {
      eventIds: events.map((event) => event.id),
      slugs: events.flatMap((event) => (event.slug ? [event.slug] : [])),
      venueIds: venues.map((venue) => venue.id),
      organizerIds: organizers.map((organizer) => organizer.id),
      categories: used.filter((term) => term.taxonomy === CATEGORY_TAXONOMY),
      tags: used.filter((term) => term.taxonomy === TAG_TAXONOMY),
      searchWords,
      editable: events.filter((event) => event.localStart >= weekAhead),
    };
  } finally {
    await db.$disconnect();
  }
}

/**
 * Candidate read URLs, most popular first: a few front-page reads by hand (the default list, this
 * month's calendar), then every other kind in a seeded shuffle, so popularity does not follow kind.
 */
function readUrls(c: Catalogue, next: () => number): string[] {
  const list = (params: Record<string, string | number>) => {
    const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
    return `${API}/events${query ? `?${query}` : ''}`;
  };
  const pages = (params: Record<string, string | number>, count: number) =>
    Array.from({ length: count }, (_, i) => list(i === 0 ? params : { ...params, page: i + 1 }));
  const today = ymd(new Date());
  const months = Array.from({ length: 18 }, (_, i) => {
    const first = new Date(Date.UTC(Number(today.slice(0, 4)), Number(today.slice(5, 7)) - 1 + i, 1));
    const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0));
    return { from: ymd(first), to: ymd(last) };
  });
  const calendarMonth = (month: { from: string; to: string }, categories?: string[]) =>
    graphqlGet(CALENDAR_EVENTS, 'CalendarEvents', {
      filter: {
        ...(categories ? { categories } : {}),
        endsAfter: `${addDays(month.from, -2)} 00:00:00`,
        startsBefore: `${addDays(month.to, 3)} 00:00:00`,
        strictDates: true,
      },
      first: 50,
    });
  const connection = (filter: Record<string, unknown> | undefined, first: number) =>
    graphqlGet(CALENDAR_EVENTS, 'CalendarEvents', { ...(filter ? { filter } : {}), first });
  const sample = <T>(items: T[], count: number) => shuffle([...items], next).slice(0, count);

  const head = [list({}), calendarMonth(months[0]!), list({ page: 2 }), calendarMonth(months[1]!)];
  const rest: string[] = [
    // The default window and its pages, in four page sizes.
    ...pages({}, 100),
    ...[5, 20, 50].flatMap((perPage) => pages({ per_page: perPage }, 20)),
    // Filtered lists and their first pages.
    ...c.categories.flatMap((t) => [
      ...pages({ categories: t.slug }, 3),
      list({ categories: t.slug, per_page: 50 }),
    ]),
    ...c.tags.flatMap((t) => [...pages({ tags: t.slug }, 3), list({ tags: t.slug, per_page: 50 })]),
    ...c.venueIds.flatMap((id) => pages({ venue: id }, 2)),
    ...c.organizerIds.flatMap((id) => pages({ organizer: id }, 2)),
    ...c.searchWords.flatMap((word) => pages({ search: word }, 2)),
    // Month windows, alone and with a category.
    ...months.flatMap((m) => [
      ...pages({ start_date: m.from, end_date: m.to }, 3),
      ...pages({ start_date: m.from, end_date: m.to, per_page: 50 }, 2),
      ...c.categories.map((t) => list({ start_date: m.from, end_date: m.to, categories: t.slug })),
    ]),
    // Singles by id and by slug.
    ...sample(c.eventIds, 1000).map((id) => `${API}/events/${id}`),
    ...sample(c.slugs, 800).map((slug) => `${API}/events/by-slug/${encodeURIComponent(slug)}`),
    // GraphQL: the calendar's month pages (all events, and per category), connection pages, singles.
    ...months.slice(2).map((m) => calendarMonth(m)),
    ...months.flatMap((m) => c.categories.map((t) => calendarMonth(m, [t.slug]))),
    ...[10, 20].flatMap((first) => [
      connection(undefined, first),
      ...c.categories.map((t) => connection({ categories: [t.slug] }, first)),
      ...c.tags.map((t) => connection({ tags: [t.slug] }, first)),
    ]),
    ...sample(c.venueIds, 150).map((id) => connection({ venues: [id] }, 10)),
    ...c.searchWords.map((word) => connection({ search: word }, 10)),
    ...sample(c.eventIds, 400).map((id) => graphqlGet(CALENDAR_EVENT, 'CalendarEvent', { id })),
  ];
  const seen = new Set(head);
  return [...head, ...shuffle(rest, next).filter((url) => !seen.has(url) && seen.add(url))];
}

/**
 * Reads every candidate once (a 200 without GraphQL errors is kept; a page past a filter's end is
 * not), which also warms the cache as a long-running server's would be: least popular first, so
 * that when the answers outgrow CALENDAR_CACHE_MB the evicted ones are the least read, as under LRU.
 */
async function keepAnswered(
  origin: string,
  urls: string[],
  wrkHeaders: readonly string[],
): Promise<string[]> {
  // The headers wrk sends: Node's fetch would otherwise ask for gzip, another spelling to the fast path,
  // and the first measured row would still be recording the aliases of wrk's own spellings.
  const headers = { 'accept-encoding': 'identity', ...headersOf(wrkHeaders), accept: READ_ACCEPT };
  const ok = new Array<boolean>(urls.length).fill(false);
  let cursor = urls.length - 1;
  const worker = async () => {
    for (let i = cursor--; i >= 0; i = cursor--) {
      const url = urls[i] as string;
      const response = await fetch(`${origin}${url}`, { headers });
      const text = await response.text();
      ok[i] = response.ok && !(url.startsWith('/graphql') && text.includes('"errors"'));
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return urls.filter((_, i) => ok[i]);
}

/** wrk's `-H 'Name: value'` arguments as fetch's headers. */
function headersOf(wrkHeaders: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < wrkHeaders.length; i += 2) {
    if (wrkHeaders[i] !== '-H') continue;
    const header = wrkHeaders[i + 1] as string;
    const colon = header.indexOf(':');
    headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
  }
  return headers;
}

/**
 * The popularity table wrk reads: one line per URL, `probability alias path`, in Vose's alias method
 * form, so a pick costs two random numbers whatever the number of URLs.
 */
function aliasTable(urls: string[]): string {
  const n = urls.length;
  const weights = urls.map((_, rank) => 1 / (rank + 1) ** ZIPF_S);
  const total = weights.reduce((sum, w) => sum + w, 0);
  const scaled = weights.map((w) => (w * n) / total);
  const probability = new Array<number>(n).fill(1);
  const alias = urls.map((_, i) => i);
  const small: number[] = [];
  const large: number[] = [];
  scaled.forEach((p, i) => (p < 1 ? small : large).push(i));
  while (small.length && large.length) {
    const less = small.pop() as number;
    const more = large.pop() as number;
    probability[less] = scaled[less] as number;
    alias[less] = more;
    scaled[more] = (scaled[more] as number) + (scaled[less] as number) - 1;
    (scaled[more] < 1 ? small : large).push(more);
  }
  return urls
    .map((url, i) => `${(probability[i] as number).toFixed(6)} ${(alias[i] as number) + 1} ${url}\n`)
    .join('');
}

// --- the writes --------------------------------------------------------------------------------

/** An administrator and one application password, made in the database before the servers start. */
export async function createAdministrator(url: string, config: Config): Promise<string> {
  return createSignedIn(url, config, 'administrator', 'bench-editor');
}

/** A user of `role` and the HTTP Basic credentials of its application password. */
export async function createSignedIn(
  url: string,
  config: Config,
  role: 'administrator' | 'editor',
  login: string,
): Promise<string> {
  const db = await createDb(url);
  try {
    const writes = new WritePipeline();
    recordChanges(writes, config);
    const { password } = await createUser({ db, config, writes }, { login, role });
    return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
  } finally {
    await db.$disconnect();
  }
}

type WriteKind = 'text' | 'dates' | 'terms' | 'venue' | 'create' | 'trash';
/** An editor's day: mostly text, some moved dates, term and venue changes, a few creates and trashes. */
const WRITE_MIX: Array<[WriteKind, number]> = [
  ['text', 60],
  ['dates', 15],
  ['terms', 10],
  ['venue', 8],
  ['create', 4],
  ['trash', 3],
];

const UPDATE = `mutation BenchUpdate($id: Int!, $input: UpdateEventInput!) { updateEvent(id: $id, input: $input) { databaseId } }`;
const CREATE = `mutation BenchCreate($input: CreateEventInput!) { createEvent(input: $input) { databaseId } }`;
const TRASH = `mutation BenchTrash($id: Int!) { deleteEvent(id: $id) { databaseId } }`;

const shiftWall = (wall: string, days: number) =>
  new Date(Date.parse(`${wall.replace(' ', 'T')}Z`) + days * 86_400_000)
    .toISOString()
    .slice(0, 19)
    .replace('T', ' ');

/**
 * Writes at a fixed rate while it runs, alternating REST and GraphQL, each sent on schedule whether
 * or not the one before has answered (an editor does not wait for another's save). Trashes only what
 * it created, so the read URLs keep answering.
 */
class Writer {
  private sent = 0;
  private failed = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly created: number[] = [];
  private readonly next = random(7);
  private sequence = 0;
  private started = 0;
  readonly droppedByKind: Partial<Record<WriteKind, { writes: number; dropped: number }>> = {};

  constructor(
    private readonly origin: string,
    private readonly authorization: string,
    private readonly c: Catalogue,
    /** The server's count of answers dropped so far: read around each write that runs alone. */
    private readonly dropped?: () => Promise<number>,
  ) {}

  /** The write, and what it dropped when no other write overlapped it (each kind's cost, measured). */
  private async measured(kind: WriteKind, write: () => Promise<void>): Promise<void> {
    const alone = this.inFlight.size === 0 && this.dropped;
    const sequence = ++this.started;
    const before = alone ? await this.dropped!() : 0;
    await write();
    if (!alone || this.started !== sequence) return;
    const tally = (this.droppedByKind[kind] ??= { writes: 0, dropped: 0 });
    tally.writes++;
    tally.dropped += (await this.dropped!()) - before;
  }

  start(rate: number): void {
    const started = performance.now();
    let due = 0;
    const tick = () => {
      const write = this.write().finally(() => this.inFlight.delete(write));
      this.inFlight.add(write);
      due++;
      this.timer = setTimeout(tick, Math.max(0, started + (due * 1000) / rate - performance.now()));
    };
    tick();
  }

  /** Writes sent and failed so far. */
  counts = () => ({ sent: this.sent, failed: this.failed });

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await Promise.all(this.inFlight);
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  private kind(): WriteKind {
    let roll = this.next() * WRITE_MIX.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [kind, weight] of WRITE_MIX) if ((roll -= weight) < 0) return kind;
    return 'text';
  }

  private async write(): Promise<void> {
    const viaRest = this.sequence++ % 2 === 0;
    let kind = this.kind();
    if (kind === 'trash' && this.created.length === 0) kind = 'create';
    const event = this.pick(this.c.editable);
    const n = this.sequence;
    // REST field names and GraphQL input names side by side.
    let rest: Record<string, unknown> = {};
    let graphql: Record<string, unknown> = {};
    switch (kind) {
      case 'text':
        if (this.next() < 0.5) rest = graphql = { title: `Edited event ${n}` };
        else rest = graphql = { description: `<p>Updated details, revision ${n}.</p>` };
        break;
      case 'dates': {
        // A few days either way, well inside the default window.
        const days = this.pick([-3, -2, -1, 1, 2, 3]);
        const startDate = shiftWall(event.localStart, days);
        const endDate = shiftWall(event.localEnd, days);
        rest = { start_date: startDate, end_date: endDate };
        graphql = { startDate, endDate };
        break;
      }
      case 'terms': {
        const category = this.pick(this.c.categories).id;
        const tag = this.pick(this.c.tags).id;
        rest = { categories: [category], tags: [tag] };
        graphql = { categories: [{ id: category }], tags: [{ id: tag }] };
        break;
      }
      case 'venue': {
        const venue = this.pick(this.c.venueIds);
        rest = { venue };
        graphql = { venues: [{ id: venue }] };
        break;
      }
      case 'create': {
        const startDate = `${addDays(ymd(new Date()), 10 + Math.floor(this.next() * 300))} 19:00:00`;
        const endDate = startDate.replace('19:00:00', '21:00:00');
        const category = this.pick(this.c.categories).id;
        const venue = this.pick(this.c.venueIds);
        const title = `New event ${n}`;
        rest = {
          title,
          start_date: startDate,
          end_date: endDate,
          status: 'publish',
          categories: [category],
          venue,
        };
        graphql = {
          title,
          startDate,
          endDate,
          status: 'publish',
          categories: [{ id: category }],
          venues: [{ id: venue }],
        };
        break;
      }
      case 'trash':
        break;
    }
    let id = event.id;
    if (kind === 'trash')
      id = this.created.splice(Math.floor(this.next() * this.created.length), 1)[0] as number;
    try {
      let created: number | undefined;
      await this.measured(kind, async () => {
        created = viaRest ? await this.rest(kind, id, rest) : await this.graphql(kind, id, graphql);
      });
      if (created !== undefined) this.created.push(created);
      if (kind === 'dates') {
        event.localStart = (rest.start_date as string) ?? event.localStart;
        event.localEnd = (rest.end_date as string) ?? event.localEnd;
      }
    } catch {
      this.failed++;
    } finally {
      this.sent++;
    }
  }

  /** One write over REST; the new event's id for a create. */
  private async rest(
    kind: WriteKind,
    id: number,
    body: Record<string, unknown>,
  ): Promise<number | undefined> {
    const path = kind === 'create' ? `${API}/events` : `${API}/events/${id}`;
    const response = await fetch(`${this.origin}${path}`, {
      method: kind === 'trash' ? 'DELETE' : 'POST',
      headers: { authorization: this.authorization, 'content-type': 'application/json' },
      ...(kind === 'trash' ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await response.json()) as { id?: number };
    if (!response.ok) throw new Error(`REST ${kind}: HTTP ${response.status}`);
    return kind === 'create' ? answer.id : undefined;
  }

  /** The same write over GraphQL. */
  private async graphql(
    kind: WriteKind,
    id: number,
    input: Record<string, unknown>,
  ): Promise<number | undefined> {
    const [query, variables] =
      kind === 'create' ? [CREATE, { input }] : kind === 'trash' ? [TRASH, { id }] : [UPDATE, { id, input }];
    const response = await fetch(`${this.origin}/graphql`, {
      method: 'POST',
      headers: { authorization: this.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const answer = (await response.json()) as {
      data?: Record<string, { databaseId: number } | null>;
      errors?: unknown;
    };
    if (!response.ok || answer.errors) throw new Error(`GraphQL ${kind}: HTTP ${response.status}`);
    return kind === 'create' ? answer.data?.createEvent?.databaseId : undefined;
  }
}

// --- the run -----------------------------------------------------------------------------------

/** The response cache's hit and miss counters from the server's /metrics. */
async function cacheCounters(
  server: MixServer,
  metricsToken: string,
): Promise<{ hit: number; miss: number; refreshed: number; eviction: number; dropped: number }> {
  const response = await fetch(`${server.origin}/metrics`, {
    headers: { authorization: `Bearer ${metricsToken}` },
  });
  if (!response.ok) throw new Error(`/metrics answered HTTP ${response.status}`);
  const text = await response.text();
  const counter = (event: string) =>
    Number(
      new RegExp(`^calendar_response_cache_events_total\\{event="${event}"\\} (\\S+)$`, 'm').exec(
        text,
      )?.[1] ?? 0,
    );
  return {
    hit: counter('hit'),
    miss: counter('miss'),
    refreshed: counter('refreshed'),
    eviction: counter('eviction'),
    dropped: counter('dropped'),
  };
}

async function wrkMix(
  origin: string,
  table: string,
  connections: number,
  duration: number,
  headers: readonly string[],
) {
  const { stdout } = await run(
    'wrk',
    ['-t1', `-c${connections}`, `-d${duration}s`, '--latency', ...headers, '-s', LUA_SCRIPT, origin],
    { env: { ...process.env, BENCH_MIX_TABLE: table }, maxBuffer: 1 << 20 },
  );
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH '));
  if (!line) throw new Error(`wrk printed no result:\n${stdout}`);
  return JSON.parse(line.slice(6)) as Pick<
    MixRow,
    'requests' | 'rps' | 'p50' | 'p99' | 'non2xx' | 'errors' | 'bytes'
  >;
}

export interface MixOptions {
  url: string;
  dir: string;
  /** The cache-on server the mix is written to and read from, and the cache-off one (none: no such row). */
  cached: MixServer;
  uncached?: MixServer;
  metricsToken: string;
  authorization: string;
  connections: number;
  duration: number;
  warmup: number;
  /** wrk's extra header arguments (`-H 'Accept-Encoding: gzip'` with `--gzip`). */
  wrkHeaders: readonly string[];
  /** Where each row's CPU profile of its server is written (the measured run only); none: no profile. */
  profileDir?: string;
}

export async function runMix(options: MixOptions): Promise<{ rows: MixRow[]; urls: number }> {
  const { cached, uncached, metricsToken, connections, duration, warmup, wrkHeaders } = options;
  const c = await catalogue(options.url);
  const candidates = readUrls(c, random(42));
  const started = performance.now();
  const urls = await keepAnswered(cached.origin, candidates, wrkHeaders);
  console.log(
    `mix: ${urls.length} distinct read URLs answer (of ${candidates.length} candidates, ` +
      `each read once in ${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
  // A small seed has fewer venues, organizers and events to read: fewer URLs, said, not refused.
  if (urls.length < MIN_URLS) console.warn(`mix: fewer than ${MIN_URLS} distinct reads; seed more events`);
  const table = join(options.dir, 'mix-urls.txt');
  writeFileSync(table, aliasTable(urls));

  const rows: MixRow[] = [];
  const measure = async (name: string, server: MixServer, writesPerSecond: number) => {
    const writer =
      writesPerSecond > 0 ? new Writer(cached.origin, options.authorization, c, cached.dropped) : undefined;
    writer?.start(writesPerSecond);
    if (warmup > 0) await wrkMix(server.origin, table, connections, warmup, wrkHeaders);
    const cacheBefore = server === cached ? await cacheCounters(server, metricsToken) : undefined;
    const writesBefore = writer?.counts();
    await server.resetSql();
    const cpuBefore = await server.cpuMicros();
    await server.gcReset();
    if (options.profileDir) await server.profileStart();
    const result = await wrkMix(server.origin, table, connections, duration, wrkHeaders);
    const cpu = (await server.cpuMicros()) - cpuBefore;
    const gcPauses = await server.gcPauses();
    if (options.profileDir)
      await server.profileStop(join(options.profileDir, `${name.replace(/\W+/g, '-')}.cpuprofile`));
    const statements = await server.sql();
    const writesAfter = writer?.counts();
    await writer?.stop();
    const droppedByKind = writer?.droppedByKind;
    const cacheAfter = cacheBefore && (await cacheCounters(server, metricsToken));
    const hits = cacheAfter && cacheBefore ? cacheAfter.hit - cacheBefore.hit : 0;
    const refreshes = cacheAfter && cacheBefore ? cacheAfter.refreshed - cacheBefore.refreshed : 0;
    const lookups = cacheAfter && cacheBefore ? hits + refreshes + cacheAfter.miss - cacheBefore.miss : 0;
    rows.push({
      name,
      ...result,
      ...(cacheAfter && cacheBefore
        ? {
            hitRatio: lookups ? hits / lookups : Number.NaN,
            refreshRatio: lookups ? refreshes / lookups : Number.NaN,
            evictions: cacheAfter.eviction - cacheBefore.eviction,
            dropped: cacheAfter.dropped - cacheBefore.dropped,
          }
        : {}),
      sqlPerRequest: statements / result.requests,
      cpuPerRequest: cpu / 1000 / result.requests,
      rssMb: await server.rssMb(),
      peakRssMb: await server.peakRssMb(),
      gc: { share: gcPauses.totalMs / (duration * 1000), longestMs: gcPauses.longestMs },
      ...(writesAfter && writesBefore
        ? {
            writes: {
              sent: writesAfter.sent - writesBefore.sent,
              failed: writesAfter.failed - writesBefore.failed,
              rate: writesPerSecond,
            },
          }
        : {}),
      ...(droppedByKind && { droppedByKind }),
    });
    console.log(`measured ${name}`);
  };
  // The read-only mix twice, around the 1 write/s row (which drops little): the machine's speed drifts
  // within a run, and the targets are ratios to it, so they are taken to the mean of both.
  await measure('read-only mix', cached, 0);
  await measure('mix + 1 write/s', cached, 1);
  await measure(READ_ONLY_AGAIN, cached, 0);
  await measure('mix + 10 writes/s', cached, 10);
  if (uncached) await measure('read-only mix, CALENDAR_CACHE=off', uncached, 0);
  return { rows, urls: urls.length };
}

const READ_ONLY_AGAIN = 'read-only mix, again';

/** A row in which no read finished (writes kept every answer a miss) has no per-read figures. */
const answered = (row: MixRow, cell: string) => (row.requests > 0 ? cell : '-');

/**
 * What one answer weighed on the wire, headers included: most of a hit's CPU is writing it to the
 * socket, so rows compare only alongside it.
 */
export const kilobytesPerRequest = ({ bytes, requests }: { bytes: number; requests: number }): string =>
  requests ? (bytes / requests / 1024).toFixed(1) : '-';

/** The mix's table and the ratios issue #29's targets are stated in. */
export function printMix(rows: MixRow[], singleCachedList: { rps: number } | undefined, title: string): void {
  const table = [
    [
      'traffic',
      'req/s',
      'p50 ms',
      'p99 ms',
      'cache hits',
      'refreshed',
      'evictions',
      'SQL/req',
      'CPU ms/req',
      'KB/req',
      'GC (longest ms)',
      'RSS MB (peak)',
      'writes (failed)',
      'dropped/write',
    ],
    ...rows.map((row) => [
      row.name + (row.non2xx || row.errors ? ` (${row.non2xx} non-2xx, ${row.errors} errors)` : ''),
      row.rps.toFixed(0),
      answered(row, row.p50.toFixed(2)),
      answered(row, row.p99.toFixed(2)),
      row.hitRatio === undefined ? '-' : `${(row.hitRatio * 100).toFixed(1)} %`,
      row.refreshRatio === undefined ? '-' : `${(row.refreshRatio * 100).toFixed(1)} %`,
      row.evictions === undefined ? '-' : String(row.evictions),
      answered(row, row.sqlPerRequest.toFixed(2)),
      answered(row, row.cpuPerRequest.toFixed(3)),
      answered(row, kilobytesPerRequest(row)),
      `${(row.gc.share * 100).toFixed(1)} % (${row.gc.longestMs.toFixed(0)})`,
      `${row.rssMb.toFixed(0)} (${row.peakRssMb.toFixed(0)})`,
      row.writes ? `${row.writes.sent} (${row.writes.failed})` : '-',
      row.writes?.sent && row.dropped !== undefined ? (row.dropped / row.writes.sent).toFixed(0) : '-',
    ]),
  ];
  const widths = (table[0] ?? []).map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length)));
  console.log(`\n${title}\n`);
  for (const [i, row] of table.entries()) {
    console.log(`| ${row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join(' | ')} |`);
    if (i === 0) console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  }
  for (const row of rows) {
    if (!row.droppedByKind) continue;
    const kinds = Object.entries(row.droppedByKind).map(
      ([kind, { writes, dropped }]) => `${kind} ${(dropped / writes).toFixed(0)} (${writes})`,
    );
    console.log(`\n${row.name}: answers dropped per write of each kind (writes alone): ${kinds.join(', ')}`);
  }
  const rps = (name: string) => rows.find((row) => row.name === name)?.rps ?? Number.NaN;
  const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
  const readOnlyRows = [rps('read-only mix'), rps(READ_ONLY_AGAIN)].filter((value) => !Number.isNaN(value));
  const readOnly = readOnlyRows.reduce((sum, value) => sum + value, 0) / readOnlyRows.length;
  console.log(
    `\nread-only mix, mean of its ${readOnlyRows.length} rows: ${readOnly.toFixed(0)} req/s` +
      `\nmix + 1 write/s ÷ read-only mix: ${percent(rps('mix + 1 write/s') / readOnly)} (target ≥ 90 %)` +
      `\nmix + 10 writes/s ÷ read-only mix: ${percent(rps('mix + 10 writes/s') / readOnly)} (target ≥ 60 %)` +
      `\nread-only mix ÷ single-URL cached REST list: ${percent(readOnly / (singleCachedList?.rps ?? Number.NaN))} (target ≥ 50 %)`,
  );
}

/** One server's mix with some of the cache's mechanisms turned off (`--without`); none: every one on. */
export interface MixVariant {
  without: string;
  rows: MixRow[];
}

/**
 * What each mechanism pays (`--without`, #51 item 3): every variant's write rows and read-only mean,
 * and the ratio of each to the variants with every mechanism on (their mean: the machine drifts).
 */
/** The share of reads the server computed (neither a hit nor a refresh in place), in %. */
const computedShare = (row: MixRow | undefined) =>
  row?.hitRatio === undefined ? Number.NaN : (1 - row.hitRatio - (row.refreshRatio ?? 0)) * 100;
/** Answers a write made stale, per write sent. */
const droppedPerWrite = (row: MixRow | undefined) =>
  row?.dropped === undefined || !row.writes?.sent ? Number.NaN : row.dropped / row.writes.sent;

export function printVariants(variants: readonly MixVariant[], title: string): void {
  const figure = (rows: readonly MixRow[], name: string) => rows.find((row) => row.name === name);
  const readOnly = (rows: readonly MixRow[]) => {
    const found = [figure(rows, 'read-only mix'), figure(rows, READ_ONLY_AGAIN)].filter((row) => row);
    return found.reduce((sum, row) => sum + row!.rps, 0) / found.length;
  };
  const columns = [
    ['read-only req/s', (rows: readonly MixRow[]) => readOnly(rows)],
    ['+1 w/s req/s', (rows: readonly MixRow[]) => figure(rows, 'mix + 1 write/s')?.rps ?? Number.NaN],
    ['+10 w/s req/s', (rows: readonly MixRow[]) => figure(rows, 'mix + 10 writes/s')?.rps ?? Number.NaN],
    ['+1 w/s p99', (rows: readonly MixRow[]) => figure(rows, 'mix + 1 write/s')?.p99 ?? Number.NaN],
    ['+10 w/s p99', (rows: readonly MixRow[]) => figure(rows, 'mix + 10 writes/s')?.p99 ?? Number.NaN],
    [
      '+10 w/s CPU/read',
      (rows: readonly MixRow[]) => figure(rows, 'mix + 10 writes/s')?.cpuPerRequest ?? Number.NaN,
    ],
    // Work, not time: what the machine's noise leaves alone (statements, answers computed again).
    [
      '+10 w/s SQL/read',
      (rows: readonly MixRow[]) => figure(rows, 'mix + 10 writes/s')?.sqlPerRequest ?? Number.NaN,
    ],
    ['+10 w/s computed %', (rows: readonly MixRow[]) => computedShare(figure(rows, 'mix + 10 writes/s'))],
    ['+1 w/s dropped/write', (rows: readonly MixRow[]) => droppedPerWrite(figure(rows, 'mix + 1 write/s'))],
    [
      '+10 w/s dropped/write',
      (rows: readonly MixRow[]) => droppedPerWrite(figure(rows, 'mix + 10 writes/s')),
    ],
    ['peak RSS', (rows: readonly MixRow[]) => Math.max(...rows.map((row) => row.peakRssMb))],
  ] as const;
  const baselines = variants.filter((variant) => variant.without === 'none');
  const base = columns.map(
    ([, read]) => baselines.reduce((sum, variant) => sum + read(variant.rows), 0) / baselines.length,
  );
  const table = [
    ['without', ...columns.map(([name]) => name)],
    ...variants.map((variant) => [
      variant.without,
      ...columns.map(([, read], i) => {
        const value = read(variant.rows);
        const digits = value >= 100 ? 0 : 2;
        return `${value.toFixed(digits)} (${((value / base[i]!) * 100).toFixed(0)} %)`;
      }),
    ]),
  ];
  const widths = (table[0] ?? []).map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length)));
  console.log(`\n${title}\n`);
  for (const [i, row] of table.entries()) {
    console.log(`| ${row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join(' | ')} |`);
    if (i === 0) console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  }
}
