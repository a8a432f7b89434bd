// `npm run build`: compiles src/ and rest-map/ to dist/, then copies what the compiled code reads at run
// time by a path relative to itself (package.json for the version, the migration history), and
// bundles the embeddable calendar (web/calendar/) into dist/embed/calendar.js, its documents beside it
// (dist/embed/calendar-documents.json, which the server registers at start: src/core/http/embed.ts).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { buildCalendarBundle } from '../../src/core/http/embed.js';

const root = new URL('../..', import.meta.url).pathname;
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
if (result.status !== 0) process.exit(result.status ?? 1);
cpSync(join(root, 'package.json'), join(dist, 'package.json'));
cpSync(join(root, 'migrations'), join(dist, 'migrations'), { recursive: true });
// The calendar's typed documents come from codegen (`prepare` runs it; a container build does not).
if (!existsSync(join(root, 'examples/generated/calendar-view/graphql.ts'))) {
  const codegen = spawnSync('npm', ['run', 'codegen'], { cwd: root, stdio: 'inherit' });
  if (codegen.status !== 0) process.exit(codegen.status ?? 1);
}
mkdirSync(join(dist, 'embed'));
writeFileSync(join(dist, 'embed/calendar.js'), await buildCalendarBundle(root));
cpSync(
  join(root, 'examples/generated/calendar-view/persisted-documents.json'),
  join(dist, 'embed/calendar-documents.json'),
);
console.log('built dist/');
