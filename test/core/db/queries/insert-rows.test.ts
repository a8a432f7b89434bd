import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertRows } from '../../../../src/core/db/queries/insert-rows.js';
import { type Harness, startHarness } from '../../../helpers/harness.js';

// Rows written by one raw INSERT (`src/core/db/queries/insert-rows.ts`) read back as Prisma's own writes
// would have stored them, in as many statements as the parameter bounds need; and no `createMany` left
// in the service, whose query plan Prisma compiles on every call.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('insertRows', () => {
  it('stores dates, nulls and strings as a typed create does', async () => {
    const createdAt = new Date('2026-12-07T10:11:12.345Z');
    const typed = await h.db.changeLog.create({
      data: { kind: 'event', recordId: 1, operation: 'created', createdAt },
    });
    await insertRows(h.db, 'ChangeLog', [
      { kind: 'event', recordId: 2, operation: 'updated', writeGroup: null, eventId: null, createdAt },
      { kind: 'venue', recordId: 3, operation: 'deleted', writeGroup: 'series:7', eventId: 9, createdAt },
    ]);
    const rows = await h.db.changeLog.findMany({
      where: { createdAt: { gte: createdAt, lte: createdAt } },
      orderBy: { id: 'asc' },
    });
    expect(rows.map(({ id: _id, ...row }) => row)).toEqual([
      { kind: 'event', recordId: 1, operation: 'created', writeGroup: null, eventId: null, createdAt },
      { kind: 'event', recordId: 2, operation: 'updated', writeGroup: null, eventId: null, createdAt },
      { kind: 'venue', recordId: 3, operation: 'deleted', writeGroup: 'series:7', eventId: 9, createdAt },
    ]);
    expect(rows[0]!.id).toBe(typed.id);
  });

  it('splits rows past the parameter bound into statements, every row written', async () => {
    const createdAt = new Date('2026-12-08T00:00:00.000Z');
    // 6 columns a row: 5,000 rows a statement, so 10,001 rows take three.
    const rows = Array.from({ length: 10_001 }, (_, recordId) => ({
      kind: 'term',
      recordId,
      operation: 'updated',
      writeGroup: null,
      eventId: null,
      createdAt,
    }));
    h.queries.length = 0;
    await insertRows(h.db, 'ChangeLog', rows);
    expect(h.queries.filter((sql) => sql.startsWith('INSERT INTO "ChangeLog"'))).toHaveLength(3);
    const written = await h.db.changeLog.findMany({ where: { createdAt }, select: { recordId: true } });
    expect(written.map((row) => row.recordId).sort((x, y) => x - y)).toEqual(rows.map((row) => row.recordId));
  });
});

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

it('no write in src/ uses createMany (its query plan is compiled on every call): insertRows writes rows', () => {
  const using = sources('src').filter((file) => /\.createMany\(/.test(readFileSync(file, 'utf8')));
  expect(using).toEqual([]);
});
