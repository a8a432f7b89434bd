import { DateTime } from 'luxon';
import { isApiError } from '../core/errors/errors.js';
import { isValidTimezone } from '../core/rules/dates.js';
import { deleteEvent } from '../events/service/event-writes.js';
import type { Scope } from '../core/context/scope.js';
import { localHash } from './local-state.js';
import type { Problem, SourceRecord } from './records.js';

// A feed read again in full mirrors its events here: an event imported from it before that it no
// longer lists, and whose start lies in the period the feed covers, goes to the trash (through the
// event writes, like every import write). The period is the feed's X-CLIPSTART/X-CLIPEND where given,
// else its earliest to its latest start: an event outside it may simply have left the feed's window.
// The mapping row stays, marked `VANISHED`, so that the event comes back (restored) if the feed lists
// it again.

/** The `sourceHash` of a mapping whose event the import trashed because the feed no longer lists it. */
export const VANISHED = 'vanished';

/** Instants; `end` excluded. */
interface Period {
  start: Date;
  end: Date;
}

/** The bounds an iCalendar feed declares (either may be missing). */
export interface Clip {
  start: Date | null;
  end: Date | null;
}

const WALL = 'yyyy-MM-dd HH:mm:ss';
const CLIP_VALUE = /^(\d{8})(?:T(\d{6})(Z?))?$/i;
const CHUNK = 500;

/** X-CLIPSTART/X-CLIPEND of the calendar (not of an entry), read in their TZID, else the feed's zone. */
export function clipOf(text: string, siteTimezone: string): Clip {
  const header: string[] = [];
  for (const line of text.replace(/\r?\n[ \t]/g, '').split(/\r?\n|\r/)) {
    if (/^BEGIN:/i.test(line) && !/^BEGIN:VCALENDAR/i.test(line)) break;
    header.push(line);
  }
  const feedZone =
    header
      .map((line) => /^X-WR-TIMEZONE:(.+)$/i.exec(line)?.[1]?.trim())
      .find((zone) => zone && isValidTimezone(zone)) ?? siteTimezone;
  const bound = (name: string): Date | null => {
    const line = header.find((l) => new RegExp(`^${name}[;:]`, 'i').test(l));
    if (!line) return null;
    const colon = line.indexOf(':');
    const zoneParam = /;TZID=("?)([^";:]+)\1/i.exec(line.slice(0, colon))?.[2];
    const match = CLIP_VALUE.exec(line.slice(colon + 1).trim());
    if (!match) return null;
    const [, day, time = '000000', utc] = match;
    const zone = utc ? 'UTC' : zoneParam && isValidTimezone(zoneParam) ? zoneParam : feedZone;
    const parsed = DateTime.fromFormat(`${day}${time}`, 'yyyyMMddHHmmss', { zone });
    return parsed.isValid ? parsed.toJSDate() : null;
  };
  return { start: bound('X-CLIPSTART'), end: bound('X-CLIPEND') };
}

/** What one full read of a feed listed: its keys and the span of its starts. */
export class FeedCoverage {
  private readonly seen = new Set<string>();
  private earliest: number | null = null;
  private latest: number | null = null;
  /** An entry that could not be read at all (no key): what it was is unknown, so nothing is trashed. */
  private unreadEntries = 0;

  constructor(private readonly clip: Clip) {}

  note(record: SourceRecord): void {
    this.seen.add(record.key);
    if (record.kind !== 'event') return;
    const start = DateTime.fromFormat(record.fields.start, WALL, { zone: record.fields.timezone });
    if (!start.isValid) return;
    const at = start.toMillis();
    this.earliest = Math.min(this.earliest ?? at, at);
    this.latest = Math.max(this.latest ?? at, at);
  }

  noteProblem(problem: Problem): void {
    if (problem.key) this.seen.add(problem.key);
    else if (!problem.warning) this.unreadEntries++;
  }

  get complete(): boolean {
    return this.unreadEntries === 0;
  }

  /** The period the feed covers; null when it says nothing about any (no bounds, no events). */
  period(): Period | null {
    const start = this.clip.start?.getTime() ?? this.earliest;
    const end = this.clip.end?.getTime() ?? (this.latest === null ? null : this.latest + 1);
    return start === null || end === null ? null : { start: new Date(start), end: new Date(end) };
  }

  /** Whether the feed still lists `key` (an override `uid#recurrence-id` goes with its series). */
  lists(key: string): boolean {
    const hash = key.indexOf('#');
    return this.seen.has(key) || (hash > 0 && this.seen.has(key.slice(0, hash)));
  }
}

/**
 * Trashes (or, in a dry run, counts) this source's events the feed no longer lists inside its period;
 * returns how many, and what could not be trashed.
 */
export async function trashVanished(
  scope: Scope,
  source: string,
  coverage: FeedCoverage,
  dryRun: boolean,
): Promise<{ trashed: number; problems: Problem[] }> {
  const period = coverage.period();
  if (!period) return { trashed: 0, problems: [] };
  if (!coverage.complete)
    return {
      trashed: 0,
      problems: [
        {
          where: 'feed',
          message: 'events gone from the feed were not trashed: some of its entries could not be read',
          warning: true,
        },
      ],
    };
  const { db } = scope;
  const mappings = await db.importRecord.findMany({
    where: { source, kind: 'event', sourceHash: { not: VANISHED } },
    select: { sourceKey: true, localId: true },
    orderBy: { localId: 'asc' },
  });
  const gone = mappings.filter((mapping) => !coverage.lists(mapping.sourceKey));
  const problems: Problem[] = [];
  let trashed = 0;
  for (let index = 0; index < gone.length; index += CHUNK) {
    const chunk = gone.slice(index, index + CHUNK);
    const inPeriod = await db.event.findMany({
      where: {
        id: { in: chunk.map((mapping) => mapping.localId) },
        status: { not: 'trash' },
        startsAt: { gte: period.start, lt: period.end },
      },
      select: { id: true },
      orderBy: { id: 'asc' },
    });
    const keyOf = new Map(chunk.map((mapping) => [mapping.localId, mapping.sourceKey]));
    for (const { id } of inPeriod) {
      const sourceKey = keyOf.get(id)!;
      if (dryRun) {
        trashed++;
        continue;
      }
      try {
        // The mapping is marked inside the trash's own transaction (the loader runs there), and keeps
        // the trashed event's hash: the trash is the import's doing, not an edit made here.
        await deleteEvent(scope, { id }, false, async (tx, eventId) => {
          await tx.importRecord.update({
            where: { source_kind_sourceKey: { source, kind: 'event', sourceKey } },
            data: { sourceHash: VANISHED, localHash: (await localHash(tx, 'event', eventId)) ?? '' },
          });
          return tx.event.findUniqueOrThrow({
            where: { id: eventId },
            select: { status: true, password: true, authorId: true },
          });
        });
        trashed++;
      } catch (error) {
        // Trashed with its series a moment ago (an override of a series that vanished too).
        if (isApiError(error) && (error.status === 410 || error.status === 404)) continue;
        problems.push({
          where: 'feed',
          key: sourceKey,
          message: `not trashed: ${error instanceof Error ? error.message : String(error)}`,
        });
      }
    }
  }
  return { trashed, problems };
}
