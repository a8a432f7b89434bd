// The RSVP row (rsvp.ts runs it) as a row of `npm run bench`'s table, with its note and title.

import type { Row } from './rows.js';
import { RSVP_PATH, type RsvpResult, type RsvpType, runRsvp } from './rsvp.js';
import type { ServerChild } from './server-child.js';

export interface Load {
  connections: number;
  duration: number;
  warmup: number;
  gzip: boolean;
}

/** The RSVP row (rsvp.ts) as a row of the table, and the line of its check. */
export async function rsvpRow(
  url: string,
  type: RsvpType,
  servers: readonly ServerChild[],
  load: Load,
): Promise<{ row: Row; note: string }> {
  const result: RsvpResult = await runRsvp({ url, type, servers, ...load });
  console.log('measured RSVP');
  const { going, confirmed, lost, capacity } = result.check;
  const instances = servers.length > 1 ? `, ${servers.length} instances` : '';
  return {
    row: {
      target: { name: `RSVP, one ticket type (POST ${RSVP_PATH}${instances})`, url: servers[0]!.origin },
      result,
      cpuPerRequest: result.cpuPerRequest,
      sqlPerRequest: result.sqlPerRequest,
    },
    note:
      `RSVP row: ${load.connections} clients in this process (node:http, kept-alive sockets) ` +
      `spread over ${servers.length} server${servers.length > 1 ? 's' : ''}, every reservation on ticket type ` +
      `${type.typeId} of event ${type.eventId} (capacity ${capacity.toLocaleString('en')}, no waitlist); req/s ` +
      `are confirmed reservations; CPU and SQL summed over the servers. Check after the run (warm-up ` +
      `included): ${going} attendees going = ${confirmed} confirmations answered` +
      `${lost ? ` (${lost} answers lost, which may or may not have committed)` : ''}, none refused, ` +
      `within the capacity`,
  };
}

export function rsvpTitle(kind: string, events: number, instances: number, load: Load): string {
  return (
    `RSVP under contention: ${events} events on ${kind}, ${instances} server${instances > 1 ? 's' : ''} on ` +
    `one database, ${load.connections} concurrent clients on one ticket type, ${load.duration} s ` +
    `(after ${load.warmup} s warm-up)${load.gzip ? ', Accept-Encoding: gzip' : ''}`
  );
}
