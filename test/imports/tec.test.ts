import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/imports/engine.js';
import { TecReader } from '../../src/imports/tec.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { createEvent } from '../helpers/fixtures.js';
import { type Credentials, basicAuth, createUser } from '../helpers/users.js';
import { importScope, killedAfter, serve } from './helpers.js';

// A TEC import from a second instance of this service over a real port: the source pages at 50 with
// X-TEC-TotalPages, drafts show only to credentials, a password-protected event arrives protected
// (with credentials) or not at all (without), a hidden event is never listed, a second run writes
// nothing, a change at the source updates only that record, each conflict policy, a dry run, and a
// kill after a page resumed.

let source: Harness;
let admin: Credentials;
let root: string;
let server: Server;
const targets: Harness[] = [];
const BULK = 55;

async function target(): Promise<Harness> {
  const h = await startHarness();
  targets.push(h);
  return h;
}

async function post(path: string, body: object) {
  const response = await source.http
    .post(`/calendar/events/v1${path}`)
    .set('authorization', basicAuth(admin))
    .send(body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: number };
}

async function retitle(id: number, title: string) {
  const response = await source.http
    .post(`/calendar/events/v1/events/${id}`)
    .set('authorization', basicAuth(admin))
    .send({ title });
  expect(response.status).toBe(200);
}

const reader = (credentials = true) =>
  new TecReader(root, credentials ? { user: admin.login, appPassword: admin.password } : {});

let concert: number;
let members: number;
const SECRET = 'Door code 4711';

beforeAll(async () => {
  source = await startHarness();
  admin = await createUser(source, 'administrator');
  const music = await post('/categories', { name: 'Music' });
  const jazz = await post('/categories', { name: 'Jazz', parent: music.id });
  await post('/tags', { name: 'free' });
  const venue = await post('/venues', { venue: 'Main Hall', city: 'Springfield' });
  const organizer = await post('/organizers', { organizer: 'Acme', email: 'acme@example.org' });
  concert = (
    await post('/events', {
      title: 'Concert',
      start_date: '2030-05-01 20:00:00',
      end_date: '2030-05-01 22:00:00',
      timezone: 'Europe/Paris',
      venue: venue.id,
      organizer: [organizer.id],
      categories: [jazz.id],
      tags: ['free'],
      cost: '15',
    })
  ).id;
  await post('/events', {
    title: 'Draft plan',
    start_date: '2030-06-01 10:00',
    end_date: '2030-06-01 11:00',
    status: 'draft',
  });
  members = (
    await post('/events', {
      title: 'Members only',
      description: `<p>${SECRET}</p>`,
      start_date: '2030-07-01 18:00:00',
      end_date: '2030-07-01 20:00:00',
      cost: '5',
      password: 'source-secret',
    })
  ).id;
  await post('/events', {
    title: 'Hidden gem',
    start_date: '2030-08-01 18:00:00',
    end_date: '2030-08-01 20:00:00',
    hide_from_listings: true,
  });
  // Long past events too: the API's default window (from yesterday) would miss them.
  for (let n = 0; n < BULK; n++)
    await createEvent(source.db, {
      title: `Bulk ${n}`,
      start: `20${10 + (n % 20)}-03-0${1 + (n % 9)} 09:00:00`,
    });
  ({ root, server } = await serve(source));
}, 60_000);

afterAll(async () => {
  server?.close();
  await source?.close();
  for (const h of targets) await h.close();
});

describe('calendar import tec', () => {
  it('imports every record linked as at the source, and a second run writes nothing', async () => {
    const h = await target();
    const first = await runImport(importScope(h), reader());
    expect(first.failed, JSON.stringify(first.problems)).toBe(0);
    // 2 categories, 1 tag, 1 venue, 1 organizer, 58 events (the hidden one is never listed).
    expect(first.created).toBe(63);
    expect(await h.db.event.count()).toBe(BULK + 3);

    const copy = await h.db.event.findFirstOrThrow({
      where: { title: 'Concert' },
      include: {
        venues: { include: { venue: true } },
        organizers: { include: { organizer: true } },
        terms: { include: { term: { include: { parent: true } } } },
      },
    });
    expect(copy).toMatchObject({ localStart: '2030-05-01 20:00:00', timezone: 'Europe/Paris', cost: '15' });
    expect(copy.venues.map((link) => link.venue.name)).toEqual(['Main Hall']);
    expect(copy.organizers.map((link) => link.organizer.email)).toEqual(['acme@example.org']);
    const jazz = copy.terms.find((link) => link.term.name === 'Jazz')!;
    expect(jazz.term.parent?.name).toBe('Music');
    expect(copy.terms.map((link) => link.term.name).sort()).toEqual(['Jazz', 'free']);
    expect(await h.db.event.count({ where: { title: 'Draft plan', status: 'draft' } })).toBe(1);

    const second = await runImport(importScope(h), reader());
    expect(second).toMatchObject({ created: 0, updated: 0, unchanged: 63, conflicts: 0, failed: 0 });
    expect(await h.db.event.count()).toBe(BULK + 3);

    await retitle(concert, 'Concert (new date soon)');
    const third = await runImport(importScope(h), reader());
    expect(third).toMatchObject({ created: 0, updated: 1, unchanged: 62 });
    expect(await h.db.event.count({ where: { title: 'Concert (new date soon)' } })).toBe(1);
    await retitle(concert, 'Concert');
  });

  it('reads no drafts, and no password-protected events, without credentials', async () => {
    const h = await target();
    const summary = await runImport(importScope(h), reader(false));
    expect(summary.failed).toBe(0);
    expect(await h.db.event.count({ where: { title: 'Draft plan' } })).toBe(0);
    // Only its blanked copy is readable: not imported, and said.
    expect(await h.db.event.count({ where: { title: 'Members only' } })).toBe(0);
    expect(summary.problems).toContainEqual(
      expect.objectContaining({
        where: expect.stringContaining(`(id ${members})`),
        warning: true,
        message: expect.stringMatching(/^password-protected at the source: without credentials/),
      }),
    );
    expect(await h.db.event.count()).toBe(BULK + 1);
  });

  it('imports a password-protected event protected, with a password kept across runs', async () => {
    const h = await target();
    const first = await runImport(importScope(h), reader());
    expect(first.failed).toBe(0);
    const copy = await h.db.event.findFirstOrThrow({ where: { title: 'Members only' } });
    expect(copy.description).toContain(SECRET);
    expect(copy.password).toEqual(expect.stringMatching(/^[\w-]{24}$/));
    expect(copy.password).not.toBe('source-secret');
    const warned = first.problems.filter((problem) => problem.message.includes('protected here'));
    expect(warned).toEqual([
      expect.objectContaining({ where: expect.stringContaining(`(id ${members})`), warning: true }),
    ]);
    expect(JSON.stringify(first)).not.toContain(copy.password);
    expect(await h.db.event.count({ where: { password: { not: null } } })).toBe(1);

    // Anonymously here: the single is refused, the list blanks its content.
    const single = await h.http.get(`/calendar/events/v1/events/${copy.id}`);
    expect(single.status).toBe(403);
    expect(single.body.code).toBe('event-password-protected');
    const list = await h.http.get('/calendar/events/v1/events?start_date=2030-07-01&end_date=2030-07-02');
    const listed = (list.body.events as Array<Record<string, unknown>>).find((e) => e.id === copy.id);
    expect(listed).toMatchObject({ title: 'Members only', description: '', cost: '', all_day: null });

    const second = await runImport(importScope(h), reader());
    expect(second).toMatchObject({ created: 0, updated: 0, unchanged: 63, failed: 0 });
    const after = await h.db.event.findUniqueOrThrow({ where: { id: copy.id } });
    expect(after.password).toBe(copy.password);

    // A change at the source updates it and leaves its password here alone.
    await retitle(members, 'Members only (moved)');
    const third = await runImport(importScope(h), reader());
    expect(third).toMatchObject({ updated: 1, unchanged: 62, failed: 0 });
    const updated = await h.db.event.findUniqueOrThrow({ where: { id: copy.id } });
    expect(updated).toMatchObject({ title: 'Members only (moved)', password: copy.password });
    await retitle(members, 'Members only');
  });

  it('reports that hidden events cannot be listed, and imports none', async () => {
    const h = await target();
    const summary = await runImport(importScope(h), reader());
    expect(await h.db.event.count({ where: { title: 'Hidden gem' } })).toBe(0);
    expect(summary.problems).toContainEqual({
      where: 'events',
      warning: true,
      message: expect.stringContaining('hide_from_listings'),
    });
    expect(summary.problems.filter((problem) => problem.message.includes('hide_from_listings'))).toHaveLength(
      1,
    );
  });

  it('a dry run counts and shows differences and writes nothing', async () => {
    const h = await target();
    const dry = await runImport(importScope(h), reader(), { dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, created: 63, runId: null });
    expect(await h.db.event.count()).toBe(0);
    expect(await h.db.importRecord.count()).toBe(0);
    expect(await h.db.importRun.count()).toBe(0);

    await runImport(importScope(h), reader());
    await retitle(concert, 'Concert renamed');
    const before = await h.db.event.findFirstOrThrow({ where: { title: 'Concert' } });
    const changed = await runImport(importScope(h), reader(), { dryRun: true });
    expect(changed).toMatchObject({ updated: 1, unchanged: 62 });
    expect(changed.differences).toContainEqual(
      expect.objectContaining({ kind: 'event', field: 'title', before: 'Concert', after: 'Concert renamed' }),
    );
    expect(await h.db.event.findUniqueOrThrow({ where: { id: before.id } })).toEqual(before);
    await retitle(concert, 'Concert');
  });

  it('applies each conflict policy to a record edited here and changed at the source', async () => {
    const h = await target();
    await runImport(importScope(h), reader());
    const local = await h.db.event.findFirstOrThrow({ where: { title: 'Concert' } });
    await h.db.event.update({ where: { id: local.id }, data: { description: '<p>Edited here</p>' } });
    await retitle(concert, 'Concert at the source');

    const preserve = await runImport(importScope(h), reader(), { conflict: 'preserve-changes' });
    expect(preserve).toMatchObject({ updated: 0, conflicts: 1 });
    expect(preserve.conflictList).toEqual([expect.objectContaining({ kind: 'event', localId: local.id })]);
    expect((await h.db.event.findUniqueOrThrow({ where: { id: local.id } })).title).toBe('Concert');

    const retain = await runImport(importScope(h), reader(), { conflict: 'retain' });
    expect(retain).toMatchObject({ updated: 0, retained: 1, conflicts: 0 });

    const overwrite = await runImport(importScope(h), reader(), { conflict: 'overwrite' });
    expect(overwrite).toMatchObject({ updated: 1, conflicts: 1 });
    const now = await h.db.event.findUniqueOrThrow({ where: { id: local.id } });
    expect(now.title).toBe('Concert at the source');
    expect(now.description).not.toContain('Edited here');
    await retitle(concert, 'Concert');
  });

  it('resumes a run killed after a page and ends as an uninterrupted one', async () => {
    const h = await target();
    // Batches: categories, tags, venues, organizers, events page 1, events page 2.
    await expect(runImport(importScope(h), killedAfter(reader(), 5))).rejects.toThrow('killed');
    const killed = await h.db.importRun.findFirstOrThrow();
    expect(killed).toMatchObject({ state: 'failed', checkpoint: 'events:1' });
    expect(await h.db.event.count()).toBe(50);

    const resumed = await runImport(importScope(h), reader(), { resume: true });
    expect(resumed).toMatchObject({ runId: killed.id, resumedAfter: 'events:1', created: 63, failed: 0 });
    expect(await h.db.event.count()).toBe(BULK + 3);
    expect(await h.db.importRun.count()).toBe(1);
    const again = await runImport(importScope(h), reader());
    expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 63 });
  });
});
