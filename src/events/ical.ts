import { getVtimezoneComponent } from '@touch4it/ical-timezones';
import ical, { type ICalCalendar, type ICalEvent, ICalEventStatus } from 'ical-generator';
import { DateTime } from 'luxon';
import type { Context } from '../core/context/scope.js';
import { type ApiError, invalidParams } from '../core/errors/errors.js';
import { canRead } from '../core/rules/permissions.js';
import { inIdOrder } from '../core/rules/ids.js';
import { permalink } from '../core/rules/urls.js';
import { wallClock } from '../core/rules/dates.js';
import { assertReadable, contentWithheld, judged, passwordHides } from '../core/rules/visibility.js';
import type { Prisma } from '../generated/sqlite/client.js';
import {
  type EventListFilter,
  type EventListOptions,
  radiusName,
  resolveEventQuery,
} from './service/events-query.js';
import { nearestEventIds } from './service/events-geo.js';
import { nextTurn } from '../core/db/turns.js';
import { DECLARED_NAMES, declaration } from './model/event-fields.js';

// iCalendar (RFC 5545) feeds. A feed is the event list under another representation: the same
// filter resolution (`resolveEventQuery`: defaults, visibility, statuses) and the same withholding of
// password-protected content, so a feed never shows what the JSON list would not.

/** Events a feed holds by default, and the most `limit` may ask for. */
export const FEED_DEFAULT_LIMIT = 500;
export const FEED_MAX_LIMIT = 5000;

const feedInclude = {
  image: true,
  venues: { orderBy: { position: 'asc' }, include: { venue: true } },
  organizers: { orderBy: { position: 'asc' }, include: { organizer: true } },
  terms: { orderBy: { position: 'asc' }, include: { term: true } },
} as const satisfies Prisma.EventInclude;

type FeedEvent = Prisma.EventGetPayload<{ include: typeof feedInclude }>;

/**
 * Events read in full per query, with a turn of the event loop between two: Prisma binds every parent
 * id of an ordered relation (venues, terms) in one statement, and SQLite takes at most 999 of them.
 */
const FEED_BATCH = 200;

/** These events, in this order, with what the feed shows of them. */
async function feedEvents(ctx: Context, ids: number[]): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  for (let start = 0; start < ids.length; start += FEED_BATCH) {
    if (start > 0) await nextTurn();
    const batch = ids.slice(start, start + FEED_BATCH);
    events.push(...(await ctx.db.event.findMany({ where: { id: { in: batch } }, include: feedInclude })));
  }
  return inIdOrder(ids, events);
}

export interface Feed {
  calendar: string;
  filename: string;
}

function invalidLimit(): ApiError {
  return invalidParams({ limit: `Invalid parameter: an integer between 1 and ${FEED_MAX_LIMIT}.` });
}

/** The events of a list query (in list order) as one calendar. */
export async function eventsFeed(
  ctx: Context,
  filter: EventListFilter,
  limit: number | null | undefined,
  options: EventListOptions & { password?: string | null; expand?: boolean | null },
): Promise<Feed> {
  const take = limit ?? FEED_DEFAULT_LIMIT;
  if (!Number.isInteger(take) || take < 1 || take > FEED_MAX_LIMIT) throw invalidLimit();
  const query = await resolveEventQuery(ctx, filter, options);
  // Geo lists: nearest first, as the JSON list orders them.
  const ids = query.distances
    ? (await nearestEventIds(ctx, query, radiusName(options))).slice(0, take)
    : (
        await ctx.db.event.findMany({
          where: query.where,
          orderBy: query.orderBy,
          take,
          select: { id: true },
        })
      ).map((event) => event.id);
  const events = await feedEvents(ctx, ids);
  const password = options.password ?? null;
  return {
    calendar: await renderCalendar(
      ctx,
      options.expand ? events.map((event) => ({ event })) : await asSeries(ctx, events),
      password,
    ),
    filename: 'events.ics',
  };
}

/** One readable event as a calendar (403/404 exactly as the JSON single-event routes). */
export async function eventFeed(
  ctx: Context,
  where: { id: number } | { slug: string },
  password: string | null | undefined,
): Promise<Feed> {
  const key = 'id' in where ? where.id : where.slug;
  const event = assertReadable(
    'event',
    await ctx.db.event.findUnique({ where, include: feedInclude }),
    key,
    ctx.viewer,
    password,
  );
  return {
    calendar: await renderCalendar(ctx, [{ event, series: seriesLinesOf(event) }], password ?? null),
    filename: `${event.slug ?? `event-${event.id}`}.ics`,
  };
}

/** `webcal://` form of a feed address, which calendar applications open as a subscription. */
export function webcalUrl(httpUrl: string): string {
  return httpUrl.replace(/^https?:\/\//, 'webcal://');
}

/** Plain text for DESCRIPTION: tags dropped, block ends as line breaks, entities decoded. */
function plainText(html: string): string {
  return html
    .replace(/<\s*br\s*\/?>/gi, '\n')
    .replace(/<\/\s*(p|div|li|h[1-6])\s*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const zoneKnown = new Map<string, boolean>();

/** The TZID to write for an event zone, or null when no VTIMEZONE can be generated for it. */
function icalZone(zone: string): string | null {
  // The generator's name for UTC is Etc/UTC (a bare "UTC" would be written as floating time).
  const name = zone === 'UTC' ? 'Etc/UTC' : zone;
  let known = zoneKnown.get(name);
  if (known === undefined) {
    known = Boolean(getVtimezoneComponent(name));
    zoneKnown.set(name, known);
  }
  return known ? name : null;
}

function dateOnly(wall: string): string {
  return wall.slice(0, 10);
}

/** Events rendered between two turns of the event loop: a feed of thousands never holds it long. */
const RENDER_BATCH = 100;

/**
 * The calendar as text. ical-generator writes each event; the calendar around them is written here,
 * and the lines folded here, because ical-generator folds the whole text one character at a time
 * through a new TextEncoder each (a 500-event feed spent ~350 ms of blocked event loop in it).
 */
async function renderCalendar(ctx: Context, events: FeedEntry[], password: string | null): Promise<string> {
  const siteZone = ctx.config.siteTimezone;
  const host = new URL(ctx.urls.site).hostname;
  const name = `${host} events`;
  const calendar = ical({
    name,
    prodId: { company: host, product: 'calendar-service', language: 'EN' },
    // No calendar-wide zone: each event names its own, and one VTIMEZONE (with its DST rules) is
    // written for every zone used.
    timezone: { name: null },
  });
  const parts = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    foldLines(`PRODID:-//${host}//calendar-service//EN`),
    foldLines(`NAME:${name}`),
    foldLines(`X-WR-CALNAME:${name}`),
  ];
  const zones = new Set<string>();
  const rendered: string[] = [];
  for (const [index, { event, series }] of events.entries()) {
    if (index > 0 && index % RENDER_BATCH === 0) await nextTurn();
    const [entry, conference] = calendarEvent(ctx, calendar, host, event, password, series);
    const zone = entry.timezone();
    if (zone) zones.add(zone);
    rendered.push(foldLines(withLines(entry.toString(), [...(series?.lines ?? []), ...conference])));
  }
  for (const zone of zones) {
    const component = getVtimezoneComponent(zone);
    if (component) parts.push(foldLines(component.replace(/\r?\n/g, '\r\n').trim()));
  }
  parts.push(...rendered, `X-WR-TIMEZONE:${siteZone}`, 'END:VCALENDAR');
  return parts.map((part) => part.replace(/\r\n$/, '')).join('\r\n');
}

/**
 * Content lines folded at 75 octets (RFC 5545 §3.1): 74 octets of content per line, a continuation
 * starting with one space, never inside a character — the folding ical-generator does, in one pass.
 */
export function foldLines(text: string): string {
  return text
    .split('\r\n')
    .map((line) => {
      // Printable ASCII: one octet per character.
      if (/^[\x20-\x7e]*$/.test(line))
        return line.length <= 74 ? line : line.match(/.{1,74}/g)!.join('\r\n ');
      let folded = '';
      let octets = 0;
      for (const char of line) {
        const code = char.codePointAt(0)!;
        const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
        octets += size;
        if (octets > 74) {
          folded += '\r\n ';
          octets = size;
        }
        folded += char;
      }
      return folded;
    })
    .join('\r\n');
}

// ---- Series (docs/reference/recurrence.md) -----------------------------------------------------------

/** What a VEVENT says of its series: the UID it shares and its lines (RRULE…, or RECURRENCE-ID). */
interface SeriesPart {
  uid?: number;
  lines: string[];
}

interface FeedEntry {
  event: FeedEvent;
  series?: SeriesPart;
}

/** `YYYYMMDDTHHMMSS` of a wall clock `YYYY-MM-DD HH:MM:SS`. */
const icsWall = (wall: string) => wall.replace(/[-:]/g, '').replace(' ', 'T');

/** A first event's RRULE/RDATE/EXDATE lines; nothing for any other event. */
function seriesLinesOf(event: FeedEvent): SeriesPart | undefined {
  if (event.recurrence === null || event.originalStart !== null) return undefined;
  return { lines: event.recurrence.split('\n') };
}

/** An exception's RECURRENCE-ID: its slot, as its series' DTSTART is written. */
function recurrenceId(event: FeedEvent & { originalStart: Date }): string {
  if (event.allDay)
    return `RECURRENCE-ID;VALUE=DATE:${icsWall(wallClock(event.originalStart, event.timezone)).slice(0, 8)}`;
  const zone = icalZone(event.timezone);
  if (!zone) return `RECURRENCE-ID:${icsWall(wallClock(event.originalStart, 'UTC'))}Z`;
  return `RECURRENCE-ID;TZID=${zone}:${icsWall(wallClock(event.originalStart, zone))}`;
}

/**
 * A list as series: each series once, as its first event with its lines (fetched when the list holds
 * only later occurrences), and its exceptions with RECURRENCE-ID; its regular occurrences are what the
 * lines give, so they are not repeated. An occurrence whose first event the viewer may not read stays
 * a plain event.
 */
async function asSeries(ctx: Context, events: FeedEvent[]): Promise<FeedEntry[]> {
  const listed = new Set(events.map((event) => event.id));
  const missing = [
    ...new Set(
      events.flatMap((event) =>
        event.originalStart !== null && event.postParentId !== null && !listed.has(event.postParentId)
          ? [event.postParentId]
          : [],
      ),
    ),
  ];
  const firsts = new Map(
    (await feedEvents(ctx, missing))
      .filter((first) => canRead(ctx.viewer, first) && first.status !== 'trash')
      .map((first) => [first.id, first]),
  );
  for (const event of events) if (seriesLinesOf(event)) firsts.set(event.id, event);
  const entries: FeedEntry[] = [];
  const shown = new Set<number>();
  for (const event of events) {
    const parent = event.originalStart !== null ? event.postParentId : null;
    if (parent === null || !firsts.has(parent)) {
      if (!shown.has(event.id)) entries.push({ event, series: seriesLinesOf(event) });
      shown.add(event.id);
      continue;
    }
    if (!shown.has(parent)) {
      const first = firsts.get(parent)!;
      entries.push({ event: first, series: seriesLinesOf(first) });
      shown.add(parent);
    }
    if (event.isException)
      entries.push({
        event,
        series: { uid: parent, lines: [recurrenceId(event as FeedEvent & { originalStart: Date })] },
      });
  }
  return entries;
}

/** Content lines added at the end of a VEVENT (properties ical-generator does not write). */
function withLines(vevent: string, lines: string[]): string {
  if (!lines.length) return vevent;
  const end = vevent.lastIndexOf('END:VEVENT');
  return `${vevent.slice(0, end)}${lines.map((line) => `${line}\r\n`).join('')}${vevent.slice(end)}`;
}

/** A TEXT value escaped as RFC 5545 §3.3.11 says (a URI is written as it is). */
const icalText = (text: string) => text.replace(/[\\;,]/g, (char) => `\\${char}`).replace(/\r?\n/g, '\\n');

/** The content lines of the declared fields an event's entry carries (`ical` of their declarations). */
function declaredLines(event: FeedEvent): string[] {
  return DECLARED_NAMES.flatMap((name) => {
    const field = declaration(name);
    const value = event[name];
    if (!field.ical || value === '' || value === false || !(field.ical.carried?.(event) ?? true)) return [];
    const params = field.ical.params ? `;${field.ical.params}` : '';
    return [`${field.ical.property}${params}:${field.kind === 'url' ? value : icalText(String(value))}`];
  });
}

/**
 * One event of the calendar: its times in its own zone, its content unless withheld; with the lines
 * to add to it (the declared fields' properties, an online event's URL as RFC 7986's CONFERENCE).
 */
function calendarEvent(
  ctx: Context,
  calendar: ICalCalendar,
  host: string,
  event: FeedEvent,
  password: string | null,
  series?: SeriesPart,
): [ICalEvent, string[]] {
  const withheld = contentWithheld(judged(event, ctx.viewer, password));
  // The UID names the record, not its times, so a calendar updates (rather than duplicates) the
  // entry when the event moves; SEQUENCE is the stored revision, one more with every update. An
  // exception of a series has its series' UID and says which instance it replaces (RECURRENCE-ID).
  const url = permalink(ctx.urls, 'event', event);
  const entry = calendar.createEvent({
    id: `${series?.uid ?? event.id}@${host}`,
    sequence: event.revision,
    stamp: event.modifiedAt,
    created: event.publishedAt,
    lastModified: event.modifiedAt,
    summary: event.title,
    url,
    start: event.startsAt,
  });
  // Only a canceled event gets a STATUS: RFC 5545 has no "postponed" (TENTATIVE would say the listed
  // time may still hold, CANCELLED makes clients drop an entry that will come back with new dates).
  if (event.eventStatus === 'canceled') entry.status(ICalEventStatus.CANCELLED);
  if (event.allDay) {
    // VALUE=DATE with an exclusive end: the day after the last day.
    const last = DateTime.fromISO(dateOnly(event.localEnd), { zone: 'UTC' });
    entry.allDay(true);
    entry.timezone(null);
    entry.start(dateOnly(event.localStart));
    entry.end(last.plus({ days: 1 }).toISODate() as string);
  } else {
    const zone = icalZone(event.timezone);
    // Zoned times as wall clocks with TZID; a zone without tz data (a fixed offset) as UTC instants.
    entry.timezone(zone);
    entry.start(zone ? DateTime.fromJSDate(event.startsAt, { zone }) : event.startsAt);
    entry.end(zone ? DateTime.fromJSDate(event.endsAt, { zone }) : event.endsAt);
  }
  if (withheld) return [entry, []];
  if (event.description) {
    entry.description({ plain: plainText(event.description), html: event.description });
  }
  const venue = event.venues
    .map((link) => link.venue)
    .find((v) => canRead(ctx.viewer, v) && !passwordHides(ctx.viewer, v));
  const onlineUrl = event.attendanceMode !== 'offline' ? event.onlineUrl : '';
  // Without a venue, the URL is where it takes place (clients that ignore CONFERENCE show LOCATION).
  if (!venue && onlineUrl) entry.location({ title: onlineUrl });
  if (venue) {
    const address = [venue.address, venue.city, venue.stateprovince || venue.state || venue.province]
      .concat([venue.zip, venue.country])
      .filter(Boolean)
      .join(', ');
    entry.location({
      title: venue.name,
      address: address || undefined,
      geo:
        venue.geoLat !== null && venue.geoLng !== null ? { lat: venue.geoLat, lon: venue.geoLng } : undefined,
    });
  }
  const organizer = event.organizers
    .map((link) => link.organizer)
    .find((o) => canRead(ctx.viewer, o) && !passwordHides(ctx.viewer, o));
  // ORGANIZER is a cal-address: an organizer without an e-mail address is left out.
  if (organizer?.email) entry.organizer({ name: organizer.name, email: organizer.email });
  const categories = event.terms
    .map((link) => link.term)
    .filter((term) => term.taxonomy === 'tribe_events_cat');
  if (categories.length) entry.categories(categories.map((term) => ({ name: term.name })));
  if (event.image) entry.attachments([event.image.url]);
  return [entry, declaredLines(event)];
}
