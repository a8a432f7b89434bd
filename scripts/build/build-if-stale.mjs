// Runs before `npm start`: rebuilds dist/ when any source is newer than the last build, so a checkout
// never starts stale compiled code. Plain JavaScript: it must run before anything is compiled.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { URL } from 'node:url';

const root = new URL('../..', import.meta.url).pathname;
const built = join(root, 'dist/src/server.js');

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((entry) => newest(join(path, entry))));
}

const sources = ['src', 'rest-map', 'migrations', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];
const stale =
  !existsSync(built) || sources.some((source) => newest(join(root, source)) > statSync(built).mtimeMs);
if (stale) {
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
