import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// One read path (#29): every record an answer shows is loaded by the services, which apply the
// visibility rule themselves, so no resolver, edge or rule queries the database on its own. Checked
// over the source text: outside the folders that own database access, a file that names a model on a
// client or transaction (`ctx.db.event.…`, `tx.term.…`, `db().venue.…`) or sends raw SQL fails here.

const ROOT = resolve(import.meta.dirname, '../..');
const SOURCES = ['src', 'rest-map'];

/** Where database access belongs: the core's database and operations, the command line, and each
 * room's services — not a room's GraphQL or REST files (`graphql*.ts`, `rest-*.ts`), which ask its
 * services. `src/tickets/` keeps its queries beside its types. */
const OWNERS = [
  'src/core/db/',
  'src/core/ops/',
  'src/cli/',
  'src/generated/',
  'src/tickets/',
  'src/events/',
  'src/places/',
  'src/terms/',
  'src/users/',
  'src/imports/',
  'src/sync/',
];
const EDGE_FILE = /^(?:graphql|rest-)[\w-]*\.ts$/;
const owns = (file: string) =>
  file.startsWith('src/tickets/') ||
  (OWNERS.some((owner) => file.startsWith(owner)) && !EDGE_FILE.test(file.split('/').pop()!));

/** Files elsewhere that may query, each for a reason; a file that stops querying must leave the list. */
const EXCEPTIONS: Record<string, string> = {
  'src/events/model/event-filters.ts':
    'the venue, organizer and post_parent filters check their ids where they are declared (#28, item 2)',
  'src/users/graphql.ts': "the viewer's own application passwords: credentials, not calendar records",
  'src/server.ts': 'start-up counts the administrators for the welcome block before serving',
  'src/core/http/probes.ts': 'the readiness probe asks the database for `SELECT 1`, no record',
};

/** The Prisma client's names of the models (`event`, `applicationPassword`), from the data model. */
const MODELS = [...readFileSync(join(ROOT, 'schema.prisma'), 'utf8').matchAll(/^model (\w+) \{/gm)].map(
  ([, name]) => name!.charAt(0).toLowerCase() + name!.slice(1),
);

const QUERY = new RegExp(
  String.raw`\b(?:db|tx|prisma|client)\s*(?:\(\s*\))?\s*\.\s*(?:${MODELS.join('|')})\b` +
    String.raw`|\$(?:queryRaw|queryRawUnsafe|executeRaw|executeRawUnsafe|transaction)\b`,
  'g',
);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Comments may name a query; only code counts. */
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/** The direct queries in a source text, as `line: text` entries. */
function queriesIn(text: string): string[] {
  const code = withoutComments(text);
  return [...code.matchAll(QUERY)].map((match) => {
    const line = code.slice(0, match.index).split('\n').length;
    return `${line}: ${match[0]}`;
  });
}

const queried = new Map(
  SOURCES.flatMap((dir) => sourceFiles(join(ROOT, dir)))
    .map((file) => [relative(ROOT, file), queriesIn(readFileSync(file, 'utf8'))] as const)
    .filter(([, found]) => found.length > 0),
);

describe('one read path', () => {
  it('knows the models and finds the queries of the services', () => {
    expect(MODELS).toEqual(
      expect.arrayContaining(['event', 'venue', 'organizer', 'term', 'applicationPassword']),
    );
    expect(queried.has('src/events/service/reads/event-reads.ts')).toBe(true);
  });

  it("no file outside the rooms' services, the core's db and ops, and the cli queries a model directly", () => {
    const offending = [...queried]
      .filter(([file]) => !owns(file) && !(file in EXCEPTIONS))
      .map(([file, found]) => `${file} → ${found.join(', ')}`);
    expect(offending).toEqual([]);
  });

  it.each(Object.keys(EXCEPTIONS))('%s still needs its exception', (file) => {
    expect(queried.has(file)).toBe(true);
  });

  it('sees a query however it is spelled, and not in a comment', () => {
    const sample = [
      'const a = await ctx.db.event.findMany({});',
      'const b = await w.tx.applicationPassword.update({});',
      'const c = await db().venue.findUnique({});',
      'const d = ctx.db',
      '  .term.findMany({});',
      'const e = await ctx.db.$queryRaw`SELECT 1`;',
      '// ctx.db.organizer.findMany() in a comment',
      'const f = await visibleEvents(ctx, ids, query);',
    ].join('\n');
    expect(queriesIn(sample)).toEqual([
      '1: db.event',
      '2: tx.applicationPassword',
      '3: db().venue',
      '4: db\n  .term',
      '6: $queryRaw',
    ]);
  });
});
