import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CalendarEventChangedDocument,
  CalendarEventsDocument,
  CalendarRsvpDocument,
} from '../../../examples/generated/calendar-view/graphql.js';
import { GraphqlClient } from '../../../web/calendar/graphql-client.js';
import { createEvent } from '../../helpers/fixtures.js';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { createUser } from '../../helpers/users.js';

// The calendar view's client (web/calendar/graphql-client.ts) pointed at a server that does not know
// its ids, trusted documents off: after the first PERSISTED_QUERY_NOT_FOUND it sends the documents'
// text. The server that serves the calendar registers them at start (src/core/http/embed.ts): here it
// registers none, as another service's endpoint would (the browser test covers the server as it is).
vi.mock(import('../../../src/core/http/embed.js'), async (original) => ({
  ...(await original()),
  ownDocuments: () => new Map<string, string>(),
}));

let h: Harness;
let server: Server;
let endpoint: string;
const sent: string[] = [];
const realFetch = globalThis.fetch;

beforeAll(async () => {
  h = await startHarness({ CALENDAR_TIMEZONE: 'America/New_York' });
  await createEvent(h.db, {
    title: 'Spring fair',
    start: '2026-04-02 10:00:00',
    timezone: 'America/New_York',
  });
  server = h.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  // Records what the client asks for (this file's own fetch: restored after it).
  globalThis.fetch = (input, init) => {
    sent.push(String(input));
    return realFetch(input, init);
  };
});

afterAll(async () => {
  globalThis.fetch = realFetch;
  if (server) await new Promise((resolve) => server.close(resolve));
  await h?.close();
});

const filter = { startDate: '2026-04-01', endDate: '2026-04-30' };

describe("the calendar view client on a server that does not know the calendar's documents", () => {
  it('asks by id, then by text once the server says it does not know the id', async () => {
    const client = new GraphqlClient(endpoint);
    sent.length = 0;
    const data = await client.query(CalendarEventsDocument, { filter, first: 5 });
    expect(data.eventsConnection.edges.map((edge) => edge.node.title)).toEqual(['Spring fair']);
    expect(sent.map((url) => [...new URL(url).searchParams.keys()].sort())).toEqual([
      ['documentId', 'operationName', 'variables'],
      ['operationName', 'query', 'variables'],
    ]);
    sent.length = 0;
    await client.query(CalendarEventsDocument, { filter, first: 5 });
    expect(sent).toHaveLength(1);
    expect(new URL(sent[0]!).searchParams.has('query')).toBe(true);
  });

  it('turns a request error into a GraphqlError with its code', async () => {
    const client = new GraphqlClient(endpoint);
    await expect(
      client.query(CalendarEventsDocument, { filter: { startDate: 'not a date' }, first: 5 }),
    ).rejects.toMatchObject({ code: 'rest_invalid_param' });
  });

  it('follows changes over Server-Sent Events until aborted', async () => {
    const client = new GraphqlClient(endpoint);
    const controller = new AbortController();
    const changes: Array<{ id: number; operation: string }> = [];
    let resolveFirst: () => void;
    const first = new Promise<void>((resolve) => (resolveFirst = resolve));
    const stream = client
      .subscribe(
        CalendarEventChangedDocument,
        { filter: {} },
        (data) => {
          changes.push(data.eventChanged);
          resolveFirst();
        },
        controller.signal,
      )
      .catch((error: Error) => error.name);
    // The stream is open once the server has answered its headers: wait until a write reaches it.
    const admin = await createUser(h, 'administrator');
    let id = 0;
    for (let attempt = 0; attempt < 20 && !changes.length; attempt++) {
      const created = await h.http
        .post(`${API}/events`)
        .auth(admin.login, admin.password)
        .send({
          title: `Pop-up ${attempt}`,
          start_date: '2026-04-03 19:00:00',
          end_date: '2026-04-03 21:00:00',
        });
      expect(created.status).toBe(201);
      id = (created.body as { id: number }).id;
      await Promise.race([first, new Promise((resolve) => setTimeout(resolve, 200))]);
    }
    expect(changes[0]).toEqual({ id: expect.any(Number), operation: 'created' });
    expect(changes.map((change) => change.id)).toContain(id);
    controller.abort();
    expect(await stream).toBe('AbortError');
  });

  it('sends the RSVP by a JSON POST, by id then by text, and throws its refusal with code and fields', async () => {
    const event = await createEvent(h.db, { title: 'Garden party', start: '2030-05-02 18:00:00' });
    const type = await h.db.ticketType.create({ data: { eventId: event.id, name: 'Entry', capacity: 1 } });
    const client = new GraphqlClient(endpoint);
    const bodies: Array<Record<string, unknown>> = [];
    const realPost = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      if (init?.method === 'POST') bodies.push(JSON.parse(String(init.body)) as Record<string, unknown>);
      return realPost(input, init);
    };
    try {
      const input = { ticketTypeId: type.id, name: 'Ada', email: 'ada@example.org', guests: 1 };
      const { rsvp } = await client.mutate(CalendarRsvpDocument, { input });
      expect(rsvp.attendee).toEqual({ status: 'GOING', guests: 1, ticketTypeId: type.id });
      expect(bodies.map((body) => Object.keys(body).sort())).toEqual([
        ['documentId', 'operationName', 'variables'],
        ['operationName', 'query', 'variables'],
      ]);
      await expect(
        client.mutate(CalendarRsvpDocument, { input: { ...input, email: 'ada@example' } }),
      ).rejects.toMatchObject({
        code: 'rest_invalid_param',
        data: { params: { email: expect.any(String) } },
      });
      await expect(client.mutate(CalendarRsvpDocument, { input })).rejects.toMatchObject({
        code: 'SOLD_OUT',
      });
      expect(await h.db.attendee.count({ where: { ticketTypeId: type.id } })).toBe(1);
    } finally {
      globalThis.fetch = realPost;
    }
  });
});
