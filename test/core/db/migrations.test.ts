import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSchema, root } from '../../../scripts/db/derive.js';
import { databaseProviderOf } from '../../../src/core/config/config.js';
import { migrateDatabase } from '../../../src/core/db/migrate.js';
import { schemaFilter, readMigrationList, withSchemaEngine } from '../../../src/core/db/schema-engine.js';

// DATABASE_URL unset → SQLite; a postgres:// URL → a throwaway database next to the one it names.
const baseUrl = process.env.DATABASE_URL;
const provider = baseUrl ? databaseProviderOf(baseUrl) : 'sqlite';

async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (provider === 'sqlite' || !baseUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-migrations-'));
    return {
      url: `file:${join(dir, 'calendar.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `calendar_migrations_${process.pid}_${Date.now()}`;
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

describe(`migrations (${provider})`, () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('applies every committed migration to a fresh database, leaving no drift from schema.prisma', async () => {
    const { applied } = await migrateDatabase(db.url);
    expect(applied).toEqual(readMigrationList(provider).migrationDirectories.map((dir) => dir.path));

    const files = [{ path: 'schema.prisma', content: readSchema(provider) }];
    const drift = await withSchemaEngine({ provider, url: db.url }, (engine) =>
      engine.diff({
        from: { tag: 'schemaDatasource', files, configDir: root }, // the migrated database itself
        to: { tag: 'schemaDatamodel', files },
        script: true,
        exitCode: true,
        filters: schemaFilter(provider),
      }),
    );
    // A non-empty script here means schema.prisma changed without `npm run db:migration -- <name>`.
    expect(drift.stdout).toBe('-- This is an empty migration.\n');
    expect(drift.exitCode).toBe(0);
  }, 30_000);

  it('applies nothing when run again', async () => {
    expect(await migrateDatabase(db.url)).toEqual({ applied: [] });
  }, 30_000);
});
