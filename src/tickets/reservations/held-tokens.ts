import type { Db } from '../../core/db/client.js';
import type { Tx } from '../../core/db/transactions.js';
import { subscribes } from '../../core/rules/subscribed-types.js';
import { insertRows } from '../../core/db/queries/insert-rows.js';

// A new attendee's token for the webhook endpoints that asked for personal data. The database keeps
// only a token's hash (`tickets/reservations/tokens.ts`); deliveries are built from the change log when they are
// sent, possibly by another instance or after a restart, so the token an `attendee.created` delivery
// carries must wait somewhere until then. It waits here, one row per endpoint that will deliver it,
// written in the reservation's own transaction, and nowhere else: not in the change log (every sync
// reader's source), not in the delivery log (which keeps no payloads). A row goes once its delivery
// succeeded, when its attendee is erased or deleted, with its endpoint, or when its event has ended
// and the token no longer works.

export const ATTENDEE_CREATED = 'attendee.created';

/** Keeps the token for the endpoints that will deliver its `attendee.created` with personal data. */
export async function holdTokenForWebhooks(
  tx: Tx,
  held: { attendeeId: number; token: string; expiresAt: Date },
): Promise<void> {
  const endpoints = await tx.webhookEndpoint.findMany({
    where: { personalData: true },
    select: { id: true, events: true },
  });
  const data = endpoints
    .filter((endpoint) => subscribes(endpoint.events, ATTENDEE_CREATED))
    .map((endpoint) => ({ endpointId: endpoint.id, ...held }));
  await insertRows(tx, 'WebhookHeldToken', data);
}

/** Forgets an attendee's held tokens (its erasure). */
export async function dropHeldTokens(tx: Tx, attendeeId: number): Promise<void> {
  await tx.webhookHeldToken.deleteMany({ where: { attendeeId } });
}

/** The token held for this endpoint's delivery of the attendee's creation, if any (and still valid). */
export async function heldToken(
  db: Db,
  endpointId: number,
  attendeeId: number,
  now = new Date(),
): Promise<string | null> {
  const row = await db.webhookHeldToken.findUnique({
    where: { endpointId_attendeeId: { endpointId, attendeeId } },
    select: { token: true, expiresAt: true },
  });
  return row && row.expiresAt > now ? row.token : null;
}

/** The statement that forgets the token once its delivery succeeded (run with the cursor's move). */
export const forgetHeldToken = (db: Db, endpointId: number, attendeeId: number) =>
  db.webhookHeldToken.deleteMany({ where: { endpointId, attendeeId } });

const PRUNE_EVERY_MS = 60_000;
const lastPruned = new WeakMap<Db, number>();

/** Deletes the tokens whose event has ended (they no longer work); at most once a minute per client. */
export async function pruneHeldTokens(db: Db, now = Date.now()): Promise<number> {
  if (now - (lastPruned.get(db) ?? 0) < PRUNE_EVERY_MS) return 0;
  lastPruned.set(db, now);
  return (await db.webhookHeldToken.deleteMany({ where: { expiresAt: { lte: new Date(now) } } })).count;
}
