import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/services/import/engine.js';
import { TecReader } from '../../src/services/import/tec.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { createEvent } from '../helpers/fixtures.js';
import { type Credentials, basicAuth, createUser } from '../helpers/users.js';
import { importScope, killedAfter, serve } from './helpers.js';

// A TEC import from a second instance of this service over a real port: the source pages at 50 with
// X-TEC-TotalPages, drafts show only to credentials, a second run writes nothing, a change at the
// source updates only that record, each conflict policy, a dry run, and a kill after a page resumed.

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
    // 2 categories, 1 tag, 1 venue, 1 organizer, 57 events.
    expect(first.created).toBe(62);
    expect(await h.db.event.count()).toBe(BULK + 2);

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
    expect(second).toMatchObject({ created: 0, updated: 0, unchanged: 62, conflicts: 0, failed: 0 });
    expect(await h.db.event.count()).toBe(BULK + 2);

    await retitle(concert, 'Concert (new date soon)');
    const third = await runImport(importScope(h), reader());
    expect(third).toMatchObject({ created: 0, updated: 1, unchanged: 61 });
    expect(await h.db.event.count({ where: { title: 'Concert (new date soon)' } })).toBe(1);
    await retitle(concert, 'Concert');
  });

  it('reads no drafts without credentials', async () => {
    const h = await target();
    const summary = await runImport(importScope(h), reader(false));
    expect(summary.failed).toBe(0);
    expect(await h.db.event.count({ where: { title: 'Draft plan' } })).toBe(0);
    expect(await h.db.event.count()).toBe(BULK + 1);
  });

  it('a dry run counts and shows differences and writes nothing', async () => {
    const h = await target();
    const dry = await runImport(importScope(h), reader(), { dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, created: 62, runId: null });
    expect(await h.db.event.count()).toBe(0);
    expect(await h.db.importRecord.count()).toBe(0);
    expect(await h.db.importRun.count()).toBe(0);

    await runImport(importScope(h), reader());
    await retitle(concert, 'Concert renamed');
    const before = await h.db.event.findFirstOrThrow({ where: { title: 'Concert' } });
    const changed = await runImport(importScope(h), reader(), { dryRun: true });
    expect(changed).toMatchObject({ updated: 1, unchanged: 61 });
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
    expect(resumed).toMatchObject({ runId: killed.id, resumedAfter: 'events:1', created: 62, failed: 0 });
    expect(await h.db.event.count()).toBe(BULK + 2);
    expect(await h.db.importRun.count()).toBe(1);
    const again = await runImport(importScope(h), reader());
    expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 62 });
  });
});
