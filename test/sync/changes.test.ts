import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, startHarness } from '../helpers/harness.js';
import { type Credentials, type Users, basicAuth, createUser, startWithRoles } from '../helpers/users.js';
import { encodeToken } from '../../src/sync/change-log.js';
import { ANONYMOUS } from '../../src/core/rules/permissions.js';

// Incremental sync: GET /changes and GraphQL `changes(since:)` over the change log every committed
// write appends to (src/sync/change-log.ts).

let h: Harness;
let users: Users;

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
interface SyncPage {
  events: Array<Record<string, any>>;
  venues: Array<Record<string, any>>;
  organizers: Array<Record<string, any>>;
  categories: Array<Record<string, any>>;
  tags: Array<Record<string, any>>;
  deleted: Record<'events' | 'venues' | 'organizers' | 'categories' | 'tags', number[]>;
  next: string;
  has_more: boolean;
}

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

const as = (request: ReturnType<Harness['http']['get']>, who?: Credentials) =>
  who ? request.auth(who.login, who.password) : request;

async function changes(since?: string, who?: Credentials, perPage?: number): Promise<SyncPage> {
  const query = new URLSearchParams();
  if (since) query.set('since', since);
  if (perPage) query.set('per_page', String(perPage));
  const res = await as(h.http.get(`${API}/changes?${query}`), who);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as SyncPage;
}

async function write(method: 'post' | 'delete', path: string, body?: object): Promise<Record<string, any>> {
  const res = await h.http[method](`${API}${path}`)
    .auth(users.editor.login, users.editor.password)
    .send(body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body as Record<string, any>;
}

const newEvent = (title: string, status = 'publish') =>
  write('post', '/events', {
    title,
    status,
    start_date: '2030-01-01 10:00:00',
    end_date: '2030-01-01 11:00:00',
  });

describe('GET /changes', () => {
  it('without a token answers a token for now and no records; then each type in its REST shape', async () => {
    await newEvent('Before the token');
    const first = await changes();
    expect(first.events).toEqual([]);
    expect(first.has_more).toBe(false);

    const event = await newEvent('After the token');
    const venue = await write('post', '/venues', { venue: 'Hall' });
    const category = await write('post', '/categories', { name: 'Jazz' });
    const tag = await write('post', '/tags', { name: 'outdoor' });
    const page = await changes(first.next);
    expect(page.events.map((e) => e.title)).toEqual(['After the token']);
    // The same representation as the list route gives.
    const listed = (await h.http.get(`${API}/events/${event.id}`)).body as Record<string, any>;
    expect(page.events[0]!.rest_url).toBe(listed.rest_url);
    expect(page.events[0]!.start_date_details).toEqual(listed.start_date_details);
    expect(page.venues.map((v) => [v.id, v.venue])).toEqual([[venue.id, 'Hall']]);
    expect(page.categories.map((c) => [c.id, c.name, c.taxonomy])).toEqual([
      [category.id, 'Jazz', 'tribe_events_cat'],
    ]);
    expect(page.tags.map((c) => [c.id, c.taxonomy])).toEqual([[tag.id, 'post_tag']]);
    expect(page.deleted).toEqual({
      events: [],
      venues: [],
      organizers: [],
      categories: [],
      tags: [],
      tickets: [],
      attendees: [],
    });

    // Nothing new: the same position, no records.
    const quiet = await changes(page.next);
    expect(quiet.events).toEqual([]);
    expect(quiet.venues).toEqual([]);

    await write('delete', `/tags/${tag.id}`);
    await write('delete', `/venues/${venue.id}?force=true`);
    const gone = await changes(quiet.next);
    expect(gone.deleted.tags).toEqual([tag.id]);
    expect(gone.deleted.venues).toEqual([venue.id]);
    expect(gone.deleted.categories).toEqual([]);
  });

  it('a record that left the viewer’s visibility is a deletion for that viewer, an update for an editor', async () => {
    const event = await newEvent('Soon a draft');
    const start = await changes();
    const editorStart = await changes(undefined, users.editor);
    await write('post', `/events/${event.id}`, { status: 'draft' });
    const anonymous = await changes(start.next);
    expect(anonymous.events).toEqual([]);
    expect(anonymous.deleted.events).toEqual([event.id]);
    const editorView = await changes(editorStart.next, users.editor);
    expect(editorView.events.map((e) => [e.id, e.status])).toEqual([[event.id, 'draft']]);
    expect(editorView.deleted.events).toEqual([]);
    // Trashed: gone for everyone.
    await write('delete', `/events/${event.id}`);
    expect((await changes(editorView.next, users.editor)).deleted.events).toEqual([event.id]);
  });

  it('pages in order, each change in exactly one page', async () => {
    const start = await changes();
    const titles = ['p1', 'p2', 'p3', 'p4', 'p5'];
    for (const title of titles) await newEvent(title);
    const seen: string[] = [];
    let token = start.next;
    for (;;) {
      const page = await changes(token, undefined, 2);
      seen.push(...page.events.map((e) => e.title as string));
      token = page.next;
      if (!page.has_more) break;
    }
    expect(seen).toEqual(titles);
  });

  it('an expired token is 410 sync_token_expired; a malformed one 400', async () => {
    const old = encodeToken({ sequence: 1, time: new Date(Date.now() - 31 * 86_400_000) });
    const res = await h.http.get(`${API}/changes?since=${old}`);
    expect(res.status).toBe(410);
    expect(res.body.code).toBe('sync_token_expired');
    const bad = await h.http.get(`${API}/changes?since=not-a-token`);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('rest_invalid_param');
    expect((await h.http.get(`${API}/changes?per_page=0`)).status).toBe(400);
  });

  it('a rolled-back write leaves nothing in the log', async () => {
    const before = await h.db.changeLog.count();
    const res = await h.http
      .post(`${API}/events`)
      .auth(users.editor.login, users.editor.password)
      .send({ title: '', start_date: 'nonsense' });
    expect(res.status).toBe(400);
    expect(await h.db.changeLog.count()).toBe(before);
  });
});

describe('GraphQL changes(since:)', () => {
  const query = `query ($since: String, $perPage: Int) {
    changes(since: $since, perPage: $perPage) {
      events { id: databaseId title status } venues { id: databaseId name } categories { id: databaseId name } tags { id: databaseId }
      deleted { events venues organizers categories tags } next hasMore
    }
  }`;
  const gql = async (variables: Record<string, unknown>, who?: Credentials) => {
    const request = h.http.post('/graphql');
    if (who) request.set('Authorization', basicAuth(who));
    return (await request.send({ query, variables })).body as {
      data?: { changes: Record<string, any> };
      errors?: Array<{ extensions: Record<string, any> }>;
    };
  };

  it('gives the same stream in GraphQL shapes, and the expired code', async () => {
    const start = (await gql({})).data!.changes;
    const event = await newEvent('Graph');
    await write('post', `/events/${event.id}`, { title: 'Graph, renamed' });
    const page = (await gql({ since: start.next })).data!.changes;
    expect(page.events).toEqual([{ id: event.id, title: 'Graph, renamed', status: 'publish' }]);
    expect(page.hasMore).toBe(false);
    const old = encodeToken({ sequence: 0, time: new Date(Date.now() - 40 * 86_400_000) });
    const expired = await gql({ since: old });
    expect(expired.errors?.[0]?.extensions.code).toBe('sync_token_expired');
  });
});

describe('sync under concurrent writes', () => {
  it('a reader following tokens ends with exactly the writer’s final state, deletions included', async () => {
    const start = await changes();
    const mirror = new Map<number, string>();
    let token = start.next;
    const follow = async () => {
      const page = await changes(token, undefined, 3);
      for (const event of page.events) mirror.set(event.id as number, event.title as string);
      for (const id of page.deleted.events) mirror.delete(id);
      token = page.next;
      return page;
    };

    let writing = true;
    const writer = (async () => {
      const ids: number[] = [];
      const step = async (i: number, pick: number | undefined) => {
        const action = i % 6;
        if (action <= 1 || pick === undefined) ids.push((await newEvent(`c${i}`)).id as number);
        else if (action === 2) await write('post', `/events/${pick}`, { title: `c${i} renamed` });
        else if (action === 3)
          await write('post', `/events/${pick}`, { status: i % 2 ? 'draft' : 'publish' });
        else if (action === 4) {
          ids.splice(ids.indexOf(pick), 1);
          await write('delete', `/events/${pick}${i % 4 === 0 ? '?force=true' : ''}`);
        } else await write('post', `/events/${pick}`, { status: 'publish', title: `c${i} back` });
      };
      // Several writers at once (on distinct events), so that commits interleave.
      for (let round = 0; round < 12; round++) {
        const free = [...ids];
        await Promise.all(
          [0, 1, 2, 3, 4].map((k) => {
            const i = round * 5 + k;
            const pick = free.length ? free.splice((i * 7) % free.length, 1)[0] : undefined;
            return step(i, pick);
          }),
        );
      }
      writing = false;
    })();
    while (writing) await follow();
    await writer;
    while ((await follow()).has_more);

    const published = await h.db.event.findMany({
      where: { status: 'publish', id: { gt: 0 } },
      select: { id: true, title: true },
    });
    const expected = new Map(
      published.filter((e) => e.title.startsWith('c')).map((e) => [e.id, e.title] as const),
    );
    const mirrored = new Map([...mirror].filter(([, title]) => title.startsWith('c')));
    expect(expected.size).toBeGreaterThan(5);
    expect(mirrored).toEqual(expected);
  }, 60_000);
});

describe('a change that commits late is not skipped', () => {
  it('a later write cannot become readable before an earlier one still committing', async () => {
    const [first, second] = [900_001, 900_002];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    // Runs after the change log's append, inside the transaction: the first write appended, not committed.
    const remove = h.writes.beforeCommit(async (changes) => {
      if (!changes.some((c) => c.id === first)) return;
      held();
      await gate;
    });
    const start = await changes();
    const request = { db: h.db, viewer: ANONYMOUS, config: h.config };
    const a = h.writes.run(request, async (w) => w.changed('venue', first, 'updated'));
    await holding;
    const b = h.writes.run(request, async (w) => w.changed('venue', second, 'updated'));
    // A reader meanwhile never sees the second without the first (PostgreSQL: the append lock makes the
    // second wait; SQLite: the reader waits for the writes).
    const reading = changes(start.next);
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    await Promise.all([a, b]);
    remove();
    const during = await reading;
    const after = await changes(during.next);
    expect([...during.deleted.venues, ...after.deleted.venues]).toEqual([first, second]);
  });
});

describe('with the response cache on', () => {
  it('a shared answer of /changes never outlives a write', async () => {
    const cached = await startHarness({ CALENDAR_CACHE: 'on' });
    try {
      const writer = await createUser(cached, 'editor');
      const start = (await cached.http.get(`${API}/changes`).expect(200)).body as SyncPage;
      const read = () => cached.http.get(`${API}/changes?since=${start.next}`).expect(200);
      expect((await read()).headers['x-cache']).toBe('miss');
      expect((await read()).headers['x-cache']).toBe('hit');
      await cached.http
        .post(`${API}/venues`)
        .auth(writer.login, writer.password)
        .send({ venue: 'Fresh' })
        .expect(201);
      const after = await read();
      expect(after.headers['x-cache']).toBe('miss');
      expect((after.body as SyncPage).venues.map((v) => v.venue)).toEqual(['Fresh']);
    } finally {
      await cached.close();
    }
  });
});
