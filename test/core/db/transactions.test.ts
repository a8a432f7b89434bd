import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ANONYMOUS } from '../../../src/core/rules/permissions.js';
import { type Change, WRITE_ATTEMPTS, WritePipeline } from '../../../src/core/db/transactions.js';
import { API, type Harness } from '../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../helpers/fixtures.js';
import { type Credentials, startWithRoles } from '../../helpers/users.js';

// The one write pipeline: what every writer records, the two hooks (inside the transaction, after the
// commit), rollbacks that call neither, and the retry policy that turns a lost race into a 409.

let h: Harness;
let editor: Credentials;
const removals: Array<() => void> = [];

beforeAll(async () => {
  let users;
  ({ h, users } = await startWithRoles());
  editor = users.editor;
});
afterAll(() => h.close());
afterEach(() => {
  while (removals.length) removals.pop()!();
});

/** Records what each hook heard, and whether the write was visible outside the transaction then. */
function listen() {
  const heard = { before: [] as Change[][], after: [] as Change[][] };
  removals.push(
    h.writes.beforeCommit(async (changes) => {
      heard.before.push([...changes]);
    }),
    h.writes.afterCommit((changes) => {
      heard.after.push([...changes]);
    }),
  );
  return heard;
}

/** Where a fixture event is on the calendar, as a write's change reports it. */
const spanOf = (event: { localStart: string; localEnd: string }) => ({
  localStart: event.localStart,
  localEnd: event.localEnd,
});
const noLinks = { terms: [], venues: [], organizers: [] };
const textsOf = (event: { title: string; excerpt: string; description: string }) => [
  event.title,
  event.excerpt,
  event.description,
];

const EVENT = { title: 'Pipeline', start_date: '2027-03-01 10:00:00', end_date: '2027-03-01 12:00:00' };

describe('every writer records its changes', () => {
  type Case = { run: () => Promise<unknown>; expected: (result: unknown) => Change[] };
  const cases: Array<[string, () => Promise<Case>]> = [
    [
      'event create (REST)',
      async () => ({
        run: async () =>
          (await h.http.post(`${API}/events`).auth(editor.login, editor.password).send(EVENT).expect(201))
            .body.id,
        // A creation may add the event to any list whose window holds it: every fact is new.
        expected: (id) => [
          {
            kind: 'event',
            id: id as number,
            operation: 'created',
            move: {
              before: null,
              after: {
                localStart: '2027-03-01 10:00:00',
                localEnd: '2027-03-01 12:00:00',
                // What `search` reads: title, excerpt, description.
                texts: ['Pipeline', '', ''],
                status: 'publish',
                terms: [],
                venues: [],
                organizers: [],
              },
              facts: 'all',
            },
          },
        ],
      }),
    ],
    [
      'event trash',
      async () => {
        const event = await createEvent(h.db, { fields: { authorId: editor.id } });
        return {
          run: () =>
            h.http.delete(`${API}/events/${event.id}`).auth(editor.login, editor.password).expect(200),
          expected: () => [
            {
              kind: 'event',
              id: event.id,
              operation: 'trashed',
              move: {
                // Its links too, so that the lists filtered by other venues and organizers stay.
                before: { ...spanOf(event), texts: textsOf(event), status: 'publish', ...noLinks },
                after: { ...spanOf(event), texts: textsOf(event), status: 'trash', ...noLinks },
                // Derived from its rows: only its status (of what lists read) changed.
                facts: ['status'],
              },
            },
          ],
        };
      },
    ],
    [
      'event update',
      async () => {
        const event = await createEvent(h.db, { fields: { authorId: editor.id } });
        return {
          run: () =>
            h.http
              .post(`${API}/events/${event.id}`)
              .auth(editor.login, editor.password)
              .send({ description: 'changed' })
              .expect(200),
          // Only the text changed: lists that do not search keep their members and order.
          expected: () => [
            {
              kind: 'event',
              id: event.id,
              operation: 'updated',
              move: {
                // Its links, unchanged: the lists filtered by others keep theirs.
                before: { ...spanOf(event), texts: textsOf(event), status: 'publish', ...noLinks },
                after: {
                  ...spanOf(event),
                  texts: [event.title, '', '<p>changed</p>'],
                  status: 'publish',
                  ...noLinks,
                },
                facts: ['text'],
                // Only columns that nothing but the fields showing them reads.
                shown: ['description', 'modifiedAt', 'revision'],
              },
            },
          ],
        };
      },
    ],
    [
      'venue update',
      async () => {
        const venue = await createVenue(h.db, { authorId: editor.id });
        return {
          run: () =>
            h.http
              .post(`${API}/venues/${venue.id}`)
              .auth(editor.login, editor.password)
              .send({ city: 'Paris' })
              .expect(200),
          expected: () => [{ kind: 'venue', id: venue.id, operation: 'updated' }],
        };
      },
    ],
    [
      'organizer permanent delete, unlinking its event',
      async () => {
        const organizer = await createOrganizer(h.db, { authorId: editor.id });
        const event = await createEvent(h.db, { fields: { authorId: editor.id } });
        await h.db.eventOrganizer.create({ data: { eventId: event.id, organizerId: organizer.id } });
        return {
          run: () =>
            h.http
              .delete(`${API}/organizers/${organizer.id}?force=true`)
              .auth(editor.login, editor.password)
              .expect(200),
          expected: () => [
            { kind: 'event', id: event.id, operation: 'updated' },
            { kind: 'organizer', id: organizer.id, operation: 'deleted' },
          ],
        };
      },
    ],
    [
      'tag delete',
      async () => {
        const tag = await createTerm(h.db, 'post_tag');
        return {
          run: () => h.http.delete(`${API}/tags/${tag.id}`).auth(editor.login, editor.password).expect(200),
          // A deleted term names its taxonomy: the change log cannot read it any more.
          expected: () => [{ kind: 'term', id: tag.id, operation: 'deleted', taxonomy: 'post_tag' }],
        };
      },
    ],
    [
      'application password revoked (GraphQL)',
      async () => {
        const record = await h.db.applicationPassword.create({
          data: { userId: editor.id, name: 'spare', hash: 'x' },
        });
        return {
          run: () =>
            h.http
              .post('/graphql')
              .auth(editor.login, editor.password)
              .send({ query: `mutation { revokeApplicationPassword(id: ${record.id}) { id } }` })
              .expect(200),
          expected: () => [{ kind: 'user', id: editor.id, operation: 'updated' }],
        };
      },
    ],
  ];

  it.each(cases)('%s', async (_name, setup) => {
    const { run, expected } = await setup();
    const heard = listen();
    const wanted = expected(await run());
    expect(heard.before).toEqual([wanted]);
    expect(heard.after).toEqual([wanted]);
  });

  it('records the terms whose counts an event write changed', async () => {
    const music = await createTerm(h.db, 'tribe_events_cat', 'Pipeline Music');
    const heard = listen();
    const res = await h.http
      .post(`${API}/events`)
      .auth(editor.login, editor.password)
      .send({ ...EVENT, categories: [music.id], tags: 'pipeline-new-tag' })
      .expect(201);
    const tag = await h.db.term.findFirstOrThrow({ where: { name: 'pipeline-new-tag' } });
    expect(heard.after).toHaveLength(1);
    expect(heard.after[0]).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'event',
          id: res.body.id,
          operation: 'created',
          move: expect.objectContaining({ after: expect.objectContaining({ terms: [music.id, tag.id] }) }),
        }),
        { kind: 'term', id: tag.id, operation: 'created' },
        // A recount changes only the terms' counts: not their names, slugs or parents.
        { kind: 'term', id: music.id, operation: 'updated', countOnly: true },
        { kind: 'term', id: tag.id, operation: 'updated', countOnly: true },
      ]),
    );
  });
});

describe('hooks', () => {
  it('beforeCommit runs inside the transaction: it sees the write, and what it writes commits with it', async () => {
    const seen: Array<string | null> = [];
    removals.push(
      h.writes.beforeCommit(async (changes, tx) => {
        const event = await tx.event.findUnique({ where: { id: changes[0]!.id } });
        seen.push(event?.title ?? null);
        // Outside the transaction the event does not exist yet.
        seen.push((await h.db.event.findUnique({ where: { id: changes[0]!.id } }))?.title ?? null);
        await tx.event.update({ where: { id: changes[0]!.id }, data: { excerpt: 'logged' } });
      }),
    );
    const res = await h.http
      .post(`${API}/events`)
      .auth(editor.login, editor.password)
      .send(EVENT)
      .expect(201);
    if (h.config.databaseProvider === 'postgresql') expect(seen).toEqual(['Pipeline', null]);
    else expect(seen[0]).toBe('Pipeline');
    expect((await h.db.event.findUniqueOrThrow({ where: { id: res.body.id } })).excerpt).toBe('logged');
  });

  it('a failing beforeCommit rolls the write back, and afterCommit is not called', async () => {
    const heard = listen();
    removals.push(
      h.writes.beforeCommit(async (_changes, tx) => {
        await tx.event.updateMany({ data: { excerpt: 'should not stay' } });
        throw new Error('change log unavailable');
      }),
    );
    const before = await h.db.event.count();
    await h.http
      .post(`${API}/events`)
      .auth(editor.login, editor.password)
      .send({ ...EVENT, title: 'Rolled back' })
      .expect(500);
    expect(await h.db.event.count()).toBe(before);
    expect(await h.db.event.count({ where: { excerpt: 'should not stay' } })).toBe(0);
    expect(heard.after).toEqual([]);
  });

  it('afterCommit runs after the commit and before the response is sent', async () => {
    let committedTitle: string | null = null;
    let finished = false;
    removals.push(
      h.writes.afterCommit(async (changes) => {
        committedTitle = (await h.db.event.findUnique({ where: { id: changes[0]!.id } }))?.title ?? null;
        await new Promise((resolve) => setTimeout(resolve, 50));
        finished = true;
      }),
    );
    await h.http
      .post(`${API}/events`)
      .auth(editor.login, editor.password)
      .send({ ...EVENT, title: 'After commit' })
      .expect(201);
    expect(committedTitle).toBe('After commit');
    expect(finished).toBe(true);
  });

  it.each([
    ['a validation error', { title: '' }, 400],
    ['a permission error', EVENT, 401],
  ])('a write rolled back by %s calls neither hook', async (_name, body, status) => {
    const heard = listen();
    const request = h.http.post(`${API}/events`).send(body);
    if (status !== 401) request.auth(editor.login, editor.password);
    await request.expect(status);
    expect(heard).toEqual({ before: [], after: [] });
  });

  it('a write that changes nothing (a matched duplicate venue) calls neither hook', async () => {
    await h.http
      .post(`${API}/venues`)
      .auth(editor.login, editor.password)
      .send({ venue: 'Twice Hall' })
      .expect(201);
    const heard = listen();
    await h.http
      .post(`${API}/venues`)
      .auth(editor.login, editor.password)
      .send({ venue: 'Twice Hall' })
      .expect(201);
    expect(heard).toEqual({ before: [], after: [] });
  });

  it('an afterCommit failure is reported, not turned into a failed write (the write committed)', async () => {
    const errors: unknown[] = [];
    const pipeline = new WritePipeline({ onListenerError: (error) => errors.push(error) });
    pipeline.afterCommit(() => {
      throw new Error('cache down');
    });
    const venue = await pipeline.run({ db: h.db, viewer: ANONYMOUS, config: h.config }, async (w) => {
      const created = await w.tx.venue.create({ data: { name: 'Listener Hall', slug: 'listener-hall' } });
      w.changed('venue', created.id, 'created');
      return created;
    });
    expect(await h.db.venue.findUnique({ where: { id: venue.id } })).not.toBeNull();
    expect(errors).toHaveLength(1);
  });

  it('a removed listener is not called any more', async () => {
    const heard = listen();
    removals.pop()!();
    removals.pop()!();
    await h.http.post(`${API}/events`).auth(editor.login, editor.password).send(EVENT).expect(201);
    expect(heard).toEqual({ before: [], after: [] });
  });
});

describe('retry policy', () => {
  const request = () => ({ db: h.db, viewer: ANONYMOUS, config: h.config });
  const lostRace = (code: string) => Object.assign(new Error('lost race'), { code });

  it('runs a write that lost a race again, with a fresh change list, and hooks hear only the winner', async () => {
    const pipeline = new WritePipeline();
    const heard: Change[][] = [];
    pipeline.afterCommit((changes) => {
      heard.push([...changes]);
    });
    let attempts = 0;
    const result = await pipeline.run(request(), async (w) => {
      attempts++;
      w.changed('venue', attempts, 'created');
      if (attempts < 3) throw lostRace(attempts === 1 ? 'P2002' : 'P2034');
      return 'done';
    });
    expect(result).toBe('done');
    expect(attempts).toBe(3);
    expect(heard).toEqual([[{ kind: 'venue', id: 3, operation: 'created' }]]);
  });

  it('answers 409 when the race is still lost after every attempt, and rolls every attempt back', async () => {
    const pipeline = new WritePipeline();
    const heard: Change[][] = [];
    pipeline.beforeCommit(async (changes) => {
      heard.push([...changes]);
    });
    let attempts = 0;
    const run = pipeline.run(
      request(),
      async (w) => {
        attempts++;
        await w.tx.venue.create({ data: { name: `Race ${attempts}`, slug: `race-${attempts}` } });
        throw lostRace('P2034');
      },
      { conflictCode: 'venue-write-conflict' },
    );
    await expect(run).rejects.toMatchObject({ status: 409, code: 'venue-write-conflict' });
    expect(attempts).toBe(WRITE_ATTEMPTS);
    expect(await h.db.venue.count({ where: { name: { startsWith: 'Race ' } } })).toBe(0);
    expect(heard).toEqual([]);
  });

  it('does not retry other errors', async () => {
    const pipeline = new WritePipeline();
    let attempts = 0;
    await expect(
      pipeline.run(request(), async () => {
        attempts++;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(attempts).toBe(1);
  });
});
