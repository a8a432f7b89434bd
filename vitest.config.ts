import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (`main`) and ESM (`module`); Node loads the CJS one for the libraries while
    // Vite would hand our sources the ESM one, and graphql refuses to mix two copies.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file gets its own database; files run in parallel worker processes.
    pool: 'forks',
  },
});
