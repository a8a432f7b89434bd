import { DateTime } from 'luxon';
import ical, { type VEvent } from 'node-ical';
import { isValidTimezone } from '../core/rules/dates.js';
import { declaredFromSource } from '../events/model/event-fields.js';
import { chunks } from '../events/series/series-batches.js';
import type { Batch, EventFields, LinkSpec, Problem, Reader, SourceRecord } from './records.js';

// An RFC 5545 feed (Google, Outlook, Meetup, TEC, this service) read with node-ical. The text is first
// cut into its VEVENTs with their line numbers, so that each is read (and reported) on its own: a
// malformed line or an unknown zone costs that entry, not the feed. Windows zone names become IANA ones
// (node-ical's table); a time without a zone is read in the feed's X-WR-TIMEZONE, else the site's.
// Keys: the UID, and the RECURRENCE-ID of an override; TEC's own feeds put the dates in the UID
// (`{postId}-{start}-{end}@host`), so those are keyed on the post id and a rescheduled event updates.

interface IcsOptions {
  /** The zone of times given without one when the feed names none. */
  siteTimezone: string;
  batchSize?: number;
}

interface Line {
  number: number;
  text: string;
}

interface Block {
  start: number;
  lines: Line[];
}

/** A content line: a name, parameters (quoted values may hold `:`), then `:` and the value. */
const CONTENT_LINE = /^[A-Za-z0-9-]+(?:;[A-Za-z0-9-]+=(?:"[^"]*"|[^";:,]*)(?:,(?:"[^"]*"|[^";:,]*))*)*:/;
/** TEC's UID of an event feed entry: the post id, then its start and end. */
const TEC_UID = /^(\d+)-\d+-\d+@(.+)$/;
const WALL = 'yyyy-MM-dd HH:mm:ss';
const MAX_TEXT = 200;

/** Physical lines unfolded into content lines, each with the number of its first physical line. */
function unfold(text: string): Line[] {
  const lines: Line[] = [];
  text.split(/\r\n|\n|\r/).forEach((raw, index) => {
    if ((raw.startsWith(' ') || raw.startsWith('\t')) && lines.length)
      lines[lines.length - 1]!.text += raw.slice(1);
    else if (raw.trim()) lines.push({ number: index + 1, text: raw });
  });
  return lines;
}

/** The calendar's own lines, its VTIMEZONEs and its VEVENTs. */
function split(lines: Line[]) {
  const header: string[] = [];
  const zones: string[] = [];
  const events: Block[] = [];
  let depth = 0;
  let current: Line[] | null = null;
  let kind = '';
  for (const line of lines) {
    const upper = line.text.toUpperCase();
    if (upper.startsWith('BEGIN:')) {
      depth++;
      if (depth === 2) {
        kind = upper.slice(6).trim();
        current = [];
      }
    }
    if (current) current.push(line);
    else if (depth === 1 && !upper.startsWith('BEGIN:')) header.push(line.text);
    if (upper.startsWith('END:')) {
      if (depth === 2 && current) {
        if (kind === 'VEVENT') events.push({ start: current[0]!.number, lines: current });
        else if (kind === 'VTIMEZONE') zones.push(current.map((l) => l.text).join('\r\n'));
        current = null;
      }
      depth--;
    }
  }
  return { header, zones, events };
}

const valueOf = (value: unknown): string =>
  value && typeof value === 'object' && 'val' in value
    ? String((value as { val: unknown }).val)
    : value == null
      ? ''
      : String(value);

/** A property's TZID parameter as the line gives it. */
function tzidOf(lines: Line[], name: string): string | null {
  const line = lines.find(
    (l) => l.text.toUpperCase().startsWith(`${name};`) || l.text.toUpperCase().startsWith(`${name}:`),
  );
  const match =
    line && /;TZID=("?)([^";:]+)\1/i.exec(line.text.slice(0, line.text.indexOf(':', name.length)));
  return match ? match[2]! : null;
}

/** The value of an entry's `name` property (its first line): a URI as written, a TEXT unescaped. */
function propertyOf(lines: Line[], name: string, uri: boolean): string | undefined {
  const line = lines.find(
    (l) => /^[;:]/.test(l.text.slice(name.length)) && l.text.toUpperCase().startsWith(name),
  );
  const head = line && CONTENT_LINE.exec(line.text);
  if (!line || !head) return undefined;
  const value = line.text.slice(head[0].length);
  return uri
    ? value.trim()
    : value.replace(/\\([\\;,nN])/g, (_, char: string) => (/n/i.test(char) ? '\n' : char));
}

type Dated = Date & { tz?: string; dateOnly?: boolean };

/** The wall clock of a date as node-ical read it, in `zone`. */
function wallClock(date: Dated, zone: string, floating: boolean): string {
  // Floating times and dates are built in the process's own zone: their local fields are the clock.
  if (floating || date.dateOnly)
    return DateTime.fromObject({
      year: date.getFullYear(),
      month: date.getMonth() + 1,
      day: date.getDate(),
      hour: date.getHours(),
      minute: date.getMinutes(),
      second: date.getSeconds(),
    }).toFormat(WALL);
  return DateTime.fromJSDate(date, { zone }).toFormat(WALL);
}

function zoneName(tz: string | undefined): string | null {
  if (!tz) return null;
  if (tz === 'Etc/UTC' || tz === 'Etc/GMT' || tz === 'Z' || tz === 'GMT') return 'UTC';
  return isValidTimezone(tz) ? tz : null;
}

function keyOf(uid: string): string {
  const tec = TEC_UID.exec(uid);
  return tec ? `${tec[1]}@${tec[2]}` : uid;
}

/** ORGANIZER;CN=Jane:mailto:jane@example.org → Jane (jane@example.org). */
function organizerOf(value: unknown): LinkSpec | null {
  if (!value) return null;
  const params =
    (typeof value === 'object' && 'params' in value
      ? (value as { params: Record<string, string> }).params
      : {}) ?? {};
  const address = valueOf(value).replace(/^mailto:/i, '');
  const name = (params.CN ?? '').replace(/^"|"$/g, '') || address;
  if (!name) return null;
  return { name: name.slice(0, MAX_TEXT), fields: address.includes('@') ? { email: address } : {} };
}

type EventRecord = Extract<SourceRecord, { kind: 'event' }>;

/** One VEVENT as read: its record (none when unreadable), its problems, and its place in a series. */
interface Entry {
  record?: EventRecord;
  problems: Problem[];
  /** The key of its series' first event (its own key for a first event). */
  series?: string;
  /** An entry with a RECURRENCE-ID: which instance it replaces, and whether it cancels it. */
  override?: { at: Dated; floating: boolean; cancelled: boolean };
}

/** A line's `TZID=<from>` as `TZID=<to>`. */
function withZone(line: string, from: string, to: string): string {
  const colon = line.indexOf(':');
  const params = line
    .slice(0, colon)
    .split(';')
    .map((param) =>
      /^TZID=/i.test(param) && param.slice(5).replace(/^"|"$/g, '') === from ? `TZID=${to}` : param,
    );
  return `${params.join(';')}${line.slice(colon)}`;
}

/**
 * The instant of the slot a RECURRENCE-ID names in its series: as given with a zone or in UTC; a
 * floating time on the series' wall clock; a date at the day's start in the series' zone (where an
 * all-day series' occurrences start).
 */
function slotOf(override: NonNullable<Entry['override']>, series: EventFields): DateTime {
  const { at } = override;
  if (!at.dateOnly && !override.floating) return DateTime.fromJSDate(at, { zone: 'UTC' });
  const wall = wallClock(at, series.timezone, true);
  return DateTime.fromFormat(at.dateOnly ? wall.slice(0, 10) : wall, at.dateOnly ? 'yyyy-MM-dd' : WALL, {
    zone: series.timezone,
  });
}

/**
 * An entry's RECURRENCE-ID entries become the exceptions of its series (matched to the occurrence made
 * here at that slot), written after the first events. A cancelled one is what deleting an occurrence is
 * here: an EXDATE of its series (the series service makes no row for it, and removes one made before).
 * An override of a series the feed does not give (or of an event without lines) stays a plain event.
 */
function seriesOf(read: Entry[]): { entries: Entry[]; overrides: Entry[] } {
  const firsts = new Map<string, EventRecord>();
  for (const entry of read)
    if (entry.record && !entry.override && entry.record.fields.recurrence?.length)
      firsts.set(entry.record.key, entry.record);
  const entries: Entry[] = [];
  const overrides: Entry[] = [];
  for (const entry of read) {
    const first = entry.series === undefined ? undefined : firsts.get(entry.series);
    if (!entry.record || !entry.override || !first) {
      entries.push(entry);
      continue;
    }
    const series = first.fields;
    const slot = slotOf(entry.override, series);
    if (entry.override.cancelled) {
      series.recurrence = [
        ...(series.recurrence ?? []),
        series.allDay
          ? `EXDATE;VALUE=DATE:${slot.setZone(series.timezone).toFormat('yyyyMMdd')}`
          : `EXDATE:${slot.toUTC().toFormat("yyyyMMdd'T'HHmmss'Z'")}`,
      ];
      // Its problems stay in the report, with the first event's batch.
      entries.push({ problems: entry.problems });
      continue;
    }
    entry.record.fields.occurrence = { series: first.key, slot: slot.toUTC().toISO()!, exception: true };
    overrides.push(entry);
  }
  return { entries, overrides };
}

export class IcsReader implements Reader {
  readonly source: string;

  constructor(
    location: string,
    private readonly text: string,
    private readonly options: IcsOptions,
  ) {
    this.source = `ics:${location}`;
  }

  async *read(after: string | null): AsyncIterable<Batch> {
    const { header, zones, events } = split(unfold(this.text));
    const calendarZone =
      header
        .map((l) => /^X-WR-TIMEZONE:(.+)$/i.exec(l)?.[1]?.trim())
        .find((zone) => zone && isValidTimezone(zone)) ?? this.options.siteTimezone;
    const size = this.options.batchSize ?? 100;
    const { entries, overrides } = seriesOf(events.map((block) => this.event(block, zones, calendarZone)));
    // The overrides after every other entry, in batches of their own: each series' first event is
    // written (and its occurrences made) before its overrides are matched to them.
    const batches = [...chunks(entries, size), ...chunks(overrides, size)];
    const skip = after ? Number(after.replace(/^ics:/, '')) : 0;
    for (let batch = skip; batch < batches.length; batch++) {
      const read = batches[batch]!;
      yield {
        checkpoint: `ics:${batch + 1}`,
        records: read.flatMap((entry) => (entry.record ? [entry.record] : [])),
        problems: read.flatMap((entry) => entry.problems),
        total: events.length,
      };
    }
  }

  private event(block: Block, zones: string[], calendarZone: string): Entry {
    const where = `line ${block.start}`;
    const problems: Problem[] = [];
    const good = block.lines.filter((line) => {
      const ok = /^(BEGIN|END):/i.test(line.text) || CONTENT_LINE.test(line.text);
      if (!ok)
        problems.push({
          where: `line ${line.number}`,
          message: `malformed line skipped: ${line.text.slice(0, 60)}`,
          warning: true,
        });
      return ok;
    });
    let vevent: VEvent | undefined;
    try {
      const text = [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        ...zones,
        ...good.map((l) => l.text),
        'END:VCALENDAR',
      ].join('\r\n');
      const parsed = ical.sync.parseICS(text);
      vevent = Object.values(parsed).find((c): c is VEvent => c?.type === 'VEVENT');
    } catch (error) {
      problems.push({
        where,
        message: `unreadable entry: ${error instanceof Error ? error.message : String(error)}`,
      });
      return { problems };
    }
    if (!vevent?.uid || !vevent.start) {
      problems.push({
        where,
        message: vevent ? 'an entry without UID or DTSTART' : 'an entry node-ical could not read',
      });
      return { problems };
    }
    const start = vevent.start as Dated;
    const rawZone = tzidOf(good, 'DTSTART');
    const zone = zoneName(start.tz) ?? (start.tz || rawZone ? null : calendarZone);
    if (!zone || Number.isNaN(start.getTime())) {
      problems.push({
        where,
        key: vevent.uid,
        message: `unknown time zone ${rawZone ?? start.tz ?? ''}`.trim(),
      });
      return { problems };
    }
    // UTC times in a feed that names its zone (Google's) are shown in that zone.
    const eventZone = zone === 'UTC' && !start.dateOnly ? calendarZone : zone;
    const floating =
      !start.tz && !start.dateOnly && !/Z$/i.test(good.find((l) => /^DTSTART[;:]/i.test(l.text))?.text ?? '');
    const allDay = Boolean(start.dateOnly);
    const endDate = (vevent.end as Dated | undefined) ?? start;
    let end = wallClock(endDate, eventZone, floating);
    if (allDay) {
      // DTEND of a whole-day entry is the day after its last day.
      const last = DateTime.fromFormat(end, WALL).minus({ days: endDate === start ? 0 : 1 });
      end = `${last.toFormat('yyyy-MM-dd')} 23:59:59`;
    }
    const recurrenceId = vevent.recurrenceid as Dated | undefined;
    const key = keyOf(vevent.uid) + (recurrenceId ? `#${recurrenceId.toISOString()}` : '');
    // The lines' TZID is DTSTART's as the feed spells it (a Windows name): the zone it was read as.
    const recurrence = good
      .filter((l) => /^(RRULE|RDATE|EXDATE)[;:]/i.test(l.text))
      .map((l) => (rawZone && zone !== rawZone ? withZone(l.text, rawZone, zone) : l.text));
    // The declared fields with an iCalendar property (`ical`), read as iCalendar writes them.
    const declared = declaredFromSource(
      (_name, field) =>
        field.ical ? propertyOf(good, field.ical.property, field.kind === 'url') : undefined,
      { flag: (value) => String(value).toUpperCase() === 'TRUE', text: String },
    );
    // A LOCATION that is the entry's CONFERENCE (this service's feeds write one for clients that ignore
    // CONFERENCE) names no place; an entry joined online is online, or mixed with a place as well.
    const spelled = valueOf(vevent.location).trim();
    const location = spelled === declared.onlineUrl ? '' : spelled;
    if (declared.onlineUrl) declared.attendanceMode ??= location ? 'mixed' : 'online';
    const organizer = organizerOf(vevent.organizer);
    const categories = (Array.isArray(vevent.categories) ? vevent.categories : [])
      .map((name) => String(name).trim())
      .filter(Boolean);
    const url = valueOf(vevent.url).trim();
    const fields: EventFields = {
      title: valueOf(vevent.summary).trim() || '(no title)',
      description: valueOf(vevent.description),
      start: wallClock(start, eventZone, floating),
      end,
      timezone: eventZone,
      allDay,
      website: /^https?:\/\//i.test(url) ? url : '',
      declared,
      eventStatus: String(vevent.status ?? '').toUpperCase() === 'CANCELLED' ? 'canceled' : 'scheduled',
      venues: location ? [{ name: location.slice(0, MAX_TEXT) }] : [],
      organizers: organizer ? [organizer] : [],
      categories: categories.map((name) => ({ name })),
      tags: [],
      ...(recurrence.length ? { recurrence } : {}),
    };
    const lastModified = vevent.lastmodified as Date | undefined;
    const record: EventRecord = {
      kind: 'event',
      key,
      where,
      fields,
      version: {
        ...(typeof vevent.sequence === 'number' || typeof vevent.sequence === 'string'
          ? { sequence: Number(vevent.sequence) }
          : {}),
        ...(lastModified && !Number.isNaN(lastModified.getTime())
          ? { lastModified: lastModified.toISOString() }
          : {}),
      },
    };
    const cancelled = fields.eventStatus === 'canceled';
    if (!recurrenceId) return { record, problems, series: key };
    const ridLine = good.find((l) => /^RECURRENCE-ID[;:]/i.test(l.text))?.text ?? '';
    const override = { at: recurrenceId, floating: !recurrenceId.tz && !/Z$/i.test(ridLine), cancelled };
    return { record, problems, series: keyOf(vevent.uid), override };
  }
}
