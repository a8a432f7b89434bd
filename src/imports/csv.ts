import { DateTime } from 'luxon';
import { isValidTimezone } from '../core/rules/dates.js';
import { DECLARED_NAMES, declaration, declaredFromSource } from '../events/model/event-fields.js';
import { type CsvBytes, UnreadableCsv, openCsv } from './csv-file.js';
import type { Batch, EventFields, Problem, Reader, SourceRecord } from './records.js';

// A CSV file with The Events Calendar importer's columns (its Column_Mapper: `event_name`,
// `event_start_date`, … or their labels, "Event Name", "Event Start Date", …), one file per type.
// Events are matched as TEC matches them, by title and start (or by `event_uid` when the file has
// one); venues and organizers by their UID column, else by name. A row that cannot be read (an
// impossible date, no name) is reported with its row and line and left out. The file is streamed
// (encoding, separator and rows: `csv-file.ts`), a batch at a time.

export const CSV_TYPES = ['events', 'venues', 'organizers'] as const;
export type CsvType = (typeof CSV_TYPES)[number];

/** TEC's column keys and their labels, by import type. */
const COLUMNS: Record<CsvType, Record<string, string>> = {
  events: {
    event_name: 'Event Name',
    event_uid: 'Event UID',
    event_description: 'Event Description',
    event_excerpt: 'Event Excerpt',
    event_start_date: 'Event Start Date',
    event_start_time: 'Event Start Time',
    event_end_date: 'Event End Date',
    event_end_time: 'Event End Time',
    event_timezone: 'Event Time Zone',
    event_all_day: 'All Day Event',
    event_venue_name: 'Event Venue Name',
    event_organizer_name: 'Event Organizer Name(s) or ID(s)',
    event_cost: 'Event Cost',
    event_currency_symbol: 'Event Currency Symbol',
    event_currency_position: 'Event Currency Position',
    event_category: 'Event Category',
    event_tags: 'Event Tags',
    event_website: 'Event Website',
    featured_image: 'Event Featured Image',
    // The declared fields' columns (`events/model/event-fields.ts`).
    ...Object.fromEntries(
      DECLARED_NAMES.flatMap((name) => {
        const csv = declaration(name).csv;
        return csv ? [[csv.column, csv.label]] : [];
      }),
    ),
  },
  venues: {
    venue_name: 'Venue Name',
    venue_uid: 'Venue UID',
    venue_description: 'Venue Description',
    venue_country: 'Venue Country',
    venue_address: 'Venue Address',
    venue_address2: 'Venue Address 2',
    venue_city: 'Venue City',
    venue_state: 'Venue State/Province',
    venue_zip: 'Venue Zip',
    venue_phone: 'Venue Phone',
    venue_url: 'Venue Website',
    featured_image: 'Venue Featured Image',
  },
  organizers: {
    organizer_name: 'Organizer Name',
    organizer_uid: 'Organizer UID',
    organizer_description: 'Organizer Description',
    organizer_email: 'Organizer Email',
    organizer_website: 'Organizer Website',
    organizer_phone: 'Organizer Phone',
    featured_image: 'Organizer Featured Image',
  },
};

const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '');

/** Which TEC column each header names (by key or label, case and punctuation aside). */
function columnsOf(type: CsvType, header: string[]): Array<string | null> {
  const known = new Map<string, string>();
  for (const [key, label] of Object.entries(COLUMNS[type])) {
    known.set(squash(key), key);
    known.set(squash(label), key);
  }
  // TEC's own exports also say "Event Organizer Name" and "Event Venue" for these.
  if (type === 'events') {
    known.set(squash('Event Organizer Name'), 'event_organizer_name');
    known.set(squash('Event Venue'), 'event_venue_name');
    known.set(squash('Event Categories'), 'event_category');
  }
  return header.map((name) => known.get(squash(name)) ?? null);
}

const DATE_FORMATS = [
  'yyyy-MM-dd',
  'yyyy/MM/dd',
  'M/d/yyyy',
  'M/d/yy',
  'd.M.yyyy',
  'MMMM d, yyyy',
  'MMM d, yyyy',
];
const TIME_FORMATS = ['H:mm', 'H:mm:ss', 'h:mm a', 'h:mma', 'h a', 'ha', 'h:mm:ss a'];

/** A date cell (and an optional time cell) as a wall clock, or null when it names no real day or time. */
function wallClock(date: string, time: string): string | null {
  const day = DATE_FORMATS.map((format) => DateTime.fromFormat(date.trim(), format, { zone: 'UTC' })).find(
    (parsed) => parsed.isValid,
  );
  if (!day) return null;
  if (!time.trim()) return day.toFormat('yyyy-MM-dd HH:mm:ss');
  const clock = TIME_FORMATS.map((format) =>
    DateTime.fromFormat(time.trim().toUpperCase(), format, { zone: 'UTC' }),
  ).find((parsed) => parsed.isValid);
  if (!clock) return null;
  return day
    .set({ hour: clock.hour, minute: clock.minute, second: clock.second })
    .toFormat('yyyy-MM-dd HH:mm:ss');
}

const yes = (value: string | undefined) => /^(1|y|yes|true|on)$/i.test((value ?? '').trim());
const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

interface CsvOptions {
  siteTimezone: string;
  batchSize?: number;
  /** The file's encoding (`windows-1252`, `utf-16le`, …); detected when absent. */
  encoding?: string;
}

export class CsvReader implements Reader {
  readonly source: string;

  constructor(
    file: string,
    private readonly input: CsvBytes,
    private readonly type: CsvType,
    private readonly options: CsvOptions,
  ) {
    this.source = `csv:${type}:${file}`;
  }

  async *read(after: string | null): AsyncIterable<Batch> {
    const size = this.options.batchSize ?? 100;
    const skip = after ? Number(after.replace(/^csv:/, '')) : 0;
    const file = await openCsv(this.input, this.options.encoding);
    const fresh = (): Omit<Batch, 'checkpoint'> => ({ records: [], problems: [] });
    let batch = fresh();
    if (file.by === 'guess')
      batch.problems.push({
        where: 'file',
        message: `read as ${file.encoding}, a guess (no byte-order mark, not UTF-8): if letters look wrong, give the file's encoding`,
        warning: true,
      });
    let columns: Array<string | null> | null = null;
    let count = 0;
    try {
      for await (const row of file.rows) {
        if (!columns) {
          columns = columnsOf(
            this.type,
            row.cells.map((name) => name.trim()),
          );
          continue;
        }
        const number = ++count;
        if (number <= skip * size) continue;
        const values: Record<string, string> = {};
        columns.forEach((key, column) => {
          if (key) values[key] = (row.cells[column] ?? '').trim();
        });
        const read = this.record(values, `row ${number} (line ${row.line})`);
        if ('message' in read) batch.problems.push(read);
        else batch.records.push(read);
        if (number % size === 0) {
          yield { checkpoint: `csv:${number / size}`, ...batch };
          batch = fresh();
        }
      }
    } catch (error) {
      if (!(error instanceof UnreadableCsv)) throw error;
      const where = columns ? `row ${count + 1} (line ${error.line})` : `line ${error.line}`;
      batch.problems.push({ where, message: error.message });
    }
    if (batch.records.length || batch.problems.length)
      yield { checkpoint: `csv:${Math.ceil(count / size)}`, ...batch };
  }

  private record(v: Record<string, string>, where: string): SourceRecord | Problem {
    switch (this.type) {
      case 'venues': {
        if (!v.venue_name) return { where, message: 'no Venue Name' };
        return {
          kind: 'venue',
          key: v.venue_uid || v.venue_name.toLowerCase(),
          where,
          fields: {
            name: v.venue_name,
            description: v.venue_description ?? '',
            address: [v.venue_address, v.venue_address2].filter(Boolean).join(', '),
            city: v.venue_city ?? '',
            country: v.venue_country ?? '',
            stateProvince: v.venue_state ?? '',
            zip: v.venue_zip ?? '',
            phone: v.venue_phone ?? '',
            website: v.venue_url ?? '',
            image: v.featured_image ?? '',
          },
        };
      }
      case 'organizers': {
        if (!v.organizer_name) return { where, message: 'no Organizer Name' };
        return {
          kind: 'organizer',
          key: v.organizer_uid || v.organizer_name.toLowerCase(),
          where,
          fields: {
            name: v.organizer_name,
            description: v.organizer_description ?? '',
            email: v.organizer_email ?? '',
            website: v.organizer_website ?? '',
            phone: v.organizer_phone ?? '',
            image: v.featured_image ?? '',
          },
        };
      }
      case 'events':
        return this.event(v, where);
    }
  }

  private event(v: Record<string, string>, where: string): SourceRecord | Problem {
    if (!v.event_name) return { where, message: 'no Event Name' };
    const timezone = v.event_timezone || this.options.siteTimezone;
    if (!isValidTimezone(timezone)) return { where, message: `unknown time zone ${timezone}` };
    const allDay = yes(v.event_all_day);
    const start = wallClock(v.event_start_date ?? '', allDay ? '' : (v.event_start_time ?? ''));
    if (!start)
      return {
        where,
        message: `impossible start: ${[v.event_start_date, v.event_start_time].join(' ').trim()}`,
      };
    const endDay = v.event_end_date || v.event_start_date || '';
    const end = allDay
      ? wallClock(endDay, '')?.replace(/00:00:00$/, '23:59:59')
      : wallClock(endDay, v.event_end_time || v.event_start_time || '');
    if (!end)
      return { where, message: `impossible end: ${[v.event_end_date, v.event_end_time].join(' ').trim()}` };
    const symbol = v.event_currency_symbol ?? '';
    const cost = v.event_cost ?? '';
    const fields: EventFields = {
      title: v.event_name,
      description: v.event_description ?? '',
      excerpt: v.event_excerpt ?? '',
      start,
      end,
      timezone,
      allDay,
      cost:
        cost && symbol
          ? v.event_currency_position === 'suffix'
            ? `${cost}${symbol}`
            : `${symbol}${cost}`
          : cost,
      website: v.event_website ?? '',
      declared: declaredFromSource((_name, field) => (field.csv ? v[field.csv.column] : undefined), {
        flag: (cell) => yes(String(cell)),
        text: String,
      }),
      image: v.featured_image ?? '',
      venues: v.event_venue_name ? [{ name: v.event_venue_name }] : [],
      organizers: list(v.event_organizer_name).map((name) => ({ name })),
      categories: list(v.event_category).map((name) => ({ name })),
      tags: list(v.event_tags).map((name) => ({ name })),
    };
    return {
      kind: 'event',
      key: v.event_uid || `${v.event_name}\n${start}`,
      where,
      fields,
      matchTitleAndStart: !v.event_uid,
    };
  }
}
