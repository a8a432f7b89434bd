import { isApiError } from '../core/errors/errors.js';
import { groupLabel } from '../core/db/write-groups.js';
import { IMPORT_RUN_GROUP } from '../sync/webhook-groups.js';
import type { Scope } from '../core/context/scope.js';
import { localHash } from './local-state.js';
import {
  type Batch,
  type ImportKind,
  type Problem,
  type Reader,
  type SourceRecord,
  type SourceVersion,
  hashOf,
  stableJson,
} from './records.js';
import {
  type MappingValues,
  UnresolvedLinks,
  createRecord,
  eventWithTitleAndStart,
  updateRecord,
} from './writes.js';
import { type Clip, FeedCoverage, VANISHED, trashVanished } from './vanished.js';
import { BULK_ROWS, refreshStatistics } from '../core/db/statistics.js';

// One import run: each record of each batch is matched by its source key in the mapping table and then
// created, updated, left alone (unchanged, or an older copy), or held back by the conflict policy when
// it was edited here since it was imported. After each batch the run's checkpoint and counts are saved,
// so `resume` goes on after the last batch written. A dry run reads and decides the same way and writes
// nothing at all. A full read of an iCalendar feed also trashes what the feed no longer lists
// (`vanished.ts`), and brings such an event back when the feed lists it again.

export const CONFLICT_POLICIES = ['overwrite', 'retain', 'preserve-changes'] as const;
export type ConflictPolicy = (typeof CONFLICT_POLICIES)[number];

interface ImportOptions {
  dryRun?: boolean;
  /**
   * A record changed at the source and edited here since its import: `overwrite` writes the source's
   * version, `preserve-changes` leaves it and reports it; `retain` never updates a record once imported.
   */
  conflict?: ConflictPolicy;
  /** Go on from the checkpoint of this source's last unfinished run. */
  resume?: boolean;
  /** The subscription the run is for. */
  sourceId?: number;
  /**
   * The text is a whole feed (iCalendar) with these declared bounds: on a read from its start, the
   * events imported from it before that it no longer lists inside the period it covers are trashed.
   */
  mirror?: Clip;
  onProgress?: (progress: Progress) => void;
}

export interface Progress {
  done: number;
  total: number | null;
  checkpoint: string;
}

interface Counts {
  created: number;
  updated: number;
  unchanged: number;
  conflicts: number;
  retained: number;
  failed: number;
  /** Events gone from a feed inside the period it covers (trashed; counted only in a dry run). */
  trashed: number;
}

/** One field that differs between the source's last import and now. */
export interface Difference {
  kind: ImportKind;
  key: string;
  field: string;
  before: unknown;
  after: unknown;
}

export interface ImportSummary extends Counts {
  source: string;
  dryRun: boolean;
  conflict: ConflictPolicy;
  /** The run's id (null for a dry run, which records nothing). */
  runId: number | null;
  resumedAfter: string | null;
  records: number;
  seconds: number;
  /** Bad input and failed writes, first ones only. */
  problems: Problem[];
  /** Records edited here and changed at the source, first ones only. */
  conflictList: Array<{ kind: ImportKind; key: string; localId: number; where: string }>;
  differences: Difference[];
}

const LISTED = 50;
const DIFFERENCES = 20;
const EMPTY: Counts = {
  created: 0,
  updated: 0,
  unchanged: 0,
  conflicts: 0,
  retained: 0,
  failed: 0,
  trashed: 0,
};

type Decision =
  | { action: 'create' }
  | { action: 'update'; localId: number; conflict: boolean; restore?: true }
  | { action: 'unchanged' | 'retained'; localId: number }
  | { action: 'conflict'; localId: number };

interface Mapped {
  localId: number;
  sourceHash: string;
  sourceData: string;
  sourceVersion: string;
  localHash: string;
}

/** Whether `incoming` is an older copy than what was imported (a lower SEQUENCE, an earlier LAST-MODIFIED). */
function isOlder(incoming: SourceVersion | undefined, stored: string): boolean {
  if (!incoming || !stored) return false;
  const previous = JSON.parse(stored) as SourceVersion;
  if (
    incoming.sequence !== undefined &&
    previous.sequence !== undefined &&
    incoming.sequence !== previous.sequence
  )
    return incoming.sequence < previous.sequence;
  if (incoming.lastModified && previous.lastModified) return incoming.lastModified < previous.lastModified;
  return false;
}

function differences(record: SourceRecord, before: string): Difference[] {
  const previous = (before ? JSON.parse(before) : {}) as Record<string, unknown>;
  const now = JSON.parse(stableJson(record.fields)) as Record<string, unknown>;
  const fields = [...new Set([...Object.keys(previous), ...Object.keys(now)])].sort();
  return fields
    .filter((field) => stableJson(previous[field]) !== stableJson(now[field]))
    .map((field) => ({
      kind: record.kind,
      key: record.key,
      field,
      before: previous[field],
      after: now[field],
    }));
}

function reason(error: unknown): string {
  if (isApiError(error)) {
    const params = error.data.params;
    const named =
      params && typeof params === 'object' && !Array.isArray(params)
        ? ` (${Object.entries(params as Record<string, string>)
            .map(([name, why]) => `${name}: ${why}`)
            .join('; ')})`
        : '';
    return `${error.message}${named}`;
  }
  return error instanceof Error ? error.message : String(error);
}

class ImportRun {
  private readonly counts: Counts;
  private readonly summary: ImportSummary;
  private readonly policy: ConflictPolicy;
  private done = 0;
  /** What a full read of a feed listed (null unless the run mirrors one from its start). */
  private readonly coverage: FeedCoverage | null;

  private constructor(
    private readonly scope: Scope,
    private readonly reader: Reader,
    private readonly options: ImportOptions,
    private readonly runId: number | null,
    private readonly after: string | null,
    previous: Partial<ImportSummary>,
  ) {
    this.policy = options.conflict ?? 'overwrite';
    this.coverage = options.mirror && after === null ? new FeedCoverage(options.mirror) : null;
    this.counts = { ...EMPTY };
    for (const name of Object.keys(EMPTY) as Array<keyof Counts>) this.counts[name] = previous[name] ?? 0;
    this.summary = {
      ...this.counts,
      source: reader.source,
      dryRun: options.dryRun ?? false,
      conflict: this.policy,
      runId,
      resumedAfter: after,
      records: previous.records ?? 0,
      seconds: 0,
      problems: previous.problems ?? [],
      conflictList: previous.conflictList ?? [],
      differences: [],
    };
    // One group for the run's writes: webhooks deliver them as summaries, not one per record.
    if (runId !== null)
      this.scope = { ...scope, writes: scope.writes.grouped(groupLabel(IMPORT_RUN_GROUP, runId)) };
  }

  /** Opens a run (or, with `resume`, the source's last unfinished one). A dry run records nothing. */
  static async open(scope: Scope, reader: Reader, options: ImportOptions): Promise<ImportRun> {
    const { db } = scope;
    if (options.dryRun) return new ImportRun(scope, reader, options, null, null, {});
    if (options.resume) {
      const last = await db.importRun.findFirst({
        where: { source: reader.source },
        orderBy: { id: 'desc' },
      });
      // Only a run this engine left unfinished (a feed that could not be fetched wrote nothing).
      if (last && (last.state === 'running' || last.state === 'failed')) {
        await db.importRun.update({ where: { id: last.id }, data: { state: 'running' } });
        const previous = JSON.parse(last.summary) as Partial<ImportSummary>;
        return new ImportRun(scope, reader, options, last.id, last.checkpoint || null, previous);
      }
    }
    const run = await db.importRun.create({
      data: {
        source: reader.source,
        sourceId: options.sourceId ?? null,
        options: JSON.stringify({ conflict: options.conflict ?? 'overwrite' }),
      },
    });
    return new ImportRun(scope, reader, options, run.id, null, {});
  }

  async execute(): Promise<ImportSummary> {
    const started = performance.now();
    let checkpoint = this.after ?? '';
    try {
      for await (const batch of this.reader.read(this.after)) {
        await this.apply(batch);
        checkpoint = batch.checkpoint;
        await this.save(checkpoint, 'running');
      }
      if (this.coverage) {
        const vanished = await trashVanished(
          this.scope,
          this.reader.source,
          this.coverage,
          this.options.dryRun ?? false,
        );
        this.counts.trashed += vanished.trashed;
        this.counts.failed += vanished.problems.filter((problem) => !problem.warning).length;
        for (const problem of vanished.problems) this.problem(problem);
      }
    } catch (error) {
      await this.save(checkpoint, 'failed');
      throw error;
    }
    this.summary.seconds = Math.round((performance.now() - started) / 10) / 100;
    await this.save(checkpoint, 'done');
    if (!this.options.dryRun && this.counts.created + this.counts.updated >= BULK_ROWS)
      await refreshStatistics(this.scope.db, this.scope.config.databaseProvider);
    return this.result();
  }

  private result(): ImportSummary {
    return { ...this.summary, ...this.counts };
  }

  private async save(checkpoint: string, state: string) {
    if (this.runId === null) return;
    await this.scope.db.importRun.update({
      where: { id: this.runId },
      data: {
        checkpoint,
        state,
        summary: JSON.stringify({ ...this.result(), differences: undefined }),
        ...(state === 'running' ? {} : { finishedAt: new Date() }),
      },
    });
  }

  private problem(problem: Problem) {
    if (this.summary.problems.length < LISTED) this.summary.problems.push(problem);
  }

  private async apply(batch: Batch) {
    for (const problem of batch.problems) {
      if (!problem.warning) this.counts.failed++;
      this.problem(problem);
      this.coverage?.noteProblem(problem);
    }
    for (const record of batch.records) this.coverage?.note(record);
    const mapped = await this.mappings(batch.records);
    for (const record of batch.records) {
      await this.applyRecord(record, mapped.get(`${record.kind}\n${record.key}`) ?? null);
      this.done++;
      this.summary.records++;
      this.options.onProgress?.({
        done: this.done,
        total: batch.total ?? null,
        checkpoint: batch.checkpoint,
      });
    }
  }

  private async mappings(records: SourceRecord[]): Promise<Map<string, Mapped>> {
    if (!records.length) return new Map();
    const rows = await this.scope.db.importRecord.findMany({
      where: {
        source: this.reader.source,
        OR: [...new Set(records.map((r) => r.kind))].map((kind) => ({
          kind,
          sourceKey: { in: records.filter((r) => r.kind === kind).map((r) => r.key) },
        })),
      },
    });
    return new Map(rows.map((row) => [`${row.kind}\n${row.sourceKey}`, row]));
  }

  private async decide(record: SourceRecord, mapped: Mapped | null, hash: string): Promise<Decision> {
    if (!mapped) {
      if (record.kind === 'event' && record.matchTitleAndStart) {
        const adopted = await eventWithTitleAndStart(this.scope.db, record.fields);
        if (adopted !== null) return { action: 'update', localId: adopted, conflict: false };
      }
      return { action: 'create' };
    }
    const current = await localHash(this.scope.db, record.kind, mapped.localId);
    // Deleted here: the source brings it back.
    if (current === null) return { action: 'create' };
    // Trashed because the feed stopped listing it, and listed again: restored with the feed's version.
    if (mapped.sourceHash === VANISHED)
      return { action: 'update', localId: mapped.localId, conflict: false, restore: true };
    if (mapped.sourceHash === hash || isOlder(record.version, mapped.sourceVersion))
      return { action: 'unchanged', localId: mapped.localId };
    if (this.policy === 'retain') return { action: 'retained', localId: mapped.localId };
    const editedHere = current !== mapped.localHash;
    if (editedHere && this.policy === 'preserve-changes')
      return { action: 'conflict', localId: mapped.localId };
    return { action: 'update', localId: mapped.localId, conflict: editedHere };
  }

  private async applyRecord(record: SourceRecord, mapped: Mapped | null) {
    const sourceData = stableJson(record.fields);
    const values: MappingValues = {
      source: this.reader.source,
      kind: record.kind,
      sourceKey: record.key,
      sourceHash: hashOf(`${record.kind}\n${sourceData}`),
      sourceData,
      sourceVersion: record.version ? stableJson(record.version) : '',
    };
    try {
      const decision = await this.decide(record, mapped, values.sourceHash);
      if (decision.action === 'conflict' || (decision.action === 'update' && decision.conflict)) {
        this.counts.conflicts++;
        if (this.summary.conflictList.length < LISTED)
          this.summary.conflictList.push({
            kind: record.kind,
            key: record.key,
            localId: decision.localId,
            where: record.where,
          });
      }
      if (decision.action === 'unchanged' || decision.action === 'retained') {
        this.counts[decision.action]++;
        return;
      }
      if (decision.action === 'conflict') return;
      if (decision.action === 'update' && this.summary.differences.length < DIFFERENCES)
        this.summary.differences.push(
          ...differences(record, mapped?.sourceData ?? '').slice(
            0,
            DIFFERENCES - this.summary.differences.length,
          ),
        );
      if (this.options.dryRun) {
        this.counts[decision.action === 'create' ? 'created' : 'updated']++;
        return;
      }
      const unresolved = new UnresolvedLinks();
      if (decision.action === 'create') {
        await createRecord(this.scope, record, values, unresolved);
        this.counts.created++;
      } else {
        const written =
          decision.action === 'update' && decision.restore && record.kind === 'event'
            ? { ...record, fields: { ...record.fields, status: record.fields.status ?? 'publish' } }
            : record;
        await updateRecord(this.scope, written, decision.localId, values, unresolved);
        this.counts.updated++;
      }
      if (unresolved.missing.length)
        this.problem({
          where: record.where,
          key: record.key,
          message: `written without links to records not imported: ${unresolved.missing.join(', ')}`,
          warning: true,
        });
    } catch (error) {
      this.counts.failed++;
      this.problem({ where: record.where, key: record.key, message: reason(error) });
    }
  }
}

/** Runs an import from `reader` to the end and returns its summary. */
export async function runImport(
  scope: Scope,
  reader: Reader,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const run = await ImportRun.open(scope, reader, options);
  return run.execute();
}
