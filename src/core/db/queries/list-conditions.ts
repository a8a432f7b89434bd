import type { Config } from '../../config/config.js';
import type { Db } from '../client.js';
import type { Prisma } from '../../../generated/sqlite/client.js';

// A list's conditions: what each always means (its Prisma `where`, which a standing filter such as a
// subscription's keeps), and how one read may answer it more cheaply than by asking it of every event
// of the list's date window.
// - An index that names the events meeting it (SQLite's trigram index of the texts, for `search`): the
//   read names them (`id IN (…)`), and SQLite reads those events by rowid. The names hold when they are
//   read and only then, so every read asks the index again (`conditionsNow`), a cached page's total
//   counted again after a write included.
// - A link to one record (one venue, organizer or term): on SQLite the list's total is counted over
//   that record's links (`countingLink`), each of its events linked to it once; the planner then
//   starts from whichever of the link's index and the window holds fewer entries, which a correlated
//   `EXISTS` (how Prisma writes a `some` filter) never lets it do.

/**
 * What every event list holds at most (REST and GraphQL lists and their totals, feeds, the event
 * subscriptions not naming ids): the events listed — not hidden from listings, and not a series' first
 * event whose set excludes its own start, which holds the series without happening then
 * (docs/guide/series.md). Both columns are in every list index: a total is still counted from index
 * entries alone.
 */
export const LISTED = {
  hideFromListings: false,
  startExcluded: false,
} as const satisfies Prisma.EventWhereInput;

/**
 * More events than this and a filter keeps its own condition: a statement binds at most 32,766 values
 * on SQLite (`sqliteBindLimit`), the list's other filters up to ~600 (100 values each), and naming more
 * costs about what testing the window's rows does.
 */
export const MAX_NAMED_EVENTS = 8192;

/**
 * The ids as a statement names them: the last repeated (the same condition) up to a length of four
 * significant bits (…, 1024, 1152, …, 1920, 2048, 2304, …), so that lists of any length share ~8
 * statement texts a doubling, which the connection keeps prepared, and a statement binds at most an
 * eighth more values than it names (each value of each statement costs 1–2 µs, most of it in Prisma's client).
 */
export function namedIds(ids: readonly number[]): number[] {
  const step = 2 ** Math.max(0, Math.floor(Math.log2(Math.max(ids.length, 1))) - 3);
  const length = Math.ceil(ids.length / step) * step;
  return Array.from({ length }, (_, i) => ids[Math.min(i, ids.length - 1)]!);
}

/**
 * On SQLite, a statement selecting (as `id`) the events that meet a condition, from an index, and
 * the part of the condition it does not answer, which those events must still meet.
 */
interface IndexedSelect {
  sql: string;
  values: readonly unknown[];
  rest?: Prisma.EventWhereInput;
  /**
   * How many events naming is worth for this condition (default and at most `MAX_NAMED_EVENTS`). A read
   * names what its indexed conditions find together when one of them is worth it at that number (a
   * search, whose `LIKE` costs more than any naming); past every limit, each keeps its condition.
   */
  limit?: number;
}

/** A list's condition: what it always means, and the index that answers it for one read. */
export interface ListCondition {
  where: Prisma.EventWhereInput;
  indexed?: IndexedSelect;
  /** A link filter's table and the records it names. */
  link?: { link: EventLink; ids: readonly number[] };
}

/**
 * The conditions as one read applies them: every indexed one answered by one statement (the
 * intersection of their selects) naming the events (`id IN`), with what they must still meet; the
 * others as they are. Past `MAX_NAMED_EVENTS` events found, each keeps its own condition.
 */
export async function conditionsNow(
  db: Db,
  conditions: readonly ListCondition[],
): Promise<Prisma.EventWhereInput[]> {
  const indexed = conditions.flatMap((condition) => (condition.indexed ? [condition.indexed] : []));
  const limit = Math.min(
    MAX_NAMED_EVENTS,
    Math.max(...indexed.map((select) => select.limit ?? MAX_NAMED_EVENTS)),
  );
  const found = indexed.length
    ? await db.$queryRawUnsafe<Array<{ id: number | bigint }>>(
        `${indexed.map((select) => select.sql).join(' INTERSECT ')} LIMIT ${limit + 1}`,
        ...indexed.flatMap((select) => select.values),
      )
    : null;
  if (!found || found.length > limit) return conditions.map((condition) => condition.where);
  return [
    { id: { in: namedIds(found.map((row) => Number(row.id))) } },
    ...conditions.flatMap(({ where, indexed }) => (!indexed ? [where] : indexed.rest ? [indexed.rest] : [])),
  ];
}

/** The tables linking events to the records a filter names: the relation, its model and the key. */
export const EVENT_LINKS = {
  venues: { relation: 'venues', model: 'eventVenue', table: 'EventVenue', key: 'venueId' },
  organizers: {
    relation: 'organizers',
    model: 'eventOrganizer',
    table: 'EventOrganizer',
    key: 'organizerId',
  },
  terms: { relation: 'terms', model: 'eventTerm', table: 'EventTerm', key: 'termId' },
} as const;

type EventLink = (typeof EVENT_LINKS)[keyof typeof EVENT_LINKS];

/**
 * Linked events a read names at most (`linkCondition` on SQLite): past it, the window's events are tested in list order,
 * and they meet the condition often enough to fill a page early. Naming costs 1–2 µs a value in
 * Prisma's client; testing, ~0.5 µs an event of the window (6,000 in the default one at 10,000 events).
 */
const MAX_NAMED_LINKED = 256;

/**
 * The events linked to one of `ids`: the relation's `some`, and the link the total may count over.
 * Given the provider, on SQLite a read names the linked events from the link's index (`indexed`), when they are
 * few. Prisma writes `some` as a correlated `EXISTS`, which SQLite tests on the window's events in list
 * order until the page is full: every event of the window when the records hold few of them (3.3 ms
 * for a venue of 30 events in a window of 6,000; named, 0.03 ms). For venues and organizers, which hold
 * few events each; a category holds a quarter of the calendar.
 */
export function linkCondition(
  link: EventLink,
  ids: readonly number[],
  provider?: Config['databaseProvider'],
): ListCondition {
  const where = { [link.relation]: { some: { [link.key]: { in: [...ids] } } } } as Prisma.EventWhereInput;
  if (provider !== 'sqlite') return { where, link: { link, ids } };
  const sql = `SELECT "eventId" AS id FROM "${link.table}" WHERE "${link.key}" IN (${ids.map(() => '?').join(', ')})`;
  return { where, link: { link, ids }, indexed: { sql, values: [...ids], limit: MAX_NAMED_LINKED } };
}

/** A link to one record the list's total may be counted over, and the condition it comes from. */
export interface CountingLink {
  link: EventLink;
  id: number;
  condition: ListCondition;
  /** Start from the links whatever the planner guesses (`countEventsWhere`). */
  linksFirst: boolean;
}

/**
 * A link to one record among `conditions`, over which a count of the events meeting the others is
 * exact (an event is linked to a record at most once): the first of a venue, an organizer, a term
 * (the likeliest to hold few events first). Null when every link names several records, and on
 * PostgreSQL, whose planner already starts from the links when they are fewer (measured: no faster).
 */
export function countingLink(
  conditions: readonly ListCondition[],
  provider: Config['databaseProvider'],
  linksFirst: boolean,
): CountingLink | null {
  if (provider !== 'sqlite') return null;
  for (const link of Object.values(EVENT_LINKS)) {
    const condition = conditions.find((c) => c.link?.link === link && c.link.ids.length === 1);
    if (condition) return { link, id: condition.link!.ids[0]!, condition, linksFirst };
  }
  return null;
}

/**
 * The events meeting `where` (and, counted `through` a link, linked to its record), counted over
 * that record's links when there is one.
 */
export function countEventsWhere(
  db: Db,
  where: Prisma.EventWhereInput,
  through: Pick<CountingLink, 'link' | 'id' | 'linksFirst'> | null,
): Promise<number> {
  if (!through) return db.event.count({ where });
  const links = db[through.link.model] as unknown as {
    count(args: { where: Record<string, unknown> }): Promise<number>;
  };
  // Prisma joins the event to its link (`LEFT JOIN`) and SQLite may reorder the join once the
  // condition rejects a missing event. "Not an event failing it" accepts one (a link always has its
  // event: the count is the same), so the join keeps its order and the links are read first.
  const event = through.linksFirst ? { isNot: { NOT: where } } : where;
  return links.count({ where: { [through.link.key]: through.id, event } });
}
