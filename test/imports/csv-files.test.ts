import { execFile } from 'node:child_process';
import { createReadStream, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CsvReader } from '../../src/imports/csv.js';
import { type CsvBytes, detectEncoding, openCsv, separatorOf } from '../../src/imports/csv-file.js';
import { runImport } from '../../src/imports/engine.js';
import type { Reader } from '../../src/imports/records.js';
import { addImportSource, runImportSourceNow } from '../../src/imports/subscriptions.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { collect, feedServer, importScope, killedAfter } from './helpers.js';

// CSV files as spreadsheets save them (test/import/fixtures/, written once by write-csv-fixtures.ts):
// a BOM, `;` or tab separators, Windows-1252 or UTF-16 text, CRLF inside quoted cells, a header with
// stray spaces. Each reads as the same records, rows and lines as the UTF-8 file, and imports the
// same events; files are streamed, and the encoding is found in the order docs/guide/import.md gives.

let h: Harness;
let feeds: Awaited<ReturnType<typeof feedServer>>;
const fixture = (name: string) => fileURLToPath(new URL(`fixtures/${name}`, import.meta.url));
const bytes = (name: string) => readFileSync(fixture(name));
const reader = (name: string, input: CsvBytes = bytes(name), options: { encoding?: string } = {}) =>
  new CsvReader(name, input, 'events', { siteTimezone: 'UTC', ...options });

/** Every record and problem a reader hands over, across its batches. */
async function readAll(from: Reader) {
  const batches = await collect(from.read(null));
  return {
    records: batches.flatMap((batch) => batch.records),
    problems: batches.flatMap((batch) => batch.problems),
  };
}

/** The imported events as people see them, in title order. */
async function events() {
  const rows = await h.db.event.findMany({
    orderBy: { title: 'asc' },
    include: {
      venues: { include: { venue: true } },
      organizers: { include: { organizer: true } },
      terms: { include: { term: true } },
    },
  });
  return rows.map((event) => ({
    title: event.title,
    description: event.description,
    start: event.localStart,
    end: event.localEnd,
    timezone: event.timezone,
    cost: [event.currencySymbol, event.cost, event.currencyPosition],
    venues: event.venues.map((link) => link.venue.name),
    organizers: event.organizers.map((link) => link.organizer.name).sort(),
    terms: event.terms.map((link) => link.term.name).sort(),
  }));
}

beforeAll(async () => {
  h = await startHarness({ CALENDAR_WEBHOOKS_ALLOW_PRIVATE: 'true' });
  feeds = await feedServer();
});
afterAll(async () => {
  await feeds?.close();
  await h?.close();
});

const SPREADSHEETS = [
  { file: 'events-excel-utf8.csv', encoding: 'utf-8', by: 'bom', separator: ';' },
  { file: 'events-excel-windows-1252.csv', encoding: 'windows-1252', by: 'guess', separator: ';' },
  { file: 'events-excel-utf16le.csv', encoding: 'utf-16le', by: 'bom', separator: '\t' },
] as const;

describe('CSV files saved by spreadsheets', () => {
  it('reads the UTF-8 reference as written', async () => {
    expect(await openCsv(bytes('events.csv'))).toMatchObject({
      encoding: 'utf-8',
      by: 'utf-8',
      separator: ',',
    });
    const { records, problems } = await readAll(reader('events.csv'));
    expect(records.map((record) => [record.where, record.fields])).toEqual([
      [
        'row 1 (line 2)',
        expect.objectContaining({
          title: 'Fête de la musique',
          description:
            'Concerts, scènes ouvertes et « bœuf » sur la place.\nEntrée libre – apportez vos “instruments”',
          start: '2030-06-21 18:00:00',
          cost: '€5',
          organizers: [{ name: 'Zoé Lefèvre' }, { name: 'Ana Ruiz' }],
          categories: [{ name: 'Musique' }, { name: 'Été' }],
        }),
      ],
      [
        'row 2 (line 4)',
        expect.objectContaining({
          title: 'Straßenfest',
          description: 'Große Bühne; Würstchen & Bier\n„für alle“, 10 " Bildschirm',
          start: '2030-07-04 10:00:00',
          end: '2030-07-04 18:00:00',
        }),
      ],
      ['row 4 (line 7)', expect.objectContaining({ title: 'Café crème', start: '2030-09-01 09:00:00' })],
    ]);
    expect(problems).toEqual([{ where: 'row 3 (line 6)', message: 'impossible start: 2030-02-30 10:00' }]);
  });

  it.each(SPREADSHEETS)(
    '$file: $encoding ($by), separated by $separator, reads as the same records, rows and lines',
    async ({ file, encoding, by, separator }) => {
      expect(await openCsv(bytes(file))).toMatchObject({ encoding, by, separator });
      const reference = await readAll(reader('events.csv'));
      const read = await readAll(reader(file));
      expect(read.records).toEqual(reference.records);
      expect(read.problems.filter((problem) => !problem.warning)).toEqual(reference.problems);
    },
  );

  it('says once, as a warning, that an encoding was guessed; a given encoding is not questioned', async () => {
    const guessed = await readAll(reader('events-excel-windows-1252.csv'));
    expect(guessed.problems.filter((problem) => problem.warning)).toEqual([
      { where: 'file', message: expect.stringContaining('read as windows-1252, a guess'), warning: true },
    ]);
    const given = await readAll(
      reader('events-excel-windows-1252.csv', undefined, { encoding: 'windows-1252' }),
    );
    expect(given.problems.filter((problem) => problem.warning)).toEqual([]);
    expect(given.records).toEqual(guessed.records);
  });

  it('imports the same events from each file', async () => {
    const first = await runImport(importScope(h), reader('events.csv'));
    expect(first).toMatchObject({ created: 3, failed: 1 });
    const imported = await events();
    expect(imported).toHaveLength(3);
    expect(imported[1]).toEqual({
      title: 'Fête de la musique',
      description:
        '<p>Concerts, scènes ouvertes et « bœuf » sur la place.<br />\nEntrée libre – apportez vos “instruments”</p>',
      start: '2030-06-21 18:00:00',
      end: '2030-06-21 23:30:00',
      timezone: 'Europe/Paris',
      cost: ['€', '5', 'prefix'],
      venues: ['Place du Marché'],
      organizers: ['Ana Ruiz', 'Zoé Lefèvre'],
      terms: ['Musique', 'plein air', 'Été'].sort(),
    });
    for (const { file } of SPREADSHEETS) {
      // Matched by title and start, as TEC matches: the same events, written again as they were.
      expect(await runImport(importScope(h), reader(file)), file).toMatchObject({
        created: 0,
        updated: 3,
        failed: 1,
      });
      expect(await events(), file).toEqual(imported);
    }
  });
});

describe('reading a CSV file', () => {
  it('streams the file: rows are handed over before it is all read, in chunks of any size', async () => {
    const header = 'Event Name;Event Description;Event Start Date;Event Start Time';
    const about = 'Ein langer Text über den Vortrag, '.repeat(6);
    // ~2.3 MB: far more than every stage's buffers together, on any Node version (22 buffers 64 KiB a
    // stream where 20 buffered 16 KiB).
    const rows = Array.from({ length: 10_000 }, (_, i) => `Talk ${i};${about};2031-01-01;10:00`);
    const file = Buffer.from([header, ...rows].join('\r\n'));
    const CHUNK = 1001; // odd: chunks end inside characters and CRLFs
    let handed = 0;
    const opener = async function* () {
      for (let at = 0; at < file.length; at += CHUNK) {
        handed++;
        yield file.subarray(at, at + CHUNK);
      }
    };
    const chunks = Math.ceil(file.length / CHUNK);
    const batches = new CsvReader('talks.csv', opener, 'events', { siteTimezone: 'UTC', batchSize: 50 }).read(
      null,
    );
    const iterator = batches[Symbol.asyncIterator]();
    const firstBatch = await iterator.next();
    expect(firstBatch.value?.records).toHaveLength(50);
    // What was read ahead of the first batch is bounded, not a share of the file.
    expect(handed * CHUNK).toBeLessThan(512 * 1024);
    expect(handed).toBeLessThan(chunks / 4);
    let read = 50;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      read += next.value.records.length;
      expect(next.value.problems).toEqual([]);
    }
    expect(read).toBe(10_000);
    expect(handed).toBe(chunks);

    // The spreadsheet fixtures, a few bytes at a time, read as they do whole.
    for (const { file: name } of SPREADSHEETS) {
      const whole = bytes(name);
      const trickle = async function* () {
        for (let at = 0; at < whole.length; at += 3) yield whole.subarray(at, at + 3);
      };
      expect((await readAll(reader(name, trickle))).records, name).toEqual(
        (await readAll(reader(name))).records,
      );
    }
  });

  it('finds the encoding in order: BOM, UTF-16 zero bytes, UTF-8 validity, then a guess', () => {
    const text = 'Event Name;Event Cost\r\nFête “été”;5 €\r\n';
    const withBom = (encoding: string) => iconv.encode(text, encoding, { addBOM: true });
    expect(detectEncoding(withBom('utf-8'), true)).toEqual({ encoding: 'utf-8', by: 'bom' });
    expect(detectEncoding(withBom('utf-16le'), true)).toEqual({ encoding: 'utf-16le', by: 'bom' });
    expect(detectEncoding(withBom('utf-16be'), true)).toEqual({ encoding: 'utf-16be', by: 'bom' });
    expect(detectEncoding(iconv.encode(text, 'utf-16le'), true)).toEqual({
      encoding: 'utf-16le',
      by: 'zero-bytes',
    });
    expect(detectEncoding(iconv.encode(text, 'utf-16be'), true)).toEqual({
      encoding: 'utf-16be',
      by: 'zero-bytes',
    });
    expect(detectEncoding(Buffer.from(text), true)).toEqual({ encoding: 'utf-8', by: 'utf-8' });
    // A sample cut inside a character is UTF-8 still, unless it is the whole file.
    const cut = Buffer.from(text).subarray(0, Buffer.from('Event Name;Event Cost\r\nF').length + 1);
    expect(detectEncoding(cut, false)).toEqual({ encoding: 'utf-8', by: 'utf-8' });
    expect(detectEncoding(cut, true).by).toBe('guess');
    // Not UTF-8: a guess, where ISO-8859-1 is read as Windows-1252 (its superset).
    expect(detectEncoding(iconv.encode(text, 'windows-1252'), true)).toEqual({
      encoding: 'windows-1252',
      by: 'guess',
    });
    expect(detectEncoding(iconv.encode('Name\r\nMünchen Straßenfest Größe', 'latin1'), true)).toEqual({
      encoding: 'windows-1252',
      by: 'guess',
    });
  });

  it("takes the header line's separator, outside quotes; a comma when it has none", () => {
    expect(separatorOf('Event Name;Event Start Date;Event Cost')).toBe(';');
    expect(separatorOf('Event Name\tEvent Start Date')).toBe('\t');
    expect(separatorOf('"Name; or title",Event Start Date')).toBe(',');
    expect(separatorOf('Event Name')).toBe(',');
  });

  it('reports a quote never closed at the row it opens in, after importing the rows before it', async () => {
    const file = [
      'Event Name,Event Start Date',
      'Before,2031-02-01',
      '"Broken,2031-02-02',
      'After,2031-02-03',
    ].join('\n');
    const { records, problems } = await readAll(reader('broken.csv', file));
    expect(records.map((record) => record.kind === 'event' && record.fields.title)).toEqual(['Before']);
    expect(problems).toEqual([
      {
        where: 'row 2 (line 3)',
        message: 'a quoted cell of this row is never closed; nothing after it was read',
      },
    ]);
  });

  it('a run stopped part-way through a streamed file goes on after its last batch', async () => {
    const path = fixture('events-excel-utf16le.csv');
    const streamed = () =>
      new CsvReader(path, () => createReadStream(path), 'events', { siteTimezone: 'UTC', batchSize: 1 });
    await expect(runImport(importScope(h), killedAfter(streamed(), 1))).rejects.toThrow('killed');
    let handed = 0;
    const resumed = streamed();
    const counting: Reader = {
      source: resumed.source,
      async *read(after) {
        for await (const batch of resumed.read(after)) {
          handed += batch.records.length + batch.problems.length;
          yield batch;
        }
      },
    };
    expect(await runImport(importScope(h), counting, { resume: true })).toMatchObject({
      resumedAfter: 'csv:1',
      failed: 1,
    });
    // Rows 2 to 4 only: the first row's batch was written by the stopped run.
    expect(handed).toBe(3);
    expect(await h.db.event.count()).toBe(3);
  });
});

describe('where CSV imports start', () => {
  it('a subscribed CSV source keeps its encoding and reads the bytes as they are served', async () => {
    feeds.set('/events.csv', { body: bytes('events-excel-windows-1252.csv') });
    const source = await addImportSource(importScope(h), {
      type: 'csv',
      location: feeds.url('/events.csv'),
      everySeconds: 3600,
      csvType: 'events',
      encoding: 'windows-1252',
    });
    expect(source).toMatchObject({ csvType: 'events', encoding: 'windows-1252' });
    const before = await events();
    const summary = await runImportSourceNow(importScope(h), source.id);
    expect(summary).toMatchObject({ created: 0, updated: 3, failed: 1 });
    expect(summary!.problems).toEqual([expect.objectContaining({ where: 'row 3 (line 6)' })]);
    expect(await events()).toEqual(before);
  });

  it('the command line streams the file and takes --encoding', async () => {
    /** `calendar import csv …` as a process: its exit code and output. */
    const calendar = (...args: string[]) =>
      promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', 'src/cli/calendar.ts', 'import', 'csv', ...args],
        {
          cwd: fileURLToPath(new URL('../..', import.meta.url)),
          env: { ...process.env, DATABASE_URL: h.config.databaseUrl, LOG_LEVEL: 'silent' },
        },
      ).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    const before = await events();
    const file = fixture('events-excel-windows-1252.csv');
    const dryRun = await calendar(file, '--type', 'events', '--encoding', 'windows-1252', '--dry-run');
    // 3: some rows failed (the impossible date).
    expect(dryRun.code, dryRun.stderr).toBe(3);
    const summary = JSON.parse(dryRun.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(summary).toMatchObject({ source: `csv:events:${file}`, updated: 3, failed: 1, dryRun: true });
    // No warning of a guess: the encoding was given.
    expect(summary.problems).toEqual([expect.objectContaining({ where: 'row 3 (line 6)' })]);
    expect(await events()).toEqual(before);
  });
});
