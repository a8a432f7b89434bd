import type { Db } from '../../db/client.js';
import { isApiError } from '../../domain/errors.js';
import type { Taxonomy } from '../../domain/urls.js';
import type { EventInput, LinkRef, TermRef } from '../events/event-input.js';
import { createEvent, updateEvent } from '../events/event-writes.js';
import { writeLinked } from '../linked-posts/linked-posts.js';
import { type OrganizerInput, createOrMatchOrganizer, updateOrganizer } from '../linked-posts/organizers.js';
import { type VenueInput, createOrMatchVenue, updateVenue } from '../linked-posts/venues.js';
import type { Scope } from '../scope.js';
import { createTerm, updateTerm } from '../terms/terms.js';
import {
  type RunOptions,
  type Tx,
  type WriteRequest,
  WritePipeline,
  type WriteScope,
} from '../transactions.js';
import { localHash } from './local-state.js';
import type {
  EventFields,
  ImportKind,
  LinkSpec,
  OrganizerFields,
  SourceRecord,
  TermFields,
  VenueFields,
} from './records.js';

// An imported record is written by the service that writes that kind for every API (events, venues and
// organizers, terms), so validation, permissions, the change log, the cache and webhooks see an
// ordinary write. Its mapping row is written inside that same transaction: a run killed at any point
// leaves each record either written and mapped, or untouched.

/** What the mapping row of a record says after the write. */
export interface MappingValues {
  source: string;
  kind: ImportKind;
  sourceKey: string;
  sourceHash: string;
  sourceData: string;
  sourceVersion: string;
}

/** The pipeline of `inner`, with `after` run inside each write's transaction once the write is done. */
class MappedWrites extends WritePipeline {
  constructor(
    private readonly pipeline: WritePipeline,
    private readonly onWritten: (w: WriteScope, result: unknown) => Promise<void>,
  ) {
    super();
  }

  override run<T>(request: WriteRequest, work: (scope: WriteScope) => Promise<T>, options?: RunOptions) {
    return this.pipeline.run(
      request,
      async (w) => {
        const result = await work(w);
        await this.onWritten(w, result);
        return result;
      },
      options,
    );
  }
}

export async function saveMapping(db: Db | Tx, values: MappingValues, localId: number): Promise<void> {
  const hash = (await localHash(db, values.kind, localId)) ?? '';
  const { source, kind, sourceKey, ...rest } = values;
  await db.importRecord.upsert({
    where: { source_kind_sourceKey: { source, kind, sourceKey } },
    create: { ...values, localId, localHash: hash },
    update: { ...rest, localId, localHash: hash, importedAt: new Date() },
  });
}

/** The scope whose writes also save the mapping of the record they wrote (`idOf` finds its id). */
function mappedScope(scope: Scope, values: MappingValues, idOf: (result: unknown) => number): Scope {
  const writes = new MappedWrites(scope.writes, (w, result) => saveMapping(w.tx, values, idOf(result)));
  return { ...scope, writes };
}

const idField = (result: unknown) => (result as { id: number }).id;
const linkedRecordId = (result: unknown) => (result as { record: { id: number } }).record.id;

/** The local ids of this source's records, by key. */
export async function mappedIds(
  db: Db,
  source: string,
  kind: ImportKind,
  keys: readonly string[],
): Promise<Map<string, number>> {
  if (!keys.length) return new Map();
  const rows = await db.importRecord.findMany({
    where: { source, kind, sourceKey: { in: [...new Set(keys)] } },
    select: { sourceKey: true, localId: true },
  });
  return new Map(rows.map((row) => [row.sourceKey, row.localId]));
}

/** A link the import could not make (its target was not imported, and it has no name to match). */
export class UnresolvedLinks {
  readonly missing: string[] = [];
}

/** Links of an event, by the local ids of its source's records, else by name. */
async function eventLinks(db: Db, source: string, fields: EventFields, unresolved: UnresolvedLinks) {
  const keysOf = (specs: LinkSpec[]) => specs.flatMap((spec) => (spec.key ? [spec.key] : []));
  const [venues, organizers, categories, tags, parents] = await Promise.all([
    mappedIds(db, source, 'venue', keysOf(fields.venues)),
    mappedIds(db, source, 'organizer', keysOf(fields.organizers)),
    mappedIds(db, source, 'category', keysOf(fields.categories)),
    mappedIds(db, source, 'tag', keysOf(fields.tags)),
    mappedIds(db, source, 'event', fields.parent ? [fields.parent] : []),
  ]);
  const linked = <New>(kind: string, specs: LinkSpec[], ids: Map<string, number>) =>
    specs.flatMap((spec): Array<LinkRef<New>> => {
      const id = spec.key ? ids.get(spec.key) : undefined;
      if (id !== undefined) return [{ kind: 'id', id, inObject: false }];
      if (spec.name)
        return [{ kind: 'new', input: { ...spec.fields, name: spec.name } as New, unreadable: [] }];
      unresolved.missing.push(`${kind} ${spec.key}`);
      return [];
    });
  const terms = (kind: string, specs: LinkSpec[], ids: Map<string, number>) =>
    specs.flatMap((spec): TermRef[] => {
      const id = spec.key ? ids.get(spec.key) : undefined;
      if (id !== undefined) return [{ kind: 'id', id }];
      if (spec.name) return [{ kind: 'name', name: spec.name }];
      unresolved.missing.push(`${kind} ${spec.key}`);
      return [];
    });
  const parentId = fields.parent ? parents.get(fields.parent) : undefined;
  if (fields.parent && parentId === undefined) unresolved.missing.push(`parent event ${fields.parent}`);
  return {
    venues: linked<VenueInput>('venue', fields.venues, venues),
    organizers: linked<OrganizerInput>('organizer', fields.organizers, organizers),
    categories: terms('category', fields.categories, categories),
    tags: terms('tag', fields.tags, tags),
    postParentId: parentId ?? null,
  };
}

/** The event write an imported event makes: every field it has, so an update leaves nothing behind. */
async function eventInput(db: Db, source: string, f: EventFields, unresolved: UnresolvedLinks) {
  const input: EventInput = {
    title: f.title,
    description: f.description,
    excerpt: f.excerpt ?? '',
    ...(f.status ? { status: f.status } : {}),
    timezone: f.timezone,
    startDate: f.start,
    endDate: f.end,
    allDay: f.allDay,
    cost: f.cost ?? '',
    website: f.website ?? '',
    showMap: f.showMap ?? false,
    showMapLink: f.showMapLink ?? false,
    hideFromListings: f.hideFromListings ?? false,
    sticky: f.sticky ?? false,
    featured: f.featured ?? false,
    eventStatus: f.eventStatus ?? 'scheduled',
    image: f.image ?? '',
    ...(await eventLinks(db, source, f, unresolved)),
  };
  return input;
}

const eventRow = (tx: Tx, id: number) =>
  tx.event.findUniqueOrThrow({
    where: { id },
    select: { id: true, status: true, password: true, authorId: true },
  });

function venueInput(f: VenueFields): VenueInput {
  return { ...f, image: f.image ?? '' };
}

function organizerInput(f: OrganizerFields): OrganizerInput {
  return { ...f, image: f.image ?? '' };
}

const TAXONOMY: Record<'category' | 'tag', Taxonomy> = { category: 'tribe_events_cat', tag: 'post_tag' };

async function termInput(db: Db, source: string, f: TermFields, unresolved: UnresolvedLinks) {
  const parents = await mappedIds(db, source, 'category', f.parent ? [f.parent] : []);
  const parentId = f.parent ? parents.get(f.parent) : undefined;
  if (f.parent && parentId === undefined) unresolved.missing.push(`parent category ${f.parent}`);
  // A term's description is never blank (the services refuse one): an empty one is left out.
  return {
    name: f.name,
    ...(f.description.trim() ? { description: f.description } : {}),
    parentId: parentId ?? null,
  };
}

/**
 * Writes a record new to this source (or whose local record is gone); returns the local id. A venue,
 * organizer or term of the same name (the services' duplicate rules) is adopted rather than doubled.
 */
export async function createRecord(
  scope: Scope,
  record: SourceRecord,
  values: MappingValues,
  unresolved: UnresolvedLinks,
): Promise<number> {
  const { db } = scope;
  switch (record.kind) {
    case 'event': {
      const input = await eventInput(db, values.source, record.fields, unresolved);
      return (await createEvent(mappedScope(scope, values, idField), input, eventRow)).id;
    }
    case 'venue': {
      const mapped = mappedScope(scope, values, linkedRecordId);
      const made = await writeLinked(mapped, 'venue', (w) =>
        createOrMatchVenue(w, venueInput(record.fields)),
      );
      return made.record.id;
    }
    case 'organizer': {
      const mapped = mappedScope(scope, values, linkedRecordId);
      const input = organizerInput(record.fields);
      const made = await writeLinked(mapped, 'organizer', (w) => createOrMatchOrganizer(w, input));
      return made.record.id;
    }
    case 'category':
    case 'tag': {
      const input = await termInput(db, values.source, record.fields, unresolved);
      const taxonomy = TAXONOMY[record.kind];
      try {
        const read = (_tx: Tx, id: number) => Promise.resolve({ id });
        return (await createTerm(mappedScope(scope, values, idField), taxonomy, input, read)).id;
      } catch (error) {
        // The same name (among its siblings) exists here: that term is the source's.
        if (!isApiError(error) || error.code !== 'term_exists') throw error;
        const id = Number(error.data.term_id);
        await saveMapping(db, values, id);
        return id;
      }
    }
  }
}

/** Writes the source's version of a record over its local one. */
export async function updateRecord(
  scope: Scope,
  record: SourceRecord,
  localId: number,
  values: MappingValues,
  unresolved: UnresolvedLinks,
): Promise<void> {
  const { db } = scope;
  switch (record.kind) {
    case 'event': {
      const input = await eventInput(db, values.source, record.fields, unresolved);
      await updateEvent(mappedScope(scope, values, idField), { id: localId }, input, eventRow);
      return;
    }
    case 'venue': {
      const mapped = mappedScope(scope, values, idField);
      await writeLinked(mapped, 'venue', (w) => updateVenue(w, { id: localId }, venueInput(record.fields)));
      return;
    }
    case 'organizer': {
      const mapped = mappedScope(scope, values, idField);
      const input = organizerInput(record.fields);
      await writeLinked(mapped, 'organizer', (w) => updateOrganizer(w, { id: localId }, input));
      return;
    }
    case 'category':
    case 'tag': {
      const input = await termInput(db, values.source, record.fields, unresolved);
      const read = (_tx: Tx, id: number) => Promise.resolve({ id });
      await updateTerm(mappedScope(scope, values, idField), TAXONOMY[record.kind], localId, input, read);
      return;
    }
  }
}

/** A local event with this title and start (TEC's CSV importer updates such an event). */
export async function eventWithTitleAndStart(db: Db, fields: EventFields): Promise<number | null> {
  const found = await db.event.findFirst({
    where: { title: fields.title, localStart: fields.start, status: { not: 'trash' } },
    select: { id: true },
    orderBy: { id: 'asc' },
  });
  return found?.id ?? null;
}
