import type { Db } from '../core/db/client.js';
import { siteUrls } from '../core/rules/urls.js';
import { ticketsRoot } from '../tickets/rest/shapes.js';
import type { RecordOperation } from '../core/db/transactions.js';
import type { ChangeLogRow } from './change-log.js';
import { type WriteGroup, parseGroup } from '../core/db/write-groups.js';
import { SERIES_GROUP } from '../events/series/series-group.js';
import { ATTENDEE_CREATED, heldToken } from '../tickets/reservations/held-tokens.js';
import { IMPORT_RUN_SUMMARY, SERIES_SUMMARY } from './webhooks.js';

// Grouped deliveries. The rows of a write that carries a group (a series edit, an import run), and of
// the writes of the same group right after it, reach an endpoint as one summary instead of one delivery
// per row: consecutive rows of one group in the log, however many batches they span, up to
// MAX_SUMMARISED. Rows of the group that other writes interrupt make a further summary.
//
// A series write is one transaction: its rows commit together. An import run writes one transaction per
// record, so the latest rows of a run still running wait for the rest of it (for at most RUN_QUIET_MS
// after its last change, so that a stalled or killed run still gets its summary).

/** Rows one summary covers at most, so that a payload stays a few hundred kilobytes. */
const MAX_SUMMARISED = 10_000;
/** How long the latest changes of an import run still running wait for more of it. */
const RUN_QUIET_MS = 30_000;

/**
 * The kind of an import run's group (`core/db/write-groups.ts`), written by `imports/engine.ts`: declared
 * here, where it is read, since this room may not import the imports.
 */
export const IMPORT_RUN_GROUP = 'import-run';

/** A group this version summarises; null for none or another kind (its rows are delivered one by one). */
function summarisedGroup(label: string | null): WriteGroup | null {
  const group = parseGroup(label);
  return group && (group.kind === SERIES_GROUP || group.kind === IMPORT_RUN_GROUP) ? group : null;
}

const OPERATIONS: readonly RecordOperation[] = ['created', 'updated', 'trashed', 'deleted'];

/** Rows delivered together. */
interface Unit {
  rows: ChangeLogRow[];
  /** A group's rows that end the log as read: more of the group may still come. */
  open: boolean;
}

/**
 * The rows delivered together from `rows[index]`: that row alone, or, when it carries a known group,
 * it and the rows after it of the same group. A group reaching the end of a full batch is read on
 * (`readAfter`) until it ends.
 */
export async function unitAt(
  rows: readonly ChangeLogRow[],
  index: number,
  batch: number,
  readAfter: (sequence: number, limit: number) => Promise<ChangeLogRow[]>,
): Promise<Unit> {
  const row = rows[index]!;
  if (!summarisedGroup(row.writeGroup)) return { rows: [row], open: false };
  const unit = [row];
  let next = rows.slice(index + 1);
  let more = rows.length >= batch;
  for (;;) {
    let taken = 0;
    while (taken < next.length && next[taken]!.writeGroup === row.writeGroup && unit.length < MAX_SUMMARISED)
      unit.push(next[taken++]!);
    if (unit.length >= MAX_SUMMARISED || taken < next.length) return { rows: unit, open: false };
    if (!more) return { rows: unit, open: true };
    next = await readAfter(unit.at(-1)!.id, batch);
    more = next.length >= batch;
  }
}

/** Whether `unit` waits for more of its group: the latest changes of an import run still running. */
export async function awaitsMore(db: Db, unit: Unit, now: Date): Promise<boolean> {
  const last = unit.rows.at(-1)!;
  const group = summarisedGroup(last.writeGroup);
  if (!unit.open || group?.kind !== IMPORT_RUN_GROUP) return false;
  if (now.getTime() - last.createdAt.getTime() >= RUN_QUIET_MS) return false;
  const run = await db.importRun.findUnique({ where: { id: group.id }, select: { state: true } });
  return run?.state === 'running';
}

/** The endpoint a delivery goes to, as its payload depends on it. */
interface DeliveryTarget {
  id: number;
  /** Whether attendee deliveries carry personal data (`WebhookEndpoint.personalData`). */
  personalData: boolean;
}

/** One POST to an endpoint: a single change, or a group's summary. */
export interface Delivery {
  type: string;
  /** The first and last sequence it covers: the cursor moves to `last` once delivered. */
  first: number;
  last: number;
  /** The change types it covers: an endpoint subscribed to any of them receives it. */
  covers: string[];
  /** Same extent, same id (a redelivery); a group that grew before its retry is a new message. */
  messageId: string;
  /** The JSON body; a summary may read what it names (an import run's source), an attendee its own. */
  payload(db: Db, target: DeliveryTarget): Promise<unknown>;
  /** `attendee.created`: the attendee whose held token (`held-tokens.ts`) goes once it is delivered. */
  createdAttendee: number | null;
}

const REST_PATH: Record<string, string> = {
  event: 'events',
  venue: 'venues',
  organizer: 'organizers',
  category: 'categories',
  tag: 'tags',
};

/** Ticket types and attendees are served by the tickets namespace. */
const TICKETS_PATH: Record<string, string> = { ticket: 'tickets', attendee: 'attendees' };

function restUrl(siteUrl: string, kind: string, id: number): string {
  const urls = siteUrls(siteUrl);
  const tickets = TICKETS_PATH[kind];
  if (tickets) return `${ticketsRoot(urls)}/${tickets}/${id}`;
  return `${urls.api}/${REST_PATH[kind] ?? kind}/${id}`;
}

/**
 * What a ticket type's or attendee's delivery says beyond the change: its event, and an attendee as it
 * is when delivered (its type, status and places; none once its type was deleted). Its name and e-mail
 * only to an endpoint that asked for personal data, and not once erased; the token only in its
 * `attendee.created`, while held for this endpoint.
 */
async function ticketFacts(db: Db, row: ChangeLogRow, target: DeliveryTarget) {
  const facts: Record<string, unknown> = { event_id: row.eventId };
  if (row.kind !== 'attendee') return facts;
  const attendee = await db.attendee.findUnique({ where: { id: row.recordId } });
  if (!attendee) return facts;
  Object.assign(facts, {
    ticket_id: attendee.ticketTypeId,
    attendee_status: attendee.status.toLowerCase(),
    guests: attendee.guests,
    erased: attendee.erased,
  });
  if (!target.personalData || attendee.erased) return facts;
  Object.assign(facts, { full_name: attendee.name, email: attendee.email });
  if (row.operation === 'created') {
    const token = await heldToken(db, target.id, attendee.id);
    if (token) facts.token = token;
  }
  return facts;
}

/** The delivery of `unit` (see `unitAt`). */
export function deliveryOf(unit: readonly ChangeLogRow[], siteUrl: string): Delivery {
  const first = unit[0]!;
  const last = unit.at(-1)!;
  const group = summarisedGroup(first.writeGroup);
  if (!group) {
    const type = `${first.kind}.${first.operation}`;
    return {
      type,
      first: first.id,
      last: first.id,
      covers: first.kind === 'user' ? [] : [type],
      messageId: `msg_${first.id}`,
      createdAttendee: type === ATTENDEE_CREATED ? first.recordId : null,
      payload: async (db, target) => ({
        type,
        timestamp: first.createdAt.toISOString(),
        data: {
          id: first.recordId,
          resource: first.kind,
          operation: first.operation,
          sequence: first.id,
          changed_at: first.createdAt.toISOString(),
          rest_url: restUrl(siteUrl, first.kind, first.recordId),
          ...(first.kind in TICKETS_PATH ? await ticketFacts(db, first, target) : {}),
        },
      }),
    };
  }
  const rows = unit.filter((row) => row.kind !== 'user');
  return {
    type: group.kind === SERIES_GROUP ? SERIES_SUMMARY : IMPORT_RUN_SUMMARY,
    first: first.id,
    last: last.id,
    covers: [...new Set(rows.map((row) => `${row.kind}.${row.operation}`))],
    messageId: `msg_${first.id}_${last.id}`,
    createdAttendee: null,
    payload: (db) => summary(db, group, rows, first, last, siteUrl),
  };
}

/** The distinct ids per kind, in the order of their first change. */
function idsByKind(rows: readonly ChangeLogRow[]): Record<string, number[]> {
  const ids: Record<string, Set<number>> = {};
  for (const row of rows) (ids[row.kind] ??= new Set()).add(row.recordId);
  return Object.fromEntries(Object.entries(ids).map(([kind, set]) => [kind, [...set]]));
}

/** How many distinct records each operation touched. */
function countsOf(rows: readonly ChangeLogRow[]): Record<RecordOperation, number> {
  return Object.fromEntries(
    OPERATIONS.map((operation) => [
      operation,
      new Set(rows.filter((row) => row.operation === operation).map((row) => row.recordId)).size,
    ]),
  ) as Record<RecordOperation, number>;
}

async function summary(
  db: Db,
  group: WriteGroup,
  rows: readonly ChangeLogRow[],
  first: ChangeLogRow,
  last: ChangeLogRow,
  siteUrl: string,
) {
  const span = {
    group: first.writeGroup,
    first_sequence: first.id,
    last_sequence: last.id,
    changed_at: last.createdAt.toISOString(),
  };
  const envelope = (type: string, data: Record<string, unknown>) => ({
    type,
    timestamp: last.createdAt.toISOString(),
    data,
  });
  if (group.kind === SERIES_GROUP) {
    const events = rows.filter((row) => row.kind === 'event');
    return envelope(SERIES_SUMMARY, {
      id: group.id,
      resource: 'event',
      ids: idsByKind(events).event ?? [],
      counts: countsOf(events),
      // What else the write changed: the counts of the series' terms, a venue made on the way.
      related: idsByKind(rows.filter((row) => row.kind !== 'event')),
      ...span,
      rest_url: restUrl(siteUrl, 'event', group.id),
    });
  }
  const run = await db.importRun.findUnique({ where: { id: group.id }, select: { source: true } });
  const byKind = new Map<string, ChangeLogRow[]>();
  for (const row of rows) {
    const list = byKind.get(row.kind);
    if (list) list.push(row);
    else byKind.set(row.kind, [row]);
  }
  return envelope(IMPORT_RUN_SUMMARY, {
    id: group.id,
    resource: 'import_run',
    source: run?.source ?? null,
    ids: idsByKind(rows),
    counts: Object.fromEntries([...byKind].map(([kind, list]) => [kind, countsOf(list)])),
    ...span,
  });
}
