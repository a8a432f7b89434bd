import type { RowRewrite } from '../../cache/response-cache.js';
import { type Dependencies, recordTag } from '../../cache/dependencies.js';
import { recordsShown } from './records-shown.js';
import { countsShown } from './shown-counts.js';
import { isRecord } from '../envelope.js';

// The rows of a REST event list as the cache can render them again: the list's `events`, each an
// event in its list representation. A write to one event that leaves the list around it as it was
// (who is in it, their order, the total: the answer's window judges those) keeps the answer cached,
// and its next read renders that event again through the same route (`include`, which lists the
// events it names in that same representation) and puts it where the old row was. The answer is
// JSON as `JSON.stringify` wrote it, so parsing and writing it again gives the same bytes around the
// new rows. A row showing a record or a count the answer does not depend on (a category linked since
// that no other row shows) is not rendered in place: the answer is recomputed, with its new
// dependencies. A venue or organizer linked since is: an event list depends on every one of them.

/** Reads these events' rows as the answer's route lists them now (null: the route refused). */
export type RowReader = (events: readonly number[]) => Promise<unknown[] | null>;

/** The events a list answer shows as its rows, in order; none when the answer is no event list. */
export function shownRows(value: unknown): number[] {
  const rows = isRecord(value) && Array.isArray(value.events) ? value.events : [];
  return rows.map(idOf).filter((id): id is number => id !== undefined);
}

/**
 * How an answer showing the rows of `shownRows` renders them again. `reader` names what `read` returns:
 * the same for every answer of one route in one language (their rows are listed for the same anonymous
 * viewer), so that the answers one write made stale share one read of its rows. `holds`: what `read`
 * keeps alive.
 */
export function rowRewrite(read: RowReader, reader: string, holds: unknown): RowRewrite {
  return {
    holds,
    reader,
    read,
    fit(items, events, dependencies) {
      if (!items) return null;
      const rows = new Map<number, unknown>();
      for (const item of items) {
        const id = idOf(item);
        if (id !== undefined && events.includes(id)) rows.set(id, item);
      }
      if (rows.size !== new Set(events).size) return null;
      for (const [id, row] of rows) if (!dependsOnAll(id, row, dependencies)) return null;
      return (body) => {
        const answer: unknown = JSON.parse(body.toString('utf8'));
        if (!isRecord(answer) || !Array.isArray(answer.events)) return null;
        const replaced = new Set<number>();
        answer.events = answer.events.map((row: unknown) => {
          const id = idOf(row);
          const now = id === undefined ? undefined : rows.get(id);
          if (now === undefined) return row;
          replaced.add(id!);
          return now;
        });
        return replaced.size === rows.size ? Buffer.from(JSON.stringify(answer)) : null;
      };
    },
  };
}

/**
 * Whether everything `row` shows is something the answer already depends on (its own event aside): a
 * record it shows or a family it depends on whole (an event list, on every venue and organizer).
 */
function dependsOnAll(id: number, row: unknown, dependencies: Dependencies): boolean {
  const counts = countsShown(JSON.stringify(row));
  const known = new Set(dependencies.counts ?? []);
  if (!counts.every((term) => known.has(term))) return false;
  const rewritten = new Set(counts.map((term) => recordTag('term-count', term)));
  const records = new Set(dependencies.records);
  const families = new Set<string>(dependencies.kinds);
  const own = recordTag('event', id);
  return recordsShown(row).every(
    (tag) => tag === own || rewritten.has(tag) || records.has(tag) || families.has(familyOf(tag)),
  );
}

/** The family a record tag's kind belongs to (`venue:3` → `venue`); only these name their family. */
const familyOf = (tag: string): string => {
  const kind = tag.slice(0, tag.indexOf(':'));
  return kind === 'venue' || kind === 'organizer' || kind === 'term' ? kind : '';
};

function idOf(row: unknown): number | undefined {
  return isRecord(row) && typeof row.id === 'number' ? row.id : undefined;
}
