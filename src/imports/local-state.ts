import type { Db } from '../core/db/client.js';
import type { Tx } from '../core/db/transactions.js';
import { type ImportKind, hashOf, stableJson } from './records.js';

// The local record as an import compares it: its content, without what moves by itself (versions,
// counts of events, the UTC instants derived from the wall clock). The mapping keeps this hash as the
// import left the record; a different hash later means someone edited it here.

const TERM_TAXONOMY = { category: 'tribe_events_cat', tag: 'post_tag' } as const;

/** The record's content hash, or null when it no longer exists. */
export async function localHash(db: Db | Tx, kind: ImportKind, id: number): Promise<string | null> {
  const content = await localContent(db, kind, id);
  return content === null ? null : hashOf(stableJson(content));
}

async function localContent(db: Db | Tx, kind: ImportKind, id: number): Promise<unknown> {
  switch (kind) {
    case 'event': {
      const event = await db.event.findUnique({
        where: { id },
        omit: { modifiedAt: true, revision: true, startsAt: true, endsAt: true },
        include: {
          venues: { select: { venueId: true }, orderBy: { position: 'asc' } },
          organizers: { select: { organizerId: true }, orderBy: { position: 'asc' } },
          terms: { select: { termId: true }, orderBy: { termId: 'asc' } },
        },
      });
      return event ?? null;
    }
    case 'venue':
      return (await db.venue.findUnique({ where: { id }, omit: { modifiedAt: true } })) ?? null;
    case 'organizer':
      return (await db.organizer.findUnique({ where: { id }, omit: { modifiedAt: true } })) ?? null;
    case 'category':
    case 'tag':
      return (
        (await db.term.findFirst({
          where: { id, taxonomy: TERM_TAXONOMY[kind] },
          omit: { eventCount: true },
        })) ?? null
      );
  }
}
