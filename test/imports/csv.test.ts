import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CsvReader } from '../../src/imports/csv.js';
import { openCsv } from '../../src/imports/csv-file.js';
import { runImport } from '../../src/imports/engine.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { createEvent } from '../helpers/fixtures.js';
import { collect, importScope } from './helpers.js';

// CSV files with The Events Calendar importer's columns (labels or keys): events matched by title and
// start as TEC matches them, venues and organizers by name; an impossible date costs its row only.

let h: Harness;
const read = (file: string, text: string, type: 'events' | 'venues' | 'organizers') =>
  runImport(importScope(h), new CsvReader(file, text, type, { siteTimezone: 'UTC' }));

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const EVENTS = [
  'Event Name,Event Description,Event Start Date,Event Start Time,Event End Date,Event End Time,All Day Event,Event Time Zone,Event Venue Name,Event Organizer Name(s) or ID(s),Event Cost,Event Currency Symbol,Event Category,Event Tags,Event Website,Feature Event',
  'Open day,"Tours, talks and ""tea""",2030-04-02,10:00 AM,2030-04-02,4:00 PM,,Europe/Rome,City Museum,"Ana Ruiz, Ben Ode",5,€,"Culture, Family",free,https://example.org/open,yes',
  'Harvest fair,Stalls,09/20/2030,,09/21/2030,,yes,,Old Barn,,,,Food,,,',
  'Broken,A bad row,2030-02-30,10:00,2030-02-30,11:00,,,,,,,,,,',
  '"Night walk",,2030-10-31,21:30,2030-10-31,23:00,,America/Chicago,,,,,,,,',
].join('\r\n');

describe('calendar import csv', () => {
  it('reads quoted cells with commas, quotes and line breaks', async () => {
    const rows = await collect((await openCsv('a,b\r\n"1, one","say ""hi""\nthere"\n3,4')).rows);
    expect(rows).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['1, one', 'say "hi"\nthere'] },
      { line: 4, cells: ['3', '4'] },
    ]);
  });

  it("imports events with TEC's column names and reports the impossible date by row", async () => {
    const summary = await read('events.csv', EVENTS, 'events');
    expect(summary).toMatchObject({ created: 3, failed: 1 });
    expect(summary.problems).toEqual([
      expect.objectContaining({ where: 'row 3 (line 4)', message: expect.stringContaining('2030-02-30') }),
    ]);
    const open = await h.db.event.findFirstOrThrow({
      where: { title: 'Open day' },
      include: {
        venues: { include: { venue: true } },
        organizers: { include: { organizer: true } },
        terms: { include: { term: true } },
      },
    });
    expect(open).toMatchObject({
      timezone: 'Europe/Rome',
      localStart: '2030-04-02 10:00:00',
      localEnd: '2030-04-02 16:00:00',
      featured: true,
      website: 'https://example.org/open',
    });
    expect(open.description).toContain('Tours, talks and "tea"');
    expect(open.venues.map((link) => link.venue.name)).toEqual(['City Museum']);
    expect(open.organizers.map((link) => link.organizer.name)).toEqual(['Ana Ruiz', 'Ben Ode']);
    expect(open.terms.map((link) => link.term.name).sort()).toEqual(['Culture', 'Family', 'free']);
    expect(await h.db.event.findFirstOrThrow({ where: { title: 'Harvest fair' } })).toMatchObject({
      allDay: true,
      localStart: '2030-09-20 00:00:00',
      localEnd: '2030-09-21 23:59:59',
    });

    expect(await read('events.csv', EVENTS, 'events')).toMatchObject({ created: 0, unchanged: 3, failed: 1 });
    expect(await h.db.event.count({ where: { title: 'Open day' } })).toBe(1);
  });

  it('matches an event already here by title and start, as TEC does', async () => {
    const existing = await createEvent(h.db, { title: 'Choir', start: '2030-12-20 19:00:00' });
    const file = [
      'Event Name,Event Start Date,Event Start Time,Event End Time',
      'Choir,2030-12-20,19:00,21:30',
    ].join('\n');
    expect(await read('choir.csv', file, 'events')).toMatchObject({ created: 0, updated: 1 });
    expect(await h.db.event.count({ where: { title: 'Choir' } })).toBe(1);
    expect((await h.db.event.findUniqueOrThrow({ where: { id: existing.id } })).localEnd).toBe(
      '2030-12-20 21:30:00',
    );
  });

  it('imports venues and organizers by their columns', async () => {
    const venues = [
      'Venue Name,Venue Address,Venue Address 2,Venue City,Venue State/Province,Venue Zip,Venue Country,Venue Phone,Venue Website',
      'Town Hall,1 High St,Floor 2,Bath,Somerset,BA1 1AA,United Kingdom,+44 1225 000000,https://townhall.example',
      ',No name,,,,,,,',
    ].join('\n');
    expect(await read('venues.csv', venues, 'venues')).toMatchObject({ created: 1, failed: 1 });
    expect(await h.db.venue.findFirstOrThrow({ where: { name: 'Town Hall' } })).toMatchObject({
      address: '1 High St, Floor 2',
      city: 'Bath',
      stateprovince: 'Somerset',
      website: 'https://townhall.example',
    });
    const organizers = [
      'organizer_name,organizer_email,organizer_phone',
      'Civic Trust,info@civic.example,555',
    ].join('\n');
    expect(await read('organizers.csv', organizers, 'organizers')).toMatchObject({ created: 1 });
    expect(await h.db.organizer.findFirstOrThrow({ where: { name: 'Civic Trust' } })).toMatchObject({
      email: 'info@civic.example',
    });
  });
});
