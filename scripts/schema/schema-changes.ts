// Which changes of schema.graphql break clients, and which may: the printed schema against the one
// of an earlier commit, by graphql-js's findBreakingChanges and findDangerousChanges. Informational
// (CI prints it; it never fails on its own), so that every breaking change is a deliberate one.
//
//   npm run schema:changes                       against the previous commit (HEAD~1)
//   npm run schema:changes -- --base origin/main against the merge base with a branch
//   npm run schema:changes -- --against v1.2.0   against any commit, tag or branch
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type BreakingChange,
  type DangerousChange,
  buildSchema,
  findBreakingChanges,
  findDangerousChanges,
} from 'graphql';

const SCHEMA_FILE = 'schema.graphql';

export interface SchemaChanges {
  breaking: BreakingChange[];
  dangerous: DangerousChange[];
}

/** What changed from `before` to `after` (both SDL) that breaks clients, or may change what they see. */
export function compareSchemas(before: string, after: string): SchemaChanges {
  const old = buildSchema(before);
  const current = buildSchema(after);
  return { breaking: findBreakingChanges(old, current), dangerous: findDangerousChanges(old, current) };
}

/** The report's lines: the breaking changes, then the dangerous ones, each with its kind. */
export function formatChanges({ breaking, dangerous }: SchemaChanges): string[] {
  if (breaking.length === 0 && dangerous.length === 0) return ['No breaking or dangerous changes.'];
  const lines: string[] = [];
  const section = (title: string, changes: Array<BreakingChange | DangerousChange>) => {
    if (changes.length === 0) return;
    lines.push(`${title} (${changes.length}):`);
    for (const change of changes) lines.push(`  ${change.type}: ${change.description}`);
  };
  section('Breaking changes', breaking);
  section('Dangerous changes', dangerous);
  return lines;
}

export interface ReportOptions {
  /** The repository (default: the working directory). */
  cwd?: string;
  /** Compare with the merge base of this ref and HEAD. */
  base?: string;
  /** Compare with this commit (default: HEAD~1, the previous commit). */
  against?: string;
  log?: (line: string) => void;
}

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/**
 * Prints the changes of the working tree's schema.graphql since the chosen commit. Returns the exit
 * code: 0, also when the git history needed is missing (a shallow clone, a tarball), which it says;
 * 1 only when a schema cannot be read or built.
 */
export function reportSchemaChanges({
  cwd = process.cwd(),
  base,
  against,
  log = console.log,
}: ReportOptions = {}): number {
  let after: string;
  try {
    after = readFileSync(join(cwd, SCHEMA_FILE), 'utf8');
  } catch (error) {
    log(`Schema changes: cannot read ${SCHEMA_FILE}: ${(error as Error).message}`);
    return 1;
  }
  let revision: string;
  let before: string;
  try {
    revision = base ? git(cwd, ['merge-base', base, 'HEAD']) : git(cwd, ['rev-parse', against ?? 'HEAD~1']);
  } catch {
    const wanted = base ? `the merge base of ${base} and HEAD` : (against ?? 'the previous commit (HEAD~1)');
    log(`Schema changes: not reported, the git history is missing (${wanted} is not available here).`);
    return 0;
  }
  const name = `${revision.slice(0, 12)} (${git(cwd, ['log', '-1', '--format=%s', revision]).slice(0, 72)})`;
  try {
    before = git(cwd, ['show', `${revision}:${SCHEMA_FILE}`]);
  } catch {
    log(`Schema changes: not reported, ${name} has no ${SCHEMA_FILE}.`);
    return 0;
  }
  let changes: SchemaChanges;
  try {
    changes = compareSchemas(before, after);
  } catch (error) {
    log(`Schema changes: a schema does not build: ${(error as Error).message}`);
    return 1;
  }
  log(`Schema changes of ${SCHEMA_FILE} since ${name}:`);
  for (const line of formatChanges(changes)) log(line);
  return 0;
}

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = reportSchemaChanges({ base: argument('--base'), against: argument('--against') });
}
