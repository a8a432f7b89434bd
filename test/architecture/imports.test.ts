import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The directions imports may take, checked over the source (type-only imports included): the REST
// route table is data written in the REST engine's vocabulary, the engine knows neither the table nor
// the GraphQL sub-graph, rules (domain) know nothing above them, services never reach for the
// request context or an edge; and no module imports itself through others.

const ROOT = resolve(import.meta.dirname, '../..');
const SOURCES = ['src', 'rest-map'];

/** `from` may not import anything under `to` (paths relative to the repository). */
const FORBIDDEN: Array<{ from: string; to: string; why: string }> = [
  { from: 'src/rest/', to: 'rest-map/', why: 'the engine is handed its route table' },
  { from: 'src/rest/', to: 'src/schema/', why: 'the engine is handed its schema' },
  { from: 'rest-map/', to: 'src/schema/', why: 'the route table is data' },
  { from: 'src/schema/', to: 'rest-map/', why: 'operations do not know the routes serving them' },
  { from: 'src/domain/', to: 'src/cache/', why: 'rules know nothing of caching' },
  { from: 'src/domain/', to: 'src/services/', why: 'rules are below services' },
  { from: 'src/domain/', to: 'src/schema/', why: 'rules are below the schema' },
  { from: 'src/domain/', to: 'src/rest/', why: 'rules are below the edges' },
  { from: 'src/domain/', to: 'src/context.ts', why: 'rules are below the request context' },
  { from: 'src/services/', to: 'src/context.ts', why: 'services declare their scope (services/scope.ts)' },
  { from: 'src/services/', to: 'src/schema/', why: 'services are below the schema' },
  { from: 'src/services/', to: 'src/rest/', why: 'services know no HTTP' },
  { from: 'src/services/', to: 'src/cache/', why: 'services know no response cache' },
  { from: 'src/cache/', to: 'src/services/', why: 'the cache is told of writes, it does not make them' },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

/** Every file's relative imports, as repository paths of `.ts` files. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of SOURCES.flatMap((dir) => sourceFiles(join(ROOT, dir)))) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2]!;
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

const graph = importGraph();

describe('import directions', () => {
  it('finds the sources it checks', () => {
    expect(graph.has('src/rest/router.ts')).toBe(true);
    expect(graph.get('rest-map/routes.ts')).toContain('src/rest/route-table.ts');
  });

  it.each(FORBIDDEN)('$from never imports $to ($why)', ({ from, to }) => {
    const offending = [...graph]
      .filter(([file]) => file.startsWith(from))
      .flatMap(([file, targets]) =>
        targets.filter((target) => target.startsWith(to)).map((t) => `${file} → ${t}`),
      );
    expect(offending).toEqual([]);
  });

  it('no module imports itself through others', () => {
    expect(cycles(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('sees a cycle', () => {
    const sample = new Map([
      ['src/domain/a.ts', ['src/cache/b.ts']],
      ['src/cache/b.ts', ['src/domain/a.ts']],
    ]);
    expect(cycles(sample)).toEqual([['src/cache/b.ts', 'src/domain/a.ts', 'src/cache/b.ts']]);
  });
});
