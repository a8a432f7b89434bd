// Derives the PostgreSQL schema, then generates both Prisma clients (and the Pothos types).
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { root, sqliteSchemaPath, writeDerivedSchema } from './derive.js';

// `prisma generate` never runs the schema engine, but it refuses to start without one, and the
// native binary cannot be downloaded here. Any existing file satisfies the check.
function placeholderSchemaEngine(): string {
  const dir = join(root, 'node_modules/.cache/prisma-offline');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'schema-engine-placeholder');
  closeSync(openSync(path, 'a'));
  return path;
}

const prismaCli = createRequire(import.meta.url).resolve('prisma/build/index.js');
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? placeholderSchemaEngine(),
  CHECKPOINT_DISABLE: '1', // no update check: the machine may be offline
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
};

for (const schema of [sqliteSchemaPath, writeDerivedSchema()]) {
  const result = spawnSync(process.execPath, [prismaCli, 'generate', '--schema', schema], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    console.error(`prisma generate failed for ${schema}`);
    process.exit(result.status ?? 1);
  }
}
