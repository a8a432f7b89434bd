import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keepSqliteStatistics } from '../../src/db/statistics.js';

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
