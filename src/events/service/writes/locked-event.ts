import { type Event, Prisma } from '../../../generated/sqlite/client.js';
import { NOT_FOUND } from '../../../core/rules/visibility.js';
import type { WriteScope } from '../../../core/db/transactions.js';
import type { EventSelection } from '../reads/event-selection.js';
import { findEventToWrite } from '../reads/event-rows.js';

// The event a write starts from (`event-writes.ts`): its row locked for the rest of the transaction, so
// that concurrent writes of one event never undo each other, and read with what the writes decide by.

export type EventKey = { id: number } | { slug: string };

/** An event row as a write reads it: every column. */
export type EventRow = Event;

const missing = (key: EventKey) => NOT_FOUND.event('id' in key ? key.id : key.slug);

/**
 * Locks the row of the event a key names for the rest of the transaction, so that concurrent updates
 * never undo each other, and returns the key to read it by (null: no such event). PostgreSQL takes the
 * lock in a statement of its own (which is also the existence check), so that the reads after it see
 * what the last writer committed; SQLite runs one write transaction at a time: nothing to take, and
 * the caller's read of the key is the existence check.
 */
async function lockEvent(w: WriteScope, key: EventKey): Promise<EventKey | null> {
  if (w.config.databaseProvider !== 'postgresql') return key;
  const where = 'id' in key ? Prisma.sql`"id" = ${key.id}` : Prisma.sql`"slug" = ${key.slug}`;
  const [row] = await w.tx.$queryRaw<Array<{ id: number }>>(
    Prisma.sql`SELECT "id" FROM "Event" WHERE ${where} FOR NO KEY UPDATE`,
  );
  return row ? { id: Number(row.id) } : null;
}

/**
 * The event (every column: the caches are told what a write changed by comparing rows), its row locked
 * for the rest of the transaction (`lockEvent`).
 */
export async function findEvent(w: WriteScope, key: EventKey): Promise<EventRow> {
  const locked = await lockEvent(w, key);
  const event = locked && (await w.tx.event.findUnique({ where: locked }));
  if (!event) throw missing(key);
  return event;
}

/**
 * The event an update starts from, locked as `findEvent` locks it, read with the ids it links to and
 * what its answer shows of it (`findEventToWrite`): one statement after the lock.
 */
export async function findEventToUpdate(w: WriteScope, key: EventKey, selection: EventSelection | undefined) {
  const locked = await lockEvent(w, key);
  const found = locked && (await findEventToWrite(w.tx, w.config.databaseProvider, locked, selection));
  if (!found) throw missing(key);
  return found;
}
