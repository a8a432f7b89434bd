import type { Attendee } from '../../generated/sqlite/client.js';
import type { Context } from '../../core/context/scope.js';
import { eventsVisibleTo } from '../../events/service/event-access.js';
import { type AttendeeStatus, attendeeNotFound, managesTickets, ticketsForbidden } from '../model.js';
import { csvDocument } from '../rest/csv.js';
import { type CursorArgs, type SortKey, connectionPage, keysetWindow } from '../../core/db/queries/keyset.js';

// The attendee list: editors and administrators only (names and e-mails are personal data). Anyone
// else is refused before anything is read, so the refusal says nothing about who has reserved.

interface AttendeePage {
  total: number;
  attendees: Attendee[];
}

function assertManager(ctx: Context): void {
  if (!managesTickets(ctx.viewer)) throw ticketsForbidden(ctx.viewer);
}

interface AttendeeFilter {
  eventId?: number | null;
  ticketTypeId?: number | null;
  status?: AttendeeStatus | null;
}

/** The attendees a filter names, of events the viewer may see. */
const attendeesWhere = (ctx: Context, filter: AttendeeFilter) => ({
  ...(filter.eventId ? { eventId: filter.eventId } : {}),
  ...(filter.ticketTypeId ? { ticketTypeId: filter.ticketTypeId } : {}),
  ...(filter.status ? { status: filter.status } : {}),
  event: { AND: [eventsVisibleTo(ctx.viewer)] },
});

/** A page of attendees in arrival order, optionally of one event, type or status (REST `page`). */
export async function listAttendees(
  ctx: Context,
  filter: AttendeeFilter,
  page: { offset: number; limit: number },
): Promise<AttendeePage> {
  assertManager(ctx);
  const where = attendeesWhere(ctx, filter);
  const [total, attendees] = await Promise.all([
    ctx.db.attendee.count({ where }),
    ctx.db.attendee.findMany({ where, orderBy: { id: 'asc' }, skip: page.offset, take: page.limit }),
  ]);
  return { total, attendees };
}

const ARRIVAL: SortKey[] = [{ field: 'id', direction: 'asc', kind: 'int' }];

/**
 * A cursor page of attendees in arrival order (GraphQL `attendees`): the list's cursors, so one that
 * is not this list's is a 400 and an attendee arriving between two pages neither skips nor repeats.
 */
export async function attendeeConnection(ctx: Context, filter: AttendeeFilter, args: CursorArgs) {
  assertManager(ctx);
  const where = attendeesWhere(ctx, filter);
  const window = keysetWindow(ARRIVAL, args);
  const rows = await ctx.db.attendee.findMany({
    where: { AND: [where, ...window.bounds] },
    orderBy: window.orderBy,
    take: window.take,
  });
  return {
    ...connectionPage(ARRIVAL, window, rows, (row) => row),
    totalCount: () => ctx.db.attendee.count({ where }),
  };
}

export async function attendee(ctx: Context, id: number): Promise<Attendee> {
  assertManager(ctx);
  const found = await ctx.db.attendee.findFirst({
    where: { id, event: { AND: [eventsVisibleTo(ctx.viewer)] } },
  });
  if (!found) throw attendeeNotFound();
  return found;
}

/** The kind (RSVP or TICKET) of each attendee's type, by type id: the REST shape names its provider. */
export async function kindsOf(
  ctx: Pick<Context, 'db'>,
  attendees: readonly Attendee[],
): Promise<Map<number, string>> {
  const types = await ctx.db.ticketType.findMany({
    where: { id: { in: [...new Set(attendees.map((row) => row.ticketTypeId))] } },
    select: { id: true, kind: true },
  });
  return new Map(types.map((type) => [type.id, type.kind]));
}

/** Rows an export reads at a time: memory stays bounded whatever the event's size. */
const EXPORT_BATCH = 1_000;

const ATTENDEE_CSV_COLUMNS = [
  'id',
  'ticket_type',
  'name',
  'email',
  'guests',
  'status',
  'check_in_code',
  'created',
] as const;

/**
 * The attendee list as CSV (the list's own rule: editors and administrators, refused before anything
 * is read), in arrival order: one row per attendee, an erased one without its name and e-mail.
 */
export async function attendeesCsv(ctx: Context, filter: AttendeeFilter): Promise<string> {
  assertManager(ctx);
  const where = attendeesWhere(ctx, filter);
  const rows: Array<Array<string | number>> = [];
  const typeNames = new Map<number, string>();
  for (let afterId = 0; ;) {
    const batch = await ctx.db.attendee.findMany({
      where: { ...where, id: { gt: afterId } },
      orderBy: { id: 'asc' },
      take: EXPORT_BATCH,
    });
    const unnamed = [...new Set(batch.map((row) => row.ticketTypeId))].filter((id) => !typeNames.has(id));
    if (unnamed.length)
      for (const type of await ctx.db.ticketType.findMany({
        where: { id: { in: unnamed } },
        select: { id: true, name: true },
      }))
        typeNames.set(type.id, type.name);
    for (const row of batch)
      rows.push([
        row.id,
        typeNames.get(row.ticketTypeId) ?? '',
        row.erased ? '' : row.name,
        row.erased ? '' : row.email,
        row.guests,
        row.status.toLowerCase(),
        row.checkInCode,
        row.createdAt.toISOString(),
      ]);
    if (batch.length < EXPORT_BATCH) break;
    afterId = batch[batch.length - 1]!.id;
  }
  return csvDocument(ATTENDEE_CSV_COLUMNS, rows);
}
