import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/imports/engine.js';
import type { ConflictPolicy } from '../../src/imports/engine.js';
import { IcsReader } from '../../src/imports/ics.js';
import { TecReader } from '../../src/imports/tec.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { type Credentials, basicAuth, createUser } from '../helpers/users.js';
import { importScope, serve } from './helpers.js';

// Recurring events arrive as series: an iCalendar RRULE with EXDATEs, a RECURRENCE-ID override and a
// cancelled instance through the series service; re-reads write nothing, a changed rule or override
// updates only what changed; a rule past the cap is one record's problem; TEC's occurrences
// (`post_parent`) become one series, from the source's lines or rebuilt as RDATEs.

let h: Harness;
const feed = (...lines: string[]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', ...lines, 'END:VCALENDAR'].join('\r\n');
const readIcs = (location: string, text: string, conflict?: ConflictPolicy) =>
  runImport(importScope(h), new IcsReader(location, text, { siteTimezone: 'UTC' }), { conflict });

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

/** A Google-style weekly stand-up: two EXDATEs, a moved override, a cancelled instance (listed first). */
function standup(options: { rule?: string; override?: string } = {}) {
  return feed(
    'PRODID:-//Google Inc//Google Calendar 70.9054//EN',
    'X-WR-TIMEZONE:America/New_York',
    'BEGIN:VEVENT',
    'UID:standup@google.com',
    'RECURRENCE-ID;TZID=America/New_York:20300204T100000',
    'DTSTART;TZID=America/New_York:20300204T113000',
    'DTEND;TZID=America/New_York:20300204T123000',
    `SUMMARY:${options.override ?? 'Stand-up (late)'}`,
    'LOCATION:Room 4',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:standup@google.com',
    'DTSTART;TZID=America/New_York:20300107T100000',
    'DTEND;TZID=America/New_York:20300107T110000',
    options.rule ?? 'RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=8',
    'EXDATE;TZID=America/New_York:20300114T100000',
    'EXDATE;TZID=America/New_York:20300121T100000',
    'SUMMARY:Stand-up',
    'LOCATION:Room 4',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:standup@google.com',
    'RECURRENCE-ID;TZID=America/New_York:20300211T100000',
    'DTSTART;TZID=America/New_York:20300211T100000',
    'DTEND;TZID=America/New_York:20300211T110000',
    'STATUS:CANCELLED',
    'SUMMARY:Stand-up',
    'END:VEVENT',
  );
}

/** The series' first event and its occurrences in slot order. */
async function seriesOf(db: Harness['db'], title: string) {
  const first = await db.event.findFirstOrThrow({ where: { title, postParentId: null } });
  const occurrences = await db.event.findMany({
    where: { postParentId: first.id },
    orderBy: { originalStart: 'asc' },
    include: { venues: { include: { venue: true } } },
  });
  return { first, occurrences };
}

/** Every event row's version, and the change log's length: equal before and after means nothing written. */
async function footprint(db: Harness['db']) {
  const rows = await db.event.findMany({
    select: { id: true, revision: true, modifiedAt: true },
    orderBy: { id: 'asc' },
  });
  return { rows, changes: await db.changeLog.count() };
}

describe('iCalendar series', () => {
  it('a weekly rule with EXDATEs, an override and a cancelled instance become one series', async () => {
    const summary = await readIcs('standup.ics', standup());
    expect(summary, JSON.stringify(summary.problems)).toMatchObject({ created: 2, failed: 0 });
    const { first, occurrences } = await seriesOf(h.db, 'Stand-up');
    expect(first).toMatchObject({ localStart: '2030-01-07 10:00:00', timezone: 'America/New_York' });
    // COUNT=8 from 7 January: 14 and 21 January are EXDATEs, 11 February was cancelled.
    expect(occurrences.map((event) => event.localStart)).toEqual([
      '2030-01-28 10:00:00',
      '2030-02-04 11:30:00',
      '2030-02-18 10:00:00',
      '2030-02-25 10:00:00',
    ]);
    expect(first.recurrence).toContain('EXDATE');
    expect(occurrences.every((event) => event.postParentId === first.id)).toBe(true);
    expect(occurrences.map((event) => event.venues[0]?.venue.name)).toEqual(Array(4).fill('Room 4'));
    const late = occurrences[1]!;
    expect(late).toMatchObject({ title: 'Stand-up (late)', isException: true });
    expect(late.originalStart?.toISOString()).toBe('2030-02-04T15:00:00.000Z');
    expect(occurrences.filter((event) => event.isException)).toHaveLength(1);
    expect(await h.db.event.count({ where: { localStart: { startsWith: '2030-02-11' } } })).toBe(0);
    const mapping = await h.db.importRecord.findFirstOrThrow({
      where: { source: 'ics:standup.ics', sourceKey: { contains: '#' } },
    });
    expect(mapping.localId).toBe(late.id);
  });

  it('a second read writes nothing', async () => {
    const before = await footprint(h.db);
    expect(await readIcs('standup.ics', standup())).toMatchObject({
      created: 0,
      updated: 0,
      unchanged: 2,
      failed: 0,
    });
    expect(await footprint(h.db)).toEqual(before);
  });

  it('a changed rule updates the series and keeps the exception; a changed override only its occurrence', async () => {
    const rule = 'RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=10';
    const longer = await readIcs('standup.ics', standup({ rule }));
    expect(longer).toMatchObject({ created: 0, updated: 1, unchanged: 1, conflicts: 0, failed: 0 });
    const { occurrences } = await seriesOf(h.db, 'Stand-up');
    expect(occurrences.map((event) => event.localStart.slice(0, 10))).toEqual([
      '2030-01-28',
      '2030-02-04',
      '2030-02-18',
      '2030-02-25',
      '2030-03-04',
      '2030-03-11',
    ]);
    expect(occurrences[1]).toMatchObject({ title: 'Stand-up (late)', localStart: '2030-02-04 11:30:00' });

    // The series' write changed the exception's row: that is no edit made here.
    const before = await footprint(h.db);
    const moved = await readIcs(
      'standup.ics',
      standup({ rule, override: 'Stand-up (late, room 5)' }),
      'preserve-changes',
    );
    expect(moved).toMatchObject({ updated: 1, unchanged: 1, conflicts: 0, failed: 0 });
    const after = await footprint(h.db);
    const changed = after.rows.filter(
      (row, index) =>
        row.revision !== before.rows[index]!.revision || after.rows.length !== before.rows.length,
    );
    expect(changed.map((row) => row.id)).toEqual([occurrences[1]!.id]);
    expect((await h.db.event.findUniqueOrThrow({ where: { id: occurrences[1]!.id } })).title).toBe(
      'Stand-up (late, room 5)',
    );
  });

  it('a floating UNTIL beside a zoned DTSTART is a wall clock in the event zone', async () => {
    const summary = await readIcs(
      'until.ics',
      feed(
        'BEGIN:VEVENT',
        'UID:until@example.org',
        'DTSTART;TZID=America/New_York:20300301T100000',
        'DTEND;TZID=America/New_York:20300301T110000',
        // 10:00 in New York (15:00Z): read as UTC it would end at 05:00 there, before the 5th's event.
        'RRULE:FREQ=DAILY;UNTIL=20300305T100000',
        'SUMMARY:Until in the wall clock',
        'END:VEVENT',
      ),
    );
    expect(summary, JSON.stringify(summary.problems)).toMatchObject({ created: 1, failed: 0 });
    const { first, occurrences } = await seriesOf(h.db, 'Until in the wall clock');
    expect(first.recurrence).toBe('RRULE:FREQ=DAILY;UNTIL=20300305T150000Z');
    expect(occurrences.map((event) => event.localStart)).toEqual(
      ['02', '03', '04', '05'].map((day) => `2030-03-${day} 10:00:00`),
    );
  });

  it('a rule past the series cap is that record’s problem; the run goes on', async () => {
    const summary = await readIcs(
      'hourly.ics',
      feed(
        'BEGIN:VEVENT',
        'UID:hourly@example.org',
        'DTSTART:20300101T000000Z',
        'DTEND:20300101T003000Z',
        'RRULE:FREQ=HOURLY',
        'SUMMARY:Every hour',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'UID:hourly@example.org',
        'RECURRENCE-ID:20300101T050000Z',
        'DTSTART:20300101T051500Z',
        'DTEND:20300101T054500Z',
        'SUMMARY:Every hour (late)',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'UID:single@example.org',
        'DTSTART:20300102T100000Z',
        'SUMMARY:Single after it',
        'END:VEVENT',
      ),
    );
    expect(summary).toMatchObject({ created: 1, failed: 2 });
    expect(summary.problems).toEqual([
      expect.objectContaining({ key: 'hourly@example.org', message: expect.stringContaining('recurrence') }),
      expect.objectContaining({ message: expect.stringContaining('was not imported') }),
    ]);
    expect(await h.db.event.count({ where: { title: { startsWith: 'Every hour' } } })).toBe(0);
    expect(await h.db.event.count({ where: { title: 'Single after it' } })).toBe(1);
  });
});

describe('TEC series', () => {
  let source: Harness;
  let admin: Credentials;
  let root: string;
  let server: Server;
  let proxy: Server;
  let proxyRoot: string;
  let firstAtSource: number;
  const targets: Harness[] = [];

  async function target(): Promise<Harness> {
    const made = await startHarness();
    targets.push(made);
    return made;
  }

  async function write(path: string, body: object, status: number) {
    const response = await source.http
      .post(`/calendar/events/v1${path}`)
      .set('authorization', basicAuth(admin))
      .send(body);
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    return response.body as { id: number };
  }

  const tec = (at: string) => new TecReader(at, { user: admin.login, appPassword: admin.password });

  beforeAll(async () => {
    source = await startHarness();
    admin = await createUser(source, 'administrator');
    firstAtSource = (
      await write(
        '/events',
        {
          title: 'Choir',
          start_date: '2030-03-05 19:00:00',
          end_date: '2030-03-05 21:00:00',
          timezone: 'Europe/Paris',
          recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
        },
        201,
      )
    ).id;
    const occurrences = await source.db.event.findMany({
      where: { postParentId: firstAtSource },
      orderBy: { originalStart: 'asc' },
    });
    // The last one has a guest conductor: an exception at the source.
    await write(`/events/${occurrences[1]!.id}`, { title: 'Choir (guest conductor)' }, 200);
    ({ root, server } = await serve(source));
    // TEC itself: the same API without the `recurrence` extension.
    proxy = createServer((request, response) => {
      void (async () => {
        const answer = await fetch(`${root}${request.url!.replace(/^\/api/, '')}`, {
          headers: { authorization: request.headers.authorization ?? '' },
        });
        const body = (await answer.json()) as { events?: Array<Record<string, unknown>> };
        for (const event of body.events ?? []) delete event.recurrence;
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        for (const name of ['x-tec-total', 'x-tec-totalpages']) {
          const value = answer.headers.get(name);
          if (value) headers[name] = value;
        }
        response.writeHead(answer.status, headers).end(JSON.stringify(body));
      })();
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => proxy.once('listening', resolve));
    proxyRoot = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api`;
  }, 60_000);

  afterAll(async () => {
    server?.close();
    proxy?.close();
    await source?.close();
    for (const made of targets) await made.close();
  });

  async function expectOneSeries(here: Harness, lines: (recurrence: string) => void) {
    const { first, occurrences } = await seriesOf(here.db, 'Choir');
    expect(await here.db.event.count()).toBe(3);
    lines(first.recurrence ?? '');
    expect(occurrences.map((event) => [event.localStart, event.title, event.isException])).toEqual([
      ['2030-03-12 19:00:00', 'Choir', false],
      ['2030-03-19 19:00:00', 'Choir (guest conductor)', true],
    ]);
    expect(occurrences.map((event) => event.postParentId)).toEqual([first.id, first.id]);
  }

  it("takes another instance's lines: three occurrences, one series, a second run writes nothing", async () => {
    const here = await target();
    const summary = await runImport(importScope(here), tec(root));
    expect(summary, JSON.stringify(summary.problems)).toMatchObject({ created: 3, failed: 0 });
    await expectOneSeries(here, (recurrence) => expect(recurrence).toBe('RRULE:FREQ=WEEKLY;COUNT=3'));
    const before = await footprint(here.db);
    expect(await runImport(importScope(here), tec(root))).toMatchObject({
      created: 0,
      updated: 0,
      unchanged: 3,
    });
    expect(await footprint(here.db)).toEqual(before);

    // The whole series renamed at the source: the series' write here, no conflict.
    await write(`/events/${firstAtSource}`, { title: 'Choir rehearsal' }, 200);
    try {
      const renamed = await runImport(importScope(here), tec(root), { conflict: 'preserve-changes' });
      expect(renamed).toMatchObject({ updated: 2, unchanged: 1, conflicts: 0, failed: 0 });
      const titles = await here.db.event.findMany({ orderBy: { startsAt: 'asc' }, select: { title: true } });
      expect(titles.map((event) => event.title)).toEqual([
        'Choir rehearsal',
        'Choir rehearsal',
        'Choir (guest conductor)',
      ]);
    } finally {
      await write(`/events/${firstAtSource}`, { title: 'Choir' }, 200);
    }
  });

  it("rebuilds TEC's series without a rule from its occurrences' starts (RDATE)", async () => {
    const here = await target();
    const summary = await runImport(importScope(here), tec(proxyRoot));
    expect(summary, JSON.stringify(summary.problems)).toMatchObject({ created: 3, failed: 0 });
    await expectOneSeries(here, (recurrence) =>
      expect(recurrence).toBe('RDATE:20300312T180000Z,20300319T180000Z'),
    );
    expect(await runImport(importScope(here), tec(proxyRoot))).toMatchObject({
      created: 0,
      updated: 0,
      unchanged: 3,
    });
  });
});
