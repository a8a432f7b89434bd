import type { Prisma } from '../generated/sqlite/client.js';

// The events list's `ticketed` filter (declared in src/model/event-filters.ts): an event is ticketed
// while at least one of its types is on sale — inside its sales window, before the event ends. Kept
// here, beside the rule it mirrors (`onSale` in reservations.ts), and free of imports back into core.

/** Events with (true) or without (false) a ticket type on sale at `now`. */
export function ticketedWhere(ticketed: boolean, now: Date): Prisma.EventWhereInput {
  const onSale: Prisma.EventWhereInput = {
    endsAt: { gt: now },
    ticketTypes: {
      some: {
        AND: [
          { OR: [{ salesStart: null }, { salesStart: { lte: now } }] },
          { OR: [{ salesEnd: null }, { salesEnd: { gt: now } }] },
        ],
      },
    },
  };
  return ticketed ? onSale : { NOT: onSale };
}
