// `npm run build`: compiles src/ and rest-map/ to dist/, then copies what the compiled code reads at run
// time by a path relative to itself (package.json for the version, the migration history).
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
if (result.status !== 0) process.exit(result.status ?? 1);
cpSync(join(root, 'package.json'), join(dist, 'package.json'));
cpSync(join(root, 'migrations'), join(dist, 'migrations'), { recursive: true });
console.log('built dist/');
