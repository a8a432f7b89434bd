import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../../../src/generated/sqlite/client.js';
import { orderSql, whereSql } from '../../../../src/core/db/queries/where-sql.js';
import { EVENT_SCALARS } from '../../../../src/events/service/reads/event-selection.js';
import { type Harness, startHarness } from '../../../helpers/harness.js';
import { createEvent } from '../../../helpers/fixtures.js';
import { createUser } from '../../../helpers/users.js';

// The conditions a page read writes itself must find exactly the rows Prisma's own SQL finds, nulls,
// booleans, empty lists and negations included, on both databases; every other form is left to Prisma.

let h: Harness;
let author: number;

beforeAll(async () => {
  h = await startHarness();
  author = (await createUser(h, 'author')).id;
  const statuses = ['publish', 'draft', 'private', 'pending', 'trash'];
  for (let i = 0; i < 15; i++)
    await createEvent(h.db, {
      status: statuses[i % statuses.length],
      title: `Event ${String.fromCharCode(65 + (i % 7))}`,
      fields: {
        authorId: i % 3 ? author : null,
        featured: i % 2 === 0,
        desiredSlug: i % 4 ? null : `reason-${i}`,
        revision: i % 5,
      },
    });
});
afterAll(() => h.close());

const WRITTEN: Array<[string, () => Prisma.EventWhereInput]> = [
  ['nothing', () => ({})],
  ['a value', () => ({ status: 'publish' })],
  ['a boolean', () => ({ featured: false })],
  ['null', () => ({ authorId: null })],
  ['equals null', () => ({ desiredSlug: { equals: null } })],
  ['not null', () => ({ authorId: { not: null } })],
  ['not a value (nulls excluded, as Prisma)', () => ({ desiredSlug: { not: 'reason-0' } })],
  ['not a number on a nullable column', () => ({ authorId: { not: author } })],
  ['in', () => ({ status: { in: ['draft', 'pending'] } })],
  ['in nothing', () => ({ status: { in: [] } })],
  ['not in', () => ({ status: { notIn: ['publish', 'trash', 'private'] } })],
  ['not in nothing', () => ({ status: { notIn: [] } })],
  ['ranges', () => ({ revision: { gte: 1, lt: 4 }, title: { gt: 'Event B', lte: 'Event F' } })],
  ['AND of a list', () => ({ AND: [{ featured: true }, { revision: { gt: 0 } }] })],
  ['AND of one', () => ({ AND: { featured: true } })],
  ['AND of nothing', () => ({ AND: [] })],
  ['OR', () => ({ OR: [{ status: 'publish' }, { status: 'private', authorId: author }] })],
  ['OR of nothing', () => ({ OR: [] })],
  ['NOT', () => ({ NOT: { authorId: author } })],
  ['NOT of a list', () => ({ NOT: [{ status: 'trash' }, { featured: true }] })],
  ['NOT of nothing', () => ({ NOT: [] })],
  [
    'a viewer’s reading rule',
    () => ({
      OR: [
        { status: 'publish' },
        { status: 'private', authorId: author },
        { AND: [{ status: { notIn: ['publish', 'trash', 'private'] } }, { authorId: author }] },
      ],
    }),
  ],
];

const LEFT_TO_PRISMA: Array<[string, unknown]> = [
  ['a relation filter', { venues: { some: { venueId: 1 } } }],
  ['a text match', { title: { contains: 'Event' } }],
  ['a date', { startsAt: { gte: new Date() } }],
  ['an unknown column', { nope: 1 }],
  ['a nested object as a value', { title: { equals: { not: 'x' } } }],
  ['an OR that is not a list', { OR: { status: 'publish' } }],
  ['a case-insensitive mode', { title: { equals: 'event a', mode: 'insensitive' } }],
];

async function idsBySql(where: Prisma.Sql): Promise<number[]> {
  const rows = await h.db.$queryRaw<
    Array<{ id: number }>
  >`SELECT e."id" FROM "Event" e WHERE ${where} ORDER BY e."id"`;
  return rows.map((row) => Number(row.id));
}

describe('whereSql', () => {
  it.each(WRITTEN)('%s: the rows Prisma finds', async (_name, where) => {
    const expected = (
      await h.db.event.findMany({ where: where(), select: { id: true }, orderBy: { id: 'asc' } })
    ).map((row) => row.id);
    const sql = whereSql(where(), 'e', EVENT_SCALARS);
    expect(sql).not.toBeNull();
    expect(await idsBySql(sql!)).toEqual(expected);
  });

  it('the cases cover both answers', async () => {
    const total = await h.db.event.count();
    const sizes = await Promise.all(WRITTEN.map(([, where]) => h.db.event.count({ where: where() })));
    expect(sizes).toContain(0);
    expect(sizes).toContain(total);
    expect(sizes.some((size) => size > 0 && size < total)).toBe(true);
  });

  it.each(LEFT_TO_PRISMA)('leaves %s to Prisma', (_name, where) => {
    expect(whereSql(where, 'e', EVENT_SCALARS)).toBeNull();
  });
});

describe('orderSql', () => {
  it('writes the columns in order, by id when none', () => {
    expect(orderSql([{ localStart: 'asc' }, { id: 'desc' }], 'e', EVENT_SCALARS)?.sql).toBe(
      'e."localStart" ASC, e."id" DESC',
    );
    expect(orderSql(undefined, 'e', EVENT_SCALARS)?.sql).toBe('e."id" ASC');
  });

  it.each([
    ['a relation', { venues: { _count: 'asc' } }],
    ['nulls placed', { authorId: { sort: 'asc', nulls: 'last' } }],
    ['an unknown column', { nope: 'asc' }],
  ])('leaves an order by %s to Prisma', (_name, orderBy) => {
    expect(orderSql(orderBy, 'e', EVENT_SCALARS)).toBeNull();
  });
});
