// The mix's reads: thousands of distinct anonymous GETs over REST and GraphQL from the seeded database,
// in a seeded popularity order, kept when they answer, and the alias table wrk picks them from (mix.lua).

import { createDb } from '../../../src/core/db/client.js';
import { CATEGORY_TAXONOMY, TAG_TAXONOMY } from '../../sample-data/generate.js';

export const API = '/calendar/events/v1';
/** Zipf exponent of URL popularity: the k-th most read URL is read 1/k as often as the first. */
const ZIPF_S = 1;
/** Answers vary on Accept: wrk sends the same (scripts/bench/mix/mix.lua). */
const READ_ACCEPT = 'application/json';
/** The mix's candidate read URLs (paths) over the database at `url`, most popular first. */
export async function mixReadUrls(url: string): Promise<string[]> {
  return readUrls(await catalogue(url), random(42));
}

/** A seeded PRNG (mulberry32): the same URL set and popularity order on every run. */
export function random(seed: number): () => number {
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

export const ymd = (date: Date) => date.toISOString().slice(0, 10);
export const addDays = (day: string, days: number) =>
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

export interface Catalogue {
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

export async function catalogue(url: string): Promise<Catalogue> {
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
export function readUrls(c: Catalogue, next: () => number): string[] {
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
export async function keepAnswered(
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
export function aliasTable(urls: string[]): string {
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
