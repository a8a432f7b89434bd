import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { ApiError, invalidParams } from '../../domain/errors.js';
import { assertAllowed, can } from '../../domain/permissions.js';
import type { ImportSource } from '../../generated/sqlite/client.js';
import type { Logger } from '../../logger.js';
import type { Scope } from '../scope.js';
import { checkWebhookUrl } from '../sync/webhooks.js';
import { type ConflictPolicy, type ImportSummary, runImport } from './engine.js';
import { type ImportType, type SourceSpec, loadText, readerFor } from './sources.js';

// Subscribed sources: recorded once (`--subscribe --every 1h`, GraphQL `createImportSource`), read
// again by the server when due. Several instances may run the scheduler: a source is claimed (a row
// update that only succeeds when no live claim exists, as webhook endpoints are) before it is read.
// URLs follow the webhooks' SSRF rules: no private, loopback or link-local address unless allowed.

/** The shortest interval a source may be read at. */
export const MIN_EVERY_SECONDS = 300;
const CLAIM_MS = 15 * 60_000;

export interface SubscriptionInput {
  type: ImportType;
  location: string;
  everySeconds: number;
  conflict?: ConflictPolicy;
  user?: string;
  appPassword?: string;
  csvType?: string;
}

/** `90s`, `30m`, `1h`, `1d`, `2w` → seconds; null when unreadable. */
export function parseInterval(text: string): number | null {
  const match = /^\s*(\d+)\s*([smhdw])\s*$/i.exec(text);
  if (!match) return null;
  const unit = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 }[match[2]!.toLowerCase() as 's'];
  return Number(match[1]) * unit;
}

function assertAdministrator(scope: Pick<Scope, 'viewer'>) {
  assertAllowed(scope.viewer, can(scope.viewer, 'manage_users'));
}

/** Records (or changes) a subscription; the server reads it at once, then every `everySeconds`. */
export async function addImportSource(scope: Scope, input: SubscriptionInput): Promise<ImportSource> {
  assertAdministrator(scope);
  if (input.everySeconds < MIN_EVERY_SECONDS)
    throw invalidParams({ every: `At least ${MIN_EVERY_SECONDS / 60} minutes.` });
  const location = /^(https?|webcal):/i.test(input.location)
    ? checkWebhookUrl(input.location.replace(/^webcal:/i, 'https:'), scope.config.webhooks.allowPrivate)
    : input.location;
  if (input.type !== 'tec' && location === input.location && !/^https?:/i.test(location))
    throw invalidParams({ location: 'A subscription reads a URL.' });
  const options = JSON.stringify({
    conflict: input.conflict ?? 'overwrite',
    ...(input.user ? { user: input.user, appPassword: input.appPassword } : {}),
    ...(input.csvType ? { csvType: input.csvType } : {}),
  });
  return scope.db.importSource.upsert({
    where: { type_location: { type: input.type, location } },
    create: { type: input.type, location, everySeconds: input.everySeconds, options },
    update: { everySeconds: input.everySeconds, options, nextRunAt: new Date() },
  });
}

export async function listImportSources(scope: Scope): Promise<ImportSource[]> {
  assertAdministrator(scope);
  return scope.db.importSource.findMany({ orderBy: { id: 'asc' } });
}

export async function removeImportSource(scope: Scope, id: number): Promise<ImportSource> {
  assertAdministrator(scope);
  const found = await scope.db.importSource.findUnique({ where: { id } });
  if (!found) throw new ApiError(404, 'import_source_not_found', 'No import source has this id.');
  return scope.db.importSource.delete({ where: { id } });
}

/** The latest runs (of one source, or of all), newest first. */
export async function importRuns(scope: Scope, sourceId: number | null, limit = 20) {
  assertAdministrator(scope);
  const runs = await scope.db.importRun.findMany({
    where: sourceId === null ? {} : { sourceId },
    orderBy: { id: 'desc' },
    take: Math.min(Math.max(limit, 1), 100),
  });
  return runs.map((run) => ({ ...run, summary: JSON.parse(run.summary) as Partial<ImportSummary> }));
}

/** Reads a source now; `null` when the source answered that nothing changed. */
export async function runImportSource(scope: Scope, source: ImportSource): Promise<ImportSummary | null> {
  const options = JSON.parse(source.options) as {
    conflict?: ConflictPolicy;
    user?: string;
    appPassword?: string;
    csvType?: SourceSpec['csvType'];
  };
  const spec: SourceSpec = { type: source.type as ImportType, location: source.location, ...options };
  let text = '';
  if (spec.type !== 'tec') {
    const loaded = await loadText(spec.location, { etag: source.etag, lastModified: source.lastModified });
    if (!loaded.changed) return null;
    text = loaded.text;
    await scope.db.importSource.update({
      where: { id: source.id },
      data: { etag: loaded.validators.etag ?? null, lastModified: loaded.validators.lastModified ?? null },
    });
  }
  return runImport(scope, readerFor(spec, scope.config, text), {
    conflict: options.conflict,
    sourceId: source.id,
    // A run the server did not finish (a restart) goes on where it stopped.
    resume: true,
  });
}

/** Reads the due subscriptions, one instance per source at a time. */
export class ImportScheduler {
  private readonly instance = randomUUID();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly scope: Scope,
    private readonly logger: Logger,
    private readonly pollMs = 60_000,
  ) {}

  start(): void {
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

  /** Every due source this instance could claim, read once. */
  async runDue(now = new Date()): Promise<number> {
    const { db } = this.scope;
    const due = await db.importSource.findMany({
      where: { nextRunAt: { lte: now } },
      orderBy: { nextRunAt: 'asc' },
    });
    let ran = 0;
    for (const source of due) {
      if (!(await this.claim(db, source.id))) continue;
      try {
        const summary = await runImportSource(this.scope, source);
        this.logger.info(
          { source: source.id, summary },
          summary ? 'import source read' : 'import source unchanged',
        );
        ran++;
      } catch (error) {
        this.logger.warn({ err: error, source: source.id }, 'import source failed');
      } finally {
        await db.importSource.updateMany({
          where: { id: source.id, claimedBy: this.instance },
          data: {
            claimedBy: null,
            claimedUntil: null,
            nextRunAt: new Date(Date.now() + source.everySeconds * 1000),
          },
        });
      }
    }
    return ran;
  }

  private async claim(db: Db, id: number): Promise<boolean> {
    const now = new Date();
    const { count } = await db.importSource.updateMany({
      where: { id, OR: [{ claimedUntil: null }, { claimedUntil: { lt: now } }] },
      data: { claimedBy: this.instance, claimedUntil: new Date(now.getTime() + CLAIM_MS) },
    });
    return count === 1;
  }
}
