import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/imports/engine.js';
import { IcsReader } from '../../src/imports/ics.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { importScope } from './helpers.js';

// iCalendar feeds as Google, Outlook and TEC publish them: Windows zone names without a VTIMEZONE,
// several EXDATE lines, RECURRENCE-ID overrides and a cancelled instance, a TEC entry whose UID
// changes with its dates, and broken lines and zones reported by line without stopping the run.

let h: Harness;
const feed = (...lines: string[]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', ...lines, 'END:VCALENDAR'].join('\r\n');
const read = (location: string, text: string) =>
  runImport(importScope(h), new IcsReader(location, text, { siteTimezone: 'UTC' }));

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const GOOGLE = feed(
  'PRODID:-//Google Inc//Google Calendar 70.9054//EN',
  'X-WR-TIMEZONE:America/New_York',
  'BEGIN:VEVENT',
  'DTSTART:20300107T150000Z',
  'DTEND:20300107T160000Z',
  'RRULE:FREQ=WEEKLY;BYDAY=MO',
  'EXDATE;TZID=America/New_York:20300114T100000',
  'EXDATE;TZID=America/New_York:20300121T100000',
  'UID:standup@google.com',
  'SUMMARY:Stand-up',
  'LOCATION:Room 4\\, Main Building',
  'ORGANIZER;CN=Ana Ruiz:mailto:ana@example.org',
  'CATEGORIES:Team,Daily',
  'SEQUENCE:0',
  'END:VEVENT',
);

describe('calendar import ics', () => {
  it('reads a Google feed: UTC times in the feed zone, location, organizer, categories, the rule kept', async () => {
    const summary = await read('google.ics', GOOGLE);
    expect(summary).toMatchObject({ created: 1, failed: 0 });
    const event = await h.db.event.findFirstOrThrow({
      where: { title: 'Stand-up' },
      include: {
        venues: { include: { venue: true } },
        organizers: { include: { organizer: true } },
        terms: { include: { term: true } },
      },
    });
    expect(event).toMatchObject({
      timezone: 'America/New_York',
      localStart: '2030-01-07 10:00:00',
      localEnd: '2030-01-07 11:00:00',
    });
    expect(event.venues[0]!.venue.name).toBe('Room 4, Main Building');
    expect(event.organizers[0]!.organizer).toMatchObject({ name: 'Ana Ruiz', email: 'ana@example.org' });
    expect(event.terms.map((link) => link.term.name).sort()).toEqual(['Daily', 'Team']);
    const mapping = await h.db.importRecord.findFirstOrThrow({ where: { sourceKey: 'standup@google.com' } });
    expect(JSON.parse(mapping.sourceData).recurrence).toHaveLength(3);
    expect(await read('google.ics', GOOGLE)).toMatchObject({ created: 0, unchanged: 1 });
  });

  it('reads Outlook: Windows zone names without a VTIMEZONE become IANA zones', async () => {
    const outlook = feed(
      'PRODID:Microsoft Exchange Server 2010',
      'BEGIN:VEVENT',
      'UID:040000008200E00074C5B7101A82E008@outlook',
      'SUMMARY:Board meeting',
      'DTSTART;TZID=W. Europe Standard Time:20300304T093000',
      'DTEND;TZID=W. Europe Standard Time:20300304T110000',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:tokyo@outlook',
      'SUMMARY:Tokyo call',
      'DTSTART;TZID="Tokyo Standard Time":20300305T180000',
      'DTEND;TZID="Tokyo Standard Time":20300305T190000',
      'END:VEVENT',
    );
    expect(await read('outlook.ics', outlook)).toMatchObject({ created: 2, failed: 0 });
    expect(await h.db.event.findFirstOrThrow({ where: { title: 'Board meeting' } })).toMatchObject({
      timezone: 'Europe/Berlin',
      localStart: '2030-03-04 09:30:00',
      localEnd: '2030-03-04 11:00:00',
    });
    expect(await h.db.event.findFirstOrThrow({ where: { title: 'Tokyo call' } })).toMatchObject({
      timezone: 'Asia/Tokyo',
      localStart: '2030-03-05 18:00:00',
    });
  });

  it('keys overrides by RECURRENCE-ID; a cancelled instance is an EXDATE; whole days stay whole', async () => {
    const series = feed(
      'BEGIN:VEVENT',
      'UID:yoga@example.org',
      'SUMMARY:Yoga',
      'DTSTART;TZID=Europe/London:20300601T180000',
      'DTEND;TZID=Europe/London:20300601T190000',
      'RRULE:FREQ=WEEKLY;COUNT=6',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:yoga@example.org',
      'RECURRENCE-ID;TZID=Europe/London:20300608T180000',
      'SUMMARY:Yoga (moved)',
      'DTSTART;TZID=Europe/London:20300609T180000',
      'DTEND;TZID=Europe/London:20300609T190000',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:yoga@example.org',
      'RECURRENCE-ID;TZID=Europe/London:20300615T180000',
      'SUMMARY:Yoga',
      'STATUS:CANCELLED',
      'DTSTART;TZID=Europe/London:20300615T180000',
      'DTEND;TZID=Europe/London:20300615T190000',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:fair@example.org',
      'SUMMARY:Book fair',
      'DTSTART;VALUE=DATE:20300710',
      'DTEND;VALUE=DATE:20300713',
      'END:VEVENT',
    );
    expect(await read('series.ics', series)).toMatchObject({ created: 3, failed: 0 });
    const keys = (await h.db.importRecord.findMany({ where: { source: 'ics:series.ics' } })).map(
      (r) => r.sourceKey,
    );
    expect(keys.sort()).toEqual([
      'fair@example.org',
      'yoga@example.org',
      'yoga@example.org#2030-06-08T17:00:00.000Z',
    ]);
    expect(await h.db.event.findFirstOrThrow({ where: { title: 'Yoga (moved)' } })).toMatchObject({
      localStart: '2030-06-09 18:00:00',
      eventStatus: 'scheduled',
      isException: true,
    });
    // Series are test/imports/series.test.ts's: here, the cancelled instance is no event.
    expect(await h.db.event.count({ where: { localStart: { startsWith: '2030-06-15' } } })).toBe(0);
    expect(await h.db.event.findFirstOrThrow({ where: { title: 'Book fair' } })).toMatchObject({
      allDay: true,
      localStart: '2030-07-10 00:00:00',
      localEnd: '2030-07-12 23:59:59',
    });
  });

  it('updates when SEQUENCE grows and ignores an older copy', async () => {
    const version = (sequence: number, title: string) =>
      feed(
        'BEGIN:VEVENT',
        'UID:talk@example.org',
        `SEQUENCE:${sequence}`,
        `SUMMARY:${title}`,
        'DTSTART:20300801T100000Z',
        'DTEND:20300801T110000Z',
        'END:VEVENT',
      );
    expect(await read('talk.ics', version(2, 'Talk'))).toMatchObject({ created: 1 });
    expect(await read('talk.ics', version(3, 'Talk, new room'))).toMatchObject({ updated: 1 });
    expect(await read('talk.ics', version(1, 'Talk (old copy)'))).toMatchObject({ updated: 0, unchanged: 1 });
    expect(await h.db.event.count({ where: { title: 'Talk, new room' } })).toBe(1);
  });

  it("keys TEC's date-bearing UIDs on the post id: a rescheduled event updates", async () => {
    const tec = (start: string, end: string) =>
      feed(
        'PRODID:-//Example Site - ECPv6.0//NONSGML v1.0//EN',
        'X-WR-TIMEZONE:UTC',
        'BEGIN:VEVENT',
        `UID:42-${start}-${end}@tec.example.org`,
        `DTSTART:${start.slice(0, 8)}T${start.slice(8)}Z`,
        `DTEND:${end.slice(0, 8)}T${end.slice(8)}Z`,
        'SUMMARY:Gala',
        'END:VEVENT',
      );
    expect(await read('tec.ics', tec('20300901190000', '20300901230000'))).toMatchObject({ created: 1 });
    expect(await read('tec.ics', tec('20300908190000', '20300908230000'))).toMatchObject({
      created: 0,
      updated: 1,
    });
    const galas = await h.db.event.findMany({ where: { title: 'Gala' } });
    expect(galas.map((gala) => gala.localStart)).toEqual(['2030-09-08 19:00:00']);
  });

  it('reports a malformed line and an unknown zone by line and imports the rest', async () => {
    const broken = feed(
      'BEGIN:VEVENT',
      'UID:ok@example.org',
      'SUMMARY:Still here',
      'this line is not iCalendar',
      'DTSTART:20301001T100000Z',
      'DTEND:20301001T110000Z',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:nowhere@example.org',
      'SUMMARY:Nowhere',
      'DTSTART;TZID=Mars/Olympus_Mons:20301002T100000',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:after@example.org',
      'SUMMARY:After the bad ones',
      'DTSTART:20301003T100000Z',
      'END:VEVENT',
    );
    const summary = await read('broken.ics', broken);
    expect(summary).toMatchObject({ created: 2, failed: 1 });
    expect(summary.problems).toEqual([
      expect.objectContaining({
        where: 'line 6',
        warning: true,
        message: expect.stringContaining('malformed'),
      }),
      expect.objectContaining({ where: 'line 10', message: expect.stringContaining('Mars/Olympus_Mons') }),
    ]);
    expect(await h.db.event.count({ where: { title: { in: ['Still here', 'After the bad ones'] } } })).toBe(
      2,
    );
    expect(await h.db.event.count({ where: { title: 'Nowhere' } })).toBe(0);
  });
});
