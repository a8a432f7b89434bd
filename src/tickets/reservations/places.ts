import type { Db } from '../../core/db/client.js';
import type { SharedCapacity, TicketType } from '../../generated/sqlite/client.js';
import type { Tx, WriteScope } from '../../core/db/transactions.js';
import { Prisma } from '../../generated/sqlite/client.js';
import { ApiError } from '../../core/errors/errors.js';
import { requestDeadline, writeBegun } from '../../core/graphql/deadline.js';
import type { Context } from '../../core/context/scope.js';
import { HOLDING } from '../model.js';

// How many places a ticket type has left, counted from its attendees (no counter column to drift),
// and the lock a reservation holds while it counts and writes: the type's row and, when it draws
// from a shared capacity, that row too (always after the type's, so two writers never deadlock).

export type TypeRow = TicketType & { sharedCapacity: SharedCapacity | null };

export interface Availability {
  /** The type's own limit, else the shared one it draws from; null: unlimited. */
  capacity: number | null;
  /** Places left (the smaller of its own and the shared capacity's); null: unlimited. */
  available: number | null;
  soldOut: boolean;
  /** Reservations waiting for a place, across the types sharing its capacity. */
  waitlist: number;
  /** Places this type's reservations hold (going or checked in). */
  held: number;
}

/** Places held and reservations waiting, by type, for the types of a capacity group. */
export class Places {
  private constructor(
    private readonly types: Map<number, TypeRow>,
    private readonly held: Map<number, number>,
    private readonly waiting: Map<number, number>,
  ) {}

  /** The counts for `types` and every type sharing a capacity with one of them. */
  static async count(db: Db | Tx, types: readonly TypeRow[]): Promise<Places> {
    const byId = new Map(types.map((type) => [type.id, type]));
    const shared = [
      ...new Set(types.flatMap((type) => (type.sharedCapacityId ? [type.sharedCapacityId] : []))),
    ];
    if (shared.length) {
      const siblings = await db.ticketType.findMany({
        where: { sharedCapacityId: { in: shared }, id: { notIn: [...byId.keys()] } },
        include: { sharedCapacity: true },
      });
      for (const sibling of siblings) byId.set(sibling.id, sibling);
    }
    const held = new Map<number, number>();
    const waiting = new Map<number, number>();
    if (byId.size) {
      const groups = await db.attendee.groupBy({
        by: ['ticketTypeId', 'status'],
        where: { ticketTypeId: { in: [...byId.keys()] }, status: { in: [...HOLDING, 'WAITLISTED'] } },
        _sum: { guests: true },
        _count: { _all: true },
      });
      for (const group of groups) {
        const into = group.status === 'WAITLISTED' ? waiting : held;
        const amount = group.status === 'WAITLISTED' ? group._count._all : (group._sum.guests ?? 0);
        into.set(group.ticketTypeId, (into.get(group.ticketTypeId) ?? 0) + amount);
      }
    }
    return new Places(byId, held, waiting);
  }

  private group(type: TypeRow): TypeRow[] {
    return type.sharedCapacityId
      ? [...this.types.values()].filter((other) => other.sharedCapacityId === type.sharedCapacityId)
      : [type];
  }

  private sum(counts: Map<number, number>, types: readonly TypeRow[]): number {
    return types.reduce((total, type) => total + (counts.get(type.id) ?? 0), 0);
  }

  /** Places left for `typeId`; null: unlimited. */
  left(typeId: number): number | null {
    const type = this.types.get(typeId);
    if (!type) return 0;
    const own = type.capacity === null ? null : type.capacity - (this.held.get(typeId) ?? 0);
    const shared = type.sharedCapacity
      ? type.sharedCapacity.capacity - this.sum(this.held, this.group(type))
      : null;
    const left = own === null ? shared : shared === null ? own : Math.min(own, shared);
    return left === null ? null : Math.max(0, left);
  }

  fits(typeId: number, guests: number): boolean {
    const left = this.left(typeId);
    return left === null || guests <= left;
  }

  /** Reservations waiting in the capacity group of `typeId`: a newcomer queues behind them. */
  waitingFor(typeId: number): number {
    const type = this.types.get(typeId);
    return type ? this.sum(this.waiting, this.group(type)) : 0;
  }

  /** Counts a change of status (or of places) made by the writer, so later checks see it. */
  move(typeId: number, from: { holds: boolean; waits: boolean; guests: number }, to: typeof from): void {
    const add = (counts: Map<number, number>, amount: number) =>
      counts.set(typeId, (counts.get(typeId) ?? 0) + amount);
    if (from.holds) add(this.held, -from.guests);
    if (from.waits) add(this.waiting, -1);
    if (to.holds) add(this.held, to.guests);
    if (to.waits) add(this.waiting, 1);
  }

  /** The group's type ids (the waitlist to promote from spans them). */
  groupIds(typeId: number): number[] {
    const type = this.types.get(typeId);
    return type ? this.group(type).map((member) => member.id) : [];
  }

  availability(typeId: number): Availability {
    const type = this.types.get(typeId);
    const left = this.left(typeId);
    return {
      capacity: type?.capacity ?? type?.sharedCapacity?.capacity ?? null,
      available: left,
      soldOut: left !== null && left <= 0,
      waitlist: this.waitingFor(typeId),
      held: this.held.get(typeId) ?? 0,
    };
  }
}

/**
 * Locks a type's places for the rest of the transaction and reads the type as it stands under the
 * lock. PostgreSQL: `SELECT … FOR UPDATE` on the type's row, then on its shared capacity's; SQLite
 * runs one write transaction at a time, which is the lock.
 */
export async function lockType(scope: WriteScope, typeId: number): Promise<TypeRow | null> {
  const postgres = scope.config.databaseProvider === 'postgresql';
  if (postgres) await scope.tx.$queryRaw`SELECT "id" FROM "TicketType" WHERE "id" = ${typeId} FOR UPDATE`;
  const type = await scope.tx.ticketType.findUnique({
    where: { id: typeId },
    include: { sharedCapacity: true },
  });
  if (type?.sharedCapacityId && postgres)
    await scope.tx.$queryRaw(
      Prisma.sql`SELECT "id" FROM "SharedCapacity" WHERE "id" = ${type.sharedCapacityId} FOR UPDATE`,
    );
  return type;
}

/**
 * Runs the writes of one ticket type one at a time in this process. The row lock already orders
 * them across instances; queueing here as well keeps a burst of reservations from holding one pooled
 * connection each while they wait on that lock (the pool would run dry and the waits time out): a
 * burst waits in memory instead, and each instance keeps at most one transaction per type open.
 */
class TypeQueue {
  private readonly tails = new Map<number, Promise<unknown>>();

  run<T>(typeId: number, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(typeId) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.catch(() => undefined);
    this.tails.set(typeId, tail);
    void tail.then(() => {
      if (this.tails.get(typeId) === tail) this.tails.delete(typeId);
    });
    return result;
  }
}

const queues = new WeakMap<object, TypeQueue>();

/** The queue of the app whose write pipeline this is (each instance has its own). */
export function typeQueueOf(writes: object): TypeQueue {
  let queue = queues.get(writes);
  if (!queue) queues.set(writes, (queue = new TypeQueue()));
  return queue;
}

/** A write whose turn came after its request's deadline: refused, nothing written. */
const turnMissed = () =>
  new ApiError(
    503,
    'request_timeout',
    'The request waited too long for its turn and was not carried out (nothing was written). Try again.',
    { retry_after: 1 },
  );

/**
 * Runs `work` (one transaction) in its turn among the writes of `typeId`, never half-answered: a turn
 * that comes after the request's deadline — the GraphQL request's own (GRAPHQL_TIMEOUT_MS from its
 * start), or for a REST request GRAPHQL_TIMEOUT_MS from now — does not begin (503 request_timeout,
 * nothing written); a turn that began is answered whatever the time (`writeBegun`), so no write is
 * committed behind a timeout its client was told of.
 */
export function inTurn<T>(
  ctx: Pick<Context, 'writes' | 'config'>,
  typeId: number,
  work: () => Promise<T>,
): Promise<T> {
  const deadline = requestDeadline(ctx) ?? Date.now() + ctx.config.graphqlTimeoutMs;
  return typeQueueOf(ctx.writes).run(typeId, () => {
    if (Date.now() > deadline) throw turnMissed();
    writeBegun(ctx);
    return work();
  });
}
