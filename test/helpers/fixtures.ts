import { DateTime } from 'luxon';
import type { Db } from '../../src/core/db/client.js';
import { eventSchedule } from '../../src/core/rules/dates.js';
import { refreshTermCounts } from '../../src/terms/term-counts.js';

let sequence = 0;
const next = () => ++sequence;

export async function createVenue(
  db: Db,
  fields: Partial<Parameters<Db['venue']['create']>[0]['data']> = {},
) {
  const n = next();
  return db.venue.create({
    data: {
      name: `Venue ${n}`,
      slug: `venue-${n}`,
      address: '1 Main St',
      city: 'Springfield',
      country: 'United States',
      state: 'IL',
      stateprovince: 'IL',
      zip: '62701',
      phone: '555-0100',
      website: 'http://example.com',
      ...fields,
    },
  });
}

export async function createOrganizer(
  db: Db,
  fields: Partial<Parameters<Db['organizer']['create']>[0]['data']> = {},
) {
  const n = next();
  return db.organizer.create({
    data: {
      name: `Organizer ${n}`,
      slug: `organizer-${n}`,
      phone: '555-0199',
      website: 'http://acme.example',
      email: 'org@example.com',
      ...fields,
    },
  });
}

export async function createTerm(db: Db, taxonomy: 'tribe_events_cat' | 'post_tag', name?: string) {
  const n = next();
  const termName = name ?? `Term ${n}`;
  return db.term.create({
    data: {
      taxonomy,
      name: termName,
      slug: termName.toLowerCase().replace(/\W+/g, '-'),
      description: `${termName} events`,
    },
  });
}

export interface EventFixture {
  title?: string;
  /** Wall-clock start in `timezone`, `yyyy-MM-dd HH:mm:ss`; default: tomorrow 10:00. */
  start?: string;
  hours?: number;
  timezone?: string;
  status?: string;
  venueIds?: number[];
  organizerIds?: number[];
  termIds?: number[];
  fields?: Partial<Parameters<Db['event']['create']>[0]['data']>;
}

export async function createEvent(db: Db, fixture: EventFixture = {}) {
  const event = await insertEvent(db, fixture);
  await refreshTermCounts(db, fixture.termIds ?? []);
  return event;
}

/**
 * `count` published events without links, titled `title` and a number, on one start (UTC): inserted in
 * batched statements, for tests that need thousands of rows.
 */
export async function createEventsInBulk(db: Db, count: number, title: string, start: string) {
  const from = DateTime.fromFormat(start, 'yyyy-MM-dd HH:mm:ss', { zone: 'UTC' });
  const schedule = eventSchedule(from.toJSDate(), from.plus({ hours: 2 }).toJSDate(), 'UTC');
  const data = Array.from({ length: count }, (_, i) => {
    const n = next();
    return { title: `${title} ${i}`, slug: `bulk-${n}`, status: 'publish', ...schedule };
  });
  for (let i = 0; i < data.length; i += 500) await db.event.createMany({ data: data.slice(i, i + 500) });
}

async function insertEvent(db: Db, fixture: EventFixture) {
  const n = next();
  const timezone = fixture.timezone ?? 'UTC';
  const start = fixture.start
    ? DateTime.fromFormat(fixture.start, 'yyyy-MM-dd HH:mm:ss', { zone: timezone })
    : DateTime.now()
        .setZone(timezone)
        .plus({ days: 1 })
        .set({ hour: 10, minute: 0, second: 0, millisecond: 0 });
  const end = start.plus({ hours: fixture.hours ?? 2 });
  const title = fixture.title ?? `Event ${n}`;
  return db.event.create({
    data: {
      title,
      slug: `${title.toLowerCase().replace(/\W+/g, '-')}-${n}`,
      description: `<p>${title} description</p>`,
      status: fixture.status ?? 'publish',
      ...eventSchedule(start.toJSDate(), end.toJSDate(), timezone),
      cost: '10',
      website: 'http://example.com/e',
      venues: { create: (fixture.venueIds ?? []).map((venueId, position) => ({ venueId, position })) },
      organizers: {
        create: (fixture.organizerIds ?? []).map((organizerId, position) => ({ organizerId, position })),
      },
      terms: { create: (fixture.termIds ?? []).map((termId, position) => ({ termId, position })) },
      ...fixture.fields,
    },
  });
}
