import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every relative link of the README and of docs/ leads somewhere: the file or folder exists, and a
// `#anchor` names a heading of the Markdown file it points into (GitHub's anchors). So does every
// repository path they name in code (`src/app.ts`, `migrations/{sqlite,postgres}/…/`), and every
// `npm run <script>` they show is a script of package.json: a file that moves fails here until the
// docs follow it.

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** The text outside fenced code blocks. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** The text outside code, where a `[text](target)` is a link. */
function prose(markdown: string): string {
  return withoutFences(markdown).replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes; repeats get -1, -2… */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, text] of withoutFences(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = text!
      .replace(/<[^>]*>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count ? `${base}-${count}` : base);
  }
  return anchors;
}

function linksOf(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!);
  const references = [...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map(
    (match) => match[1]!,
  );
  return [...inline, ...references];
}

/** The top-level folders whose paths the docs name in code spans. */
const REPOSITORY_PATH = /^(?:src|test|scripts|rest-map|docs|web|migrations|examples|bin|deploy)\//;

/** Paths that only running something makes (gitignored): named as where output lands. */
const MADE_BY_RUNNING = ['test/artifacts/'];

/** `a/{b,c}/d` → `a/b/d`, `a/c/d` (one brace group, as the docs write both providers' folders). */
function expandBraces(path: string): string[] {
  const group = /\{([^{}]*)\}/.exec(path);
  if (!group) return [path];
  return group[1]!
    .split(',')
    .flatMap((part) =>
      expandBraces(path.slice(0, group.index) + part + path.slice(group.index + group[0].length)),
    );
}

/** The repository paths named in the code spans outside fenced blocks; placeholders (`<name>`, `…`, `*`) left out. */
function repositoryPathsOf(markdown: string): string[] {
  const spans = [...withoutFences(markdown).matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);
  return spans
    .flatMap((span) => span.split(/\s+/))
    .map((word) => word.replace(/[.,;:)]+$/, ''))
    .filter((word) => REPOSITORY_PATH.test(word) && !/[<>*…]/.test(word))
    .flatMap(expandBraces);
}

/** The scripts `npm run` is shown running, fenced blocks included (`npm run --silent x` names `x`). */
function npmScriptsOf(markdown: string): string[] {
  return [...markdown.matchAll(/\bnpm run (?:--?[\w-]+ )*([\w][\w:-]*)/g)].map((match) => match[1]!);
}

const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];
const scripts = new Set(
  Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: object }).scripts),
);

describe('documentation links', () => {
  it('finds the README and the docs tree', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(files.map((file) => [relative(ROOT, file), file]))(
    '%s: every relative link resolves',
    (_, file) => {
      const broken: string[] = [];
      for (const link of linksOf(readFileSync(file, 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // http:, https:, mailto:, …
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
        if (!existsSync(target)) {
          broken.push(`${link}: no such file`);
          continue;
        }
        if (anchor && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor))
          broken.push(`${link}: no heading with this anchor`);
      }
      expect(broken).toEqual([]);
    },
  );

  it.each(files.map((file) => [relative(ROOT, file), file]))(
    '%s: every repository path it names exists, every npm script it runs is declared',
    (_, file) => {
      const markdown = readFileSync(file, 'utf8');
      const missing = repositoryPathsOf(markdown)
        .filter((path) => !MADE_BY_RUNNING.some((made) => path.startsWith(made)))
        .filter((path) => !existsSync(join(ROOT, path)))
        .map((path) => `${path}: no such file or folder`);
      const unknown = npmScriptsOf(markdown)
        .filter((script) => !scripts.has(script))
        .map((script) => `npm run ${script}: not a script of package.json`);
      expect([...new Set([...missing, ...unknown])]).toEqual([]);
    },
  );

  it('reads repository paths and npm scripts as the docs write them', () => {
    const markdown = [
      'See `src/app.ts` and `migrations/{sqlite,postgres}/x/`, `npx tsx scripts/a.ts --n 2`,',
      '`src/<room>/rest-schema.ts`, `src/terms/…`, `schema.prisma` and [a link](src/b.ts).',
      '```sh',
      'npm run --silent schema:changes && npm run lint',
      '`src/in-a-fence.ts`',
      '```',
    ].join('\n');
    expect(repositoryPathsOf(markdown)).toEqual([
      'src/app.ts',
      'migrations/sqlite/x/',
      'migrations/postgres/x/',
      'scripts/a.ts',
    ]);
    expect(npmScriptsOf(markdown)).toEqual(['schema:changes', 'lint']);
  });

  it('computes anchors as GitHub does', () => {
    const anchors = anchorsOf(
      '# Two commands\n## Event list filters (`GET /events`; GraphQL)\n## Two commands\n```\n# not a heading\n```\n',
    );
    expect([...anchors]).toEqual(['two-commands', 'event-list-filters-get-events-graphql', 'two-commands-1']);
  });
});
