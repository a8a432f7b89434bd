import type { WriteScope } from './transactions.js';

// Making a slug unique inside a write, for any kind of record: the name lock serialises writers that
// want the same slug, and one query lists the taken ones (`root`, `root-2`, … share its prefix).

/**
 * `root` if free, else the first free `root-N` (N ≥ 2). `takenLike` lists the slugs starting with
 * `root` (of the records that count); `lockKey` names the slug's lock for the rest of the transaction.
 */
export async function claimSlug(
  w: WriteScope,
  lockKey: string,
  root: string,
  takenLike: (root: string) => Promise<Array<string | null>>,
): Promise<string> {
  await w.lock([lockKey]);
  const taken = new Set(await takenLike(root));
  if (!taken.has(root)) return root;
  for (let n = 2; ; n++) if (!taken.has(`${root}-${n}`)) return `${root}-${n}`;
}
