// The mix's tables: its rows with the ratios issue #29's targets are stated in, and `--without`'s
// variants side by side.

import { type MixRow, READ_ONLY_AGAIN } from './run.js';

/** A row in which no read finished (writes kept every answer a miss) has no per-read figures. */
const answered = (row: MixRow, cell: string) => (row.requests > 0 ? cell : '-');

/**
 * What one answer weighed on the wire, headers included: most of a hit's CPU is writing it to the
 * socket, so rows compare only alongside it.
 */
export const kilobytesPerRequest = ({ bytes, requests }: { bytes: number; requests: number }): string =>
  requests ? (bytes / requests / 1024).toFixed(1) : '-';

/** The mix's table and the ratios issue #29's targets are stated in. */
export function printMix(rows: MixRow[], singleCachedList: { rps: number } | undefined, title: string): void {
  const table = [
    [
      'traffic',
      'req/s',
      'p50 ms',
      'p99 ms',
      'cache hits',
      'refreshed',
      'evictions',
      'SQL/req',
      'CPU ms/req',
      'KB/req',
      'GC (longest ms)',
      'RSS MB (peak)',
      'writes (failed)',
      'dropped/write',
    ],
    ...rows.map((row) => [
      row.name + (row.non2xx || row.errors ? ` (${row.non2xx} non-2xx, ${row.errors} errors)` : ''),
      row.rps.toFixed(0),
      answered(row, row.p50.toFixed(2)),
      answered(row, row.p99.toFixed(2)),
      row.hitRatio === undefined ? '-' : `${(row.hitRatio * 100).toFixed(1)} %`,
      row.refreshRatio === undefined ? '-' : `${(row.refreshRatio * 100).toFixed(1)} %`,
      row.evictions === undefined ? '-' : String(row.evictions),
      answered(row, row.sqlPerRequest.toFixed(2)),
      answered(row, row.cpuPerRequest.toFixed(3)),
      answered(row, kilobytesPerRequest(row)),
      `${(row.gc.share * 100).toFixed(1)} % (${row.gc.longestMs.toFixed(0)})`,
      `${row.rssMb.toFixed(0)} (${row.peakRssMb.toFixed(0)})`,
      row.writes ? `${row.writes.sent} (${row.writes.failed})` : '-',
      row.writes?.sent && row.dropped !== undefined ? (row.dropped / row.writes.sent).toFixed(0) : '-',
    ]),
  ];
  const widths = (table[0] ?? []).map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length)));
  console.log(`\n${title}\n`);
  for (const [i, row] of table.entries()) {
    console.log(`| ${row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join(' | ')} |`);
    if (i === 0) console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  }
  for (const row of rows) {
    if (!row.droppedByKind) continue;
    const kinds = Object.entries(row.droppedByKind).map(
      ([kind, { writes, dropped }]) => `${kind} ${(dropped / writes).toFixed(0)} (${writes})`,
    );
    console.log(`\n${row.name}: answers dropped per write of each kind (writes alone): ${kinds.join(', ')}`);
  }
  const rps = (name: string) => rows.find((row) => row.name === name)?.rps ?? Number.NaN;
  // A ratio whose row did not run (`--mix-only` skips the single URLs) is no figure.
  const percent = (value: number) =>
    Number.isFinite(value) ? `${(value * 100).toFixed(1)} %` : 'not measured';
  const readOnlyRows = [rps('read-only mix'), rps(READ_ONLY_AGAIN)].filter((value) => !Number.isNaN(value));
  const readOnly = readOnlyRows.reduce((sum, value) => sum + value, 0) / readOnlyRows.length;
  console.log(
    `\nread-only mix, mean of its ${readOnlyRows.length} rows: ${readOnly.toFixed(0)} req/s` +
      `\nmix + 1 write/s ÷ read-only mix: ${percent(rps('mix + 1 write/s') / readOnly)} (target ≥ 90 %)` +
      `\nmix + 10 writes/s ÷ read-only mix: ${percent(rps('mix + 10 writes/s') / readOnly)} (target ≥ 60 %)` +
      `\nread-only mix ÷ single-URL cached REST list: ${percent(readOnly / (singleCachedList?.rps ?? Number.NaN))} (target ≥ 50 %)`,
  );
}

/** One server's mix with some of the cache's mechanisms turned off (`--without`); none: every one on. */
export interface MixVariant {
  without: string;
  rows: MixRow[];
}

/**
 * What each mechanism pays (`--without`, #51 item 3): every variant's write rows and read-only mean,
 * and the ratio of each to the variants with every mechanism on (their mean: the machine drifts).
 */
/** The share of reads the server computed (neither a hit nor a refresh in place), in %. */
const computedShare = (row: MixRow | undefined) =>
  row?.hitRatio === undefined ? Number.NaN : (1 - row.hitRatio - (row.refreshRatio ?? 0)) * 100;
/** Answers a write made stale, per write sent. */
const droppedPerWrite = (row: MixRow | undefined) =>
  row?.dropped === undefined || !row.writes?.sent ? Number.NaN : row.dropped / row.writes.sent;

export function printVariants(variants: readonly MixVariant[], title: string): void {
  const figure = (rows: readonly MixRow[], name: string) => rows.find((row) => row.name === name);
  const readOnly = (rows: readonly MixRow[]) => {
    const found = [figure(rows, 'read-only mix'), figure(rows, READ_ONLY_AGAIN)].filter((row) => row);
    return found.reduce((sum, row) => sum + row!.rps, 0) / found.length;
  };
  const columns = [
    ['read-only req/s', (rows: readonly MixRow[]) => readOnly(rows)],
    ['+1 w/s req/s', (rows: readonly MixRow[]) => figure(rows, 'mix + 1 write/s')?.rps ?? Number.NaN],
    ['+10 w/s req/s', (rows: readonly MixRow[]) => figure(rows, 'mix + 10 writes/s')?.rps ?? Number.NaN],
    ['+1 w/s p99', (rows: readonly MixRow[]) => figure(rows, 'mix + 1 write/s')?.p99 ?? Number.NaN],
    ['+10 w/s p99', (rows: readonly MixRow[]) => figure(rows, 'mix + 10 writes/s')?.p99 ?? Number.NaN],
    [
      '+10 w/s CPU/read',
      (rows: readonly MixRow[]) => figure(rows, 'mix + 10 writes/s')?.cpuPerRequest ?? Number.NaN,
    ],
    // Work, not time: what the machine's noise leaves alone (statements, answers computed again).
    [
      '+10 w/s SQL/read',
      (rows: readonly MixRow[]) => figure(rows, 'mix + 10 writes/s')?.sqlPerRequest ?? Number.NaN,
    ],
    ['+10 w/s computed %', (rows: readonly MixRow[]) => computedShare(figure(rows, 'mix + 10 writes/s'))],
    ['+1 w/s dropped/write', (rows: readonly MixRow[]) => droppedPerWrite(figure(rows, 'mix + 1 write/s'))],
    [
      '+10 w/s dropped/write',
      (rows: readonly MixRow[]) => droppedPerWrite(figure(rows, 'mix + 10 writes/s')),
    ],
    ['peak RSS', (rows: readonly MixRow[]) => Math.max(...rows.map((row) => row.peakRssMb))],
  ] as const;
  const baselines = variants.filter((variant) => variant.without === 'none');
  const base = columns.map(
    ([, read]) => baselines.reduce((sum, variant) => sum + read(variant.rows), 0) / baselines.length,
  );
  const table = [
    ['without', ...columns.map(([name]) => name)],
    ...variants.map((variant) => [
      variant.without,
      ...columns.map(([, read], i) => {
        const value = read(variant.rows);
        const digits = value >= 100 ? 0 : 2;
        return `${value.toFixed(digits)} (${((value / base[i]!) * 100).toFixed(0)} %)`;
      }),
    ]),
  ];
  const widths = (table[0] ?? []).map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length)));
  console.log(`\n${title}\n`);
  for (const [i, row] of table.entries()) {
    console.log(`| ${row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join(' | ')} |`);
    if (i === 0) console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  }
}
