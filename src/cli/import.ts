import { stat } from 'node:fs/promises';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Scope } from '../core/context/scope.js';
import {
  CONFLICT_POLICIES,
  type ConflictPolicy,
  type ImportSummary,
  type Progress,
  runImport,
} from '../imports/engine.js';
import { CSV_TYPES, type CsvType } from '../imports/csv.js';
import { isKnownEncoding } from '../imports/csv-file.js';
import { type SourceSpec, isUrl, loadBody, readerFor } from '../imports/sources.js';
import {
  addImportSource,
  importRuns,
  listImportSources,
  parseInterval,
  removeImportSource,
  runImportSourceNow,
} from '../imports/subscriptions.js';
import { clipOf } from '../imports/vanished.js';

// `calendar import tec|ics|csv …` and `calendar import sources …`: a one-off import, or a subscription
// the server reads again (`--subscribe --every 1h`). On a terminal a progress bar runs on stderr and
// the summary is printed for people; otherwise stdout gets one JSON line, the summary.

/** Runs `work` as an administrator against DATABASE_URL (calendar.ts owns the connection). */
type AsAdministrator = <T>(work: (scope: Scope) => Promise<T>) => Promise<T>;

interface CommonOptions {
  dryRun?: boolean;
  conflict: ConflictPolicy;
  resume?: boolean;
  subscribe?: boolean;
  every?: number;
}

const BAR_WIDTH = 30;

function progressBar(): ((progress: Progress) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  let last = 0;
  return ({ done, total, checkpoint }) => {
    const now = Date.now();
    if (now - last < 100) return;
    last = now;
    const share = total ? Math.min(1, done / total) : 0;
    const filled = Math.round(share * BAR_WIDTH);
    const bar = total ? `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ` : '';
    process.stderr.write(`\r${bar}${done}${total ? `/${total}` : ''} records (${checkpoint})   `);
  };
}

function report(summary: ImportSummary): void {
  if (!process.stdout.isTTY) {
    console.log(JSON.stringify(summary));
    return;
  }
  if (process.stderr.isTTY) process.stderr.write('\n');
  const { created, updated, unchanged, conflicts, retained, failed, trashed } = summary;
  console.log(
    `${summary.dryRun ? 'Dry run (nothing written) of' : 'Imported'} ${summary.source} in ${summary.seconds}s: ` +
      `${created} created, ${updated} updated, ${unchanged} unchanged, ${conflicts} conflicts, ` +
      `${retained} retained, ${failed} failed, ${trashed} trashed (gone from the feed).`,
  );
  for (const difference of summary.differences)
    console.log(
      `  ~ ${difference.kind} ${difference.key} ${difference.field}: ${JSON.stringify(difference.before)} → ${JSON.stringify(difference.after)}`,
    );
  for (const conflict of summary.conflictList)
    console.log(`  ! edited here: ${conflict.kind} ${conflict.localId} (${conflict.where}, ${conflict.key})`);
  for (const problem of summary.problems)
    console.log(`  ${problem.warning ? '?' : '✗'} ${problem.where}: ${problem.message}`);
}

function interval(value: string): number {
  const seconds = parseInterval(value);
  if (seconds === null) throw new InvalidArgumentError('an interval such as 30m, 1h or 1d');
  return seconds;
}

function encoding(value: string): string {
  if (!isKnownEncoding(value))
    throw new InvalidArgumentError('an encoding such as utf-8, windows-1252 or utf-16le');
  return value;
}

function withCommonOptions(command: Command): Command {
  return command
    .option('--dry-run', 'read and compare only: counts and the first differences, nothing written')
    .addOption(
      new Option(
        '--conflict <policy>',
        'a record edited here since its import: overwrite it, retain every imported record, or preserve the edit',
      )
        .choices(CONFLICT_POLICIES)
        .default('overwrite'),
    )
    .option('--resume', "go on after the last batch the source's unfinished run wrote")
    .option('--subscribe', 'record the source: the server reads it again --every interval')
    .option('--every <interval>', 'with --subscribe: 30m, 1h, 1d …', interval);
}

async function importOnce(asAdministrator: AsAdministrator, spec: SourceSpec, options: CommonOptions) {
  if (options.subscribe) {
    if (!options.every) throw new InvalidArgumentError('--subscribe needs --every');
    const source = await asAdministrator((scope) =>
      addImportSource(scope, {
        type: spec.type,
        location: spec.location,
        everySeconds: options.every!,
        conflict: options.conflict,
        user: spec.user,
        appPassword: spec.appPassword,
        csvType: spec.csvType,
        encoding: spec.encoding,
      }),
    );
    console.log(
      `Subscribed to ${source.type} ${source.location} (source ${source.id}), read every ${source.everySeconds}s by the server.`,
    );
    return;
  }
  // A CSV file is streamed by its reader (any size; a missing file is refused before a run is opened).
  const streamed = spec.type === 'csv' && !isUrl(spec.location);
  if (streamed) await stat(spec.location);
  // The operator's own command may read from this machine's network (the server may not, by default).
  const loaded =
    spec.type === 'tec' || streamed ? null : await loadBody(spec.location, { allowPrivate: true });
  const body = loaded?.changed ? loaded.body : Buffer.alloc(0);
  // A CSV file's bytes: its reader finds their encoding.
  const content = streamed ? undefined : spec.type === 'csv' ? body : body.toString('utf8');
  const summary = await asAdministrator((scope) =>
    runImport(scope, readerFor(spec, scope.config, content), {
      dryRun: options.dryRun,
      conflict: options.conflict,
      resume: options.resume,
      onProgress: progressBar(),
      ...(typeof content === 'string' && spec.type === 'ics'
        ? { mirror: clipOf(content, scope.config.siteTimezone) }
        : {}),
    }),
  );
  report(summary);
  if (summary.failed) process.exitCode = 3;
}

/** Adds the subcommands to `command` (`calendar import`, made by calendar.ts). */
export function registerImportCommands(command: Command, asAdministrator: AsAdministrator): void {
  withCommonOptions(
    command
      .command('tec <api-root>')
      .description(
        'Every category, tag, venue, organizer and event of a TEC REST API v1 site (…/wp-json/tribe/events/v1)',
      )
      .option('--user <login>', 'an account of the source site: drafts, pending and private records too')
      .option('--app-password <password>', "that account's application password"),
  ).action((apiRoot: string, options: CommonOptions & { user?: string; appPassword?: string }) =>
    importOnce(
      asAdministrator,
      { type: 'tec', location: apiRoot, user: options.user, appPassword: options.appPassword },
      options,
    ),
  );

  withCommonOptions(
    command
      .command('ics <source>')
      .description('An iCalendar (RFC 5545) feed: a URL (http, https, webcal) or a file'),
  ).action((source: string, options: CommonOptions) =>
    importOnce(asAdministrator, { type: 'ics', location: source }, options),
  );

  withCommonOptions(
    command
      .command('csv <file>')
      .description("A CSV file with The Events Calendar importer's columns (`,` `;` or tab separated)")
      .addOption(new Option('--type <type>', 'what the rows are').choices(CSV_TYPES).makeOptionMandatory())
      .option(
        '--encoding <name>',
        "the file's encoding (utf-8, windows-1252, utf-16le, …); detected when absent",
        encoding,
      ),
  ).action((file: string, options: CommonOptions & { type: CsvType; encoding?: string }) =>
    importOnce(
      asAdministrator,
      { type: 'csv', location: file, csvType: options.type, encoding: options.encoding },
      options,
    ),
  );

  const sources = command.command('sources').description('Subscribed sources, read again by the server');
  sources
    .command('list')
    .description('The subscribed sources and when each is read next')
    .action(async () => {
      const rows = await asAdministrator((scope) => listImportSources(scope));
      if (rows.length === 0) return console.log('No import sources.');
      console.table(
        rows.map((row) => ({
          id: row.id,
          type: row.type,
          location: row.location,
          every: `${row.everySeconds}s`,
          conflict: row.conflict,
          user: row.user ?? '',
          next: row.nextRunAt.toISOString(),
          reading: row.readingUntil ? 'now' : '',
        })),
      );
    });
  sources
    .command('run <id>')
    .description('Read a subscribed source now')
    .action(async (id: string) => {
      const summary = await asAdministrator((scope) => runImportSourceNow(scope, Number(id)));
      if (summary) report(summary);
      else console.log('The source has not changed since it was last read.');
    });
  sources
    .command('remove <id>')
    .description('Stop reading a source (what it imported stays)')
    .action(async (id: string) => {
      const removed = await asAdministrator((scope) => removeImportSource(scope, Number(id)));
      console.log(`Removed import source ${removed.id} (${removed.location}).`);
    });
  sources
    .command('runs [id]')
    .description("The latest runs' summaries (of one source, or of all imports)")
    .option('--limit <n>', 'how many', (value) => Number.parseInt(value, 10), 10)
    .action(async (id: string | undefined, options: { limit: number }) => {
      const runs = await asAdministrator((scope) => importRuns(scope, id ? Number(id) : null, options.limit));
      if (runs.length === 0) return console.log('No import runs.');
      console.table(
        runs.map((run) => ({
          id: run.id,
          source: run.source,
          state: run.state,
          started: run.startedAt.toISOString(),
          created: run.summary.created ?? 0,
          updated: run.summary.updated ?? 0,
          unchanged: run.summary.unchanged ?? 0,
          conflicts: run.summary.conflicts ?? 0,
          failed: run.summary.failed ?? 0,
          trashed: run.summary.trashed ?? 0,
        })),
      );
    });
}
