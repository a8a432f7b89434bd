import type { Config } from '../core/config/config.js';
import type { Db } from '../core/db/client.js';
import { ApiError, invalidParams } from '../core/errors/errors.js';
import type { Viewer } from '../core/rules/permissions.js';
import { passwordWithheld } from '../core/rules/visibility.js';
import { Prisma } from '../generated/sqlite/client.js';
import type { Change, Tx, WriteFacts, WritePipeline } from '../core/db/transactions.js';
import { eventsVisibleTo } from '../events/service/event-access.js';
import { linkedVisibleTo } from '../places/service/linked-access.js';
import { termsVisibleTo } from '../terms/term-reads.js';
import { CATEGORY, TAG } from '../terms/terms.js';
import { insertRows } from '../core/db/queries/insert-rows.js';

// The change stream. Every committed write appends one row per change to `ChangeLog` inside its own
// transaction (a `beforeCommit` listener of the write pipeline, the same change list the response
// cache's `afterCommit` invalidation hears), so the log holds exactly the committed writes. Its id is
// the sequence: sync tokens (`/changes`, GraphQL `changes`) and webhook cursors are positions in it.
//
// No change may be skipped by a reader that resumes after the highest sequence it saw. On PostgreSQL a
// sequence value is taken at insert time but becomes visible at commit, so a higher id could commit
// before a lower one. Appends therefore take one transaction-level advisory lock: it is held from the
// moment the ids are drawn until the commit (PostgreSQL releases it after the commit is visible), so
// ids become visible in id order and any committed row implies every lower id already committed or
// rolled back. The lock is taken last, when the write's own work is done, so it only serialises the
// insert and the commit. SQLite runs one write transaction at a time: nothing to do.

/** The records a sync reader reads: each readable by its own rule. */
const RECORD_TYPES = ['event', 'venue', 'organizer', 'category', 'tag'] as const;
/** Ticket types and attendees: readable by whoever may see their event, its tickets included. */
const TICKET_TYPES = ['ticket', 'attendee'] as const;
export const SYNC_TYPES = [...RECORD_TYPES, ...TICKET_TYPES] as const;
export type SyncType = (typeof SYNC_TYPES)[number];
type RecordType = (typeof RECORD_TYPES)[number];
type TicketType = (typeof TICKET_TYPES)[number];
type ChangeType = SyncType | 'user';

/** Any constant; the key of the one advisory lock appends take (hashtext of a fixed name). */
const APPEND_LOCK = 'calendar:change-log';

const TAXONOMY_TYPE: Record<string, 'category' | 'tag'> = { tribe_events_cat: 'category', post_tag: 'tag' };

export interface ChangeLogRow {
  id: number;
  kind: string;
  recordId: number;
  operation: string;
  createdAt: Date;
  /** The write's group (`series:<first event id>`, `import-run:<run id>`), or null. */
  writeGroup: string | null;
  /** Ticket types and attendees: their event. */
  eventId: number | null;
}

/** The resource type each change is logged under: terms become categories or tags. */
async function typesOf(changes: readonly Change[], tx: Tx): Promise<Array<ChangeType | null>> {
  const unknownTerms = changes.filter((c) => c.kind === 'term' && !c.taxonomy).map((c) => c.id);
  const taxonomies = new Map<number, string>();
  if (unknownTerms.length) {
    for (const term of await tx.term.findMany({
      where: { id: { in: [...new Set(unknownTerms)] } },
      select: { id: true, taxonomy: true },
    }))
      taxonomies.set(term.id, term.taxonomy);
  }
  return changes.map((c) => {
    if (c.kind !== 'term') return c.kind;
    return TAXONOMY_TYPE[c.taxonomy ?? taxonomies.get(c.id) ?? ''] ?? null;
  });
}

/** Appends the write's changes to the log, inside its transaction (see above for the lock). */
async function appendChanges(
  changes: readonly Change[],
  tx: Tx,
  provider: Config['databaseProvider'],
  write: WriteFacts = { group: null },
): Promise<void> {
  const types = await typesOf(changes, tx);
  const writeGroup = write.group;
  const data = changes.flatMap((change, i) =>
    types[i]
      ? [
          {
            kind: types[i],
            recordId: change.id,
            operation: change.operation,
            writeGroup,
            eventId: change.event?.id ?? null,
          },
        ]
      : [],
  );
  if (!data.length) return;
  // The time the row is written (not the transaction's start): tokens and retention compare with it.
  const createdAt = new Date();
  if (provider !== 'postgresql') {
    await insertRows(
      tx,
      'ChangeLog',
      data.map((row) => ({ ...row, createdAt })),
    );
    return;
  }
  // The lock and the rows in one statement: its rows (and the ids they draw) are made from the lock's
  // row, so the lock is held before any id is drawn.
  await tx.$executeRaw`INSERT INTO "ChangeLog" ("kind", "recordId", "operation", "createdAt", "writeGroup", "eventId")
    SELECT v."kind", v."recordId", v."operation", ${createdAt}::timestamp(3), ${writeGroup}::text, v."eventId"
    FROM (SELECT pg_advisory_xact_lock(hashtext(${APPEND_LOCK}))) AS l,
      unnest(${data.map((row) => row.kind)}::text[], ${data.map((row) => row.recordId)}::int[],
        ${data.map((row) => row.operation)}::text[], ${data.map((row) => row.eventId)}::int[])
        AS v("kind", "recordId", "operation", "eventId")`;
}

/** Registers the log on the write pipeline; call it last, so that its lock is the last one taken. */
export function recordChanges(writes: WritePipeline, config: Pick<Config, 'databaseProvider'>): () => void {
  return writes.beforeCommit((changes, tx, write) =>
    appendChanges(changes, tx, config.databaseProvider, write),
  );
}

// ---- Sync tokens ---------------------------------------------------------------------------------

/**
 * A position in the log: every change after `sequence`. `time` bounds the age of the changes still
 * to read (they were written after it), so a token older than the retention window is refused even if
 * no row it needs was pruned yet.
 */
interface SyncPosition {
  sequence: number;
  time: Date;
}

const TOKEN_PREFIX = 'v1';

export function encodeToken({ sequence, time }: SyncPosition): string {
  return Buffer.from(`${TOKEN_PREFIX}.${sequence}.${time.getTime()}`).toString('base64url');
}

function decodeToken(token: string): SyncPosition {
  const text = /^[A-Za-z0-9_-]{1,100}$/.test(token) ? Buffer.from(token, 'base64url').toString() : '';
  const match = /^v1\.(\d{1,15})\.(\d{1,15})$/.exec(text);
  if (!match) throw invalidParams({ since: 'Invalid sync token.' });
  return { sequence: Number(match[1]), time: new Date(Number(match[2])) };
}

function syncTokenExpired(): ApiError {
  return new ApiError(
    410,
    'sync_token_expired',
    'The sync token is older than the change log keeps; read everything again (a full sync) and start over without a token.',
  );
}

const DAY_MS = 86_400_000;
/** Rows are pruned this long after their tokens expire (clock differences between instances). */
const PRUNE_MARGIN_MS = 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;
const lastPruned = new WeakMap<Db, number>();

/** Deletes the rows no valid token can need any more; at most once an hour per client. */
async function pruneChangeLog(db: Db, retentionDays: number, now = Date.now()): Promise<number> {
  if (now - (lastPruned.get(db) ?? 0) < PRUNE_EVERY_MS) return 0;
  lastPruned.set(db, now);
  const cutoff = new Date(now - retentionDays * DAY_MS - PRUNE_MARGIN_MS);
  return (await db.changeLog.deleteMany({ where: { createdAt: { lt: cutoff } } })).count;
}

export const SYNC_PAGE_DEFAULT = 100;
export const SYNC_PAGE_MAX = 500;

/** One page of the stream, as ids per resource type: what the viewer may read, and what it may not. */
export interface ChangePage {
  /** Ids whose current version the viewer may read, in the order of their last change in the page. */
  changed: Record<SyncType, number[]>;
  /** Ids deleted, trashed, or no longer readable by this viewer (it may never have seen some). */
  deleted: Record<SyncType, number[]>;
  next: string;
  hasMore: boolean;
}

const emptyIds = (): Record<SyncType, number[]> => ({
  event: [],
  venue: [],
  organizer: [],
  category: [],
  tag: [],
  ticket: [],
  attendee: [],
});

/** The condition for the records of `ids` this viewer may read now, by each aggregate's own rule. */
function visibleWhere(type: RecordType, ids: number[], viewer: Viewer) {
  const id = { in: ids };
  if (type === 'category') return { id, ...termsVisibleTo(CATEGORY) };
  if (type === 'tag') return { id, ...termsVisibleTo(TAG) };
  return { id, AND: [type === 'event' ? eventsVisibleTo(viewer) : linkedVisibleTo(viewer)] };
}

async function visibleIds(db: Tx, type: RecordType, ids: number[], viewer: Viewer): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const args = { where: visibleWhere(type, ids, viewer), select: { id: true } } as const;
  const rows =
    type === 'event'
      ? await db.event.findMany(args as Prisma.EventFindManyArgs)
      : type === 'venue'
        ? await db.venue.findMany(args as Prisma.VenueFindManyArgs)
        : type === 'organizer'
          ? await db.organizer.findMany(args as Prisma.OrganizerFindManyArgs)
          : await db.term.findMany(args as Prisma.TermFindManyArgs);
  return new Set(rows.map((row) => row.id));
}

/**
 * The events whose tickets this viewer may see now: those it may read (the events' own rule), a
 * protected one only with the right to edit it (a stream takes no password).
 */
async function eventsShowingTickets(db: Tx, ids: number[], viewer: Viewer): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const events = await db.event.findMany({
    where: { id: { in: ids }, AND: [eventsVisibleTo(viewer)] },
    select: { id: true, status: true, password: true, authorId: true },
  });
  return new Set(events.filter((event) => !passwordWithheld(event, viewer)).map((event) => event.id));
}

/** Which of these ticket types or attendees still exist. */
async function existingIds(db: Tx, type: TicketType, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const args = { where: { id: { in: ids } }, select: { id: true } } as const;
  const rows = type === 'ticket' ? await db.ticketType.findMany(args) : await db.attendee.findMany(args);
  return new Set(rows.map((row) => row.id));
}

/**
 * The changes after `since` (none: a token for now), at most `limit` log rows, as this viewer may see
 * them. Each record appears once per page, as it is now; a later change to it comes in a later page.
 */
export async function readChanges(
  { db, viewer, config }: { db: Db; viewer: Viewer; config: Pick<Config, 'changesRetentionDays'> },
  since: string | null | undefined,
  limit: number,
): Promise<ChangePage> {
  if (!Number.isInteger(limit) || limit < 1 || limit > SYNC_PAGE_MAX)
    throw invalidParams({ per_page: `Must be between 1 and ${SYNC_PAGE_MAX}.` });
  const now = new Date();
  await pruneChangeLog(db, config.changesRetentionDays, now.getTime());
  const position = since ? decodeToken(since) : null;
  if (position && position.time.getTime() < now.getTime() - config.changesRetentionDays * DAY_MS)
    throw syncTokenExpired();
  // In a transaction: its reads are one snapshot, and on SQLite it waits for a write still in progress
  // to end (reads outside a transaction see committed rows only, `readingCommitted`, but each its
  // own). On PostgreSQL it costs a BEGIN and changes nothing.
  return db.$transaction(
    async (tx) => {
      if (!position) {
        const last = await tx.changeLog.findFirst({ orderBy: { id: 'desc' }, select: { id: true } });
        return {
          changed: emptyIds(),
          deleted: emptyIds(),
          next: encodeToken({ sequence: last?.id ?? 0, time: now }),
          hasMore: false,
        };
      }
      // One statement: every row it sees implies that all lower ids it does not see were rolled back.
      const rows = await tx.changeLog.findMany({
        where: { id: { gt: position.sequence } },
        orderBy: { id: 'asc' },
        take: limit + 1,
      });
      const hasMore = rows.length > limit;
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      // Later than `now`, no row can still commit below the last one read; within a page, rows after
      // the last one are younger than it.
      const next = encodeToken(
        last
          ? { sequence: last.id, time: hasMore ? last.createdAt : now }
          : { sequence: position.sequence, time: now },
      );
      const touched = emptyIds();
      // The event of each ticket type and attendee touched (a deleted type's too).
      const eventOf = new Map<string, number>();
      for (const row of page) {
        const type = row.kind as ChangeType;
        if (type === 'user' || !(type in touched)) continue;
        const ids = touched[type];
        const seen = ids.indexOf(row.recordId);
        if (seen >= 0) ids.splice(seen, 1);
        ids.push(row.recordId);
        if (row.eventId !== null) eventOf.set(`${type}:${row.recordId}`, row.eventId);
      }
      const changed = emptyIds();
      const deleted = emptyIds();
      for (const type of RECORD_TYPES) {
        const visible = await visibleIds(tx, type, touched[type], viewer);
        for (const id of touched[type]) (visible.has(id) ? changed : deleted)[type].push(id);
      }
      // A ticket type's or attendee's change is shown only to who may see its event's tickets; to
      // anyone else it is not there at all (not even as deleted), so nothing tells of a draft's RSVPs.
      const shown = await eventsShowingTickets(tx, [...new Set(eventOf.values())], viewer);
      for (const type of TICKET_TYPES) {
        const ids = touched[type].filter((id) => shown.has(eventOf.get(`${type}:${id}`) ?? -1));
        const existing = await existingIds(tx, type, ids);
        for (const id of ids) (existing.has(id) ? changed : deleted)[type].push(id);
      }
      return { changed, deleted, next, hasMore };
    },
    { maxWait: 15_000, timeout: 30_000 },
  );
}

/**
 * The committed rows after `sequence`, in order (at most `limit`): what a consumer that resumes after
 * the last row it handled (a webhook cursor) reads. A transaction for the reason `readChanges` gives.
 */
export function readCommittedAfter(db: Db, sequence: number, limit: number): Promise<ChangeLogRow[]> {
  return db.$transaction(
    (tx) => tx.changeLog.findMany({ where: { id: { gt: sequence } }, orderBy: { id: 'asc' }, take: limit }),
    { maxWait: 15_000, timeout: 30_000 },
  );
}
