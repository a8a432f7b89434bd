import { Prisma } from '../../../generated/sqlite/client.js';

// A Prisma `where` and `orderBy` over one table's own columns, written as SQL, for the reads that send
// their whole page in one statement of their own. Only the plain forms are written: equality, ranges and
// lists of values over the columns named, joined by AND, OR and NOT. Anything else (a relation filter,
// a text match, a date value, another order) is not, and the read leaves it to Prisma, which writes it
// exactly: null here means "ask Prisma". The forms written mean what Prisma's own SQL means, nulls and
// empty lists included (test/core/db/queries/where-sql.test.ts holds both to the same rows).

type Value = string | number | boolean;
type Sql = Prisma.Sql;

const TRUE = Prisma.sql`(1 = 1)`;
const FALSE = Prisma.sql`(1 = 0)`;

const isPlain = (value: unknown): value is Value =>
  typeof value === 'string' ||
  typeof value === 'boolean' ||
  (typeof value === 'number' && Number.isFinite(value));
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

const COMPARISONS = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/** The conditions of one column's filter (`{ in: […], gte: … }` or a value), or null. */
function columnSql(column: Sql, filter: unknown): Sql | null {
  if (filter === null) return Prisma.sql`${column} IS NULL`;
  if (isPlain(filter)) return Prisma.sql`${column} = ${filter}`;
  if (!isRecord(filter)) return null;
  const parts: Sql[] = [];
  for (const [operator, operand] of Object.entries(filter)) {
    if (operand === undefined) continue;
    if (operator === 'equals') {
      const part = columnSql(column, operand);
      if (!part || isRecord(operand)) return null;
      parts.push(part);
    } else if (operator === 'not') {
      if (operand === null) parts.push(Prisma.sql`${column} IS NOT NULL`);
      else if (isPlain(operand)) parts.push(Prisma.sql`${column} <> ${operand}`);
      else return null;
    } else if (operator === 'in' || operator === 'notIn') {
      if (!Array.isArray(operand) || !operand.every(isPlain)) return null;
      if (!operand.length) parts.push(operator === 'in' ? FALSE : TRUE);
      else
        parts.push(
          operator === 'in'
            ? Prisma.sql`${column} IN (${Prisma.join(operand)})`
            : Prisma.sql`${column} NOT IN (${Prisma.join(operand)})`,
        );
    } else if (operator in COMPARISONS) {
      if (!isPlain(operand)) return null;
      parts.push(
        Prisma.sql`${column} ${Prisma.raw(COMPARISONS[operator as keyof typeof COMPARISONS])} ${operand}`,
      );
    } else return null;
  }
  return all(parts);
}

const all = (parts: Sql[]): Sql => (parts.length ? Prisma.sql`(${Prisma.join(parts, ' AND ')})` : TRUE);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/**
 * `where` as SQL over `alias`'s columns (each of `columns`), or null when it holds a form not written
 * here.
 */
export function whereSql(where: unknown, alias: string, columns: ReadonlySet<string>): Sql | null {
  if (where === undefined) return TRUE;
  if (!isRecord(where)) return null;
  const parts: Sql[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (value === undefined) continue;
    let part: Sql | null;
    if (key === 'AND' || key === 'NOT') {
      const each = list(value).map((one) => whereSql(one, alias, columns));
      if (each.some((one) => one === null)) return null;
      part = key === 'AND' ? all(each as Sql[]) : all((each as Sql[]).map((one) => Prisma.sql`NOT ${one}`));
    } else if (key === 'OR') {
      if (!Array.isArray(value)) return null;
      const each = value.map((one) => whereSql(one, alias, columns));
      if (each.some((one) => one === null)) return null;
      part = each.length ? Prisma.sql`(${Prisma.join(each as Sql[], ' OR ')})` : FALSE;
    } else if (columns.has(key)) part = columnSql(Prisma.raw(`${alias}."${key}"`), value);
    else return null;
    if (!part) return null;
    parts.push(part);
  }
  return all(parts);
}

/** `orderBy` as the terms of an ORDER BY over `alias`'s columns (`id` last, as a tiebreak), or null. */
export function orderSql(orderBy: unknown, alias: string, columns: ReadonlySet<string>): Sql | null {
  const terms: string[] = [];
  for (const one of orderBy === undefined ? [] : list(orderBy)) {
    if (!isRecord(one)) return null;
    for (const [key, direction] of Object.entries(one)) {
      if (!columns.has(key) || (direction !== 'asc' && direction !== 'desc')) return null;
      terms.push(`${alias}."${key}" ${direction === 'asc' ? 'ASC' : 'DESC'}`);
    }
  }
  return Prisma.raw(terms.length ? terms.join(', ') : `${alias}."id" ASC`);
}
