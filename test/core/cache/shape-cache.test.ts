import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { ShapeCache, sizeOf } from '../../../src/core/cache/shape-cache.js';
import { createLogger } from '../../../src/core/ops/logger.js';
import { WritePipeline } from '../../../src/core/db/transactions.js';
import { API, type Harness } from '../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../helpers/fixtures.js';
import { type Users, startWithRoles } from '../../helpers/users.js';

// The kept REST shape of an event (src/core/cache/shape-cache.ts) is keyed by every input of the shape:
// two apps over one database, one keeping shapes and one making them every time, answer every read
// alike across an edit of each input — the event's text, its venue's name, a term's name and count,
// the password that unlocks it, the viewer's role, the language segment — and the kept one did keep.

let h: Harness;
let users: Users;
let kept: ReturnType<typeof supertest>;
let shapes: ShapeCache;
let eventId: number;
let venueId: number;
let termId: number;

beforeAll(async () => {
  ({ h, users } = await startWithRoles());
  // The response cache stays off in both apps: every read below is made anew, from the shapes or not.
  shapes = new ShapeCache({ maxBytes: 4 * 1024 * 1024 });
  expect(h.config.cache.enabled).toBe(false);
  expect(h.config.shapeCache.maxBytes).toBe(0);
  const app = buildApp({
    db: h.db,
    config: h.config,
    shapes,
    writes: new WritePipeline(),
    logger: createLogger('silent'),
  });
  kept = supertest(app.callback());
  const venue = await createVenue(h.db, { name: 'Old Hall' });
  const draftVenue = await createVenue(h.db, { name: 'Draft Hall', status: 'draft' });
  const organizer = await createOrganizer(h.db, { password: 'org-pw' });
  const term = await createTerm(h.db, 'tribe_events_cat', 'Music');
  const tag = await createTerm(h.db, 'post_tag', 'Loud');
  venueId = venue.id;
  termId = term.id;
  const event = await createEvent(h.db, {
    title: 'Concert',
    venueIds: [venue.id, draftVenue.id],
    organizerIds: [organizer.id],
    termIds: [term.id, tag.id],
  });
  eventId = event.id;
  await createEvent(h.db, { title: 'Locked', fields: { password: 'pw' }, termIds: [term.id] });
  await createEvent(h.db, { title: 'Plain' });
});
afterAll(() => h.close());

type Viewer = 'anonymous' | 'administrator' | 'subscriber';

/** The same read from both apps: status and body. */
async function both(path: string, viewer: Viewer = 'anonymous') {
  const read = async (agent: ReturnType<typeof supertest>) => {
    const call = agent.get(`${path}`);
    const res = await (viewer === 'anonymous'
      ? call
      : call.auth(users[viewer].login, users[viewer].password));
    return { status: res.status, body: res.body as unknown };
  };
  return { made: await read(h.http), kept: await read(kept) };
}

const READS: Array<[string, Viewer]> = [
  [`${API}/events`, 'anonymous'],
  [`${API}/events`, 'administrator'],
  [`${API}/events`, 'subscriber'],
  [`${API}/events?password=pw`, 'anonymous'],
  [`/fr${API}/events`, 'anonymous'],
];

/** Every read alike from both apps, twice (the second from kept shapes); returns the anonymous list. */
async function expectAlike() {
  const reads: Array<[string, Viewer]> = [
    ...READS,
    [`${API}/events/${eventId}`, 'anonymous'],
    [`${API}/events/${eventId}`, 'administrator'],
  ];
  for (let round = 0; round < 2; round++)
    for (const [path, viewer] of reads) {
      const { made, kept: fromKept } = await both(path, viewer);
      expect(made.status, `${viewer} ${path}`).toBe(200);
      expect(fromKept, `${viewer} ${path}`).toEqual(made);
    }
  return (await kept.get(`${API}/events/${eventId}`).expect(200)).body as Record<string, unknown>;
}

const admin = () => users.administrator;

describe('kept event shapes', () => {
  it('answer as the shapes made anew, across an edit of each input', async () => {
    let event = await expectAlike();
    expect(event.title).toBe('Concert');

    // The event's own text (its version moves).
    await kept
      .post(`${API}/events/${eventId}`)
      .auth(admin().login, admin().password)
      .send({ title: 'Concert, moved' })
      .expect(200);
    event = await expectAlike();
    expect(event.title).toBe('Concert, moved');

    // Its venue's name (the venue's version moves, the event's does not).
    await kept
      .post(`${API}/venues/${venueId}`)
      .auth(admin().login, admin().password)
      .send({ venue: 'New Hall' })
      .expect(200);
    event = await expectAlike();
    expect(JSON.stringify(event.venue)).toContain('New Hall');

    // A term's name (the term has no modification date: its fields are its version).
    await kept
      .post(`${API}/categories/${termId}`)
      .auth(admin().login, admin().password)
      .send({ name: 'Jazz' })
      .expect(200);
    event = await expectAlike();
    expect(JSON.stringify(event.categories)).toContain('Jazz');

    // The term's count (another event linked to it).
    const before = (event.categories as Array<{ count: number }>)[0]!.count;
    await createEvent(h.db, { title: 'Another', termIds: [termId] });
    event = await expectAlike();
    expect((event.categories as Array<{ count: number }>)[0]!.count).toBe(before + 1);

    // The venue's password: scrubbed for anonymous, shown to an administrator (each read above).
    await h.db.venue.update({ where: { id: venueId }, data: { password: 'venue-pw' } });
    event = await expectAlike();
    expect(JSON.stringify(event.venue)).not.toContain('1 Main St');

    // The draft venue published: now readable by anonymous viewers (its status is its verdict's input).
    const draft = await h.db.venue.findFirstOrThrow({ where: { name: 'Draft Hall' } });
    await h.db.venue.update({ where: { id: draft.id }, data: { status: 'publish' } });
    event = await expectAlike();
    expect(JSON.stringify(event.venue)).toContain('Draft Hall');
    // The second round of each comparison was answered from kept shapes.
    expect(shapes.stats.hits).toBeGreaterThan(50);
  });

  it('keep a withheld and an unlocked shape of one version apart', async () => {
    const locked = (body: unknown) =>
      (body as { events: Array<{ title: string; description: string }> }).events.find((e) =>
        e.title.startsWith('Locked'),
      )!;
    for (let round = 0; round < 2; round++) {
      const anonymous = (await kept.get(`${API}/events`).expect(200)).body;
      const unlocked = (await kept.get(`${API}/events?password=pw`).expect(200)).body;
      const editor = (await kept.get(`${API}/events`).auth(admin().login, admin().password).expect(200)).body;
      expect(locked(anonymous).description).toBe('');
      expect(locked(unlocked).description).toContain('Locked description');
      expect(locked(editor).description).toContain('Locked description');
    }
  });
});

describe('the shape cache’s bound', () => {
  it('never holds more bytes than its bound, and does not keep a shape too large for it', () => {
    const maxBytes = 20_000;
    const cache = new ShapeCache({ maxBytes });
    for (let i = 0; i < 500; i++) {
      const shape = { id: i, title: 'x'.repeat((i * 37) % 900), nested: { list: [i, `${i}`] } };
      expect(cache.shaped(`event:${i}`, () => shape)).toBe(shape);
      expect(cache.bytes).toBeLessThanOrEqual(maxBytes);
    }
    expect(cache.size).toBeGreaterThan(1);
    // A shape over a sixteenth of the bound is made, not kept.
    const large = { text: 'y'.repeat(maxBytes) };
    expect(sizeOf(large)).toBeGreaterThan(maxBytes / 16);
    let made = 0;
    cache.shaped('large', () => (made++, large));
    cache.shaped('large', () => (made++, large));
    expect(made).toBe(2);
    // A kept shape is not made again.
    const small = { id: 'small' };
    let calls = 0;
    cache.shaped('small', () => (calls++, small));
    expect(cache.shaped('small', () => (calls++, { id: 'other' }))).toBe(small);
    expect(calls).toBe(1);
  });

  it('keeps nothing with a bound of 0', () => {
    const cache = new ShapeCache({ maxBytes: 0 });
    let calls = 0;
    cache.shaped('a', () => (calls++, {}));
    cache.shaped('a', () => (calls++, {}));
    expect(calls).toBe(2);
    expect(cache.bytes).toBe(0);
  });
});
