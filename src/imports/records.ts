import type { DeclaredInput } from '../events/model/event-fields.js';
import { createHash } from 'node:crypto';
import type { LinkedPostInput } from '../places/service/linked-posts.js';
import type { OrganizerInput } from '../places/service/organizers.js';
import type { VenueInput } from '../places/service/venues.js';

// What every reader (TEC REST, iCalendar, CSV) turns its source into: records in the domain's words,
// each with its source key and where it was read (a page and item, a line, a row), handed over in
// batches whose `checkpoint` a resumed run starts after. The engine (`engine.ts`) writes them.

export type ImportKind = 'category' | 'tag' | 'venue' | 'organizer' | 'event';

/**
 * A link to another record: by its source key (a record of this import), else by name (a venue,
 * organizer or term matched by name as the services match them, or created with `fields`).
 */
export interface LinkSpec {
  key?: string;
  name?: string;
  fields?: Record<string, string>;
}

export interface TermFields {
  name: string;
  description: string;
  slug?: string;
  /** The parent category's source key. */
  parent?: string | null;
}

/**
 * A venue or organizer as a source gives it: the service's own input, named, with an image as a URL
 * (kept as a URL, never downloaded), without what only a local editor sets.
 */
type LinkedFields<Input extends LinkedPostInput> = Omit<
  Input,
  'name' | 'image' | 'authorId' | 'date' | 'dateUtc' | 'password'
> & { name: string; image?: string };

export type VenueFields = LinkedFields<VenueInput>;
export type OrganizerFields = LinkedFields<OrganizerInput>;

export interface EventFields {
  title: string;
  description: string;
  excerpt?: string;
  status?: string;
  /** Wall clock `YYYY-MM-DD HH:mm:ss` in `timezone`. */
  start: string;
  end: string;
  timezone: string;
  allDay: boolean;
  cost?: string;
  website?: string;
  /** The declared fields (`events/model/event-fields.ts`) the source gives; each absent one is written as its default. */
  declared: DeclaredInput;
  /**
   * Password-protected at the source, whose API never shows the password: protected here with one of
   * its own (generated once, kept by later runs). Left out (not `false`) when not protected.
   */
  passwordProtected?: true;
  eventStatus?: string;
  image?: string;
  venues: LinkSpec[];
  organizers: LinkSpec[];
  categories: LinkSpec[];
  tags: LinkSpec[];
  /**
   * A series' first event: its RRULE/RDATE/EXDATE lines (the source's, with what the reader adds: a
   * cancelled instance's EXDATE, the RDATEs of TEC's occurrences). The series service makes the rest.
   */
  recurrence?: string[];
  /** An occurrence of a series of the same source: matched to the occurrence made here at its slot. */
  occurrence?: OccurrenceSpec;
}

/**
 * Where an occurrence sits in its series: the series' first event (its source key) and its slot (the
 * original start the series gives it: an iCalendar RECURRENCE-ID, a TEC occurrence's start). An
 * exception (content of its own) is written to that occurrence alone; another one is only matched.
 */
export interface OccurrenceSpec {
  series: string;
  /** ISO instant. */
  slot: string;
  exception: boolean;
}

/** An iCalendar entry's version: a later one updates, an older copy of a feed does not. */
export interface SourceVersion {
  sequence?: number;
  lastModified?: string;
}

interface Base<K extends ImportKind, F> {
  kind: K;
  key: string;
  /** Where the record was read, for reports: `line 42`, `row 7`, `events page 3, item 12`. */
  where: string;
  fields: F;
  version?: SourceVersion;
  /** No mapping yet: adopt a local event with the same title and start (TEC's CSV importer does). */
  matchTitleAndStart?: boolean;
}

export type SourceRecord =
  | Base<'category' | 'tag', TermFields>
  | Base<'venue', VenueFields>
  | Base<'organizer', OrganizerFields>
  | Base<'event', EventFields>;

/** Bad input: what, and where in the source. Never aborts a run. */
export interface Problem {
  where: string;
  key?: string;
  message: string;
  /** The record was still written (a line skipped, a link left out). */
  warning?: true;
}

export interface Batch {
  /** Names this batch; a run resumed after it starts with the next one. */
  checkpoint: string;
  records: SourceRecord[];
  problems: Problem[];
  /** The records the source says it has in all, when it says (progress). */
  total?: number;
}

export interface Reader {
  /** The source's identity in the mapping table (`tec:<api root>`, `ics:<location>`, `csv:<file>`). */
  source: string;
  /** The batches after `after` (a checkpoint of a previous run), or all. */
  read(after: string | null): AsyncIterable<Batch>;
}

/** JSON with keys sorted and absent values left out: the same content always hashes the same. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (!inner || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    const entries = Object.entries(inner as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

export function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}
