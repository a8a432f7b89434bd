import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCounts } from '../scripts/sample-data/generate.js';
import { SAMPLE_AUTHOR, seedDatabase } from '../scripts/sample-data/seed.js';
import { API, type Harness, startHarness } from './helpers/harness.js';
import { createUser } from './helpers/users.js';

// Seeded sample data looks like a real site's (#14 point 11): every post has an author.

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

/** Replaces the database's content with `events` sample events from `seed`. */
const seedSample = (seed: number, events: number) =>
  seedDatabase(h.db, h.config.databaseProvider, {
    seed,
    now: new Date(),
    events,
    ...defaultCounts(events),
    reset: true,
  });

describe('seedDatabase', () => {
  // PostgreSQL plans from statistics; a fresh bulk load without them planned a venue list for one row
  // (300 ms instead of 3). SQLite gets no ANALYZE: its list plans are the ones its indexes are built for.
  it('leaves the planner statistics of the event tables current', async () => {
    await seedSample(2, 30);
    if (h.config.databaseProvider === 'postgresql') {
      const rows = await h.db.$queryRawUnsafe<Array<{ relname: string; analyzed: boolean }>>(
        `SELECT relname, last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables
         WHERE relname IN ('Event', 'EventVenue', 'EventTerm', 'EventOrganizer') ORDER BY relname`,
      );
      expect(rows).toEqual(
        ['Event', 'EventOrganizer', 'EventTerm', 'EventVenue'].map((relname) => ({
          relname,
          analyzed: true,
        })),
      );
    } else {
      // SQLite keeps them in `sqlite_stat1`, a row per index (the link tables' and the list's).
      const rows = await h.db.$queryRawUnsafe<Array<{ tbl: string }>>(
        `SELECT DISTINCT tbl FROM sqlite_stat1
         WHERE tbl IN ('Event', 'EventVenue', 'EventTerm', 'EventOrganizer') ORDER BY tbl`,
      );
      expect(rows.map((row) => row.tbl)).toEqual(['Event', 'EventOrganizer', 'EventTerm', 'EventVenue']);
    }
  });

  it('gives every post a sample editor when the site has no administrator', async () => {
    await seedSample(1, 40);
    const author = await h.db.user.findUniqueOrThrow({ where: { login: SAMPLE_AUTHOR } });
    expect(author.role).toBe('editor');
    for (const count of [
      h.db.event.count({ where: { authorId: null } }),
      h.db.venue.count({ where: { authorId: null } }),
      h.db.organizer.count({ where: { authorId: null } }),
    ])
      expect(await count).toBe(0);
    const list = await h.http.get(`${API}/events?per_page=5`).expect(200);
    for (const event of list.body.events as Array<{ author: string }>)
      expect(event.author).toBe(String(author.id));
  });

  it('attributes to the first administrator when there is one', async () => {
    const admin = await createUser(h, 'administrator');
    await seedDatabase(h.db, h.config.databaseProvider, {
      seed: 2,
      now: new Date(),
      events: 10,
      ...defaultCounts(10),
      reset: true,
    });
    expect(await h.db.event.count({ where: { authorId: { not: admin.id } } })).toBe(0);
  });
});
