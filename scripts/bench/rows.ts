// The rows of `npm run bench`'s table: what each measures, the checks and counts around its load,
// and the table itself.

import { kilobytesPerRequest } from './mix/table.js';
import type { LoadResult } from './wrk.js';

/** What a row measures of the process serving it: an app server child, or the peer. */
export interface MeasuredServer {
  resetSql(): Promise<number>;
  sql(): Promise<number>;
  cpuMicros(): Promise<number>;
}

export interface Target {
  name: string;
  url: string;
  body?: string;
  /** HTTP Basic credentials: a signed-in viewer, whose answers no cache shares. */
  authorization?: string;
  /** The server child whose SQL statements and memory this row measures. */
  server?: MeasuredServer;
  floor?: 'memory' | 'database';
}

export interface Row {
  target: Target;
  result?: LoadResult;
  sqlPerRequest?: number;
  /** CPU (user + system) of the serving process per request, ms: what a route costs, whatever the load. */
  cpuPerRequest?: number;
  problem?: string;
  /** `--peer`: ours against the peer on the same request (req/s, and CPU per request). */
  versusPeer?: { rps: number; cpu: number };
}

/** A route that fails would be measured at the speed of its error: check one response first. */
export async function problemWith(target: Target): Promise<string | undefined> {
  const response = await fetch(target.url, fetchInit(target));
  const text = await response.text();
  const graphqlErrors = target.url.endsWith('/graphql') && text.includes('"errors"');
  return response.ok && !graphqlErrors ? undefined : `HTTP ${response.status}: ${text.slice(0, 200)}`;
}

const fetchInit = (target: Target): RequestInit => {
  const headers: Record<string, string> = target.authorization ? { authorization: target.authorization } : {};
  return target.body
    ? { method: 'POST', body: target.body, headers: { ...headers, 'content-type': 'application/json' } }
    : { method: 'GET', headers };
};

export async function sqlPerRequest(target: Target): Promise<number | undefined> {
  if (!target.server) return undefined;
  const samples = 20;
  await target.server.resetSql();
  for (let i = 0; i < samples; i++) await (await fetch(target.url, fetchInit(target))).arrayBuffer();
  return (await target.server.sql()) / samples;
}

/** The serving process's CPU so far (µs): a server child's, or this process's for the floors. */
export async function cpuMicrosOf(target: Target): Promise<number> {
  if (target.server) return target.server.cpuMicros();
  const { user, system } = process.cpuUsage();
  return user + system;
}

export function printTable(rows: Row[], title: string): void {
  const floorOf = (kind: 'memory' | 'database') =>
    rows.find((row) => row.target.floor === kind)?.result?.rps ?? Number.NaN;
  const memory = floorOf('memory');
  const database = floorOf('database');
  const versusPeer = rows.some((row) => row.versusPeer);
  const cells = (row: Row): string[] => {
    const measured = measuredCells(row);
    if (!versusPeer) return measured;
    const ratio = row.versusPeer;
    return [...measured, ratio ? `${ratio.rps.toFixed(2)}× req/s, ${ratio.cpu.toFixed(2)}× CPU` : ''];
  };
  const measuredCells = (row: Row): string[] => {
    const r = row.result;
    if (!r) return [row.target.name, '-', '-', '-', '-', '-', '-', '-', `not measured: ${row.problem}`];
    const failures = r.non2xx || r.errors ? `  (${r.non2xx} non-2xx, ${r.errors} errors)` : '';
    // `--rsvp` alone measures no floor.
    const percent = (floor: number) =>
      Number.isNaN(floor) ? '-' : `${((r.rps / floor) * 100).toFixed(1)} %`;
    return [
      row.target.name,
      r.rps.toFixed(0),
      r.p50.toFixed(2),
      r.p99.toFixed(2),
      row.sqlPerRequest === undefined ? '-' : row.sqlPerRequest.toFixed(1),
      row.cpuPerRequest === undefined ? '-' : row.cpuPerRequest.toFixed(3),
      kilobytesPerRequest(r),
      percent(memory),
      percent(database) + failures,
    ];
  };
  const table = [
    [
      'route',
      'req/s',
      'p50 ms',
      'p99 ms',
      'SQL/req',
      'CPU ms/req',
      'KB/req',
      'of memory floor',
      'of database floor',
      ...(versusPeer ? ['ours ÷ peer'] : []),
    ],
    ...rows.map(cells),
  ];
  const widths = (table[0] ?? []).map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length)));
  console.log(`\n${title}\n`);
  for (const [i, row] of table.entries()) {
    console.log(`| ${row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join(' | ')} |`);
    if (i === 0) console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  }
}
