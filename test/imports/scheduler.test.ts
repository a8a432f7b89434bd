import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/ops/logger.js';
import { ImportScheduler, addImportSource } from '../../src/imports/subscriptions.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { feedServer, icsEvent, icsFeed, importScope } from './helpers.js';

// The server's reads of subscribed sources: a due source is read once however many instances poll
// (each claims it first), then is due again `every` later; a source not due is left alone; a poll
// interval of 0 starts nothing.

let h: Harness;
let feeds: Awaited<ReturnType<typeof feedServer>>;
const logger = createLogger('silent');

beforeAll(async () => {
  h = await startHarness({ CALENDAR_WEBHOOKS_ALLOW_PRIVATE: 'true' });
  feeds = await feedServer();
});
afterEach(async () => {
  await h.db.importRun.deleteMany();
  await h.db.importSource.deleteMany();
  feeds.hits.length = 0;
});
afterAll(async () => {
  await feeds?.close();
  await h?.close();
});

async function subscribe(path: string, body: string) {
  // Slow enough that both instances are polling while the first one reads.
  feeds.set(path, { body, etag: `"${path}"`, delayMs: 150 });
  return addImportSource(importScope(h), { type: 'ics', location: feeds.url(path), everySeconds: 3600 });
}

describe('the import scheduler', () => {
  it('reads a due source once with two instances on one database', async () => {
    const source = await subscribe(
      '/club.ics',
      icsFeed(...icsEvent('a@club', 'Club night', '20300301T190000Z')),
    );
    const [one, two] = [new ImportScheduler(h, logger), new ImportScheduler(h, logger)];
    const read = await Promise.all([one.runDue(), two.runDue()]);
    expect(read.sort()).toEqual([0, 1]);
    expect(feeds.hits.filter((hit) => hit.path === '/club.ics')).toHaveLength(1);
    expect(await h.db.importRun.count({ where: { sourceId: source.id } })).toBe(1);
    expect(await h.db.event.count({ where: { title: 'Club night' } })).toBe(1);
    const after = await h.db.importSource.findUniqueOrThrow({ where: { id: source.id } });
    expect(after).toMatchObject({ claimedBy: null, claimedUntil: null, etag: '"/club.ics"' });
    expect(after.nextRunAt.getTime()).toBeGreaterThan(Date.now() + 3500_000);
    // Not due any more: neither instance reads it again.
    expect(await Promise.all([one.runDue(), two.runDue()])).toEqual([0, 0]);
    expect(feeds.hits).toHaveLength(1);
  });

  it('asks with the validators of the last answer when due again: a 304 writes no run', async () => {
    const source = await subscribe('/same.ics', icsFeed(...icsEvent('b@same', 'Same', '20300302T190000Z')));
    const scheduler = new ImportScheduler(h, logger);
    expect(await scheduler.runDue()).toBe(1);
    await h.db.importSource.update({ where: { id: source.id }, data: { nextRunAt: new Date() } });
    expect(await scheduler.runDue()).toBe(1);
    expect(feeds.hits.map((hit) => hit.ifNoneMatch)).toEqual([undefined, '"/same.ics"']);
    expect(await h.db.importRun.count({ where: { sourceId: source.id } })).toBe(1);
  });

  it('starts no polling when its interval is 0', async () => {
    await subscribe('/off.ics', icsFeed(...icsEvent('c@off', 'Off', '20300303T190000Z')));
    const scheduler = new ImportScheduler(h, logger, 0);
    scheduler.start();
    await new Promise((done) => setTimeout(done, 300));
    await scheduler.stop();
    expect(feeds.hits).toHaveLength(0);
  });

  it('polls when started, and stops', async () => {
    await subscribe('/on.ics', icsFeed(...icsEvent('d@on', 'On', '20300304T190000Z')));
    const scheduler = new ImportScheduler(h, logger, 50);
    scheduler.start();
    await expect.poll(() => h.db.importRun.count(), { timeout: 5000 }).toBe(1);
    await scheduler.stop();
    expect(feeds.hits).toHaveLength(1);
  });
});
