import { DateTime } from 'luxon';
import { WALL_CLOCK, wallClock } from '../../core/rules/dates.js';
import { invalidParams } from '../../core/errors/errors.js';
import type { SharedCapacity, TicketType } from '../../generated/sqlite/client.js';
import type { WriteScope } from '../../core/db/transactions.js';
import {
  type NewOccurrence,
  type ScopedEvent,
  copyToNewOccurrences,
} from '../../events/series/occurrence-records.js';
import { ticketTypeNotFound } from '../model.js';
import { type TypeRow, lockType } from '../reservations/places.js';
import { ticketTypeChanged } from '../reservations/reservations.js';
import type { TicketTypeInput } from './input.js';

// Every occurrence of a series has its own types (and so its own places and attendees): copies of the
// types of the event it was created from (`copyToNewOccurrences`), which share a `seriesKey`. A write
// of a type on an event of a series takes the event edits' scope (`eventsInScope`) and reaches the
// copies of that type on the events in scope, all in one transaction.

/** What the copies of one type across a series share: the id of the type they were first written as. */
const keyOf = (type: Pick<TicketType, 'id' | 'seriesKey'>) => type.seriesKey ?? type.id;

/**
 * A sales bound moved as far as an occurrence is from the event it is copied from, in wall-clock time of
 * their zone: "10:00, a week before" stays 10:00 a week before across a DST change (its UTC hour moves).
 * A wall-clock the zone skips moves forward by the gap.
 */
function shiftedBound(bound: Date | null, zone: string, from: string, to: string): Date | null {
  if (!bound || from === to) return bound;
  const naive = (wall: string) => DateTime.fromFormat(wall, WALL_CLOCK, { zone: 'utc' });
  const wall = naive(wallClock(bound, zone)).plus(naive(to).diff(naive(from)));
  return DateTime.fromFormat(wall.toFormat(WALL_CLOCK), WALL_CLOCK, { zone }).toJSDate();
}

type Tx = WriteScope['tx'];

/** The columns a copy takes from its type (the sales window shifted, the shared capacity its own). */
export function copiedColumns(type: TicketType, zone: string, from: string, to: string) {
  return {
    kind: type.kind,
    name: type.name,
    description: type.description,
    price: type.price,
    currency: type.currency,
    capacity: type.capacity,
    salesStart: shiftedBound(type.salesStart, zone, from, to),
    salesEnd: shiftedBound(type.salesEnd, zone, from, to),
    maxPerRequest: type.maxPerRequest,
    waitlist: type.waitlist,
    seriesKey: keyOf(type),
  };
}

const BATCH = 500;
export const chunks = <T>(items: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(items.length / BATCH) }, (_, i) => items.slice(i * BATCH, (i + 1) * BATCH));

type Copy = ReturnType<typeof copiedColumns> & { eventId: number; sharedCapacityId: number | null };

/**
 * Writes copies of types on other events of a series, each recorded as its event's `ticket.created`:
 * the one way copies are made, by a scoped type write and for the occurrences a series write or the
 * horizon creates alike, so the change stream, webhooks and caches see every copy.
 */
export async function insertCopies(
  w: WriteScope,
  copies: readonly Copy[],
  eventOf: ReadonlyMap<number, Parameters<typeof ticketTypeChanged>[1]>,
): Promise<void> {
  for (const part of chunks(copies))
    for (const copy of await w.tx.ticketType.createManyAndReturn({
      data: part,
      select: { id: true, eventId: true },
    }))
      ticketTypeChanged(w, eventOf.get(copy.eventId)!, copy.id, 'created');
}

/**
 * Gives each new occurrence copies of the types of the event it was created from: never their
 * attendees; a shared capacity becomes a new one of the same size on each occurrence.
 */
async function copyTypesToOccurrences(w: WriteScope, created: readonly NewOccurrence[]): Promise<void> {
  const { tx } = w;
  const templateIds = [...new Set(created.map((occurrence) => occurrence.from.id))];
  const types: TypeRow[] = [];
  for (const part of chunks(templateIds))
    types.push(
      ...(await tx.ticketType.findMany({
        where: { eventId: { in: part } },
        include: { sharedCapacity: true },
        orderBy: { id: 'asc' },
      })),
    );
  if (!types.length) return;
  const byTemplate = new Map<number, TypeRow[]>();
  for (const type of types) byTemplate.set(type.eventId, [...(byTemplate.get(type.eventId) ?? []), type]);
  const sharedOf = (templateId: number) => [
    ...new Map(
      (byTemplate.get(templateId) ?? []).flatMap((type) =>
        type.sharedCapacity ? [[type.sharedCapacity.id, type.sharedCapacity] as const] : [],
      ),
    ).values(),
  ];

  // Shared capacities first (the copies name them): each occurrence's, in the order of its template's.
  const newShared = new Map<string, number>();
  const wantedShared = created.flatMap((occurrence) =>
    sharedOf(occurrence.from.id).map((shared) => ({ occurrence, shared })),
  );
  for (const part of chunks(wantedShared)) {
    const rows = await tx.sharedCapacity.createManyAndReturn({
      data: part.map(({ occurrence, shared }) => ({ eventId: occurrence.id, capacity: shared.capacity })),
      select: { id: true, eventId: true, capacity: true },
    });
    // Told apart by event and size, whatever order the rows come back in (two of the same size on one
    // occurrence are alike: either may stand for either).
    const fresh = new Map<string, number[]>();
    for (const row of rows.toSorted((a, b) => a.id - b.id)) {
      const at = `${row.eventId}:${row.capacity}`;
      fresh.set(at, [...(fresh.get(at) ?? []), row.id]);
    }
    for (const { occurrence, shared } of part)
      newShared.set(
        `${occurrence.id}:${shared.id}`,
        fresh.get(`${occurrence.id}:${shared.capacity}`)!.shift()!,
      );
  }

  const copies = created.flatMap((occurrence) =>
    (byTemplate.get(occurrence.from.id) ?? []).map((type) => ({
      ...copiedColumns(type, occurrence.timezone, occurrence.from.localStart, occurrence.localStart),
      eventId: occurrence.id,
      sharedCapacityId: type.sharedCapacityId
        ? newShared.get(`${occurrence.id}:${type.sharedCapacityId}`)!
        : null,
    })),
  );
  await insertCopies(w, copies, new Map(created.map((occurrence) => [occurrence.id, occurrence])));
}

copyToNewOccurrences(copyTypesToOccurrences);

/**
 * The shared capacity a copy on `target` draws from where the edited type draws from `shared`: the one
 * the copies of its sibling types (those drawing from `shared`) already draw from there, else a new one
 * of the same size, made once per write and occurrence.
 */
async function matchingShared(
  tx: Tx,
  shared: SharedCapacity,
  target: ScopedEvent,
  made: Map<number, number>,
): Promise<number> {
  const known = made.get(target.id);
  if (known !== undefined) return known;
  const siblings = await tx.ticketType.findMany({
    where: { sharedCapacityId: shared.id },
    select: { id: true, seriesKey: true },
  });
  const keys = [...new Set(siblings.map(keyOf))];
  const copy = keys.length
    ? await tx.ticketType.findFirst({
        where: {
          eventId: target.id,
          sharedCapacityId: { not: null },
          OR: [{ seriesKey: { in: keys } }, { id: { in: keys } }],
        },
        select: { sharedCapacityId: true },
      })
    : null;
  const id =
    copy?.sharedCapacityId ??
    (await tx.sharedCapacity.create({ data: { eventId: target.id, capacity: shared.capacity } })).id;
  made.set(target.id, id);
  return id;
}

/**
 * The shared capacity each event in scope's type draws from, as the input says for the edited event
 * (its first): undefined leaves it, null leaves none, a new one per event, or the edited event's own one
 * and its match on the others.
 */
export async function sharedCapacities(
  tx: Tx,
  targets: readonly ScopedEvent[],
  input: TicketTypeInput,
): Promise<Map<number, number | null | undefined>> {
  const out = new Map<number, number | null | undefined>();
  if (input.newSharedCapacity !== undefined && input.newSharedCapacity !== null) {
    for (const target of targets)
      out.set(
        target.id,
        (await tx.sharedCapacity.create({ data: { eventId: target.id, capacity: input.newSharedCapacity } }))
          .id,
      );
    return out;
  }
  if (input.sharedCapacityId === undefined || input.sharedCapacityId === null) {
    for (const target of targets) out.set(target.id, input.sharedCapacityId);
    return out;
  }
  const [own, ...others] = targets;
  const shared = await tx.sharedCapacity.findFirst({
    where: { id: input.sharedCapacityId, eventId: own!.id },
  });
  if (!shared) throw invalidParams({ sharedCapacityId: 'No shared capacity of this event has this id.' });
  out.set(own!.id, shared.id);
  const made = new Map<number, number>();
  for (const target of others) out.set(target.id, await matchingShared(tx, shared, target, made));
  return out;
}

/** The sales window of `data` as it applies on `target` (moved by its distance from the edited event). */
export function windowOn(data: Record<string, unknown>, edited: ScopedEvent, target: ScopedEvent) {
  const moved: Record<string, Date | null> = {};
  for (const field of ['salesStart', 'salesEnd'] as const)
    if (data[field] !== undefined)
      moved[field] = shiftedBound(
        data[field] as Date | null,
        edited.timezone,
        edited.localStart,
        target.localStart,
      );
  return moved;
}

/** The copies of `type` on the events in scope (its own event's: `type` itself), locked, by event. */
export async function lockedCopies(w: WriteScope, type: TicketType, targets: readonly ScopedEvent[]) {
  const key = keyOf(type);
  const others = targets.slice(1).map((target) => target.id);
  const ids = [type.id];
  for (const part of chunks(others))
    ids.push(
      ...(
        await w.tx.ticketType.findMany({
          where: { eventId: { in: part }, OR: [{ seriesKey: key }, { id: key }] },
          select: { id: true },
        })
      ).map((row) => row.id),
    );
  // In id order: two scoped writes never wait for each other's rows crosswise.
  const locked: TypeRow[] = [];
  for (const id of ids.toSorted((a, b) => a - b)) {
    const row = await lockType(w, id);
    if (row) locked.push(row);
  }
  if (!locked.some((row) => row.id === type.id)) throw ticketTypeNotFound();
  return locked;
}
