// The app server children of `npm run bench` (server.mjs, the compiled app): started as `npm start`
// runs the server, then asked over their IPC channel for their SQL statements, CPU, memory and cache.

import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { Config } from '../../src/core/config/config.js';
import { askChild } from './child-questions.js';
import { RSVP_LIMITS_OFF } from './rsvp.js';

const SERVER_CHILD = new URL('./server.mjs', import.meta.url).pathname;
/** The servers serve /metrics (as a deployment that scrapes them does): the mix reads its cache counters. */
export const METRICS_TOKEN = 'bench-metrics-token';

/**
 * How `npm start` runs the server (package.json's `start` script, `[NAME=value …] node <flags>
 * dist/src/server.js`): the server children get the same environment settings and Node flags, so the
 * bench measures the memory bounds that ship.
 */
function startCommand(): { env: Record<string, string>; flags: string[] } {
  const { scripts } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  const words = scripts.start.trim().split(/\s+/);
  const env: Record<string, string> = {};
  let assignment: RegExpExecArray | null;
  while ((assignment = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(words[0] ?? ''))) {
    env[assignment[1]!] = assignment[2]!;
    words.shift();
  }
  const [command, ...rest] = words;
  if (command !== 'node') throw new Error(`package.json's start script runs ${command}, not node`);
  const script = rest.findIndex((word) => !word.startsWith('-'));
  return { env, flags: script < 0 ? rest : rest.slice(0, script) };
}
export const { env: START_ENV, flags: NODE_FLAGS } = startCommand();

/** One app server in a child process: its own event loop, memory and SQL statement count. */
export class ServerChild {
  private constructor(
    private readonly child: ChildProcess,
    readonly origin: string,
  ) {}

  static async start(
    url: string,
    cache: 'on' | 'off',
    env: Record<string, string> = {},
  ): Promise<ServerChild> {
    const child = fork(SERVER_CHILD, [], {
      execArgv: NODE_FLAGS,
      env: {
        // Every client of the RSVP row is 127.0.0.1: its limits off, unless the environment says otherwise.
        ...RSVP_LIMITS_OFF,
        ...process.env,
        // As in `npm start`, whose assignments win over the environment's.
        ...START_ENV,
        DATABASE_URL: url,
        CALENDAR_CACHE: cache,
        CALENDAR_METRICS_TOKEN: METRICS_TOKEN,
        LOG_LEVEL: 'silent',
        ...env,
      },
      stdio: 'inherit',
    });
    // A child that fails to start exits instead of sending its port.
    const [port] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code]) => Promise.reject(new Error(`the server child exited (${code})`))),
    ])) as [number];
    return new ServerChild(child, `http://127.0.0.1:${port}`);
  }

  private ask(
    question:
      | 'mechanismOff'
      | 'sql'
      | 'rss'
      | 'rssNow'
      | 'reset'
      | 'cpu'
      | 'cacheBytes'
      | 'memory'
      | 'dropped'
      | 'gcReset'
      | 'gcPauseMs'
      | 'gcLongestMs'
      | 'profileStart'
      | 'profileStop',
    argument?: string,
  ): Promise<number> {
    return askChild(this.child, this.questions, question, argument);
  }

  private readonly questions = { asked: 0 };

  /** Whether the named cache mechanism is off in the child (what `--without` asked). */
  mechanismOff = async (name: string) => (await this.ask('mechanismOff', name)) === 1;
  resetSql = () => this.ask('reset');
  sql = () => this.ask('sql');
  peakRssMb = async () => (await this.ask('rss')) / 1024;
  rssMb = async () => (await this.ask('rssNow')) / 1024;
  cpuMicros = () => this.ask('cpu');
  cacheBytes = () => this.ask('cacheBytes');
  /** One figure of the child's memory, in bytes (`MEMORY` in scripts/bench/server.mjs). */
  memory = (figure: MemoryFigure) => this.ask('memory', figure);
  dropped = () => this.ask('dropped');
  gcReset = async () => void (await this.ask('gcReset'));
  gcPauses = async () => ({ totalMs: await this.ask('gcPauseMs'), longestMs: await this.ask('gcLongestMs') });
  /** A CPU profile (the inspector's sampler, as `node --cpu-prof`) from now until `profileStop`. */
  profileStart = async () => void (await this.ask('profileStart'));
  /** Writes the profile since `profileStart` to `path` (`.cpuprofile`, for DevTools or speedscope). */
  profileStop = async (path: string) => void (await this.ask('profileStop', path));
  stop = () => this.child.kill();
}

type MemoryFigure =
  | 'heapUsed'
  | 'heapTotal'
  | 'external'
  | 'arrayBuffers'
  | 'rssAnon'
  | 'rssFile'
  | 'responseCache'
  | 'records'
  | 'shapes';

/**
 * Where a server child's memory is: its peak and current RSS (anonymous memory and mapped files), V8's
 * heap (live and committed), memory outside it (buffers), and each cache's fill against its bound.
 */
export async function describeMemory(server: ServerChild, what: string, config: Config): Promise<string> {
  const figures = {} as Record<MemoryFigure, number>;
  for (const figure of [
    'heapUsed',
    'heapTotal',
    'external',
    'arrayBuffers',
    'rssAnon',
    'rssFile',
    'responseCache',
    'records',
    'shapes',
  ] as const)
    figures[figure] = await server.memory(figure);
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(bytes < 10 * 2 ** 20 ? 1 : 0);
  const [peak, now] = [await server.peakRssMb(), await server.rssMb()];
  return (
    `memory of ${what} (MB): peak RSS ${peak.toFixed(0)}, RSS ${now.toFixed(0)} ` +
    `(anonymous ${mb(figures.rssAnon)}, mapped files ${mb(figures.rssFile)}); ` +
    `V8 heap used ${mb(figures.heapUsed)} of ${mb(figures.heapTotal)} committed; ` +
    `external ${mb(figures.external)} (array buffers ${mb(figures.arrayBuffers)}); ` +
    `response cache ${mb(figures.responseCache)} of ${mb(config.cache.maxBytes)} (CALENDAR_CACHE_MB), ` +
    `kept rows ${mb(figures.records)} of ${mb(config.cache.recordMaxBytes ?? 0)} (CALENDAR_RECORD_CACHE_MB), ` +
    `kept shapes ${mb(figures.shapes)} of ${mb(config.shapeCache.maxBytes)} (CALENDAR_SHAPE_CACHE_MB)`
  );
}
