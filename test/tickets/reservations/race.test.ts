import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent } from '../../helpers/fixtures.js';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { type Users, withRoles } from '../../helpers/users.js';
import { CANCEL, createType, rsvp, secondInstance } from '../tickets-setup.js';
import { dataOf, graphqlClient } from '../../helpers/graphql.js';

// Never overbook: 200 concurrent RSVPs for 50 places confirm exactly 50, queue the other 150 in the
// order they took the lock, and a cancellation promotes exactly the first of them. On PostgreSQL the
// requests are spread over two instances (two apps, two pools) on one database: the row lock, not
// anything in one process, keeps the count.

let h: Harness;
let users: Users;
const postgres = () => h.config.databaseProvider === 'postgresql';
/** 200 reservations run one after another under the lock: a budget of their own on a loaded machine. */
const RACE_BUDGET_MS = 120_000;

beforeAll(async () => {
  // The last of 200 queued reservations answers after the others: past the default GraphQL deadline
  // on a loaded machine. The test is about the count, not the latency.
  h = await startHarness({ GRAPHQL_TIMEOUT_MS: String(RACE_BUDGET_MS) });
  users = await withRoles(h);
});
afterAll(() => h?.close());

async function statuses(typeId: number) {
  return h.db.attendee.findMany({ where: { ticketTypeId: typeId }, orderBy: { id: 'asc' } });
}

describe('concurrent reservations', () => {
  it(
    '200 RSVPs for 50 places: 50 going, 150 waitlisted in arrival order; a cancellation promotes one',
    async () => {
      const event = await createEvent(h.db);
      const typeId = await createType(h, users.editor, event.id, { capacity: 50, waitlist: true });
      const other = await secondInstance(h);
      try {
        const targets = postgres() ? [h, other] : [h];
        const answers = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            rsvp(targets[i % targets.length]!, {
              ticketTypeId: typeId,
              name: `Guest ${i}`,
              email: `g${i}@example.com`,
            }),
          ),
        );
        expect(answers.map((answer) => answer.errors)).toEqual(Array(200).fill(undefined));
        const rows = await statuses(typeId);
        const going = rows.filter((row) => row.status === 'GOING');
        const waiting = rows.filter((row) => row.status === 'WAITLISTED');
        expect([going.length, waiting.length]).toEqual([50, 150]);
        // Arrival order: everyone confirmed came before everyone queued.
        expect(Math.max(...going.map((row) => row.id))).toBeLessThan(
          Math.min(...waiting.map((row) => row.id)),
        );

        const gql = graphqlClient(h);
        const first = answers.find((answer) => answer.confirmation!.attendee.id === going[7]!.id)!;
        expect(dataOf(await gql(CANCEL, { token: first.confirmation!.token })).cancelRsvp.status).toBe(
          'CANCELLED',
        );
        const after = await statuses(typeId);
        const promoted = after.filter(
          (row) => row.status === 'GOING' && waiting.some((w) => w.id === row.id),
        );
        expect(promoted.map((row) => row.id)).toEqual([waiting[0]!.id]);
        expect(after.filter((row) => row.status === 'GOING')).toHaveLength(50);
        expect(after.filter((row) => row.status === 'WAITLISTED')).toHaveLength(149);
      } finally {
        await other.close();
      }
    },
    RACE_BUDGET_MS,
  );

  it('without a waitlist, those beyond capacity are refused with SOLD_OUT (409) and nothing is written', async () => {
    const event = await createEvent(h.db);
    const typeId = await createType(h, users.editor, event.id, { capacity: 20 });
    const other = await secondInstance(h);
    try {
      const targets = postgres() ? [h, other] : [h];
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          rsvp(targets[(i % 2) % targets.length]!, {
            ticketTypeId: typeId,
            name: 'G',
            email: `s${i}@example.com`,
            guests: 1,
          }),
        ),
      );
      expect(answers.filter((answer) => answer.confirmation)).toHaveLength(20);
      expect(answers.filter((answer) => answer.code === 'SOLD_OUT')).toHaveLength(20);
      expect(answers.find((answer) => answer.code)!.errors![0]!.extensions.http).toEqual({ status: 409 });
      expect(await h.db.attendee.count({ where: { ticketTypeId: typeId } })).toBe(20);
    } finally {
      await other.close();
    }
  });

  it('a shared capacity bounds its types together', async () => {
    const event = await createEvent(h.db);
    const a = await createType(h, users.editor, event.id, { name: 'A', newSharedCapacity: 10, capacity: 8 });
    const shared = (await h.db.ticketType.findUniqueOrThrow({ where: { id: a } })).sharedCapacityId;
    const b = await createType(h, users.editor, event.id, {
      name: 'B',
      sharedCapacityId: shared,
      capacity: 8,
    });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        rsvp(h, { ticketTypeId: i % 2 ? a : b, name: 'G', email: `c${i}@example.com` }),
      ),
    );
    expect(answers.filter((answer) => answer.confirmation)).toHaveLength(10);
    expect(answers.filter((answer) => answer.code === 'SOLD_OUT')).toHaveLength(10);
  });
});
