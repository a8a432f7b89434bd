import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadText } from '../../src/imports/sources.js';
import { addImportSource, runImportSourceNow } from '../../src/imports/subscriptions.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { feedServer, icsEvent, icsFeed, importScope } from './helpers.js';

// How the server fetches a subscribed source: the webhooks' SSRF rules at connect time (a name that
// resolves to a private address is refused unless allowed, and a redirect is checked like the first
// request), a size cap, a time limit, and the validators of the last answer (a 304 writes no run).

// `feed.example.test` resolves to the loopback address, as a hostile public name could.
const HOSTILE = 'feed.example.test';
vi.mock('node:dns', async (original) => {
  const dns = await original<typeof import('node:dns')>();
  type Callback = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;
  const lookup = (host: string, options: object, callback: Callback) =>
    host === 'feed.example.test'
      ? callback(null, [{ address: '127.0.0.1', family: 4 }])
      : dns.lookup(host, { ...options, all: true }, callback);
  return { ...dns, default: { ...dns, lookup }, lookup };
});

let feeds: Awaited<ReturnType<typeof feedServer>>;
const FEED = icsFeed(...icsEvent('x@feed', 'Feed event', '20300401T100000Z'));

beforeAll(async () => {
  feeds = await feedServer();
  feeds.set('/feed.ics', { body: FEED, etag: '"1"' });
  feeds.set('/moved.ics', { status: 302, headers: { location: '/feed.ics' } });
  feeds.set('/big.ics', { body: 'x'.repeat(5000) });
  // No Content-Length: the cap is counted on the body as it arrives.
  feeds.set('/stream.ics', { body: 'x'.repeat(5000), headers: { 'transfer-encoding': 'chunked' } });
  feeds.set('/slow.ics', { body: FEED, delayMs: 1000 });
});
afterAll(async () => {
  await feeds?.close();
});

describe('fetching a source', () => {
  it('refuses a name resolving to a private address unless private addresses are allowed', async () => {
    const url = feeds.url('/feed.ics', HOSTILE);
    await expect(loadText(url, { allowPrivate: false })).rejects.toMatchObject({
      code: 'import_source_unreadable',
      message: expect.stringMatching(/private address/),
    });
    await expect(loadText(url, { allowPrivate: true })).resolves.toMatchObject({ changed: true, text: FEED });
    expect(feeds.hits.filter((hit) => hit.path === '/feed.ics')).toHaveLength(1);
  });

  it('refuses a literal private address, and follows a redirect', async () => {
    await expect(loadText(feeds.url('/feed.ics'), { allowPrivate: false })).rejects.toMatchObject({
      message: expect.stringMatching(/private address/),
    });
    const moved = await loadText(feeds.url('/moved.ics', HOSTILE), { allowPrivate: true });
    expect(moved).toMatchObject({ changed: true, text: FEED });
  });

  it('answers "not changed" to a 304 for the validators of the last answer', async () => {
    const first = await loadText(feeds.url('/feed.ics'), { allowPrivate: true });
    expect(first).toMatchObject({ changed: true, validators: { etag: '"1"' } });
    const again = await loadText(feeds.url('/feed.ics'), { allowPrivate: true, validators: { etag: '"1"' } });
    expect(again).toEqual({ changed: false });
  });

  it('stops at the size cap and the time limit', async () => {
    await expect(
      loadText(feeds.url('/big.ics'), { allowPrivate: true, maxBytes: 1000 }),
    ).rejects.toMatchObject({
      message: expect.stringMatching(/larger than 1000 bytes/),
    });
    await expect(
      loadText(feeds.url('/stream.ics'), { allowPrivate: true, maxBytes: 1000 }),
    ).rejects.toMatchObject({ message: expect.stringMatching(/larger than 1000 bytes/) });
    const started = Date.now();
    await expect(
      loadText(feeds.url('/slow.ics'), { allowPrivate: true, timeoutMs: 200 }),
    ).rejects.toMatchObject({
      message: expect.stringMatching(/within 200 ms/),
    });
    expect(Date.now() - started).toBeLessThan(900);
  });
});

describe('a subscription the server reads', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is refused at connect time when its host turned private, and the run says why', async () => {
    // Recorded while the name resolved to a public address: the read checks the address again.
    const source = await addImportSource(importScope(h), {
      type: 'ics',
      location: feeds.url('/feed.ics', HOSTILE),
      everySeconds: 3600,
    });
    const hits = feeds.hits.length;
    await expect(runImportSourceNow(importScope(h), source.id)).rejects.toMatchObject({
      code: 'import_source_unreadable',
      status: 502,
    });
    expect(feeds.hits).toHaveLength(hits);
    const run = await h.db.importRun.findFirstOrThrow({ where: { sourceId: source.id } });
    expect(run.state).toBe('unreadable');
    expect(JSON.parse(run.summary).problems[0].message).toMatch(/private address/);
    expect(await h.db.event.count()).toBe(0);
  });
});
