import { randomBytes } from 'node:crypto';
import type { Db } from '../core/db/client.js';
import { isApiError } from '../core/errors/errors.js';
import {
  type DeclaredInput,
  DECLARED_NAMES,
  columnDefault,
  declaration,
  namesOnSeries,
} from '../events/model/event-fields.js';
import type { Taxonomy } from '../core/rules/urls.js';
import type { EventInput, LinkRef, TermRef } from '../events/service/event-input.js';
import { createEvent, updateEvent } from '../events/service/event-writes.js';
import { writeLinked } from '../places/service/linked-posts.js';
import {
  type OrganizerInput,
  createOrMatchOrganizer,
  updateOrganizer,
} from '../places/service/organizers.js';
import { type VenueInput, createOrMatchVenue, updateVenue } from '../places/service/venues.js';
import type { Scope } from '../core/context/scope.js';
import { createTerm, updateTerm } from '../terms/terms.js';
import {
  type RunOptions,
  type Tx,
  type WriteRequest,
  WritePipeline,
  type WriteScope,
} from '../core/db/transactions.js';
import { localHash } from './local-state.js';
import type {
  EventFields,
  ImportKind,
  LinkSpec,
  OccurrenceSpec,
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

/** What runs around a write inside its transaction: before it, then (the returned function) after it. */
type AroundWrite = (w: WriteScope) => Promise<(result: unknown) => Promise<void>>;

/** The pipeline of `inner`, with `around` run inside each write's transaction. */
class MappedWrites extends WritePipeline {
  constructor(
    private readonly pipeline: WritePipeline,
    private readonly around: AroundWrite,
  ) {
    super();
  }

  override run<T>(request: WriteRequest, work: (scope: WriteScope) => Promise<T>, options?: RunOptions) {
    return this.pipeline.run(
      request,
      async (w) => {
        const after = await this.around(w);
        const result = await work(w);
        await after(result);
        return result;
      },
      options,
    );
  }
}

async function saveMapping(db: Db | Tx, values: MappingValues, localId: number): Promise<void> {
  const hash = (await localHash(db, values.kind, localId)) ?? '';
  const { source, kind, sourceKey, ...rest } = values;
  await db.importRecord.upsert({
    where: { source_kind_sourceKey: { source, kind, sourceKey } },
    create: { ...values, localId, localHash: hash },
    update: { ...rest, localId, localHash: hash, importedAt: new Date() },
  });
}

/**
 * The scope whose writes also save the mapping of the record they wrote (`idOf` finds its id). A write to
 * a series' first event (`seriesOf`) changes its occurrences too: the mappings of this source's
 * occurrences that matched their rows before the write are moved to the rows after it, so the series'
 * own write never reads as an edit made here.
 */
function mappedScope(
  scope: Scope,
  values: MappingValues,
  idOf: (result: unknown) => number,
  seriesOf?: number,
): Scope {
  const writes = new MappedWrites(scope.writes, async (w) => {
    const members = seriesOf === undefined ? [] : await occurrenceMappings(w.tx, values.source, seriesOf);
    return async (result) => {
      await saveMapping(w.tx, values, idOf(result));
      await rebase(w.tx, members);
    };
  });
  return { ...scope, writes };
}

interface MemberMapping {
  id: number;
  localId: number;
  /** Whether the mapping's hash is its row's before the write (a row edited here stays edited). */
  matched: boolean;
}

/** This source's mappings of the occurrences of the series of `firstId`. */
async function occurrenceMappings(tx: Tx, source: string, firstId: number): Promise<MemberMapping[]> {
  const rows = await tx.event.findMany({
    where: { postParentId: firstId, originalStart: { not: null } },
    select: { id: true },
  });
  const members: MemberMapping[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_QUERY) {
    const ids = rows.slice(i, i + ROWS_PER_QUERY).map((row) => row.id);
    const mappings = await tx.importRecord.findMany({
      where: { source, kind: 'event', localId: { in: ids } },
      select: { id: true, localId: true, localHash: true },
    });
    for (const mapping of mappings)
      members.push({
        id: mapping.id,
        localId: mapping.localId,
        matched: mapping.localHash === (await localHash(tx, 'event', mapping.localId)),
      });
  }
  return members;
}

async function rebase(tx: Tx, members: readonly MemberMapping[]): Promise<void> {
  for (const member of members) {
    if (!member.matched) continue;
    const hash = await localHash(tx, 'event', member.localId);
    if (hash !== null) await tx.importRecord.update({ where: { id: member.id }, data: { localHash: hash } });
  }
}

const idField = (result: unknown) => (result as { id: number }).id;
const linkedRecordId = (result: unknown) => (result as { record: { id: number } }).record.id;

/** The local ids of this source's records, by key. */
async function mappedIds(
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
  const [venues, organizers, categories, tags] = await Promise.all([
    mappedIds(db, source, 'venue', keysOf(fields.venues)),
    mappedIds(db, source, 'organizer', keysOf(fields.organizers)),
    mappedIds(db, source, 'category', keysOf(fields.categories)),
    mappedIds(db, source, 'tag', keysOf(fields.tags)),
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
  return {
    venues: linked<VenueInput>('venue', fields.venues, venues),
    organizers: linked<OrganizerInput>('organizer', fields.organizers, organizers),
    categories: terms('category', fields.categories, categories),
    tags: terms('tag', fields.tags, tags),
  };
}

/**
 * The password of an imported event, given whether it has one here (`protectedHere`). The source never
 * shows its password: an event protected there gets a random one here once. A password here is never
 * touched by an import (so a second run changes nothing, a password set here stays, and an event the
 * source stops protecting stays protected here: the safe side, until someone removes it here).
 */
function passwordInput(f: EventFields, protectedHere: boolean): Pick<EventInput, 'password'> {
  if (f.occurrence || !f.passwordProtected || protectedHere) return {};
  return { password: randomBytes(18).toString('base64url') };
}

/**
 * The event write an imported event makes: every field it has, so an update leaves nothing behind; its
 * recurrence lines (none: not, or no longer, a series). An occurrence's write leaves out what its first
 * event decides for the whole series (lines, status, listing, password). `protectedHere`: the event
 * has a password here already.
 */
async function eventInput(
  db: Db,
  source: string,
  f: EventFields,
  unresolved: UnresolvedLinks,
  protectedHere = false,
) {
  const occurrence = f.occurrence !== undefined;
  const input: EventInput = {
    title: f.title,
    description: f.description,
    excerpt: f.excerpt ?? '',
    ...(f.status && !occurrence ? { status: f.status } : {}),
    timezone: f.timezone,
    startDate: f.start,
    endDate: f.end,
    allDay: f.allDay,
    cost: f.cost ?? '',
    website: f.website ?? '',
    ...declaredInput(f, occurrence),
    eventStatus: f.eventStatus ?? 'scheduled',
    image: f.image ?? '',
    ...(await eventLinks(db, source, f, unresolved)),
    ...(occurrence ? {} : { recurrence: f.recurrence?.length ? f.recurrence : null }),
    ...passwordInput(f, protectedHere),
  };
  return input;
}

/**
 * Every declared field, the source's value or its default (an update leaves nothing behind); an
 * occurrence's leaves out the series-wide ones, which its first event decides.
 */
function declaredInput(f: EventFields, occurrence: boolean): DeclaredInput {
  const wide = new Set<string>(namesOnSeries('series-wide'));
  return Object.fromEntries(
    DECLARED_NAMES.filter((name) => !(occurrence && wide.has(name))).map((name) => [
      name,
      f.declared[name] ?? columnDefault(declaration(name)),
    ]),
  );
}

/** Ids per `in (…)` list: under SQLite's bound variables. */
const ROWS_PER_QUERY = 500;

/**
 * The occurrence made here at the slot of a source's occurrence; a per-record problem when its series
 * was not imported (refused: past the caps) or has no occurrence there (not a slot of its rule, past
 * the horizon, the first event itself, cancelled here).
 */
async function occurrenceRow(db: Db, source: string, spec: OccurrenceSpec) {
  const firstId = (await mappedIds(db, source, 'event', [spec.series])).get(spec.series);
  if (firstId === undefined) throw new Error(`its series ${spec.series} was not imported`);
  const slot = new Date(spec.slot);
  const row = await db.event.findUnique({
    where: { postParentId_originalStart: { postParentId: firstId, originalStart: slot } },
    select: { id: true, isException: true, status: true },
  });
  if (row && row.status !== 'trash') return row;
  const first = await db.event.findUnique({ where: { id: firstId }, select: { startsAt: true } });
  throw new Error(
    row
      ? `the occurrence of ${spec.slot} was cancelled here`
      : first?.startsAt.getTime() === slot.getTime()
        ? `an override of the series' first occurrence (${spec.slot}): a write to the first event is one to the whole series, so it is not applied`
        : `its series has no occurrence at ${spec.slot} here (not a slot of its rule, or past the horizon)`,
  );
}

/**
 * An occurrence of a series: an exception (or an occurrence that was one) is written to that occurrence
 * alone (`scope: this`); the others are the series' own rows and are only mapped.
 */
async function writeOccurrence(
  scope: Scope,
  fields: EventFields,
  spec: OccurrenceSpec,
  values: MappingValues,
  unresolved: UnresolvedLinks,
): Promise<number> {
  const { db } = scope;
  const row = await occurrenceRow(db, values.source, spec);
  if (!spec.exception && !row.isException) {
    await saveMapping(db, values, row.id);
    return row.id;
  }
  const input = await eventInput(db, values.source, fields, unresolved);
  await updateEvent(mappedScope(scope, values, idField), { id: row.id }, input, eventRow, { scope: 'this' });
  return row.id;
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
      const { occurrence } = record.fields;
      if (occurrence) return writeOccurrence(scope, record.fields, occurrence, values, unresolved);
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
      const { occurrence } = record.fields;
      if (occurrence) {
        // By its slot, not by the mapped row: the series may have replaced that row since.
        await writeOccurrence(scope, record.fields, occurrence, values, unresolved);
        return;
      }
      const here = await db.event.findUnique({ where: { id: localId }, select: { password: true } });
      const input = await eventInput(db, values.source, record.fields, unresolved, Boolean(here?.password));
      await updateEvent(mappedScope(scope, values, idField, localId), { id: localId }, input, eventRow);
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
