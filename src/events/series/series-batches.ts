import type { EventSpan } from '../../core/cache/dependencies.js';
import { Prisma } from '../../generated/sqlite/client.js';
import type { ChangeOperation, Tx, WriteScope } from '../../core/db/transactions.js';
import { insertRows } from '../../core/db/queries/insert-rows.js';

// The statements a series write runs over its rows, and the announcement of each row it writes. A series
// writes hundreds of rows: one statement per batch, in SQL, where Prisma would plan a query per row
// (updates of different values) or spend longer planning one large insert than running it.

/** Rows per statement: under SQLite's 32,766 bound variables and PostgreSQL's 65,535 parameters. */
const BATCH = 500;

/** The items in batches, one statement each. */
export function chunks<T>(items: readonly T[], size = BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const spanOf = ({ localStart, localEnd }: EventSpan): EventSpan => ({ localStart, localEnd });

/** Tells the write's listeners (change log, caches, subscriptions) of one row the series wrote. */
export function announce(
  w: WriteScope,
  id: number,
  operation: ChangeOperation,
  before: EventSpan | null,
  after: EventSpan | null,
): void {
  w.changed('event', id, operation, {
    move: { before: before && spanOf(before), after: after && spanOf(after), facts: 'all' },
  });
}

/** Tells the caches that a first event may have entered or left every list it falls in. */
export function announceListing(w: WriteScope, first: { id: number; status: string } & EventSpan): void {
  w.changed('event', first.id, first.status === 'trash' ? 'trashed' : 'updated', {
    move: { before: spanOf(first), after: spanOf(first), facts: ['hidden'] },
  });
}

// ---- Rows --------------------------------------------------------------------------------------------

export type Value = string | number | boolean | Date | null;

const column = (name: string) => Prisma.raw(`"${name}"`);

/** Inserts events (each with the same keys), returning their ids and spans in order. */
export async function insertEvents(tx: Tx, rows: ReadonlyArray<Record<string, Value | undefined>>) {
  if (!rows.length) return [];
  const names = Object.keys(rows[0]!);
  const created: Array<{ id: number; localStart: string; localEnd: string }> = [];
  for (const part of chunks(rows, Math.floor(30_000 / names.length))) {
    const values = part.map((row) => Prisma.sql`(${Prisma.join(names.map((name) => row[name] ?? null))})`);
    created.push(
      ...(await tx.$queryRaw<Array<{ id: number; localStart: string; localEnd: string }>>(
        Prisma.sql`INSERT INTO "Event" (${Prisma.join(names.map(column))}) VALUES ${Prisma.join(values)} RETURNING "id", "localStart", "localEnd"`,
      )),
    );
  }
  return created.map((row) => ({ ...row, id: Number(row.id) }));
}

/**
 * Gives each row its own values of the same columns, in one UPDATE per batch (`CASE "id" WHEN …`).
 * PostgreSQL is told each value's type; SQLite stores what it is given, as Prisma does.
 */
export async function updateEach(
  w: WriteScope,
  rows: ReadonlyArray<{ id: number; data: Record<string, Value> }>,
) {
  if (!rows.length) return;
  const postgres = w.config.databaseProvider === 'postgresql';
  const typed = (value: Value) =>
    postgres && value instanceof Date ? Prisma.sql`CAST(${value} AS TIMESTAMP(3))` : Prisma.sql`${value}`;
  const names = Object.keys(rows[0]!.data);
  for (const part of chunks(rows, Math.floor(30_000 / (2 * names.length + 1)))) {
    const sets = names.map(
      (name) =>
        Prisma.sql`${column(name)} = CASE "id" ${Prisma.join(
          part.map((row) => Prisma.sql`WHEN ${row.id} THEN ${typed(row.data[name]!)}`),
          ' ',
        )} END`,
    );
    await w.tx.$executeRaw(
      Prisma.sql`UPDATE "Event" SET ${Prisma.join(sets)} WHERE "id" IN (${Prisma.join(part.map((row) => row.id))})`,
    );
  }
}

// ---- Slugs -------------------------------------------------------------------------------------------

/**
 * Free slugs for many rows at once: each wanted slug as it is when no other event has it, else with
 * `-2`, `-3`… (one query per round, not one per row). Null stays null (a draft's missing slug).
 */
export async function freeSlugs(tx: Tx, wanted: ReadonlyArray<string | null>, exceptIds: number[] = []) {
  const result = [...wanted];
  const pending = new Map<number, string>();
  wanted.forEach((slug, index) => slug !== null && pending.set(index, slug));
  const claimed = new Set<string>();
  for (let n = 1; pending.size; n++) {
    const candidates = new Map([...pending].map(([index, base]) => [index, n === 1 ? base : `${base}-${n}`]));
    const taken = new Set<string>();
    for (const part of chunks([...new Set(candidates.values())])) {
      const rows = await tx.event.findMany({
        where: { slug: { in: part }, ...(exceptIds.length ? { id: { notIn: exceptIds } } : {}) },
        select: { slug: true },
      });
      for (const row of rows) if (row.slug) taken.add(row.slug);
    }
    for (const [index, candidate] of candidates) {
      if (taken.has(candidate) || claimed.has(candidate)) continue;
      result[index] = candidate;
      claimed.add(candidate);
      pending.delete(index);
    }
  }
  return result;
}

// ---- Links -------------------------------------------------------------------------------------------

async function seriesLinks(tx: Tx, firstId: number) {
  const [venues, organizers, terms] = await Promise.all([
    tx.eventVenue.findMany({ where: { eventId: firstId }, select: { venueId: true, position: true } }),
    tx.eventOrganizer.findMany({
      where: { eventId: firstId },
      select: { organizerId: true, position: true },
    }),
    tx.eventTerm.findMany({ where: { eventId: firstId }, select: { termId: true, position: true } }),
  ]);
  return { venues, organizers, terms };
}

/** Gives every row of `ids` the first event's venues, organizers and terms (replacing theirs). */
export async function copyLinks(tx: Tx, firstId: number, ids: readonly number[], replacing: boolean) {
  if (!ids.length) return [];
  const links = await seriesLinks(tx, firstId);
  const before: number[] = [];
  for (const part of chunks(ids)) {
    if (replacing) {
      const where = { eventId: { in: part } };
      before.push(
        ...(await tx.eventTerm.findMany({ where, select: { termId: true } })).map((row) => row.termId),
      );
      await tx.eventVenue.deleteMany({ where });
      await tx.eventOrganizer.deleteMany({ where });
      await tx.eventTerm.deleteMany({ where });
    }
    for (const [table, rows] of [
      ['EventVenue', links.venues],
      ['EventOrganizer', links.organizers],
      ['EventTerm', links.terms],
    ] as const)
      await insertRows(
        tx,
        table,
        part.flatMap((eventId) => rows.map((link) => ({ eventId, ...link }))),
      );
  }
  return [...before, ...links.terms.map((link) => link.termId)];
}

/** The terms the rows link to: their counts move when the rows go. */
export async function linkedTerms(tx: Tx, ids: readonly number[]): Promise<number[]> {
  const termIds: number[] = [];
  for (const part of chunks(ids))
    termIds.push(
      ...(await tx.eventTerm.findMany({ where: { eventId: { in: part } }, select: { termId: true } })).map(
        (row) => row.termId,
      ),
    );
  return termIds;
}
