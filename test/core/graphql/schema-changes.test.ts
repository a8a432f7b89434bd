import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BreakingChangeType, DangerousChangeType } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  compareSchemas,
  formatChanges,
  reportSchemaChanges,
} from '../../../scripts/schema/schema-changes.js';

// The breaking-change report CI prints (scripts/schema/schema-changes.ts): schema.graphql against an
// earlier commit's, by graphql-js's findBreakingChanges and findDangerousChanges.

const BEFORE = `
type Query {
  event(id: Int!): Event!
  events(page: Int = 1): [Event!]!
}
type Event {
  id: Int!
  title: String!
  status: Status!
}
enum Status { PUBLISH DRAFT }
`;

const AFTER = `
type Query {
  event(id: Int!): Event
  events(page: Int = 2): [Event!]!
}
type Event {
  id: Int!
  status: Status!
  databaseId: Int!
}
enum Status { PUBLISH DRAFT PENDING }
`;

describe('compareSchemas', () => {
  it('finds the breaking and the dangerous changes between two schemas', () => {
    const { breaking, dangerous } = compareSchemas(BEFORE, AFTER);
    expect(breaking.map(({ type, description }) => [type, description])).toEqual([
      [BreakingChangeType.FIELD_CHANGED_KIND, 'Query.event changed type from Event! to Event.'],
      [BreakingChangeType.FIELD_REMOVED, 'Event.title was removed.'],
    ]);
    expect(dangerous.map(({ type }) => type).sort()).toEqual(
      [DangerousChangeType.ARG_DEFAULT_VALUE_CHANGE, DangerousChangeType.VALUE_ADDED_TO_ENUM].sort(),
    );
  });

  it('finds nothing between a schema and itself, nor in additions', () => {
    expect(compareSchemas(BEFORE, BEFORE)).toEqual({ breaking: [], dangerous: [] });
    const added = compareSchemas(BEFORE, BEFORE.replace('title: String!', 'title: String!\n  slug: String'));
    expect(formatChanges(added)).toEqual(['No breaking or dangerous changes.']);
  });

  it('prints each change with its kind', () => {
    const lines = formatChanges(compareSchemas(BEFORE, AFTER));
    expect(lines[0]).toBe('Breaking changes (2):');
    expect(lines[1]).toBe('  FIELD_CHANGED_KIND: Query.event changed type from Event! to Event.');
    expect(lines[2]).toBe('  FIELD_REMOVED: Event.title was removed.');
    expect(lines[3]).toBe('Dangerous changes (2):');
    expect(lines).toHaveLength(6);
  });
});

describe('reportSchemaChanges', () => {
  const repository = () => {
    const cwd = mkdtempSync(join(tmpdir(), 'schema-changes-'));
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], {
        cwd,
        stdio: 'pipe',
      });
    git('init', '-q', '-b', 'main');
    const commit = (schema: string, message: string) => {
      writeFileSync(join(cwd, 'schema.graphql'), schema);
      git('add', 'schema.graphql');
      git('commit', '-q', '-m', message);
    };
    return { cwd, git, commit };
  };
  const run = (options: Parameters<typeof reportSchemaChanges>[0]) => {
    const lines: string[] = [];
    const code = reportSchemaChanges({ ...options, log: (line) => lines.push(line) });
    return { code, lines };
  };

  it('compares the working tree with the previous commit', () => {
    const { cwd, commit } = repository();
    commit(BEFORE, 'first');
    commit(AFTER, 'second');
    const { code, lines } = run({ cwd });
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^Schema changes of schema\.graphql since [0-9a-f]{12} \(first\):$/);
    expect(lines).toContain('  FIELD_REMOVED: Event.title was removed.');
  });

  it('compares with the merge base of a base ref', () => {
    const { cwd, git, commit } = repository();
    commit(BEFORE, 'first');
    git('checkout', '-q', '-b', 'feature');
    commit(BEFORE.replace('title: String!', 'title: String!\n  slug: String'), 'add slug');
    commit(AFTER, 'rework');
    const { code, lines } = run({ cwd, base: 'main' });
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/\(first\):$/);
    expect(lines).toContain('Breaking changes (2):');
  });

  it('says so and succeeds when the git history is missing', () => {
    const { cwd, commit } = repository();
    commit(BEFORE, 'only');
    expect(run({ cwd })).toEqual({
      code: 0,
      lines: [
        'Schema changes: not reported, the git history is missing (the previous commit (HEAD~1) is not available here).',
      ],
    });
    const plain = mkdtempSync(join(tmpdir(), 'schema-changes-'));
    writeFileSync(join(plain, 'schema.graphql'), BEFORE);
    const outside = run({ cwd: plain, base: 'main' });
    expect(outside.code).toBe(0);
    expect(outside.lines[0]).toMatch(/git history is missing/);
  });
});
