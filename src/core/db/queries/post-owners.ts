import type { Db } from '../client.js';
import type { OwnedPost } from '../../rules/permissions.js';

/** A post's status and author, what deciding who may edit it needs; null when no post has that key. */
export async function postOwner(
  db: Db,
  kind: 'events' | 'venues' | 'organizers',
  key: { id: number } | { slug: string },
): Promise<OwnedPost | null> {
  const select = { status: true, authorId: true } as const;
  if (kind === 'events') return db.event.findFirst({ where: key, select });
  if (kind === 'venues') return db.venue.findFirst({ where: key, select });
  return db.organizer.findFirst({ where: key, select });
}
