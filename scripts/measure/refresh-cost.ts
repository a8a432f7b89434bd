// npm run bench:refresh -- [--events 3000] [--rounds 15]
// What a count refresh costs against a hit, without the traffic mix around it: the app in this process
// on a throwaway SQLite database, 80 list pages (60 of ten events, 20 of fifty) read twice so that each
// is stored and aliased, then rounds of "every category's count moved" (the invalidation a create or a
// trash in those categories sends) followed by a read of every page, and as many rounds of plain hits.
// Reported: CPU of this process (the client's share included, the same in both rows) and wall time per
// read. Compare the two rows of one run, or runs of two checkouts back to back.
import { LIST_PAGES, startCacheRig } from './cache-rounds.js';

const { db, cache, read, measure, close } = await startCacheRig('refresh', 15);

for (const page of LIST_PAGES) for (let i = 0; i < 2; i++) await read(page);
const categories = await db.term.findMany({ where: { taxonomy: 'tribe_events_cat' }, select: { id: true } });
const countsMoved = {
  records: categories.map(({ id }) => `term-count:${id}`),
  kinds: ['term-counts' as const],
  events: [],
};

// Twice each: the first pair warms the code paths.
for (let pass = 0; pass < 2; pass++) {
  await measure('refresh', LIST_PAGES, () => cache.invalidate(countsMoved));
  await measure('hit    ', LIST_PAGES, () => undefined);
}
await close();
