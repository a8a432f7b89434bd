import type { DatabaseProvider } from '../../src/core/config/config.js';
import type { Db } from '../../src/core/db/client.js';
import type { Prisma } from '../../src/generated/sqlite/client.js';
import { refreshAllTermCounts } from '../../src/terms/term-counts.js';
import { ANONYMOUS } from '../../src/core/rules/permissions.js';
import { SERIES_COLUMNS } from '../../src/events/series/series-place.js';
import { excludeFromSeries, setLines } from '../../src/events/series/series-edits.js';
import { syncSeries } from '../../src/events/series/event-series.js';
import { WritePipeline } from '../../src/core/db/transactions.js';
import {
  CATEGORY_TAXONOMY,
  type EventBundle,
  type SeriesPlan,
  TAG_TAXONOMY,
  generateEvents,
  generateOrganizers,
  generateVenues,
  planSeries,
  sampleTerms,
} from './generate.js';
import { refreshStatistics } from '../../src/core/db/statistics.js';

export interface SeedOptions {
  seed: number;
  now: Date;
  events: number;
  venues: number;
  organizers: number;
  /**
   * Percent of `events` made members of series (first events and occurrences, weekly and monthly by
   * position, some with an exception or a cancelled instance), so that the events still number
   * `events` (plus the three sample series' occurrences). Default 0.
   */
  seriesPercent?: number;
  /** Delete every event, venue, organizer and term first (users and media stay). */
  reset: boolean;
  onProgress?: (eventsWritten: number) => void;
}

export interface SeedCounts {
  events: number;
  venues: number;
  organizers: number;
  terms: number;
  eventVenues: number;
  eventOrganizers: number;
  eventTerms: number;
  /** Occurrences of the sample series (events beyond `events`). */
  occurrences: number;
  /** RSVP types on the first upcoming events (`seedTicketTypes`). */
  ticketTypes?: number;
}

// Rows go in as multi-row INSERTs through the client's raw path, inside its transaction. Prisma's
// createMany was measured at ~750 µs per event row here (it also splits every batch into statements
// of ≤ 999 values); a raw INSERT of the same rows costs ~60 µs through Prisma, ~25 µs in SQLite itself.
// SQLite accepts at most 32766 bound values per statement (PostgreSQL 65535).
const MAX_VARIABLES = 32_766;

type Tx = Prisma.TransactionClient;

/** The author of sample posts on a database without an administrator (it has no password: no login). */
export const SAMPLE_AUTHOR = 'sample-editor';

/** Values as Prisma itself stores them: SQLite keeps DateTime as ISO text and Boolean as 0/1. */
function encoder(provider: DatabaseProvider): (value: unknown) => unknown {
  if (provider === 'postgresql') return (value) => value;
  return (value) => {
    if (value instanceof Date) return value.toISOString().replace('Z', '+00:00');
    return typeof value === 'boolean' ? Number(value) : value;
  };
}

async function insertRows(
  tx: Tx,
  provider: DatabaseProvider,
  table: string,
  rows: readonly object[],
): Promise<void> {
  const first = rows[0];
  if (!first) return;
  const columns = Object.keys(first);
  const encode = encoder(provider);
  const size = Math.floor(MAX_VARIABLES / columns.length);
  for (let offset = 0; offset < rows.length; offset += size) {
    const chunk = rows.slice(offset, offset + size);
    let n = 0;
    const tuple = (): string =>
      `(${columns.map(() => (provider === 'postgresql' ? `$${++n}` : '?')).join(',')})`;
    const sql = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(',')}) VALUES ${chunk.map(tuple).join(',')}`;
    const values = chunk.flatMap((row) => columns.map((c) => encode((row as Record<string, unknown>)[c])));
    await tx.$executeRawUnsafe(sql, ...values);
  }
}

/** Explicit ids do not advance PostgreSQL sequences; without this the next API insert would collide. */
async function syncSequences(tx: Tx): Promise<void> {
  for (const table of ['Event', 'Venue', 'Organizer', 'Term']) {
    await tx.$executeRawUnsafe(
      `SELECT setval(pg_get_serial_sequence('"${table}"', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM "${table}"`,
    );
  }
}

/**
 * Writes generated sample data in one transaction (all or nothing). Ids continue after the largest
 * existing ones, so link rows are built before their parents are written and go in the same batches.
 * Existing categories and tags are reused rather than duplicated.
 */
export async function seedDatabase(
  db: Db,
  provider: DatabaseProvider,
  options: SeedOptions,
): Promise<SeedCounts> {
  const { seed, now } = options;
  const members = Math.round((options.events * (options.seriesPercent ?? 0)) / 100);
  const plans = planSeries(seed, members);
  // Each series' first event is a generated one; its occurrences replace generated events.
  const generated = options.events - members + plans.length;
  let firstEvent = 0;
  const counts = await db.$transaction(
    async (tx) => {
      if (options.reset) {
        await tx.eventTerm.deleteMany();
        await tx.eventOrganizer.deleteMany();
        await tx.eventVenue.deleteMany();
        await tx.event.deleteMany();
        await tx.venue.deleteMany();
        await tx.organizer.deleteMany();
        await tx.term.deleteMany();
      }
      const next = async (table: string): Promise<number> => {
        const [row] = await tx.$queryRawUnsafe<Array<{ max: number | bigint | null }>>(
          `SELECT MAX(id) AS max FROM "${table}"`,
        );
        return Number(row?.max ?? 0) + 1;
      };
      let firstVenue: number, firstOrganizer: number, firstTerm: number;
      [firstEvent, firstVenue, firstOrganizer, firstTerm] = [
        await next('Event'),
        await next('Venue'),
        await next('Organizer'),
        await next('Term'),
      ];

      const venues = generateVenues(seed, now, options.venues, firstVenue);
      const organizers = generateOrganizers(seed, now, options.organizers, firstOrganizer);
      let terms = await tx.term.findMany({
        where: { taxonomy: { in: [CATEGORY_TAXONOMY, TAG_TAXONOMY] } },
        select: { id: true, taxonomy: true },
        orderBy: { id: 'asc' },
      });
      const newTerms = terms.length ? [] : sampleTerms(firstTerm);
      if (newTerms.length) terms = newTerms;
      await insertRows(tx, provider, 'Venue', venues);
      await insertRows(tx, provider, 'Organizer', organizers);
      await insertRows(tx, provider, 'Term', newTerms);

      const counts: SeedCounts = {
        venues: venues.length,
        organizers: organizers.length,
        terms: newTerms.length,
        events: 0,
        eventVenues: 0,
        eventOrganizers: 0,
        eventTerms: 0,
        occurrences: 0,
      };
      let batch: EventBundle[] = [];
      const flush = async (): Promise<void> => {
        await insertRows(
          tx,
          provider,
          'Event',
          batch.map((b) => b.event),
        );
        const eventVenues = batch.flatMap((b) => b.venues);
        const eventOrganizers = batch.flatMap((b) => b.organizers);
        const eventTerms = batch.flatMap((b) => b.terms);
        await insertRows(tx, provider, 'EventVenue', eventVenues);
        await insertRows(tx, provider, 'EventOrganizer', eventOrganizers);
        await insertRows(tx, provider, 'EventTerm', eventTerms);
        counts.events += batch.length;
        counts.eventVenues += eventVenues.length;
        counts.eventOrganizers += eventOrganizers.length;
        counts.eventTerms += eventTerms.length;
        batch = [];
        options.onProgress?.(counts.events);
      };
      const events = generateEvents({
        seed,
        now,
        count: generated,
        firstId: firstEvent,
        venues,
        organizerIds: organizers.map((o) => o.id),
        terms,
      });
      let perStatement = 0;
      for (const bundle of events) {
        perStatement ||= Math.floor(MAX_VARIABLES / Object.keys(bundle.event).length);
        batch.push(bundle);
        if (batch.length === perStatement) await flush();
      }
      if (batch.length) await flush();
      await refreshAllTermCounts(tx);
      // Posts have an author, as on a real site: the first administrator, else a sample editor.
      const author =
        (await tx.user.findFirst({ where: { role: 'administrator' }, orderBy: { id: 'asc' } })) ??
        (await tx.user.upsert({
          where: { login: SAMPLE_AUTHOR },
          create: { login: SAMPLE_AUTHOR, role: 'editor', displayName: 'Sample editor' },
          update: {},
        }));
      const unowned = (first: number) => ({ authorId: null, id: { gte: first } });
      await tx.event.updateMany({ where: unowned(firstEvent), data: { authorId: author.id } });
      await tx.venue.updateMany({ where: unowned(firstVenue), data: { authorId: author.id } });
      await tx.organizer.updateMany({ where: unowned(firstOrganizer), data: { authorId: author.id } });

      if (provider === 'postgresql') await syncSequences(tx);
      return counts;
    },
    // Interactive transactions default to a 5 s timeout; 100k events take longer than that.
    { maxWait: 60_000, timeout: 60 * 60_000 },
  );
  // The sample series on the first events, the planned ones spread over the others (and so over time).
  const sample = SAMPLE_SERIES.slice(0, counts.events).map((plan, i) => ({ id: firstEvent + i, plan }));
  const others = counts.events - sample.length;
  const planned = plans
    .slice(0, others)
    .map((plan, i) => ({ id: firstEvent + sample.length + Math.floor((i * others) / plans.length), plan }));
  counts.occurrences = await seedSeries(db, provider, [...sample, ...planned], now);
  counts.ticketTypes = await seedTicketTypes(db, firstEvent, now);
  await refreshStatistics(db, provider);
  return counts;
}

/** Events of the seed that take RSVPs: the first upcoming public ones, not occurrences of a series. */
const SAMPLE_RSVP_EVENTS = 20;

/**
 * An RSVP of 50 places with a waitlist on each of the first upcoming public events of the seed, so that a
 * first look can reserve one (README, docs/guide/tickets.md): on a fresh database the first is ticket 1.
 */
async function seedTicketTypes(db: Db, firstEvent: number, now: Date): Promise<number> {
  const events = await db.event.findMany({
    where: {
      id: { gte: firstEvent },
      status: 'publish',
      password: null,
      hideFromListings: false,
      postParentId: null,
      recurrence: null,
      startsAt: { gt: now },
    },
    orderBy: [{ startsAt: 'asc' }, { id: 'asc' }],
    take: SAMPLE_RSVP_EVENTS,
    select: { id: true },
  });
  const { count } = await db.ticketType.createMany({
    data: events.map(({ id }) => ({ eventId: id, kind: 'RSVP', name: 'RSVP', capacity: 50, waitlist: true })),
  });
  return count;
}

/** The sample series: weekly, monthly on the last Friday, and fortnightly with an exception and a cancelled instance. */
const SAMPLE_SERIES: SeriesPlan[] = [
  { lines: ['RRULE:FREQ=WEEKLY;COUNT=26'], exception: false, cancelled: false },
  { lines: ['RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=12'], exception: false, cancelled: false },
  { lines: ['RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=10'], exception: true, cancelled: true },
];

/**
 * Makes the series of the seed through the series service (one transaction), so that it has
 * occurrences, exceptions and cancelled instances as a real calendar does. Like the rows above, they are
 * not in the change log (a seed is the starting point, not a change).
 */
async function seedSeries(
  db: Db,
  provider: DatabaseProvider,
  series: Array<{ id: number; plan: SeriesPlan }>,
  now: Date,
): Promise<number> {
  if (!series.length) return 0;
  const request = { db, viewer: ANONYMOUS, config: { databaseProvider: provider, siteTimezone: 'UTC' } };
  const settings = { horizonMonths: 60, maxOccurrences: 10_000, extendEveryMs: 0 };
  return new WritePipeline().run(request, async (w) => {
    let created = 0;
    for (const { id, plan } of series) {
      await setLines(w, id, plan.lines);
      created += (await syncSeries(w, id, { mode: 'all', now, settings })).length;
      if (!plan.exception && !plan.cancelled) continue;
      const occurrences = await w.tx.event.findMany({
        where: { postParentId: id, originalStart: { not: null } },
        orderBy: { originalStart: 'asc' },
        select: { ...SERIES_COLUMNS, id: true, title: true, slug: true },
      });
      const special = occurrences[1];
      if (plan.exception && special)
        await w.tx.event.update({
          where: { id: special.id },
          data: { title: `${special.title} (special edition)`, isException: true },
        });
      const cancelled = occurrences[3];
      if (plan.cancelled && cancelled) {
        await excludeFromSeries(w, cancelled, now);
        await w.tx.event.update({
          where: { id: cancelled.id },
          data: {
            status: 'trash',
            slug: cancelled.slug && `${cancelled.slug}__trashed`,
            desiredSlug: cancelled.slug,
          },
        });
      }
    }
    return created;
  });
}
