import type { Config } from '../config/config.js';
import type { Db } from './client.js';
import { ApiError } from '../errors/errors.js';
import type { EventMove, EventSpan } from '../cache/dependencies.js';
import type { Viewer } from '../rules/permissions.js';
import { assertVersion, type IfMatch, type VersionedRow } from '../rules/versions.js';
import { Prisma } from '../../generated/sqlite/client.js';

// The one write pipeline: every write (events, venues, organizers, terms, users and their passwords,
// ticket types and reservations) runs in `WritePipeline.run`, which owns the transaction, the locks, the retry policy and the mapping
// of a lost race to 409. Writers record what they changed (`changed`); listeners registered once at
// start-up see those changes inside the transaction (`beforeCommit`) and after it committed
// (`afterCommit`). A rolled-back transaction calls neither.

export type Tx = Prisma.TransactionClient;

/** `ticket`: a ticket type; `attendee`: a reservation (both of one event, `Change.event`). */
type ChangeKind = 'event' | 'venue' | 'organizer' | 'term' | 'user' | 'ticket' | 'attendee';
/** What happens to a record (an attendee aside). */
export type RecordOperation = 'created' | 'updated' | 'trashed' | 'deleted';
/** What happens to an attendee: a status it cannot leave, or its personal data removed, has its own name. */
export type AttendeeOperation = 'created' | 'updated' | 'cancelled' | 'checked_in' | 'erased';
export const ATTENDEE_OPERATIONS: readonly AttendeeOperation[] = [
  'created',
  'updated',
  'cancelled',
  'checked_in',
  'erased',
];
export type TicketOperation = Extract<RecordOperation, 'created' | 'updated' | 'deleted'>;
export const TICKET_OPERATIONS: readonly TicketOperation[] = ['created', 'updated', 'deleted'];
export type ChangeOperation = RecordOperation | AttendeeOperation;

/** The event a ticket type or attendee belongs to, as the lists see it (its span does not change). */
interface ChangedEvent {
  id: number;
  span: EventSpan;
}

export interface Change {
  readonly kind: ChangeKind;
  readonly id: number;
  readonly operation: ChangeOperation;
  /** Terms only: `tribe_events_cat` or `post_tag`, when the writer knows it (a deleted term must say). */
  readonly taxonomy?: string;
  /** Terms only: only the count of its events changed (an event linked or unlinked, published or not). */
  readonly countOnly?: boolean;
  /**
   * Events only: where it was before the write and is after it (null: it did not exist / no longer
   * does), and which of its facts the write touched. Absent when the writer did not say: every event
   * list is then assumed to have changed.
   */
  readonly move?: EventMove;
  /**
   * Ticket types and attendees: their event. The answers showing its tickets are dropped, and who may
   * read the change is who may see the event.
   */
  readonly event?: ChangedEvent;
}

/** What a writer may say of a change beyond its kind, id and operation. */
type ChangeDetails = Pick<Change, 'taxonomy' | 'countOnly' | 'move' | 'event'>;

/** What a listener learns of the write beyond its changes. */
export interface WriteFacts {
  /** The write's group (`RunOptions.group`, `WriteScope.group`), or null. */
  readonly group: string | null;
}

/** Runs inside the transaction, after the write: what it writes commits (or rolls back) with it. */
type BeforeCommitListener = (changes: readonly Change[], tx: Tx, write: WriteFacts) => Promise<void>;
/** Awaited after the commit, before the write answers. */
type AfterCommitListener = (changes: readonly Change[]) => Promise<void> | void;

/** Who writes, and the settings writes depend on. */
export interface WriteRequest {
  db: Db;
  viewer: Viewer;
  config: Pick<Config, 'databaseProvider' | 'siteTimezone'>;
  /** The version the written record must have (`If-Match`): checked by `expectVersion`. */
  ifMatch?: IfMatch | null;
}

/** Rows a write may lock for the rest of its transaction. */
type LockableTable = 'Event' | 'Venue' | 'Organizer' | 'Term' | 'User';

/** What a writer works with inside the transaction. */
export interface WriteScope {
  readonly tx: Tx;
  readonly viewer: Viewer;
  readonly config: WriteRequest['config'];
  /**
   * Records a change for the listeners; the same change twice is recorded once (its details merged:
   * the first `before`, the last `after`).
   */
  changed(kind: ChangeKind, id: number, operation: ChangeOperation, details?: ChangeDetails): void;
  /**
   * Waits for the other transactions holding any of these keys (a slug, a name) to finish, so that
   * what they committed is seen: PostgreSQL advisory transaction locks, taken in key order so that two
   * writers never deadlock. SQLite runs one write transaction at a time: nothing to do.
   */
  lock(keys: readonly string[]): Promise<void>;
  /** Locks these rows until the end of the transaction (PostgreSQL; in id order). */
  lockRows(table: LockableTable, ids: readonly number[]): Promise<void>;
  /**
   * The request's precondition (`If-Match`) against the record it updates or deletes, as stored before
   * the write and locked: 412 when it changed meanwhile. Called once the writer may touch the record.
   */
  expectVersion(row: VersionedRow): void;
  /**
   * Names the group this write belongs to (a series, an import run), unless it has one already: the
   * run's `group` or an earlier call wins, so the outermost unit of work names the group.
   */
  group(label: string): void;
}

export interface RunOptions {
  /** The error code of a race still lost after every retry (409). */
  conflictCode?: string;
  /**
   * A label shared by related writes (`import-run:<id>`): stored on their change-log rows, so that
   * webhooks deliver consecutive rows of one group as one summary. The change stream is unaffected.
   */
  group?: string;
}

const TRANSACTION = { maxWait: 15_000, timeout: 30_000 };
/** A write that loses a race runs again, this many times in all, then answers 409. */
export const WRITE_ATTEMPTS = 4;

/**
 * A race another writer won: a unique constraint taken meanwhile (P2002), or a PostgreSQL write
 * conflict, serialization failure or deadlock (P2034). Running the write again sees the winner's work.
 */
function isLostRace(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'P2002' || code === 'P2034';
}

function writeConflict(code = 'write-conflict'): ApiError {
  return new ApiError(
    409,
    code,
    'Other requests changed the same records at the same time; please try again.',
  );
}

const pause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));

interface WritePipelineOptions {
  /** Told about an `afterCommit` listener that failed: the write is committed, so it still succeeds. */
  onListenerError?: (error: unknown) => void;
}

export class WritePipeline {
  private readonly before: BeforeCommitListener[] = [];
  private readonly after: AfterCommitListener[] = [];

  constructor(private readonly options: WritePipelineOptions = {}) {}

  /** Registers a listener run inside every write's transaction; returns its removal. */
  beforeCommit(listener: BeforeCommitListener): () => void {
    return register(this.before, listener);
  }

  /** Registers a listener awaited after every committed write; returns its removal. */
  afterCommit(listener: AfterCommitListener): () => void {
    return register(this.after, listener);
  }

  /**
   * Runs `work` in one transaction. A lost race runs it again (fresh transaction, fresh change list),
   * up to WRITE_ATTEMPTS times, then answers 409. Listeners only hear of writes that changed something.
   */
  async run<T>(request: WriteRequest, work: (scope: WriteScope) => Promise<T>, options: RunOptions = {}) {
    for (let attempt = 1; ; attempt++) {
      const changes: Change[] = [];
      const facts = { group: options.group ?? null };
      try {
        const result = await request.db.$transaction(async (tx) => {
          const value = await work(writeScope(tx, request, changes, facts));
          if (changes.length) for (const listener of this.before) await listener(changes, tx, facts);
          return value;
        }, TRANSACTION);
        if (changes.length) await this.committed(changes);
        return result;
      } catch (error) {
        if (!isLostRace(error)) throw error;
        if (attempt >= WRITE_ATTEMPTS) throw writeConflict(options.conflictCode);
        await pause(attempt);
      }
    }
  }

  /** This pipeline with every write in the group `group`: the outermost unit of work names it. */
  grouped(group: string): WritePipeline {
    return new GroupedWrites(this, group);
  }

  private async committed(changes: readonly Change[]): Promise<void> {
    for (const listener of this.after) {
      try {
        await listener(changes);
      } catch (error) {
        if (!this.options.onListenerError) throw error;
        this.options.onListenerError(error);
      }
    }
  }
}

/** Another pipeline's writes, each in one group (an import run's records, written one by one). */
class GroupedWrites extends WritePipeline {
  constructor(
    private readonly pipeline: WritePipeline,
    private readonly label: string,
  ) {
    super();
  }

  override beforeCommit(listener: BeforeCommitListener): () => void {
    return this.pipeline.beforeCommit(listener);
  }

  override afterCommit(listener: AfterCommitListener): () => void {
    return this.pipeline.afterCommit(listener);
  }

  override run<T>(request: WriteRequest, work: (scope: WriteScope) => Promise<T>, options: RunOptions = {}) {
    return this.pipeline.run(request, work, { ...options, group: this.label });
  }
}

/** The same event written twice in one transaction: where it was first, where it ended, all it touched. */
function mergeMoves(first: EventMove | undefined, then: EventMove | undefined): EventMove | undefined {
  if (!first || !then) return first ?? then;
  const facts =
    first.facts === 'all' || then.facts === 'all' ? 'all' : [...new Set([...first.facts, ...then.facts])];
  return { before: first.before, after: then.after, facts };
}

function register<L>(listeners: L[], listener: L): () => void {
  listeners.push(listener);
  return () => {
    const index = listeners.indexOf(listener);
    if (index >= 0) listeners.splice(index, 1);
  };
}

function writeScope(
  tx: Tx,
  request: WriteRequest,
  changes: Change[],
  facts: { group: string | null },
): WriteScope {
  const postgres = request.config.databaseProvider === 'postgresql';
  // Where each change sits in `changes`: a series write records thousands.
  const positions = new Map<string, number>();
  return {
    tx,
    viewer: request.viewer,
    config: request.config,
    changed(kind, id, operation, details = {}) {
      const key = `${kind}:${id}:${operation}`;
      const index = positions.get(key) ?? -1;
      const previous = index >= 0 ? changes[index]! : null;
      const move = mergeMoves(previous?.move, details.move);
      const change: Change = {
        kind,
        id,
        operation,
        ...((details.taxonomy ?? previous?.taxonomy)
          ? { taxonomy: details.taxonomy ?? previous?.taxonomy }
          : {}),
        ...(details.countOnly && (previous?.countOnly ?? true) ? { countOnly: true } : {}),
        ...(move ? { move } : {}),
        ...((details.event ?? previous?.event) ? { event: details.event ?? previous?.event } : {}),
      };
      if (index >= 0) changes[index] = change;
      else positions.set(key, changes.push(change) - 1);
    },
    async lock(keys) {
      if (!postgres) return;
      for (const key of [...new Set(keys)].sort()) {
        await tx.$queryRaw(
          Prisma.sql`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtext(${key}))) AS l`,
        );
      }
    },
    expectVersion(row) {
      assertVersion(request.ifMatch, row);
    },
    group(label) {
      facts.group ??= label;
    },
    async lockRows(table, ids) {
      const sorted = [...new Set(ids)].sort((a, b) => a - b);
      if (!postgres || !sorted.length) return;
      await tx.$queryRaw(
        Prisma.sql`SELECT "id" FROM ${Prisma.raw(`"${table}"`)} WHERE "id" IN (${Prisma.join(sorted)}) ORDER BY "id" FOR NO KEY UPDATE`,
      );
    },
  };
}
