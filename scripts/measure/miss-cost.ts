// npm run bench:miss -- [--events 3000] [--rounds 10]
// What an answer the cache dropped costs to compute again, with the event rows it shows kept
// (`ResponseCache.keepRecords`) and without: the app in this process on a throwaway SQLite database,
// 60 list pages of ten events and 20 of fifty, each stored once; then rounds of "every event list
// changed" (what a write whose events cannot be placed sends: answers and totals go, rows stay)
// followed by a read of every path, and as many rounds of "everything changed" (rows go too). Reported:
// CPU of this process (the client's share included, the same in both rows) and wall time per read.
// Compare the two rows of one run.
import { EVERYTHING, type WriteEffect } from '../../src/core/cache/dependencies.js';
import { LIST_PAGES, startCacheRig } from './cache-rounds.js';

const { cache, read, measure, close } = await startCacheRig('miss', 10);

for (const path of LIST_PAGES) await read(path);
/** Every event list and every event changed, as far as answers can tell; no record named. */
const listsChanged: WriteEffect = { records: [], kinds: ['events'], events: 'unknown' };

// Twice each: the first pair warms the code paths.
for (let pass = 0; pass < 2; pass++) {
  await measure('miss, rows kept', LIST_PAGES, () => cache.invalidate(listsChanged));
  await measure('miss, rows read', LIST_PAGES, () => cache.invalidate(EVERYTHING));
}
await close();
