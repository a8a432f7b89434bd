import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent } from '../../helpers/fixtures.js';

// A list's cost must follow its page, not the table (#29, item 4): its conditions are answered from
// the list index, without reading the event rows (they carry the long texts), and a filter on a
// linked record starts from that record's links. The statements are shaped as Prisma sends them.

let h: Harness;
let postgres: boolean;

beforeAll(async () => {
  h = await startHarness();
  postgres = h.config.databaseProvider === 'postgresql';
  for (let i = 0; i < 20; i++) await createEvent(h.db, { fields: { featured: i % 2 === 0 } });
});
afterAll(() => h.close());

/** The plan as text; on PostgreSQL, scans that a tiny table invites are discouraged so the index shows. */
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
    // Bitmap scans cannot give an order or skip the heap: off too, as on a table of real size.
    await tx.$executeRawUnsafe('SET LOCAL enable_bitmapscan = off');
    const rows = await tx.$queryRawUnsafe<Array<{ 'QUERY PLAN': string }>>(`EXPLAIN ${sql}`, ...params);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

const q = (sql: string) =>
  postgres ? sql.replace(/\?/g, (_, i: number) => `$${sql.slice(0, i).split('?').length}`) : sql;

// The conditions every anonymous list carries (`LISTED`, the window, the status), and the one a filter
// on withheld content adds (D21).
const WINDOW = `"hideFromListings" = ? AND "startExcluded" = ? AND "localStart" >= ? AND "localEnd" <= ? AND "status" IN ('publish')`;
const OPEN = `("password" IS NULL OR "password" = ?)`;
const windowValues = [false, false, '2026-01-01 00:00:00', '2030-01-01 23:59:59'];

describe('list statements read index entries, not event rows', () => {
  it('the total of a filtered window is counted from the list index alone', async () => {
    const text = await plan(
      q(
        `SELECT COUNT(*) FROM "Event" WHERE ${WINDOW} AND ${OPEN} AND "featured" = ? AND "eventStatus" IN ('canceled') AND "attendanceMode" IN ('online')`,
      ),
      ...windowValues,
      '',
      true,
    );
    if (postgres)
      expect(text).toMatch(
        /Index Only Scan using "?Event_(list|featured_localStart|eventStatus_localStart)_idx/,
      );
    else
      expect(text).toMatch(
        /USING COVERING INDEX Event_(list|featured_localStart|eventStatus_localStart)_idx/,
      );
  });

  it('a page of a category is read in the list order, its links checked from the index', async () => {
    const text = await plan(
      q(
        `SELECT "id" FROM "Event" WHERE ${WINDOW} AND EXISTS(SELECT "t0"."eventId" FROM "EventTerm" AS "t0" WHERE "t0"."termId" IN (?) AND "Event"."id" = "t0"."eventId") AND ${OPEN} ORDER BY "localStart" ASC, "id" ASC LIMIT 10`,
      ),
      ...windowValues,
      1,
      '',
    );
    expect(text).not.toMatch(/TEMP B-TREE FOR ORDER BY|Seq Scan on "?Event"?\b/);
    if (!postgres) {
      expect(text).toMatch(/USING COVERING INDEX Event_list_idx/);
      expect(text).toMatch(/EXISTS USING COVERING INDEX sqlite_autoindex_EventTerm_1/);
    } else expect(text).toMatch(/Event(Term)?_(list|termId)_idx/);
  });

  it("a series' occurrences (post_parent) are read from the series' own index, in list order", async () => {
    const text = await plan(
      q(
        `SELECT "id" FROM "Event" WHERE ${WINDOW} AND "postParentId" = ? AND ${OPEN} ORDER BY "localStart" ASC, "id" ASC LIMIT 10`,
      ),
      ...windowValues,
      1,
      '',
    );
    expect(text).not.toMatch(/TEMP B-TREE FOR ORDER BY|Seq Scan on "?Event"?\b/);
    expect(text).toMatch(/Event_postParentId_status_localStart_id_idx/);
  });

  it('the events of a venue, organizer or term are found from the link side, index only', async () => {
    for (const [table, column] of [
      ['EventVenue', 'venueId'],
      ['EventOrganizer', 'organizerId'],
      ['EventTerm', 'termId'],
    ]) {
      const text = await plan(
        q(`SELECT "eventId" FROM "${table}" WHERE "${column}" = ? ORDER BY "eventId"`),
        1,
      );
      expect(text).toMatch(
        postgres
          ? new RegExp(`Index Only Scan using "?${table}_${column}_idx`)
          : new RegExp(`USING COVERING INDEX ${table}_${column}_idx`),
      );
      expect(text).not.toMatch(/TEMP B-TREE|Sort/);
    }
  });
});
