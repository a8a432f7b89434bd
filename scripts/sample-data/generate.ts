import { Faker, base, en } from '@faker-js/faker';
import {
  CATEGORY_TREE,
  CITIES,
  type City,
  type Currency,
  ONLINE_ZONES,
  TAGS,
  TITLE_KINDS,
  TITLE_PREFIXES,
  TITLE_TOPICS,
  VENUE_KINDS,
  VENUE_QUALIFIERS,
} from './vocabulary.js';
import { ZoneClock } from './zone-clock.js';

// Pure row generation: no database, no clock. Every function takes the seed and `now`, so one
// (seed, now, counts, first ids) always yields the same rows. Ids are assigned here, so the seed
// can insert link rows in the same batches as their parents.

export const CATEGORY_TAXONOMY = 'tribe_events_cat';
export const TAG_TAXONOMY = 'post_tag';

export interface VenueRow {
  id: number;
  slug: string;
  name: string;
  description: string;
  status: string;
  publishedAt: Date;
  modifiedAt: Date;
  address: string;
  city: string;
  country: string;
  province: string;
  state: string;
  stateprovince: string;
  zip: string;
  phone: string;
  website: string;
  showMap: boolean;
  showMapLink: boolean;
  geoLat: number | null;
  geoLng: number | null;
}

export interface OrganizerRow {
  id: number;
  slug: string;
  name: string;
  description: string;
  status: string;
  publishedAt: Date;
  modifiedAt: Date;
  phone: string;
  email: string;
  website: string;
}

export interface TermRow {
  id: number;
  taxonomy: string;
  name: string;
  slug: string;
  description: string;
  parentId: number | null;
}

export interface EventRow {
  id: number;
  slug: string;
  title: string;
  description: string;
  excerpt: string;
  status: string;
  publishedAt: Date;
  modifiedAt: Date;
  startsAt: Date;
  endsAt: Date;
  localStart: string;
  localEnd: string;
  timezone: string;
  allDay: boolean;
  cost: string;
  currencySymbol: string;
  currencyCode: string;
  currencyPosition: string;
  website: string;
  showMap: boolean;
  showMapLink: boolean;
  hideFromListings: boolean;
  sticky: boolean;
  featured: boolean;
}

export interface EventVenueRow {
  eventId: number;
  venueId: number;
  position: number;
}
export interface EventOrganizerRow {
  eventId: number;
  organizerId: number;
  position: number;
}
export interface EventTermRow {
  eventId: number;
  termId: number;
  position: number;
}

/** One event with its link rows. */
export interface EventBundle {
  event: EventRow;
  venues: EventVenueRow[];
  organizers: EventOrganizerRow[];
  terms: EventTermRow[];
}

const DAY_MS = 86_400_000;

// One independent stream per kind of row, so changing the venue count does not reshuffle organizers.
const STREAMS = { venues: 1, organizers: 2, events: 3, series: 4 } as const;

function fakerFor(seed: number, stream: keyof typeof STREAMS): Faker {
  const faker = new Faker({ locale: [en, base] });
  faker.seed([seed, STREAMS[stream]]);
  return faker;
}

export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** The whole-second instant `days` (fractional) before `now`. */
function before(now: Date, days: number): Date {
  return new Date(Math.floor((now.getTime() - days * DAY_MS) / 1000) * 1000);
}

/** 0, 1, 2… drawn with the given weights. */
function weighted(f: Faker, weights: readonly number[]): number {
  return f.helpers.weightedArrayElement(weights.map((weight, value) => ({ weight, value })));
}

function maybe(f: Faker, probability: number, value: () => string): string {
  return f.datatype.boolean({ probability }) ? value() : '';
}

/** Popular items get more events: squaring a uniform draw skews toward the start of the pool. */
function skewedIndex(f: Faker, length: number): number {
  return Math.min(length - 1, Math.floor(length * f.number.float({ min: 0, max: 1 }) ** 2));
}

/** Up to `n` distinct elements; faker's `arrayElements` copies the whole pool per call. */
function pickDistinct<T>(f: Faker, pool: readonly T[], n: number): T[] {
  const picked = new Set<T>();
  for (let attempt = 0; picked.size < Math.min(n, pool.length) && attempt < n * 10; attempt++) {
    picked.add(pool[skewedIndex(f, pool.length)] as T);
  }
  return [...picked];
}

function paragraphs(f: Faker, count: number): string {
  return Array.from({ length: count }, () => `<p>${f.lorem.sentences({ min: 2, max: 4 })}</p>`).join('\n');
}

export function generateVenues(seed: number, now: Date, count: number, firstId = 1): VenueRow[] {
  const f = fakerFor(seed, 'venues');
  return Array.from({ length: count }, (_, i): VenueRow => {
    const id = firstId + i;
    const place = f.helpers.arrayElement(CITIES);
    const kind = f.helpers.arrayElement(VENUE_KINDS);
    const owner = f.datatype.boolean()
      ? f.person.lastName()
      : `${place.city} ${f.helpers.arrayElement(VENUE_QUALIFIERS)}`;
    const name = `${owner} ${kind}`;
    const publishedAt = before(now, f.number.float({ min: 30, max: 720 }));
    const hasGeo = f.datatype.boolean({ probability: 0.6 });
    const jitter = (): number => f.number.float({ min: -0.05, max: 0.05, fractionDigits: 6 });
    return {
      id,
      slug: `${slugify(name)}-${id}`,
      name,
      description: maybe(f, 0.5, () => paragraphs(f, 1)),
      status: 'publish',
      publishedAt,
      modifiedAt: publishedAt,
      address: f.location.streetAddress(),
      city: place.city,
      country: place.country,
      province: place.province ?? '',
      state: place.state ?? '',
      stateprovince: place.state ?? place.province ?? '',
      zip: f.helpers.replaceSymbols(place.zip),
      phone: maybe(f, 0.7, () => f.phone.number({ style: 'international' })),
      website: maybe(f, 0.5, () => f.internet.url({ appendSlash: false })),
      showMap: true,
      showMapLink: true,
      geoLat: hasGeo ? Number((place.lat + jitter()).toFixed(6)) : null,
      geoLng: hasGeo ? Number((place.lng + jitter()).toFixed(6)) : null,
    };
  });
}

export function generateOrganizers(seed: number, now: Date, count: number, firstId = 1): OrganizerRow[] {
  const f = fakerFor(seed, 'organizers');
  return Array.from({ length: count }, (_, i): OrganizerRow => {
    const id = firstId + i;
    const firstName = f.person.firstName();
    const lastName = f.person.lastName();
    const name = f.datatype.boolean({ probability: 0.6 }) ? `${firstName} ${lastName}` : f.company.name();
    const publishedAt = before(now, f.number.float({ min: 30, max: 720 }));
    return {
      id,
      slug: `${slugify(name)}-${id}`,
      name,
      description: maybe(f, 0.4, () => paragraphs(f, 1)),
      status: 'publish',
      publishedAt,
      modifiedAt: publishedAt,
      phone: maybe(f, 0.7, () => f.phone.number({ style: 'international' })),
      email: maybe(f, 0.8, () => f.internet.email({ firstName, lastName }).toLowerCase()),
      website: maybe(f, 0.5, () => f.internet.url({ appendSlash: false })),
    };
  });
}

/** The fixed category tree (parents before children) and tags: no randomness needed. */
export function sampleTerms(firstId = 1): TermRow[] {
  const rows: TermRow[] = [];
  const add = (taxonomy: string, name: string, parentId: number | null): number => {
    const id = firstId + rows.length;
    rows.push({ id, taxonomy, name, slug: slugify(name), description: '', parentId });
    return id;
  };
  for (const [parent, children] of CATEGORY_TREE) {
    const parentId = add(CATEGORY_TAXONOMY, parent, null);
    for (const child of children) add(CATEGORY_TAXONOMY, child, parentId);
  }
  for (const tag of TAGS) add(TAG_TAXONOMY, tag, null);
  return rows;
}

export interface EventOptions {
  seed: number;
  now: Date;
  count: number;
  firstId?: number;
  venues: readonly Pick<VenueRow, 'id' | 'city'>[];
  organizerIds: readonly number[];
  terms: readonly Pick<TermRow, 'id' | 'taxonomy'>[];
}

const PRICES = [5, 10, 12, 15, 20, 25, 30, 35, 40, 50, 75, 100, 150];
const ONLINE_CURRENCIES: readonly Currency[] = [
  { symbol: '$', code: 'USD', position: 'prefix' },
  { symbol: '€', code: 'EUR', position: 'postfix' },
];

/** Numeric cost values, stored as the reference does: sorted ascending, comma-joined. */
function costValues(f: Faker): number[] {
  const kind = f.helpers.weightedArrayElement([
    { weight: 25, value: 'none' },
    { weight: 20, value: 'free' },
    { weight: 40, value: 'single' },
    { weight: 15, value: 'range' },
  ] as const);
  if (kind === 'none') return [];
  if (kind === 'free') return [0];
  if (kind === 'single') return [f.helpers.arrayElement(PRICES)];
  const first = f.datatype.boolean() ? 0 : f.helpers.arrayElement(PRICES);
  const more = f.helpers.multiple(() => f.helpers.arrayElement(PRICES), { count: { min: 1, max: 2 } });
  return [...new Set([first, ...more])].sort((x, y) => x - y);
}

/**
 * Events from ~1 month ago to ~18 months ahead, yielded one at a time so 100k events never sit in
 * memory at once. The zone, currency and country follow the venue; events without a venue are online.
 */
export function* generateEvents(options: EventOptions): Generator<EventBundle> {
  const { seed, now, count, firstId = 1, venues, organizerIds, terms } = options;
  const f = fakerFor(seed, 'events');
  // Lorem text drawn once and reused: generating it per event took a third of the time.
  const texts = Array.from({ length: 500 }, () => paragraphs(f, 1));
  const excerpts = Array.from({ length: 200 }, () => `<p>${f.lorem.sentence()}</p>`);
  const cityByName = new Map<string, City>(CITIES.map((c) => [c.city, c]));
  const categoryIds = terms.filter((t) => t.taxonomy === CATEGORY_TAXONOMY).map((t) => t.id);
  const tagIds = terms.filter((t) => t.taxonomy === TAG_TAXONOMY).map((t) => t.id);
  const clocks = new Map<string, { clock: ZoneClock; today: number }>();
  const zoneClock = (zone: string): { clock: ZoneClock; today: number } => {
    let entry = clocks.get(zone);
    if (!entry) {
      const clock = new ZoneClock(zone);
      // Today's date in the zone, as a UTC midnight: calendar arithmetic then needs no zone.
      const today = Date.parse(`${clock.wall(now).slice(0, 10)}T00:00:00Z`);
      clocks.set(zone, (entry = { clock, today }));
    }
    return entry;
  };

  for (let i = 0; i < count; i++) {
    const id = firstId + i;
    const online = !venues.length || f.datatype.boolean({ probability: 0.15 });
    const venue = online ? undefined : venues[skewedIndex(f, venues.length)];
    const place = venue ? cityByName.get(venue.city) : undefined;
    const timezone = place?.timezone ?? f.helpers.arrayElement(ONLINE_ZONES);
    const { clock, today } = zoneClock(timezone);

    // A quarter of events crowd the next three months, as on a real calendar; the rest spread out.
    const soon = f.datatype.boolean({ probability: 0.25 });
    const dayOffset = soon ? f.number.int({ min: -3, max: 90 }) : f.number.int({ min: -30, max: 548 });
    const day = today + dayOffset * DAY_MS;
    const allDay = f.datatype.boolean({ probability: 0.08 });
    let startsAt: Date;
    let endsAt: Date;
    if (allDay) {
      const extraDays = weighted(f, [8, 2, 1]);
      startsAt = clock.instant(day);
      endsAt = clock.instant(day + (extraDays + 1) * DAY_MS - 1000);
    } else {
      const minutes =
        f.number.int({ min: 9, max: 21 }) * 60 + f.helpers.arrayElement([0, 0, 0, 15, 30, 30, 45]);
      startsAt = clock.instant(day + minutes * 60_000);
      const multiDay = f.datatype.boolean({ probability: 0.04 });
      const duration = multiDay
        ? f.number.int({ min: 1, max: 3 }) * 1440 + 120
        : f.helpers.arrayElement([60, 90, 120, 120, 180, 240]);
      endsAt = new Date(startsAt.getTime() + duration * 60_000);
    }

    const prefix = f.datatype.boolean({ probability: 0.3 })
      ? `${f.helpers.arrayElement(TITLE_PREFIXES)} `
      : '';
    const where = place && f.datatype.boolean({ probability: 0.2 }) ? ` in ${place.city}` : '';
    const title = `${prefix}${f.helpers.arrayElement(TITLE_TOPICS)} ${f.helpers.arrayElement(TITLE_KINDS)}${where}`;
    const slug = `${slugify(title)}-${id}`;

    const values = costValues(f);
    const currency = values.length
      ? (place?.currency ?? f.helpers.arrayElement(ONLINE_CURRENCIES))
      : undefined;
    const publishedAt = new Date(
      Math.min(before(now, f.number.float({ min: 1, max: 180 })).getTime(), startsAt.getTime()),
    );
    const status = f.helpers.weightedArrayElement([
      { weight: 88, value: 'publish' },
      { weight: 7, value: 'draft' },
      { weight: 5, value: 'pending' },
    ]);

    const event: EventRow = {
      id,
      slug,
      title,
      description: Array.from({ length: f.number.int({ min: 1, max: 3 }) }, () =>
        f.helpers.arrayElement(texts),
      ).join('\n'),
      excerpt: maybe(f, 0.3, () => f.helpers.arrayElement(excerpts)),
      status,
      publishedAt,
      modifiedAt: new Date(
        Math.min(publishedAt.getTime() + f.number.int({ min: 0, max: 10 }) * DAY_MS, now.getTime()),
      ),
      startsAt,
      endsAt,
      // Read back from the instants (not the wall-clock drawn above), so a DST gap cannot split them.
      localStart: clock.wall(startsAt),
      localEnd: clock.wall(endsAt),
      timezone,
      allDay,
      cost: values.join(','),
      currencySymbol: currency?.symbol ?? '',
      currencyCode: currency?.code ?? '',
      currencyPosition: currency?.position ?? '',
      website: maybe(f, 0.4, () => `https://${f.internet.domainName()}/events/${slug}`),
      showMap: venue !== undefined,
      showMapLink: venue !== undefined,
      hideFromListings: f.datatype.boolean({ probability: 0.01 }),
      sticky: f.datatype.boolean({ probability: 0.01 }),
      featured: f.datatype.boolean({ probability: 0.05 }),
    };

    const organizerCount = weighted(f, [20, 50, 20, 10]);
    const termCount = weighted(f, [10, 35, 35, 20]);
    const categoryCount = termCount ? f.number.int({ min: 1, max: termCount }) : 0;
    const termIds = [
      ...pickDistinct(f, categoryIds, categoryCount),
      ...pickDistinct(f, tagIds, termCount - categoryCount),
    ];

    yield {
      event,
      venues: venue ? [{ eventId: id, venueId: venue.id, position: 0 }] : [],
      organizers: pickDistinct(f, organizerIds, organizerCount).map((organizerId, position) => ({
        eventId: id,
        organizerId,
        position,
      })),
      terms: termIds.map((termId, position) => ({ eventId: id, termId, position })),
    };
  }
}

export interface SampleOptions {
  seed: number;
  now: Date;
  events: number;
  venues: number;
  organizers: number;
}

export interface SampleData {
  venues: VenueRow[];
  organizers: OrganizerRow[];
  terms: TermRow[];
  events: EventBundle[];
}

/** Everything in memory, ids from 1: for tests and small data sets. */
export function generateSampleData(options: SampleOptions): SampleData {
  const venues = generateVenues(options.seed, options.now, options.venues);
  const organizers = generateOrganizers(options.seed, options.now, options.organizers);
  const terms = sampleTerms();
  const events = [
    ...generateEvents({
      ...options,
      count: options.events,
      venues,
      organizerIds: organizers.map((o) => o.id),
      terms,
    }),
  ];
  return { venues, organizers, terms, events };
}

/** A series the seed makes of one of its events: its lines, and the edits its occurrences get. */
export interface SeriesPlan {
  lines: string[];
  /** Its second occurrence is written on its own (a new title): an exception. */
  exception: boolean;
  /** Its fourth occurrence is cancelled (an EXDATE, the row in the trash). */
  cancelled: boolean;
}

/** Monthly rules by position: the last Friday, the second Tuesday, the first Monday, the third Thursday. */
const MONTHLY_POSITIONS = ['-1FR', '2TU', '1MO', '3TH'];

/**
 * Series holding `members` events in all, first events included (each rule's COUNT counts its first
 * event): two in three weekly (8 to 26 times, some fortnightly), the others monthly by position (4 to 12
 * times); one in three has an exception, one in four a cancelled instance.
 */
export function planSeries(seed: number, members: number): SeriesPlan[] {
  const f = fakerFor(seed, 'series');
  const plans: SeriesPlan[] = [];
  let left = members;
  while (left >= 2) {
    const weekly = f.datatype.boolean({ probability: 2 / 3 });
    const wanted = weekly ? f.number.int({ min: 8, max: 26 }) : f.number.int({ min: 4, max: 12 });
    // The last series takes what is left, so the members add up.
    const count = left - wanted < 2 ? left : wanted;
    const rule = weekly
      ? `RRULE:FREQ=WEEKLY;COUNT=${count}${f.datatype.boolean({ probability: 0.25 }) ? ';INTERVAL=2' : ''}`
      : `RRULE:FREQ=MONTHLY;COUNT=${count};BYDAY=${f.helpers.arrayElement(MONTHLY_POSITIONS)}`;
    plans.push({
      lines: [rule],
      exception: plans.length % 3 === 0 && count > 2,
      cancelled: plans.length % 4 === 1 && count > 4,
    });
    left -= count;
  }
  return plans;
}

/** Defaults that keep the ratio of a real calendar: a venue hosts ~50 events, an organizer ~40. */
export function defaultCounts(events: number): { venues: number; organizers: number } {
  const clamp = (n: number): number => Math.max(5, Math.min(2000, Math.round(n)));
  return { venues: clamp(events / 50), organizers: clamp(events / 40) };
}
