import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { databaseProviderOf } from '../../../src/core/config/config.js';
import type { ServicesMessage } from './services-process.js';

// The servers the instance tests need beside the database under test: a PostgreSQL server (for
// LISTEN/NOTIFY, even when the data is in SQLite) and a Redis. The local ones are used when they
// answer (CI starts them: one quick probe each); otherwise `npm test` starts its own for the run
// (test/helpers/processes/services-process.ts), as it installs Chromium, so that the suite passes on a machine
// that runs neither. Tests read the addresses with `inject` (test/helpers/processes/services.ts).
// CALENDAR_TEST_POSTGRES_URL and CALENDAR_TEST_REDIS_URL move the probed addresses (a closed port
// tries the path without servers).

const PROBED_POSTGRES = process.env.CALENDAR_TEST_POSTGRES_URL ?? 'postgresql://root@127.0.0.1:5432/postgres';
const PROBED_REDIS = process.env.CALENDAR_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PROBE_TIMEOUT_MS = 2000;
/** apt-get may install redis-server first, as for Chromium. */
const START_TIMEOUT_MS = 10 * 60_000;
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export default async function setup(project: TestProject) {
  // Projects that extend the root config inherit this file; the root's values reach all of them.
  if (!project.isRootProject()) return;
  const databaseUrl = process.env.DATABASE_URL;
  // A run on PostgreSQL uses its own server for everything.
  const runOnPostgres =
    databaseUrl && databaseProviderOf(databaseUrl) === 'postgresql' ? databaseUrl : undefined;
  const [postgresUp, redisUp] = await Promise.all([
    runOnPostgres ? true : postgresAnswers(PROBED_POSTGRES),
    redisAnswers(PROBED_REDIS),
  ]);
  const postgresUrl = runOnPostgres ?? (postgresUp ? PROBED_POSTGRES : undefined);
  const redisUrl = redisUp ? PROBED_REDIS : undefined;
  let stop = async (): Promise<void> => undefined;
  let started: ServicesMessage = {};
  if (!postgresUrl || !redisUrl) {
    const missing = [...(postgresUrl ? [] : ['postgres']), ...(redisUrl ? [] : ['redis'])];
    ({ started, stop } = await startServices(missing));
    if (started.postgresUrl) console.log(`No PostgreSQL at ${PROBED_POSTGRES}: the tests started their own`);
    if (started.redisUrl) console.log(`No Redis at ${PROBED_REDIS}: the tests started their own`);
  }
  project.provide('postgresUrl', postgresUrl ?? started.postgresUrl!);
  project.provide('redisUrl', redisUrl ?? started.redisUrl!);
  return stop;
}

async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: PROBE_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** Starts the missing servers in a child process that owns them; `stop` ends it, and them. */
async function startServices(
  missing: string[],
): Promise<{ started: ServicesMessage; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/helpers/processes/services-process.ts', ...missing],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000)));
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000)));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  const started = await new Promise<ServicesMessage>((resolve) => {
    const timer = setTimeout(() => resolve({ error: 'no answer in time' }), START_TIMEOUT_MS);
    child.once('message', (message: ServicesMessage) => (clearTimeout(timer), resolve(message)));
    void exited.then(() => (clearTimeout(timer), resolve({ error: `it exited (${child.exitCode})` })));
  });
  if (started.error) {
    await stop();
    throw new Error(
      `No ${missing.map((name) => (name === 'postgres' ? `PostgreSQL at ${PROBED_POSTGRES}` : `Redis at ${PROBED_REDIS}`)).join(' and no ')}, ` +
        `and the tests could not start their own: ${started.error}\n${output}`,
    );
  }
  return { started, stop };
}
