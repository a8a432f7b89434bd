import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, createDb } from '../../../src/core/db/client.js';
import { testPostgresUrl } from '../../helpers/processes/services.js';

// PostgreSQL plans an unnamed statement at every execution; the service names its statements by
// their text (src/core/db/client.ts), so each connection parses and plans one once. Run against the test
// PostgreSQL server whatever DATABASE_URL says: the naming is the PostgreSQL client's alone.

let db: Db;
beforeAll(async () => {
  db = await createDb(testPostgresUrl());
});
afterAll(() => db.$disconnect());

/** The texts of the statements prepared on the connection of `tx`. */
const preparedOn = async (tx: Pick<Db, '$queryRawUnsafe'>) =>
  (
    await tx.$queryRawUnsafe<Array<{ statement: string }>>('SELECT statement FROM pg_prepared_statements')
  ).map((row) => row.statement);

describe('PostgreSQL statements kept by their text', () => {
  it('prepares a statement once on its connection and binds each execution its own values', async () => {
    await db.$transaction(async (tx) => {
      const sum = 'SELECT $1::int + $2::int AS sum';
      expect(await tx.$queryRawUnsafe(sum, 1, 2)).toEqual([{ sum: 3 }]);
      expect(await tx.$queryRawUnsafe(sum, 40, 2)).toEqual([{ sum: 42 }]);
      const prepared = await preparedOn(tx);
      expect(prepared.filter((text) => text === sum)).toHaveLength(1);
    });
  });

  it('leaves a statement with more parameters than a page holds unnamed', async () => {
    await db.$transaction(async (tx) => {
      const values = Array.from({ length: 65 }, (_, i) => i);
      const long = `SELECT ${values.map((i) => `$${i + 1}::int`).join(' + ')} AS sum`;
      expect(await tx.$queryRawUnsafe(long, ...values)).toEqual([{ sum: (64 * 65) / 2 }]);
      expect(await preparedOn(tx)).not.toContain(long);
    });
  });

  it('leaves a pattern match or a filter through a link unnamed: planned for its values each time', async () => {
    await db.$transaction(async (tx) => {
      const search = `SELECT 'Jazz night' ILIKE $1 AS found`;
      for (const pattern of ['%jazz%', '%zzyzx%', '%night%', '%a%', '%b%', '%c%', '%jazz%'])
        expect(await tx.$queryRawUnsafe(search, pattern)).toHaveLength(1);
      expect(await tx.$queryRawUnsafe(search, '%JAZZ%')).toEqual([{ found: true }]);
      expect(await preparedOn(tx)).not.toContain(search);
      const like = `SELECT 'Jazz' LIKE $1 AS found`;
      expect(await tx.$queryRawUnsafe(like, 'J%')).toEqual([{ found: true }]);
      expect(await preparedOn(tx)).not.toContain(like);
      // A filter through a link: which record it names decides how many rows it keeps.
      const linked = `SELECT EXISTS (SELECT 1 FROM generate_series(1, 3) AS n WHERE n = $1::int) AS found`;
      expect(await tx.$queryRawUnsafe(linked, 2)).toEqual([{ found: true }]);
      expect(await preparedOn(tx)).not.toContain(linked);
    });
  });
});
