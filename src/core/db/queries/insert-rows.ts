import { Prisma } from '../../../generated/sqlite/client.js';
import type { Tx } from '../transactions.js';

// Rows written by INSERT statements of their values, in place of Prisma's `createMany`: Prisma keeps no
// query plan of a `createMany` (its shape grows with its rows), so each call compiled one on the event
// loop, about a tenth of an event edit's CPU (the change log's row) and more for links. A raw
// statement is compiled by nothing but the database.

type Value = string | number | boolean | Date | null;

/** Bound parameters per statement: under SQLite's 32,766 and PostgreSQL's 65,535. */
const MAX_PARAMETERS = 30_000;

/** Inserts `rows` (each with the keys of the first, as columns of `table`) in as few statements as fit. */
export async function insertRows(
  tx: Pick<Tx, '$executeRaw'>,
  table: string,
  rows: ReadonlyArray<Readonly<Record<string, Value>>>,
): Promise<void> {
  if (!rows.length) return;
  const columns = Object.keys(rows[0]!);
  const into = Prisma.raw(`"${table}" (${columns.map((column) => `"${column}"`).join(', ')})`);
  const perStatement = Math.floor(MAX_PARAMETERS / columns.length);
  for (let from = 0; from < rows.length; from += perStatement) {
    const values = rows
      .slice(from, from + perStatement)
      .map((row) => Prisma.sql`(${Prisma.join(columns.map((column) => row[column] ?? null))})`);
    await tx.$executeRaw`INSERT INTO ${into} VALUES ${Prisma.join(values)}`;
  }
}
