import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlResultSet,
} from '@prisma/driver-adapter-utils';
import pg from 'pg';
import type { MigrationList, SchemaEngine, SchemaFilter } from '@prisma/schema-engine-wasm/schema_engine_bg';
import type { DatabaseProvider } from '../config/config.js';

export type { DiffTarget } from '@prisma/schema-engine-wasm/schema_engine_bg';

type Glue = typeof import('@prisma/schema-engine-wasm/schema_engine_bg');

/** The migration history of each provider lives in its own folder (the SQL differs). */
const migrationsRoot = fileURLToPath(new URL('../../../migrations/', import.meta.url));

export function migrationsDir(provider: DatabaseProvider): string {
  return join(migrationsRoot, provider === 'postgresql' ? 'postgres' : 'sqlite');
}

/**
 * What Prisma Migrate leaves alone: SQLite's FTS5 trigram index of the event texts (`EventSearch`, a
 * virtual table the schema language cannot declare, created by migration `event_search` and read by
 * raw SQL in `src/core/db/queries/text-search.ts`) and the shadow tables FTS5 keeps its index in; on both,
 * the list counts (`EventListCount`, kept by triggers the schema language cannot declare either,
 * migration `event_list_counts`, read by `src/events/service/list-counts.ts`). Without them, a diff would
 * drop them as unknown tables. PostgreSQL's trigram indexes are declared.
 */
export function schemaFilter(provider: DatabaseProvider): SchemaFilter {
  const searchIndex = ['data', 'idx', 'docsize', 'config'].map((shadow) => `EventSearch_${shadow}`);
  const search = provider === 'sqlite' ? ['EventSearch', ...searchIndex] : [];
  const counts = provider === 'sqlite' ? ['EventListCount'] : ['public.EventListCount'];
  return { externalTables: [...search, ...counts], externalEnums: [] };
}

let glue: Promise<Glue> | undefined;

// lib is ES2023 without DOM, so the WebAssembly global is untyped here; this is the part we use.
interface WasmApi {
  instantiate(
    bytes: Uint8Array,
    imports: Record<string, object>,
  ): Promise<{ instance: { exports: Record<string, unknown> } }>;
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

// The package entry imports the .wasm file as an ES module, which Node 20 only allows behind
// --experimental-wasm-modules. Instantiating the bytes ourselves and handing them to the
// wasm-bindgen glue does the same without the flag.
function loadGlue(): Promise<Glue> {
  glue ??= (async () => {
    const gluePath = createRequire(import.meta.url).resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const module: Glue = await import('@prisma/schema-engine-wasm/schema_engine_bg');
    const bytes = readFileSync(join(dirname(gluePath), 'schema_engine_bg.wasm'));
    const imports: Record<string, unknown> = { ...module };
    // On PostgreSQL the engine arms 10 s timeout timers (its advisory-lock timeout) and never clears
    // them, which kept scripts alive 10 s after the work was done. While the engine really waits,
    // its open connection keeps the event loop alive, so the timers need not.
    for (const key of Object.keys(imports).filter((name) => name.startsWith('__wbg_setTimeout_'))) {
      const schedule = imports[key] as (callback: () => void, ms: number) => NodeJS.Timeout;
      imports[key] = (callback: () => void, ms: number) => schedule(callback, ms).unref();
    }
    const { instance } = await wasmApi.instantiate(bytes, { './schema_engine_bg.js': imports });
    module.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return module;
  })();
  return glue;
}

/**
 * The engine probes the server once when it starts, even for a diff between two datamodels.
 * Answering that probe lets `db:migration` write PostgreSQL migrations without a PostgreSQL server;
 * anything else fails loudly.
 */
function offlinePostgres(): SqlMigrationAwareDriverAdapterFactory {
  const refuse = (): Promise<never> =>
    Promise.reject(new Error('offline PostgreSQL adapter: only diffs between schema files are possible'));
  const adapter: SqlDriverAdapter = {
    provider: 'postgres',
    adapterName: 'offline',
    queryRaw: async (): Promise<SqlResultSet> => ({
      columnNames: ['exists', 'version', 'numeric_version'],
      columnTypes: [5, 7, 0], // Boolean, Text, Int32
      rows: [[true, 'PostgreSQL 15.0 (offline)', 150000]],
    }),
    executeRaw: refuse,
    executeScript: refuse,
    startTransaction: refuse,
    getConnectionInfo: () => ({ supportsRelationJoins: true }),
    dispose: async () => {},
  };
  return {
    provider: 'postgres',
    adapterName: 'offline',
    connect: async () => adapter,
    connectToShadowDb: async () => adapter,
  };
}

// PrismaPg splits scripts on every `;` (string literals and function bodies included) and sends the
// pieces one by one. Sent whole, as the native engine does, a multi-statement script runs in one
// implicit transaction: a failing migration leaves nothing half-applied.
function wholeScripts(adapter: SqlDriverAdapter, pool: pg.Pool): SqlDriverAdapter {
  const toDriverError = (adapter as SqlDriverAdapter & { onError?: (error: unknown) => never }).onError;
  adapter.executeScript = async (script) => {
    try {
      await pool.query(script);
    } catch (error) {
      // onError turns a pg error into the kinds the engine reports (P3018 with the server message).
      if (toDriverError) toDriverError.call(adapter, error);
      throw error;
    }
  };
  return adapter;
}

const PG_CHAR = 18; // the one-byte "char" of pg_catalog (relkind, contype, confdeltype...)
const PG_TEXT = 25;

// PrismaPg rejects "char" columns (UnsupportedNativeDataType), so the engine cannot describe a
// database (diff from it, db push, introspection). pg already returns them as strings; labelling
// them text lets the engine read them.
function readCharAsText(client: pg.PoolClient): void {
  const relabel = (result: pg.QueryResult | undefined): pg.QueryResult | undefined => {
    for (const field of result?.fields ?? []) if (field.dataTypeID === PG_CHAR) field.dataTypeID = PG_TEXT;
    return result;
  };
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((...args: unknown[]) => {
    const callback = args.at(-1);
    if (typeof callback === 'function') {
      // pg-pool's own pool.query() goes through this form.
      args[args.length - 1] = (error: Error | undefined, result?: pg.QueryResult) =>
        callback(error, relabel(result));
      return query(...args);
    }
    const pending = query(...args) as Promise<pg.QueryResult>;
    return pending.then(relabel);
  }) as typeof client.query;
}

export interface EngineTarget {
  provider: DatabaseProvider;
  /** A live database (a `file:` path or a `postgres://` URL); omitted, only schema-to-schema diffs work. */
  url?: string;
}

function adapterFactory({ provider, url }: EngineTarget): SqlMigrationAwareDriverAdapterFactory {
  if (provider === 'sqlite') return new PrismaBetterSqlite3({ url: url ?? ':memory:' });
  if (url === undefined) return offlinePostgres();
  const connectionString = url;
  return {
    provider: 'postgres',
    adapterName: '@prisma/adapter-pg',
    connect: async () => {
      const pool = new pg.Pool({ connectionString, max: 2 });
      pool.on('connect', readCharAsText);
      // adapter-pg bundles its own @types/pg; the runtime `pg` is the same module.
      const external = pool as unknown as ConstructorParameters<typeof PrismaPg>[0];
      return wholeScripts(await new PrismaPg(external, { disposeExternalPool: true }).connect(), pool);
    },
    // Migrations are applied, never replayed, so no command we run needs a shadow database.
    connectToShadowDb: () =>
      Promise.reject(new Error('no shadow database is available to the schema engine')),
  };
}

/** Runs `fn` with a schema engine bound to `target`, then closes every connection it opened. */
export async function withSchemaEngine<T>(
  target: EngineTarget,
  fn: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const { SchemaEngine } = await loadGlue();
  const factory = adapterFactory(target);
  // engine.free() leaves the adapters (and a pg pool's sockets) open, so track and dispose them.
  const opened: SqlDriverAdapter[] = [];
  const track = (adapter: SqlDriverAdapter): SqlDriverAdapter => (opened.push(adapter), adapter);
  const bound = bindMigrationAwareSqlAdapterFactory({
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => track(await factory.connect()),
    connectToShadowDb: async () => track(await factory.connectToShadowDb()),
  });
  let engine: SchemaEngine | undefined;
  try {
    engine = await SchemaEngine.new({ datamodels: undefined }, () => {}, bound);
    return await fn(engine);
  } finally {
    engine?.free();
    await Promise.allSettled(opened.map((adapter) => adapter.dispose()));
  }
}

/** The committed migrations of one provider, in the shape the engine expects (sorted by name). */
export function readMigrationList(provider: DatabaseProvider): MigrationList {
  const baseDir = migrationsDir(provider);
  const lockPath = join(baseDir, 'migration_lock.toml');
  const names = existsSync(baseDir)
    ? readdirSync(baseDir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(join(baseDir, entry.name, 'migration.sql')))
        .map((entry) => entry.name)
        .sort()
    : [];
  return {
    baseDir,
    lockfile: {
      path: 'migration_lock.toml',
      content: existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null,
    },
    shadowDbInitScript: '',
    migrationDirectories: names.map((name) => ({
      path: name,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok', value: readFileSync(join(baseDir, name, 'migration.sql'), 'utf8') },
      },
    })),
  };
}
