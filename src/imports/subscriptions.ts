import { randomUUID } from 'node:crypto';
import type { Db } from '../core/db/client.js';
import { ApiError, invalidParams } from '../core/errors/errors.js';
import { type Viewer, assertAdministrator } from '../core/rules/permissions.js';
import type { ImportSource } from '../generated/sqlite/client.js';
import type { Logger } from '../core/ops/logger.js';
import type { Scope } from '../core/context/scope.js';
import { checkWebhookUrl } from '../sync/webhooks.js';
import { CSV_TYPES, type CsvType } from './csv.js';
import { isKnownEncoding } from './csv-file.js';
import { CONFLICT_POLICIES, type ConflictPolicy, type ImportSummary, runImport } from './engine.js';
import {
  IMPORT_TYPES,
  type ImportType,
  type SourceSpec,
  assertPublicHost,
  loadBody,
  readerFor,
} from './sources.js';
import { clipOf } from './vanished.js';

// Subscribed sources: recorded once (`--subscribe --every 1h`, GraphQL `createImportSource`), read
// again by the server when due. Several instances may run the scheduler: a source is claimed (a row
// update that only succeeds when no live claim exists, as webhook endpoints are) before it is read.
// URLs follow the webhooks' SSRF rules: no private, loopback or link-local address unless allowed,
// checked when the source is recorded and again on every connection the server makes to read it.
// The stored application password never leaves this module: answers carry `ImportSourceView`s.

/** The shortest interval a source may be read at. */
export const MIN_EVERY_SECONDS = 300;
/** The longest: a source read less often than yearly is not a subscription. */
const MAX_EVERY_SECONDS = 366 * 86_400;
/** A WordPress login is at most 60 characters; application passwords are 24 (longer ones are refused). */
const MAX_LOGIN_LENGTH = 60;
const MAX_APP_PASSWORD_LENGTH = 256;
const CLAIM_MS = 15 * 60_000;
/** The most runs one `importRuns` answer lists. */
export const MAX_RUNS_LISTED = 100;

/** Who writes what the scheduler reads (the import writes as an administrator, as the CLI does). */
const SCHEDULER: Viewer = { userId: null, login: 'import-scheduler', role: 'administrator' };

interface SubscriptionInput {
  type: ImportType;
  location: string;
  /** null: the interval given could not be read (`parseInterval`). */
  everySeconds: number | null;
  conflict?: ConflictPolicy;
  user?: string;
  appPassword?: string;
  csvType?: string;
  encoding?: string;
}

interface StoredOptions {
  conflict?: ConflictPolicy;
  user?: string;
  appPassword?: string;
  csvType?: CsvType;
  encoding?: string;
}

/** A subscription as answers show it: the source's login, never its password. */
export interface ImportSourceView {
  id: number;
  type: ImportType;
  location: string;
  everySeconds: number;
  conflict: ConflictPolicy;
  csvType: CsvType | null;
  /** The CSV file's encoding as given; null: detected on every read. */
  encoding: string | null;
  user: string | null;
  hasAppPassword: boolean;
  nextRunAt: Date;
  /** Until when an instance holds it (reading it now); null when none does. */
  readingUntil: Date | null;
  createdAt: Date;
}

/** A run's summary as stored (a dry run is never stored; the differences are left out). */
export type StoredSummary = Partial<Omit<ImportSummary, 'differences'>>;

export interface ImportRunView {
  id: number;
  source: string;
  sourceId: number | null;
  state: string;
  startedAt: Date;
  finishedAt: Date | null;
  summary: StoredSummary;
}

/** `90s`, `30m`, `1h`, `1d`, `2w` → seconds; null when unreadable. */
export function parseInterval(text: string): number | null {
  const match = /^\s*(\d+)\s*([smhdw])\s*$/i.exec(text);
  if (!match) return null;
  const unit = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 }[match[2]!.toLowerCase() as 's'];
  return Number(match[1]) * unit;
}

function optionsOf(source: ImportSource): StoredOptions {
  return JSON.parse(source.options) as StoredOptions;
}

function viewOf(source: ImportSource, now = new Date()): ImportSourceView {
  const options = optionsOf(source);
  return {
    id: source.id,
    type: source.type as ImportType,
    location: source.location,
    everySeconds: source.everySeconds,
    conflict: options.conflict ?? 'overwrite',
    csvType: options.csvType ?? null,
    encoding: options.encoding ?? null,
    user: options.user ?? null,
    hasAppPassword: Boolean(options.appPassword),
    nextRunAt: source.nextRunAt,
    readingUntil: source.claimedUntil && source.claimedUntil > now ? source.claimedUntil : null,
    createdAt: source.createdAt,
  };
}

function sourceNotFound(): ApiError {
  return new ApiError(404, 'import_source_not_found', 'No import source has this id.');
}

/** Every reason the input is refused, at once; else its interval in seconds. */
function checkInput(input: SubscriptionInput): number {
  const reasons: Record<string, string> = {};
  if (!(IMPORT_TYPES as readonly string[]).includes(input.type))
    reasons.type = `One of ${IMPORT_TYPES.join(', ')}.`;
  if (input.everySeconds === null) reasons.every = 'An interval such as 30m, 1h or 1d.';
  else if (!Number.isInteger(input.everySeconds) || input.everySeconds < MIN_EVERY_SECONDS)
    reasons.every = `At least ${MIN_EVERY_SECONDS / 60} minutes.`;
  else if (input.everySeconds > MAX_EVERY_SECONDS) reasons.every = 'At most a year.';
  if (input.conflict && !(CONFLICT_POLICIES as readonly string[]).includes(input.conflict))
    reasons.conflict = `One of ${CONFLICT_POLICIES.join(', ')}.`;
  if (input.type === 'csv' && !(CSV_TYPES as readonly string[]).includes(input.csvType ?? ''))
    reasons.csvType = `A CSV source needs one of ${CSV_TYPES.join(', ')}.`;
  if (input.type !== 'csv' && input.csvType) reasons.csvType = 'Only for a CSV source.';
  if (input.encoding && input.type !== 'csv') reasons.encoding = 'Only for a CSV source.';
  // Encoding names are short (`iso-8859-15`): a longer text is no name, whatever it spells.
  else if (input.encoding && (input.encoding.length > 32 || !isKnownEncoding(input.encoding)))
    reasons.encoding = 'An encoding such as utf-8, windows-1252, iso-8859-15 or utf-16le.';
  if (input.appPassword && !input.user) reasons.user = 'An application password needs its login.';
  if ((input.user?.length ?? 0) > MAX_LOGIN_LENGTH) reasons.user = `At most ${MAX_LOGIN_LENGTH} characters.`;
  if ((input.appPassword?.length ?? 0) > MAX_APP_PASSWORD_LENGTH)
    reasons.appPassword = `At most ${MAX_APP_PASSWORD_LENGTH} characters.`;
  if ((input.user || input.appPassword) && input.type !== 'tec')
    reasons.user = 'Credentials are for a TEC source only.';
  if (Object.keys(reasons).length || input.everySeconds === null) throw invalidParams(reasons);
  return input.everySeconds;
}

/** Records (or changes) a subscription; the server reads it at once, then every `everySeconds`. */
export async function addImportSource(scope: Scope, input: SubscriptionInput): Promise<ImportSourceView> {
  assertAdministrator(scope.viewer);
  const everySeconds = checkInput(input);
  let location: string;
  try {
    location = checkWebhookUrl(
      input.location.replace(/^webcal:/i, 'https:'),
      scope.config.webhooks.allowPrivate,
    );
  } catch (error) {
    // The same reasons, under this operation's own parameter name.
    if (error instanceof ApiError && error.code === 'rest_invalid_param')
      throw invalidParams({
        location: Object.values(error.data.params as Record<string, string>).join(' '),
      });
    throw error;
  }
  const options = JSON.stringify({
    conflict: input.conflict ?? 'overwrite',
    ...(input.user ? { user: input.user, appPassword: input.appPassword } : {}),
    ...(input.csvType ? { csvType: input.csvType } : {}),
    ...(input.encoding ? { encoding: input.encoding } : {}),
  });
  const source = await scope.db.importSource.upsert({
    where: { type_location: { type: input.type, location } },
    create: { type: input.type, location, everySeconds, options },
    update: { everySeconds, options, nextRunAt: new Date() },
  });
  return viewOf(source);
}

export async function listImportSources(scope: Scope): Promise<ImportSourceView[]> {
  assertAdministrator(scope.viewer);
  const now = new Date();
  return (await scope.db.importSource.findMany({ orderBy: { id: 'asc' } })).map((row) => viewOf(row, now));
}

/** Stops reading a source; what it imported stays, and so do its runs (no longer linked to it). */
export async function removeImportSource(scope: Scope, id: number): Promise<ImportSourceView> {
  assertAdministrator(scope.viewer);
  const found = await scope.db.importSource.findUnique({ where: { id } });
  if (!found) throw sourceNotFound();
  return viewOf(await scope.db.importSource.delete({ where: { id } }));
}

/** The latest runs (of one source, or of all), newest first. */
export async function importRuns(
  scope: Scope,
  sourceId: number | null,
  limit = 20,
): Promise<ImportRunView[]> {
  assertAdministrator(scope.viewer);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RUNS_LISTED)
    throw invalidParams({ first: `From 1 to ${MAX_RUNS_LISTED}.` });
  if (sourceId !== null && !(await scope.db.importSource.findUnique({ where: { id: sourceId } })))
    throw sourceNotFound();
  const runs = await scope.db.importRun.findMany({
    where: sourceId === null ? {} : { sourceId },
    orderBy: { id: 'desc' },
    take: limit,
  });
  return runs.map(({ id, source, sourceId: of, state, startedAt, finishedAt, summary }) => ({
    id,
    source,
    sourceId: of,
    state,
    startedAt,
    finishedAt,
    summary: JSON.parse(summary) as StoredSummary,
  }));
}

/**
 * Reads a source now (an administrator's `runImportSource`, `calendar import sources run`); `null`
 * when it answered that nothing changed. Refused (409) while an instance is reading it.
 */
export async function runImportSourceNow(scope: Scope, id: number): Promise<ImportSummary | null> {
  assertAdministrator(scope.viewer);
  const source = await scope.db.importSource.findUnique({ where: { id } });
  if (!source) throw sourceNotFound();
  const holder = randomUUID();
  if (!(await claim(scope.db, id, holder, null)))
    throw new ApiError(409, 'import_source_busy', 'This source is being read right now; try again later.');
  try {
    return await readSource(scope, source);
  } finally {
    await release(scope.db, source, holder);
  }
}

/** Reads a source; `null` when the source answered that nothing changed (no run is written then). */
async function readSource(scope: Scope, source: ImportSource): Promise<ImportSummary | null> {
  const options = optionsOf(source);
  const spec: SourceSpec = { type: source.type as ImportType, location: source.location, ...options };
  const allowPrivate = scope.config.webhooks.allowPrivate;
  let body: Buffer = Buffer.alloc(0);
  try {
    if (spec.type === 'tec') await assertPublicHost(spec.location, allowPrivate);
    else {
      const validators = { etag: source.etag, lastModified: source.lastModified };
      const loaded = await loadBody(spec.location, { validators, allowPrivate });
      if (!loaded.changed) return null;
      body = loaded.body;
      await scope.db.importSource.update({
        where: { id: source.id },
        data: { etag: loaded.validators.etag ?? null, lastModified: loaded.validators.lastModified ?? null },
      });
    }
  } catch (error) {
    // Nothing was read: the run says why, so that the administrator sees it with the others.
    const message = error instanceof Error ? error.message : String(error);
    await scope.db.importRun.create({
      data: {
        source: readerFor(spec, scope.config).source,
        sourceId: source.id,
        options: JSON.stringify({ conflict: options.conflict ?? 'overwrite' }),
        state: 'unreadable',
        summary: JSON.stringify({ problems: [{ where: 'fetch', message }] }),
        finishedAt: new Date(),
      },
    });
    throw error;
  }
  // A CSV file's bytes: its reader finds their encoding.
  const content = spec.type === 'csv' ? body : body.toString('utf8');
  return runImport(scope, readerFor(spec, scope.config, content), {
    conflict: options.conflict,
    sourceId: source.id,
    // A run the server did not finish (a restart) goes on where it stopped.
    resume: true,
    ...(typeof content === 'string' && spec.type === 'ics'
      ? { mirror: clipOf(content, scope.config.siteTimezone) }
      : {}),
  });
}

/** Takes a source for `holder` unless another holds it; `dueBy`: only if it is due by then. */
async function claim(db: Db, id: number, holder: string, dueBy: Date | null): Promise<boolean> {
  const now = new Date();
  const { count } = await db.importSource.updateMany({
    where: {
      id,
      // Due, re-checked with the claim: another instance may have read it since it was listed.
      ...(dueBy ? { nextRunAt: { lte: dueBy } } : {}),
      OR: [{ claimedUntil: null }, { claimedUntil: { lt: now } }],
    },
    data: { claimedBy: holder, claimedUntil: new Date(now.getTime() + CLAIM_MS) },
  });
  return count === 1;
}

/** Gives the source back, due again `everySeconds` from now. */
async function release(db: Db, source: ImportSource, holder: string): Promise<void> {
  await db.importSource.updateMany({
    where: { id: source.id, claimedBy: holder },
    data: {
      claimedBy: null,
      claimedUntil: null,
      nextRunAt: new Date(Date.now() + source.everySeconds * 1000),
    },
  });
}

/** Reads the due subscriptions every `config.imports.pollMs` (0: never), one instance per source. */
export class ImportScheduler {
  private readonly instance = randomUUID();
  private readonly scope: Scope;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    scope: Pick<Scope, 'db' | 'config' | 'writes'>,
    private readonly logger: Logger,
    private readonly pollMs = scope.config.imports.pollMs,
  ) {
    this.scope = { ...scope, viewer: SCHEDULER };
  }

  start(): void {
    if (!this.pollMs || this.timer) return;
    const tick = () => {
      this.running ??= this.runDue()
        .then(() => undefined)
        .catch((error: unknown) => this.logger.error({ err: error }, 'import sources'))
        .finally(() => (this.running = null));
    };
    this.timer = setInterval(tick, this.pollMs);
    this.timer.unref();
    tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Every due source this instance could claim, read once; returns how many it read. */
  async runDue(now = new Date()): Promise<number> {
    const { db } = this.scope;
    const due = await db.importSource.findMany({
      where: { nextRunAt: { lte: now } },
      orderBy: { nextRunAt: 'asc' },
    });
    let ran = 0;
    for (const source of due) {
      if (!(await claim(db, source.id, this.instance, now))) continue;
      try {
        const summary = await readSource(this.scope, source);
        this.logger.info(
          { source: source.id, summary },
          summary ? 'import source read' : 'import source unchanged',
        );
        ran++;
      } catch (error) {
        this.logger.warn({ err: error, source: source.id }, 'import source failed');
      } finally {
        await release(db, source, this.instance);
      }
    }
    return ran;
  }
}
