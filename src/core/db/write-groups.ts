// A write may carry a group (`RunOptions.group`, `WriteScope.group`), stored on each of its rows: the
// change stream ignores it; webhooks deliver consecutive rows of one group as one summary.

/** The group of a series write: every change of an edit of the series whose first event is `firstId`. */
export const seriesGroup = (firstId: number) => `series:${firstId}`;
/** The group of an import run's writes. */
export const importRunGroup = (runId: number) => `import-run:${runId}`;

export type WriteGroup = { kind: 'series'; firstId: number } | { kind: 'import-run'; runId: number };

/** What a stored group label names; null for none or one this version does not know. */
export function parseGroup(label: string | null): WriteGroup | null {
  const match = label ? /^(series|import-run):(\d{1,15})$/.exec(label) : null;
  if (!match) return null;
  const id = Number(match[2]);
  return match[1] === 'series' ? { kind: 'series', firstId: id } : { kind: 'import-run', runId: id };
}
