import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent } from '../../helpers/fixtures.js';

// Every list filter must be served by an index: the planner's own answer, on the database in use.

let h: Harness;
let postgres: boolean;

beforeAll(async () => {
  h = await startHarness();
  postgres = h.config.databaseProvider === 'postgresql';
  for (let i = 0; i < 20; i++) await createEvent(h.db, { fields: { featured: i % 2 === 0 } });
});
afterAll(() => h.close());

/** The plan as text; on PostgreSQL sequential scans are discouraged so tiny tables still show the index. */
async function plan(sql: string, ...params: unknown[]): Promise<string> {
  if (!postgres) {
    const rows = await h.db.$queryRawUnsafe<Array<{ detail: string }>>(
      `EXPLAIN QUERY PLAN ${sql}`,
      ...params,
    );
    return rows.map((row) => row.detail).join('\n');
  }
  return h.db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
    const rows = await tx.$queryRawUnsafe<Array<{ 'QUERY PLAN': string }>>(`EXPLAIN ${sql}`, ...params);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

const q = (sql: string) =>
  postgres ? sql.replace(/\?/g, (_, i: number) => `$${sql.slice(0, i).split('?').length}`) : sql;
const USES_INDEX = /USING (COVERING )?INDEX|Index (Only )?Scan|Bitmap Index Scan/;

describe('indexes behind the event list filters', () => {
  it('default list: status + start window, ordered by start then id, without sorting', async () => {
    const text = await plan(
      q(
        `SELECT "id" FROM "Event" WHERE "status" IN ('publish') AND "hideFromListings" = ? AND "localStart" >= ? AND "localEnd" <= ? ORDER BY "localStart" ASC, "id" ASC LIMIT 10`,
      ),
      false,
      '2026-01-01 00:00:00',
      '2030-01-01 23:59:59',
    );
    expect(text).toMatch(USES_INDEX);
    expect(text).toMatch(/Event_list_idx/);
    expect(text).not.toMatch(/TEMP B-TREE|Sort Key/);
  });

  it('slug lookups use the unique index', async () => {
    const text = await plan(q(`SELECT "id" FROM "Event" WHERE "slug" = ?`), 'x');
    expect(text).toMatch(/Event_slug_key/);
  });

  it('featured lists use the featured index', async () => {
    const text = await plan(
      q(`SELECT "id" FROM "Event" WHERE "featured" = ? AND "localStart" >= ? ORDER BY "localStart" ASC`),
      true,
      '2026-01-01 00:00:00',
    );
    expect(text).toMatch(/Event_featured_localStart_idx/);
  });

  it('end-date filters use the end index', async () => {
    const text = await plan(q(`SELECT "id" FROM "Event" WHERE "localEnd" <= ?`), '2026-01-01 00:00:00');
    expect(text).toMatch(/Event_localEnd_idx/);
  });

  it('radius searches read venues by a latitude band', async () => {
    const text = await plan(
      q(`SELECT "id" FROM "Venue" WHERE "geoLat" >= ? AND "geoLat" <= ? AND "geoLng" >= ? AND "geoLng" <= ?`),
      40,
      41,
      -75,
      -73,
    );
    expect(text).toMatch(/Venue_geoLat_geoLng_idx/);
  });

  it('links are found from the venue, organizer and term side', async () => {
    for (const [table, column] of [
      ['EventVenue', 'venueId'],
      ['EventOrganizer', 'organizerId'],
      ['EventTerm', 'termId'],
    ]) {
      const text = await plan(q(`SELECT "eventId" FROM "${table}" WHERE "${column}" = ?`), 1);
      expect(text).toMatch(new RegExp(`${table}_${column}_idx`));
    }
  });
});
