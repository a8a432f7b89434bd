import { builder } from '../core/graphql/schema/builder.js';
import type { Difference, ImportSummary } from './engine.js';
import type { Problem } from './records.js';
import {
  type ImportRunView,
  type ImportSourceView,
  MAX_RUNS_LISTED,
  MIN_EVERY_SECONDS,
  type StoredSummary,
  addImportSource,
  importRuns,
  listImportSources,
  parseInterval,
  removeImportSource,
  runImportSourceNow,
} from './subscriptions.js';

// Subscribed import sources (administrators): what the server reads again on schedule, and the
// summaries of the last runs. The source's application password is written, never read back.

const ImportSourceType = builder.enumType('ImportSourceType', {
  description: 'What an import source is',
  values: {
    TEC: { value: 'tec', description: 'A The Events Calendar REST API v1 root (…/wp-json/tribe/events/v1)' },
    ICS: { value: 'ics', description: 'An iCalendar (RFC 5545) feed' },
    CSV: { value: 'csv', description: "A CSV file with The Events Calendar importer's columns" },
  } as const,
});

const ImportConflictPolicy = builder.enumType('ImportConflictPolicy', {
  description: 'What a re-read does with a record changed at the source and edited here since its import',
  values: {
    OVERWRITE: { value: 'overwrite', description: "The source's version is written (the default)" },
    RETAIN: { value: 'retain', description: 'A record once imported is never updated again' },
    PRESERVE_CHANGES: {
      value: 'preserve-changes',
      description: 'A record edited here is left alone and reported as a conflict',
    },
  } as const,
});

const ImportCsvType = builder.enumType('ImportCsvType', {
  description: 'What the rows of a CSV source are',
  values: {
    EVENTS: { value: 'events', description: 'Events' },
    VENUES: { value: 'venues', description: 'Venues' },
    ORGANIZERS: { value: 'organizers', description: 'Organizers' },
  } as const,
});

const ImportSource = builder.objectRef<ImportSourceView>('ImportSource').implement({
  description: 'A subscribed source the server reads again on schedule; administrators only',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Numeric id' }),
    type: t.field({ type: ImportSourceType, description: 'What it is', resolve: (s) => s.type }),
    location: t.exposeString('location', { description: 'The URL read (webcal:// is read as https://)' }),
    everySeconds: t.exposeInt('everySeconds', { description: 'How often it is read, in seconds' }),
    conflict: t.field({
      type: ImportConflictPolicy,
      description: 'The conflict policy of its runs',
      resolve: (s) => s.conflict,
    }),
    csvType: t.field({
      type: ImportCsvType,
      nullable: true,
      description: 'What the rows are (CSV sources only)',
      resolve: (s) => s.csvType,
    }),
    encoding: t.exposeString('encoding', {
      nullable: true,
      description: "The CSV file's encoding as given; null: detected on every read (CSV sources only)",
    }),
    user: t.exposeString('user', {
      nullable: true,
      description: "The source site's login it reads with (TEC sources); null when it reads anonymously",
    }),
    hasAppPassword: t.exposeBoolean('hasAppPassword', {
      description: 'Whether an application password is stored for `user` (it is never shown)',
    }),
    nextRunAt: t.expose('nextRunAt', { type: 'DateTime', description: 'When it is due next (UTC)' }),
    readingUntil: t.expose('readingUntil', {
      type: 'DateTime',
      nullable: true,
      description: 'An instance is reading it now, holding it until then at most (UTC); null otherwise',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was recorded (UTC)' }),
  }),
});

const ImportProblem = builder.objectRef<Problem>('ImportProblem').implement({
  description: 'Bad input or a failed write, and where in the source it was',
  fields: (t) => ({
    where: t.exposeString('where', {
      description: 'Where: `line 42`, `row 7`, `events page 3, item 12`, `fetch`, `feed`, `file`',
    }),
    key: t.exposeString('key', { nullable: true, description: "The record's source key, when known" }),
    message: t.exposeString('message', { description: 'What went wrong' }),
    warning: t.boolean({
      description: 'true: the record was still written (a line skipped, a link left out)',
      resolve: (problem) => problem.warning ?? false,
    }),
  }),
});

const ImportConflict = builder.objectRef<ImportSummary['conflictList'][number]>('ImportConflict').implement({
  description: 'A record changed at the source and edited here since its import',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'event, venue, organizer, category or tag' }),
    key: t.exposeString('key', { description: "The record's source key" }),
    localId: t.exposeInt('localId', { description: "The local record's numeric id" }),
    where: t.exposeString('where', { description: 'Where it was read in the source' }),
  }),
});

const ImportDifference = builder.objectRef<Difference>('ImportDifference').implement({
  description: "One field of a record that differs between the source's last import and this read",
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'event, venue, organizer, category or tag' }),
    key: t.exposeString('key', { description: "The record's source key" }),
    field: t.exposeString('field', { description: 'The field, e.g. `title` or `start`' }),
    before: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Its value at the last import',
      resolve: (d) => d.before ?? null,
    }),
    after: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Its value now',
      resolve: (d) => d.after ?? null,
    }),
  }),
});

type SummaryShape = StoredSummary & { differences?: Difference[] };

const ImportRunSummary = builder.objectRef<SummaryShape>('ImportRunSummary').implement({
  description: "What an import run did (a run still going: so far); counts are of this source's records",
  fields: (t) => {
    const count = (name: keyof ImportSummary & string, description: string) =>
      t.int({ description, resolve: (s) => Number(s[name] ?? 0) });
    return {
      created: count('created', 'Records created'),
      updated: count('updated', 'Records updated (or restored when a feed listed them again)'),
      unchanged: count('unchanged', 'Records the source did not change'),
      conflicts: count('conflicts', 'Records changed at the source and edited here since their import'),
      retained: count('retained', 'Changed records left alone by the `RETAIN` policy'),
      failed: count('failed', 'Entries that could not be read or written'),
      trashed: count('trashed', 'Events trashed because the feed no longer lists them in its period'),
      records: count('records', 'Records read'),
      seconds: t.float({ description: 'How long the run took', resolve: (s) => s.seconds ?? 0 }),
      resumedAfter: t.string({
        nullable: true,
        description: 'The checkpoint a resumed run went on after; null for a run from the start',
        resolve: (s) => s.resumedAfter ?? null,
      }),
      problems: t.field({
        type: [ImportProblem],
        description: 'The first problems (at most 50)',
        resolve: (s) => s.problems ?? [],
      }),
      conflictList: t.field({
        type: [ImportConflict],
        description: 'The first conflicts (at most 50)',
        resolve: (s) => s.conflictList ?? [],
      }),
      differences: t.field({
        type: [ImportDifference],
        description: 'The first differences (at most 20; only in the answer of `runImportSource`)',
        resolve: (s) => s.differences ?? [],
      }),
    };
  },
});

const ImportRun = builder.objectRef<ImportRunView>('ImportRun').implement({
  description: 'One read of a source',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Numeric id (newer runs have larger ids)' }),
    source: t.exposeString('source', { description: 'The source read, e.g. `ics:https://…`' }),
    sourceId: t.exposeInt('sourceId', {
      nullable: true,
      description: 'The subscription it was for; null for a one-off import or a removed subscription',
    }),
    state: t.exposeString('state', {
      description:
        '`running`, `done`, `failed` (stopped; the next read goes on after its last batch) or `unreadable` (nothing read: see `summary.problems`)',
    }),
    startedAt: t.expose('startedAt', { type: 'DateTime', description: 'When it started (UTC)' }),
    finishedAt: t.expose('finishedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it ended (UTC); null while running',
    }),
    summary: t.field({ type: ImportRunSummary, description: 'What it did', resolve: (run) => run.summary }),
  }),
});

const CreateImportSourceInput = builder.inputType('CreateImportSourceInput', {
  description: 'A source for the server to read again on schedule (the same type and location: changed)',
  fields: (t) => ({
    type: t.field({ type: ImportSourceType, required: true, description: 'What it is' }),
    location: t.string({
      required: true,
      description: 'An http, https or webcal URL; private addresses as webhooks allow them',
    }),
    every: t.string({
      required: true,
      description: `How often to read it: a number and a unit, s, m, h, d or w (e.g. \`30m\`, \`1h\`, \`1d\`); at least ${MIN_EVERY_SECONDS / 60} minutes`,
    }),
    conflict: t.field({
      type: ImportConflictPolicy,
      defaultValue: 'overwrite',
      description: 'What a re-read does with a record edited here (default OVERWRITE)',
    }),
    user: t.string({ description: "TEC only: the source site's login, to read drafts and private events" }),
    appPassword: t.string({ description: "TEC only: that login's application password (never shown)" }),
    csvType: t.field({ type: ImportCsvType, description: 'CSV only (required there): what the rows are' }),
    encoding: t.string({
      description:
        "CSV only: the file's encoding (`utf-8`, `windows-1252`, `utf-16le`, …); detected on every read when absent",
    }),
  }),
});

builder.queryFields((t) => ({
  importSources: t.field({
    type: [ImportSource],
    description: 'The subscribed import sources (administrators). Errors: rest_forbidden (401/403)',
    resolve: (_root, _args, ctx) => listImportSources(ctx),
  }),
  importRuns: t.field({
    type: [ImportRun],
    description:
      'The latest import runs, newest first: of one source, or of every import (administrators). Errors: rest_forbidden (401/403), import_source_not_found (404), rest_invalid_param (400) for `first` out of range',
    args: {
      sourceId: t.arg.int({ description: "The source's id; all runs when absent" }),
      first: t.arg.int({ defaultValue: 10, description: `How many runs, 1–${MAX_RUNS_LISTED}` }),
    },
    resolve: (_root, { sourceId, first }, ctx) => importRuns(ctx, sourceId ?? null, first ?? 10),
  }),
}));

builder.mutationFields((t) => ({
  createImportSource: t.field({
    type: ImportSource,
    description:
      'Records a source the server reads at once, then every `every` (administrators). Errors: rest_forbidden (401/403), rest_invalid_param (400) naming the input fields',
    args: {
      input: t.arg({ type: CreateImportSourceInput, required: true, description: 'The source' }),
    },
    resolve: (_root, { input }, ctx) =>
      addImportSource(ctx, {
        type: input.type,
        location: input.location,
        everySeconds: parseInterval(input.every),
        conflict: input.conflict ?? undefined,
        user: input.user ?? undefined,
        appPassword: input.appPassword ?? undefined,
        csvType: input.csvType ?? undefined,
        encoding: input.encoding ?? undefined,
      }),
  }),
  removeImportSource: t.field({
    type: ImportSource,
    description:
      'Stops reading a source, returning it as it was; what it imported stays (administrators). Errors: rest_forbidden (401/403), import_source_not_found (404)',
    args: { id: t.arg.int({ required: true, description: "The source's id" }) },
    resolve: (_root, { id }, ctx) => removeImportSource(ctx, id),
  }),
  runImportSource: t.field({
    type: ImportRunSummary,
    nullable: true,
    description:
      'Reads a source now and returns what the run did; null when the source answered that nothing changed since the last read (administrators). Errors: rest_forbidden (401/403), import_source_not_found (404), import_source_busy (409) while an instance reads it, import_source_unreadable (502)',
    args: { id: t.arg.int({ required: true, description: "The source's id" }) },
    resolve: (_root, { id }, ctx) => runImportSourceNow(ctx, id),
  }),
}));
