import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent } from '../../helpers/fixtures.js';

// A read outside a write's transaction sees committed data only, and a write outside it stands on its
// own, on both databases. On SQLite the reads go to a connection of their own and such writes wait for
// the open transaction (`readingCommitted`, src/core/db/sqlite-statements.ts): on the one connection a read
// made between two awaited statements of an open transaction saw what the transaction wrote (an answer
// built from a write that then rolled back was served and kept), and a write joined that transaction.

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

/** Runs `during` while a transaction holds an uncommitted title, then commits or rolls it back. */
async function withOpenWrite(id: number, outcome: 'commit' | 'rollback', during: () => Promise<void>) {
  await h.db
    .$transaction(async (tx) => {
      await tx.event.update({ where: { id }, data: { title: 'Uncommitted' } });
      await during();
      if (outcome === 'rollback') throw new Error('rolled back');
    })
    .catch((error: unknown) => {
      if (!(error instanceof Error) || error.message !== 'rolled back') throw error;
    });
}

const titleOf = async (id: number) => (await h.db.event.findUniqueOrThrow({ where: { id } })).title;

it('a read during an open write sees what was committed, and nothing of a write that rolls back', async () => {
  const event = await createEvent(h.db, { title: 'Committed' });
  const seen: string[] = [];
  await withOpenWrite(event.id, 'rollback', async () => {
    seen.push(await titleOf(event.id));
    const [{ title }] = await h.db.$queryRawUnsafe<[{ title: string }]>(
      `SELECT "title" FROM "Event" WHERE "id" = ${event.id}`,
    );
    seen.push(title);
  });
  expect(seen).toEqual(['Committed', 'Committed']);
  expect(await titleOf(event.id)).toBe('Committed');
});

it('a read after the write commits sees it at once', async () => {
  const event = await createEvent(h.db, { title: 'Committed' });
  let during = '';
  await withOpenWrite(event.id, 'commit', async () => {
    during = await titleOf(event.id);
  });
  expect(during).toBe('Committed');
  expect(await titleOf(event.id)).toBe('Uncommitted');
});

it('the transaction itself reads its own writes', async () => {
  const event = await createEvent(h.db, { title: 'Committed' });
  const own = await h.db.$transaction(async (tx) => {
    await tx.event.update({ where: { id: event.id }, data: { title: 'Own write' } });
    return (await tx.event.findUniqueOrThrow({ where: { id: event.id } })).title;
  });
  expect(own).toBe('Own write');
});

it('a write outside the open transaction waits for it, and stands on its own when it rolls back', async () => {
  const event = await createEvent(h.db, { title: 'Committed' });
  const other = await createEvent(h.db, { title: 'Other' });
  let outside: Promise<number> | undefined;
  await withOpenWrite(event.id, 'rollback', async () => {
    // On SQLite's one writer it would otherwise join the open transaction, and roll back with it.
    // Prisma sends a query once it is awaited: `then` sends it now.
    outside = h.db
      .$executeRawUnsafe(`UPDATE "Event" SET "title" = 'Written outside' WHERE "id" = ${other.id}`)
      .then((count) => count);
    await new Promise((resolve) => setTimeout(resolve, 20));
  });
  expect(await outside).toBe(1);
  expect(await titleOf(other.id)).toBe('Written outside');
  expect(await titleOf(event.id)).toBe('Committed');
});
