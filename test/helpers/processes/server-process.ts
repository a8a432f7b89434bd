import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

// The real server (`src/server.ts`) as a child process, for the tests that need what only a process
// shows: its output, its signals (SIGTERM drains, kill -9 loses nothing acknowledged), its restart.

/** A port nothing listens on right now (the kernel's choice). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as { port: number };
  await new Promise((done) => probe.close(done));
  return port;
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly port: number;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Its exit code once it exited (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** kill -9, unless it already exited. */
  kill(): void;
}

const START_TIMEOUT_MS = 60_000;

/**
 * Starts the server on `port` (a free one by default) with `env` over the test's own environment,
 * and resolves once it logs that it is listening; throws with its output if it exits or stalls first.
 */
export async function startServerProcess(env: Record<string, string>, port?: number): Promise<ServerProcess> {
  const listenOn = port ?? (await freePort());
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env, PORT: String(listenOn) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const started = Date.now();
  while (!output.includes('listening on')) {
    if (child.exitCode !== null || Date.now() - started > START_TIMEOUT_MS) {
      if (child.exitCode === null) child.kill('SIGKILL');
      throw new Error(`the server did not start:\n${output}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  return {
    child,
    port: listenOn,
    output: () => output,
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
