import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { reusingStatements } from '../../../src/core/db/sqlite-statements.js';

// The adapter's calls, as @prisma/adapter-better-sqlite3 makes them: prepare(sql).bind(values), then
// `reader`, `columns()`, `raw().all()` or `run()`.
describe('SQLite statements kept by their text', () => {
  const open = () => {
    const connection = new Database(':memory:');
    connection.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)');
    const prepare = vi.spyOn(connection, 'prepare');
    return { connection: reusingStatements(connection, 2), prepare };
  };

  it('compiles a text once and binds each call its own values', () => {
    const { connection, prepare } = open();
    const insert = 'INSERT INTO t (id, name) VALUES (?, ?)';
    expect(connection.prepare(insert).bind([1, 'a']).run().changes).toBe(1);
    expect(connection.prepare(insert).bind([2, 'b']).run().changes).toBe(1);
    const select = 'SELECT id, name FROM t WHERE id >= ? ORDER BY id';
    const first = connection.prepare(select).bind([1]);
    const second = connection.prepare(select).bind([2]);
    expect(first.reader).toBe(true);
    expect(first.columns().map((column) => column.name)).toEqual(['id', 'name']);
    // Two bound views of one statement keep their own values.
    expect(second.raw().all()).toEqual([[2, 'b']]);
    expect(first.raw().all()).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
    expect(prepare).toHaveBeenCalledTimes(2);
  });

  it('keeps a bounded number of texts and compiles an evicted one again', () => {
    const { connection, prepare } = open();
    for (const sql of ['SELECT 1', 'SELECT 2', 'SELECT 3', 'SELECT 1'])
      expect(connection.prepare(sql).raw().all()).toHaveLength(1);
    expect(prepare).toHaveBeenCalledTimes(4);
  });

  it('reports a bad value when the statement runs, as the adapter expects to catch it', () => {
    const { connection } = open();
    const bound = connection.prepare('SELECT ? AS a').bind([1, 2]);
    expect(() => bound.raw().all()).toThrow(RangeError);
    expect(connection.prepare('SELECT ? AS a').bind([3]).raw().all()).toEqual([[3]]);
  });

  it('passes everything else to the connection', () => {
    const { connection } = open();
    connection.exec("INSERT INTO t (id, name) VALUES (5, 'e')");
    expect(connection.inTransaction).toBe(false);
    expect(connection.prepare('SELECT name FROM t').raw().all()).toEqual([['e']]);
  });
});
