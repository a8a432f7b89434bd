import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Sizes a newcomer can read (#52, item 5): no folder holds more than 12 files directly (tests and
// generated code included), no source file is longer than 500 lines. The exceptions are listed, each
// for a reason; the list may only shrink: an exception that holds the rule again must leave it.

const ROOT = resolve(import.meta.dirname, '../..');
const MAX_FILES = 12;
const MAX_LINES = 500;

/** Folders allowed more than MAX_FILES files, and why. */
const CROWDED_FOLDERS: Record<string, string> = {
  'src/generated/sqlite/models': "Prisma's generated client: one file per model",
  'src/generated/postgres/models': "Prisma's generated client: one file per model",
  'test/samples': 'responses recorded from the reference, one file per sample',
};

/** Source files allowed more than MAX_LINES lines, and why: each to be split by job. */
const LONG_FILES: Record<string, string> = {};

const SKIP = new Set(['node_modules', '.git', 'dist', 'coverage', 'artifacts', 'screenshots']);

/** Every folder under `dir` (itself included) with the number of files directly in it. */
function folders(dir: string): Array<[string, number]> {
  const entries = readdirSync(join(ROOT, dir), { withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).length;
  return [
    [dir, files],
    ...entries
      .filter((entry) => entry.isDirectory() && !SKIP.has(entry.name))
      .flatMap((entry) => folders(`${dir}/${entry.name}`)),
  ];
}

/** Every hand-written source file under `dir` (not generated) with its number of lines. */
function sourceFiles(dir: string): Array<[string, number]> {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mjs)$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((path) => !path.startsWith('src/generated/'))
    .map((path) => [path, readFileSync(join(ROOT, path), 'utf8').split('\n').length - 1]);
}

const sizes = new Map(['src', 'rest-map', 'test', 'scripts'].flatMap(folders));
const lengths = new Map(['src', 'rest-map', 'scripts'].flatMap(sourceFiles));

describe('sizes', () => {
  it('finds the folders and sources it checks', () => {
    expect(sizes.get('src/core/rest')).toBeGreaterThan(0);
    expect(lengths.get('src/app.ts')).toBeGreaterThan(0);
    expect(sizes.get('scripts/bench')).toBeGreaterThan(0);
    expect(lengths.get('scripts/bench/server.mjs')).toBeGreaterThan(0);
  });

  it(`no folder holds more than ${MAX_FILES} files directly`, () => {
    const crowded = [...sizes]
      .filter(([folder, count]) => count > MAX_FILES && !(folder in CROWDED_FOLDERS))
      .map(([folder, count]) => `${folder}: ${count} files`);
    expect(crowded).toEqual([]);
  });

  it(`no source file is longer than ${MAX_LINES} lines`, () => {
    const long = [...lengths]
      .filter(([file, lines]) => lines > MAX_LINES && !(file in LONG_FILES))
      .map(([file, lines]) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });

  it.each(Object.keys(CROWDED_FOLDERS))('%s still needs its exception', (folder) => {
    expect(sizes.get(folder) ?? 0).toBeGreaterThan(MAX_FILES);
  });

  it.each(Object.keys(LONG_FILES))('%s still needs its exception', (file) => {
    expect(lengths.get(file) ?? 0).toBeGreaterThan(MAX_LINES);
  });
});
