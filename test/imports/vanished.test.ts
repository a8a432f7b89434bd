import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runImport } from '../../src/imports/engine.js';
import { IcsReader } from '../../src/imports/ics.js';
import { clipOf } from '../../src/imports/vanished.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { icsEvent, icsFeed, importScope } from './helpers.js';

// A feed read again in full: an event imported from it that it no longer lists is trashed when its
// start lies in the period the feed covers (X-CLIPSTART/X-CLIPEND, else its earliest to latest start)
// and kept outside it; a dry run only counts; a feed with an unreadable entry trashes nothing; an event
// listed again comes back.

let h: Harness;
let location = '';
let feedNumber = 0;

beforeAll(async () => {
  h = await startHarness();
});
beforeEach(() => {
  location = `feed-${++feedNumber}.ics`;
});
afterAll(async () => {
  await h?.close();
});

const read = (text: string, dryRun = false) =>
  runImport(importScope(h), new IcsReader(location, text, { siteTimezone: 'UTC' }), {
    dryRun,
    mirror: clipOf(text, 'UTC'),
  });
const statusOf = async (title: string) =>
  (await h.db.event.findFirstOrThrow({ where: { title: `${title} ${feedNumber}` } })).status;
const ev = (uid: string, title: string, start: string) =>
  icsEvent(`${uid}-${feedNumber}`, `${title} ${feedNumber}`, start);

describe('events gone from a feed', () => {
  it('are trashed inside the clip period and kept outside it', async () => {
    const clip = ['X-CLIPSTART:20300301T000000Z', 'X-CLIPEND:20300401T000000Z'];
    const before = icsFeed(
      ...clip,
      ...ev('a', 'Kept', '20300305T100000Z'),
      ...ev('b', 'Gone', '20300310T100000Z'),
      ...ev('c', 'Older', '20300215T100000Z'),
      ...ev('d', 'Later', '20300401T000000Z'),
    );
    expect(await read(before)).toMatchObject({ created: 4, trashed: 0 });
    // The feed now lists its window only: b left it inside the window, c and d are outside it.
    const after = icsFeed(...clip, ...ev('a', 'Kept', '20300305T100000Z'));
    const dry = await read(after, true);
    expect(dry).toMatchObject({ trashed: 1, unchanged: 1 });
    expect(await statusOf('Gone')).toBe('publish');
    const summary = await read(after);
    expect(summary).toMatchObject({ trashed: 1, unchanged: 1, failed: 0 });
    expect(await statusOf('Gone')).toBe('trash');
    for (const title of ['Kept', 'Older', 'Later']) expect(await statusOf(title)).toBe('publish');
    const run = await h.db.importRun.findUniqueOrThrow({ where: { id: summary.runId! } });
    expect(JSON.parse(run.summary).trashed).toBe(1);
    // Read again: nothing more to trash.
    expect(await read(after)).toMatchObject({ trashed: 0 });
  });

  it('without a clip, the period is the earliest to the latest start the feed lists', async () => {
    const first = icsFeed(
      ...ev('a', 'First', '20300601T100000Z'),
      ...ev('b', 'Middle', '20300610T100000Z'),
      ...ev('c', 'Last', '20300620T100000Z'),
      ...ev('d', 'Beyond', '20300701T100000Z'),
    );
    expect(await read(first)).toMatchObject({ created: 4 });
    const second = icsFeed(...ev('a', 'First', '20300601T100000Z'), ...ev('c', 'Last', '20300620T100000Z'));
    expect(await read(second)).toMatchObject({ trashed: 1 });
    expect(await statusOf('Middle')).toBe('trash');
    expect(await statusOf('Beyond')).toBe('publish');
  });

  it('a feed with an entry it could not read trashes nothing', async () => {
    const first = icsFeed(...ev('a', 'Stays', '20300801T100000Z'), ...ev('b', 'Other', '20300802T100000Z'));
    await read(first);
    const broken = icsFeed(
      ...ev('a', 'Stays', '20300801T100000Z'),
      ...ev('c', 'Later', '20300805T100000Z'),
      'BEGIN:VEVENT',
      'SUMMARY:No uid',
      'DTSTART:20300803T100000Z',
      'END:VEVENT',
    );
    const summary = await read(broken);
    expect(summary.trashed).toBe(0);
    expect(summary.problems.map((problem) => problem.message)).toContainEqual(
      expect.stringMatching(/not trashed/),
    );
    expect(await statusOf('Other')).toBe('publish');
  });

  it('comes back when the feed lists it again', async () => {
    const both = icsFeed(
      ...ev('a', 'Anchor', '20300901T100000Z'),
      ...ev('b', 'Returns', '20300905T100000Z'),
      ...ev('c', 'End', '20300910T100000Z'),
    );
    await read(both);
    const without = icsFeed(...ev('a', 'Anchor', '20300901T100000Z'), ...ev('c', 'End', '20300910T100000Z'));
    expect(await read(without)).toMatchObject({ trashed: 1 });
    const id = (await h.db.event.findFirstOrThrow({ where: { title: `Returns ${feedNumber}` } })).id;
    expect(await statusOf('Returns')).toBe('trash');
    expect(await read(both)).toMatchObject({ updated: 1, unchanged: 2, trashed: 0 });
    const back = await h.db.event.findFirstOrThrow({ where: { title: `Returns ${feedNumber}` } });
    expect(back).toMatchObject({ id, status: 'publish' });
    expect(await read(both)).toMatchObject({ unchanged: 3, updated: 0 });
  });

  it('an event trashed by the feed and restored here stays, even while the feed leaves it out', async () => {
    const both = icsFeed(
      ...ev('a', 'Start', '20301001T100000Z'),
      ...ev('b', 'Saved', '20301005T100000Z'),
      ...ev('c', 'Stop', '20301010T100000Z'),
    );
    await read(both);
    const without = icsFeed(...ev('a', 'Start', '20301001T100000Z'), ...ev('c', 'Stop', '20301010T100000Z'));
    await read(without);
    await h.db.event.updateMany({ where: { title: `Saved ${feedNumber}` }, data: { status: 'publish' } });
    expect(await read(without)).toMatchObject({ trashed: 0 });
    expect(await statusOf('Saved')).toBe('publish');
  });

  it('reads the clip in its TZID, else in the feed zone', () => {
    expect(
      clipOf(
        icsFeed(
          'X-CLIPSTART;TZID=Europe/Paris:20300101T000000',
          'BEGIN:VEVENT',
          'X-CLIPEND:20300101T000000Z',
          'END:VEVENT',
        ),
        'UTC',
      ),
    ).toEqual({
      start: new Date('2029-12-31T23:00:00Z'),
      end: null,
    });
    expect(clipOf(icsFeed('X-WR-TIMEZONE:America/New_York', 'X-CLIPEND;VALUE=DATE:20300102'), 'UTC')).toEqual(
      {
        start: null,
        end: new Date('2030-01-02T05:00:00Z'),
      },
    );
  });
});
