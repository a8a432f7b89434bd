import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typeQueueOf } from '../../../src/tickets/reservations/places.js';
import { createEvent } from '../../helpers/fixtures.js';
import { graphqlClient } from '../../helpers/graphql.js';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { type Users, withRoles } from '../../helpers/users.js';
import { RSVP, createType } from '../tickets-setup.js';

// A reservation waits for its turn among its type's writes (`TypeQueue`). Its request has a deadline
// (GRAPHQL_TIMEOUT_MS; a REST request the same time from when it starts waiting): a turn that comes
// after it does not begin (503 request_timeout with Retry-After, nothing written); a turn that began
// is answered with its result, however long its write takes. Never a timeout over a committed write.

const DEADLINE_MS = 400;
const TICKETS = '/calendar/tickets/v1';
let h: Harness;
let users: Users;
let typeId: number;
const gql = graphqlClient(() => h);

beforeAll(async () => {
  h = await startHarness({ GRAPHQL_TIMEOUT_MS: String(DEADLINE_MS) });
  users = await withRoles(h);
  const event = await createEvent(h.db);
  typeId = await createType(h, users.editor, event.id, { capacity: 100 });
});
afterAll(() => h?.close());

/** Keeps the type's turn busy for `ms` (a long write ahead in its queue). */
const holdTurn = (ms: number) => typeQueueOf(h.writes).run(typeId, () => sleep(ms));

describe('a turn after the deadline', () => {
  it('does not begin: GraphQL and REST answer 503 request_timeout, and nothing is written', async () => {
    const before = await h.db.attendee.count();
    const held = holdTurn(DEADLINE_MS * 2);
    const [graphql, rest] = await Promise.all([
      gql(RSVP, { input: { ticketTypeId: typeId, name: 'Late', email: 'late@example.org' } }),
      h.http
        .post(`${TICKETS}/attendees`)
        .send({ ticket_id: typeId, full_name: 'Late', email: 'late-rest@example.org' }),
    ]);
    await held;
    expect(graphql.data?.rsvp ?? null).toBeNull();
    expect(graphql.errors?.[0]?.extensions).toMatchObject({
      code: 'request_timeout',
      http: { status: 503 },
      data: { retry_after: 1 },
    });
    expect(rest.status).toBe(503);
    expect(rest.body.code).toBe('request_timeout');
    expect(rest.headers['retry-after']).toBe('1');
    // Nothing waits behind the refusals: the queue is empty, and nothing was written.
    await holdTurn(0);
    expect(await h.db.attendee.count()).toBe(before);
  });

  it('a turn that comes in time is taken as usual', async () => {
    const held = holdTurn(DEADLINE_MS / 4);
    const answer = await gql(RSVP, {
      input: { ticketTypeId: typeId, name: 'Early', email: 'early@example.org' },
    });
    await held;
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.rsvp.attendee.status).toBe('GOING');
  });
});

describe('a turn that began', () => {
  it('is answered with its result, however long its write takes past the deadline', async () => {
    // The write itself outlasts the deadline (a slow commit).
    let slow = true;
    const remove = h.writes.beforeCommit(async () => {
      if (slow) await sleep(DEADLINE_MS * 2);
    });
    try {
      const started = Date.now();
      const answer = await gql(RSVP, {
        input: { ticketTypeId: typeId, name: 'Slow', email: 'slow@example.org' },
      });
      expect(Date.now() - started).toBeGreaterThan(DEADLINE_MS);
      expect(answer.errors).toBeUndefined();
      const { token, attendee } = answer.data!.rsvp as { token: string; attendee: { id: number } };
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const row = await h.db.attendee.findUniqueOrThrow({ where: { id: attendee.id } });
      expect(row.email).toBe('slow@example.org');
    } finally {
      slow = false;
      remove();
    }
  });

  it('lifts the deadline for its own request only: the next slow request still stops', async () => {
    const held = holdTurn(DEADLINE_MS * 2);
    const answer = await gql(RSVP, {
      input: { ticketTypeId: typeId, name: 'Next', email: 'next@example.org' },
    });
    await held;
    expect(answer.errors?.[0]?.extensions.code).toBe('request_timeout');
  });
});
