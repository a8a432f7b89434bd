import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keepSqliteStatistics, refreshStatistics } from '../../../src/core/db/statistics.js';

// SQLite's planner reads the statistics kept in `sqlite_stat1`: a connection gathers them when it
// opens and checks them every hour while it stays open, so a calendar that grows tenfold after the
// service started is planned for its size.

afterEach(() => vi.useRealTimers());

const rowsCounted = (connection: Database.Database) =>
  (connection.prepare(`SELECT stat FROM sqlite_stat1 WHERE idx = 't_day'`).pluck().get() as string)
    .split(' ')
    .map(Number)[0];

const fill = (connection: Database.Database, count: number) => {
  const insert = connection.prepare('INSERT INTO t (day) VALUES (?)');
  connection.transaction(() => {
    for (let i = 0; i < count; i++) insert.run(i % 30);
  })();
};

describe('statistics of an open SQLite connection', () => {
  it('are gathered when it opens, and again when its tables have grown tenfold', () => {
    vi.useFakeTimers();
    const connection = new Database(':memory:');
    connection.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, day INTEGER); CREATE INDEX t_day ON t (day)');
    fill(connection, 100);
    const stop = keepSqliteStatistics(connection, 1000);
    expect(rowsCounted(connection)).toBe(100);

    fill(connection, 2000);
    expect(rowsCounted(connection)).toBe(100);
    vi.advanceTimersByTime(1000);
    expect(rowsCounted(connection)).toBe(2100);

    // Stopped (the connection closed): nothing runs any more.
    stop();
    fill(connection, 30000);
    vi.advanceTimersByTime(5000);
    expect(rowsCounted(connection)).toBe(2100);
    connection.close();
  });
});

describe('statistics after a bulk load', () => {
  it("describe the search index as loaded, so that FTS5's range deletes seek instead of scanning it", async () => {
    const connection = new Database(':memory:');
    connection.exec(
      `CREATE VIRTUAL TABLE "EventSearch" USING fts5(title, excerpt, description, tokenize = 'trigram')`,
    );
    for (const table of [
      'Event',
      'EventListCount',
      'EventTerm',
      'EventVenue',
      'EventOrganizer',
      'Term',
      'Venue',
      'Organizer',
    ])
      connection.exec(`CREATE TABLE "${table}" (id INTEGER PRIMARY KEY)`);
    // Opened on an empty calendar: the statistics say the index holds next to nothing.
    const stop = keepSqliteStatistics(connection, 60_000);
    const segmentDelete = () =>
      (
        connection
          .prepare(`EXPLAIN QUERY PLAN SELECT * FROM "EventSearch_data" WHERE id >= ? AND id <= ?`)
          .get(1, 2) as { detail: string }
      ).detail;
    expect(segmentDelete()).toMatch(/^SCAN/);

    // A load of a thousand events, each its own flush (as the service writes them).
    const insert = connection.prepare(
      `INSERT INTO "EventSearch" (title, excerpt, description) VALUES (?, '', ?)`,
    );
    for (let i = 0; i < 1000; i++) insert.run(`Concert ${i}`, `An evening of music number ${i * 7919}`);
    await refreshStatistics({ $executeRawUnsafe: async (sql) => connection.exec(sql) }, 'sqlite');
    expect(segmentDelete()).toMatch(/^SEARCH .* USING INTEGER PRIMARY KEY/);
    stop();
    connection.close();
  });
});
