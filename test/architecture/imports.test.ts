import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The directions imports may take, checked over the source (type-only imports included). The code
// lives in rooms by feature over a core that knows no room (docs/internals/architecture.md): a room
// imports the core and the rooms below it, the core imports only the core, and the wiring (src/*.ts,
// src/cli/) imports anything. Folders form a graph without cycles; so do modules.

const ROOT = resolve(import.meta.dirname, '../..');
const SOURCES = ['src', 'rest-map'];

const CORE = [
  'core/errors',
  'core/rules',
  'core/config',
  'core/ops',
  'core/cache',
  'core/db',
  'core/context',
  'core/rest',
  'core/http',
  'core/graphql',
] as const;

/**
 * Which folder may import which (besides itself): the documented directions, as data. Every folder
 * may read the generated Prisma client and Pothos types (`generated`); `wiring` may import anything.
 */
const ALLOWED: Record<string, readonly string[]> = {
  // The core, bottom up: each folder imports only folders listed before it.
  'core/errors': [],
  'core/rules': ['core/errors'],
  'core/config': [],
  'core/ops': ['core/config'],
  'core/cache': ['core/errors', 'core/rules', 'core/config', 'core/ops'],
  'core/db': ['core/errors', 'core/rules', 'core/config', 'core/ops', 'core/cache'],
  'core/context': ['core/errors', 'core/rules', 'core/config', 'core/ops', 'core/cache', 'core/db'],
  'core/rest': [
    ...['core/errors', 'core/rules', 'core/config', 'core/ops'],
    ...['core/cache', 'core/db', 'core/context'],
  ],
  'core/http': [
    ...['core/errors', 'core/rules', 'core/config', 'core/ops'],
    ...['core/cache', 'core/db', 'core/context', 'core/rest'],
  ],
  'core/graphql': [
    ...['core/errors', 'core/rules', 'core/config', 'core/ops'],
    ...['core/cache', 'core/db', 'core/context', 'core/rest', 'core/http'],
  ],
  // The rooms: the core, and the rooms each builds on.
  terms: CORE,
  places: CORE,
  users: CORE,
  events: [...CORE, 'places', 'terms'],
  tickets: [...CORE, 'events'],
  sync: [...CORE, 'events', 'places', 'terms', 'tickets'],
  imports: [...CORE, 'events', 'places', 'terms', 'sync'],
  // The REST route table: data in the REST engine's vocabulary (a body is documented by its type).
  'rest-map': ['core/rest'],
};

/** The folder a repository path belongs to: `core/<x>`, a room, `rest-map`, or `wiring`. */
function folderOf(path: string): string {
  const parts = path.split('/');
  if (parts[0] === 'rest-map') return 'rest-map';
  if (parts.length === 2 || parts[1] === 'cli') return 'wiring';
  if (parts[1] === 'core') return parts.length > 3 ? `core/${parts[2]}` : 'core';
  return parts[1]!;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

// `import … from`, `export … from`, `import('…')` and side-effect imports (`import './x.js'`).
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)|(?:^|\n)\s*import\s*'([^']+)'/g;

/** Every file's relative imports, as repository paths of `.ts` files. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of SOURCES.flatMap((dir) => sourceFiles(join(ROOT, dir)))) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3]!;
      if (!specifier.startsWith('.')) continue;
      targets.push(relative(ROOT, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts'));
    }
    graph.set(relative(ROOT, file), targets);
  }
  return graph;
}

function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const walk = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) walk(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) walk(file);
  return found;
}

/** Folder → the folders it imports, each with one import that shows it. */
function folderGraph(files: Map<string, string[]>): Map<string, Map<string, string>> {
  const folders = new Map<string, Map<string, string>>();
  for (const [file, targets] of files) {
    const from = folderOf(file);
    for (const target of targets) {
      const to = folderOf(target);
      if (to === from) continue;
      if (!folders.has(from)) folders.set(from, new Map());
      if (!folders.get(from)!.has(to)) folders.get(from)!.set(to, `${file} → ${target}`);
    }
  }
  return folders;
}

const graph = importGraph();
const folders = folderGraph(graph);

describe('import directions', () => {
  it('finds the sources it checks', () => {
    expect(graph.has('src/core/rest/router.ts')).toBe(true);
    expect(graph.get('rest-map/routes.ts')).toContain('src/core/rest/route-table.ts');
    expect(folders.get('events')?.has('places')).toBe(true);
  });

  it('knows every folder it finds', () => {
    const known = new Set([...Object.keys(ALLOWED), 'wiring', 'generated']);
    const found = new Set([...folders.keys(), ...[...folders.values()].flatMap((to) => [...to.keys()])]);
    expect([...found].filter((folder) => !known.has(folder)).sort()).toEqual([]);
  });

  it.each(Object.keys(ALLOWED))('%s imports only the folders the directions allow', (from) => {
    const against = [...(folders.get(from) ?? [])]
      .filter(([target]) => target !== 'generated' && !ALLOWED[from]!.includes(target))
      .map(([target, example]) => `${from} → ${target} (${example})`);
    expect(against).toEqual([]);
  });

  it('no folder imports itself through others', () => {
    const edges = new Map([...folders].map(([from, to]) => [from, [...to.keys()]]));
    expect(cycles(edges).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('the allowed directions themselves form no cycle', () => {
    expect(cycles(new Map(Object.entries(ALLOWED).map(([from, to]) => [from, [...to]])))).toEqual([]);
  });

  it('no module imports itself through others', () => {
    expect(cycles(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('sees a cycle, and names the folders of a path', () => {
    const sample = new Map([
      ['src/core/rules/a.ts', ['src/core/cache/b.ts']],
      ['src/core/cache/b.ts', ['src/core/rules/a.ts']],
    ]);
    expect(cycles(sample)).toEqual([['src/core/cache/b.ts', 'src/core/rules/a.ts', 'src/core/cache/b.ts']]);
    expect(cycles(new Map([...folderGraph(sample)].map(([from, to]) => [from, [...to.keys()]])))).toEqual([
      ['core/cache', 'core/rules', 'core/cache'],
    ]);
    expect(
      [
        'src/app.ts',
        'src/cli/calendar.ts',
        'src/core/db/queries/keyset.ts',
        'src/events/model/x.ts',
        'rest-map/routes.ts',
      ].map(folderOf),
    ).toEqual(['wiring', 'wiring', 'core/db', 'events', 'rest-map']);
  });
});
