import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

// Files that replace a module with `vi.mock`: the replacement only reaches modules imported after it,
// so these files get fresh modules of their own (found by reading them, so none is forgotten).
const testDir = fileURLToPath(new URL('test/', import.meta.url));
const MOCKING_FILES = readdirSync(testDir, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .filter((file) => /\bvi\.(do)?mock\(/.test(readFileSync(join(testDir, file), 'utf8')))
  .map((file) => `test/${file.split(sep).join('/')}`);

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (`main`) and ESM (`module`); Node loads the CJS one for the libraries while
    // Vite would hand our sources the ESM one, and graphql refuses to mix two copies.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The PostgreSQL and Redis servers the instance tests need: the local ones, or its own when none
    // answers (test/helpers/processes/services-setup.ts); tests read the addresses with `inject`.
    globalSetup: ['test/helpers/processes/services-setup.ts'],
    // Each file gets its own database (test/helpers/database.ts), so files need no fresh modules of
    // their own: the files of one worker process share the app's imported modules (Prisma clients,
    // both schemas, yoga, SOFA), which a file would otherwise spend seconds re-importing. Nothing
    // the app keeps at module level outlives a file's app (metrics hang off their instance).
    pool: 'forks',
    // Vitest's default (one less than the cores) is a single worker on 2 cores; files wait on
    // databases, child processes and timers often enough that two keep both cores busy there (a
    // third made the PostgreSQL run no faster).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: { name: 'shared', isolate: false, include: ['test/**/*.test.ts'], exclude: MOCKING_FILES },
      },
      { extends: true, test: { name: 'isolated', include: MOCKING_FILES } },
    ],
  },
});
