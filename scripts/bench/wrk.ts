// The load of `npm run bench`'s rows: wrk (one thread), its Lua script and its one-line JSON result.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Bytes received, headers included (what the server wrote to its sockets). */
  bytes: number;
}

// wrk's side: method and body from the environment; `done` prints one JSON line.
export const WRK_SCRIPT = `
local body = os.getenv("BENCH_BODY")
if body ~= nil and #body > 0 then
  wrk.method = "POST"
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('BENCH {"requests":%d,"rps":%.1f,"p50":%.3f,"p99":%.3f,"non2xx":%d,"errors":%d,"bytes":%d}\\n',
    summary.requests, summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, e.status, e.connect + e.read + e.write + e.timeout, summary.bytes))
end
`;

/** wrk's extra header arguments: with `--gzip`, every request accepts gzip-coded answers. */
export let wrkHeaders: readonly string[] = [];

/** `--gzip`: every wrk request from now on accepts gzip-coded answers. */
export function acceptGzip(): void {
  wrkHeaders = ['-H', 'Accept-Encoding: gzip'];
}

export async function wrk(
  url: string,
  body: string | undefined,
  connections: number,
  duration: number,
  script: string,
  authorization?: string,
) {
  const headers = authorization ? [...wrkHeaders, '-H', `Authorization: ${authorization}`] : wrkHeaders;
  const { stdout } = await run(
    'wrk',
    ['-t1', `-c${connections}`, `-d${duration}s`, '--latency', ...headers, '-s', script, url],
    { env: { ...process.env, BENCH_BODY: body ?? '' }, maxBuffer: 1 << 20 },
  );
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH '));
  if (!line) throw new Error(`wrk printed no result:\n${stdout}`);
  return JSON.parse(line.slice(6)) as LoadResult;
}

/** The load comes from wrk: said plainly before seeding anything when it is not installed. */
export async function requireWrk(): Promise<void> {
  try {
    // `wrk -v` prints its version and exits 1; only a missing binary is an error here.
    await run('wrk', ['-v']).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw error;
    });
  } catch {
    throw new Error('wrk is not installed: `apt-get install wrk` (Debian/Ubuntu) or `brew install wrk`');
  }
}
