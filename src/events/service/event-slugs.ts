import { toSlug } from '../../core/rules/slugs.js';
import { claimSlug } from '../../core/db/slugs.js';
import type { WriteScope } from '../../core/db/transactions.js';

// Event slugs as WordPress sets `post_name`: unique among events, none for drafts, `__trashed` in
// the trash.

/** `base` made free among events (but `exceptId`): `party`, else `party-2`, `party-3`, … */
export function freeSlug(
  w: WriteScope,
  base: string,
  exceptId: number | null,
  root = toSlug(base, 'event'),
): Promise<string> {
  return claimSlug(w, `event-slug:${root}`, root, async (prefix) =>
    (
      await w.tx.event.findMany({
        where: { slug: { startsWith: prefix }, ...(exceptId !== null ? { id: { not: exceptId } } : {}) },
        select: { slug: true },
      })
    ).map((event) => event.slug),
  );
}

/** What the slug rules read of a stored event. */
interface SluggedEvent {
  id: number;
  slug: string | null;
  desiredSlug: string | null;
  status: string;
  title: string;
}

/** Statuses WordPress leaves without a slug when none is given (`wp_insert_post`). */
export const SLUGLESS = new Set(['draft', 'pending']);
const TRASHED_SUFFIX = '__trashed';

/**
 * The slug an event gets for its next status, as WordPress sets `post_name`: a draft or pending event
 * keeps none until it is published (then one from its title); trashing renames it `<slug>__trashed`
 * and remembers the old one (`_wp_desired_post_slug`), freeing it for another event; leaving the
 * trash gives it back (made unique again). Trashed slugs stay unique here (`__trashed-2`), where
 * WordPress would let two trashed posts share one.
 */
export async function slugChange(
  w: WriteScope,
  existing: SluggedEvent,
  nextStatus: string,
  title: string,
): Promise<{ slug?: string | null; desiredSlug?: string | null }> {
  if (nextStatus === 'trash' && existing.status !== 'trash') {
    const base = `${existing.slug ?? ''}${TRASHED_SUFFIX}`;
    return { slug: await freeSlug(w, base, existing.id, base), desiredSlug: existing.slug ?? '' };
  }
  if (existing.status === 'trash' && nextStatus !== 'trash') {
    const desired = existing.desiredSlug || null;
    if (desired) return { slug: await freeSlug(w, desired, existing.id), desiredSlug: null };
    return {
      slug: SLUGLESS.has(nextStatus) ? null : await freeSlug(w, title, existing.id),
      desiredSlug: null,
    };
  }
  if (existing.slug === null && !SLUGLESS.has(nextStatus))
    return { slug: await freeSlug(w, title, existing.id) };
  return {};
}
