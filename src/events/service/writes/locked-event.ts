import { Prisma } from '../../../generated/sqlite/client.js';
import { NOT_FOUND } from '../../../core/rules/visibility.js';
import type { WriteScope } from '../../../core/db/transactions.js';
import { type SeriesPlace, SERIES_COLUMNS } from '../../series/series-place.js';
import { type EventSelection, findEventToWrite } from '../event-reads.js';

// The event a write starts from (`event-writes.ts`): its row locked for the rest of the transaction, so
// that concurrent writes of one event never undo each other, and read with what the writes decide by.

export type EventKey = { id: number } | { slug: string };

export interface EventRow extends SeriesPlace {
  id: number;
  title: string;
  slug: string | null;
  desiredSlug: string | null;
  status: string;
  authorId: number | null;
  publishedAt: Date;
  timezone: string;
  localStart: string;
  localEnd: string;
  allDay: boolean;
  eventStatus: string;
  eventStatusReason: string;
  excerpt: string;
  description: string;
  modifiedAt: Date;
  startsAt: Date;
  endsAt: Date;
}

const EVENT_ROW = {
  id: true,
  title: true,
  slug: true,
  desiredSlug: true,
  status: true,
  authorId: true,
  publishedAt: true,
  timezone: true,
  localStart: true,
  localEnd: true,
  allDay: true,
  eventStatus: true,
  eventStatusReason: true,
  // What `search` reads, for the caches to judge the write against cached searches.
  excerpt: true,
  description: true,
  modifiedAt: true,
  startsAt: true,
  endsAt: true,
  ...SERIES_COLUMNS,
} as const;

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

/** The event, its row locked for the rest of the transaction (`lockEvent`). */
export async function findEvent(w: WriteScope, key: EventKey): Promise<EventRow> {
  const locked = await lockEvent(w, key);
  const event = locked && (await w.tx.event.findUnique({ where: locked, select: EVENT_ROW }));
  if (!event) throw missing(key);
  return event;
}

/**
 * The event an update starts from, locked as `findEvent` locks it, read with the ids it links to and
 * what its answer shows of it (`findEventToWrite`): one statement after the lock.
 */
export async function findEventToUpdate(w: WriteScope, key: EventKey, selection: EventSelection | undefined) {
  const locked = await lockEvent(w, key);
  const found = locked && (await findEventToWrite(w.tx, locked, selection));
  if (!found) throw missing(key);
  return found;
}
