import { ApiError } from '../errors/errors.js';
import {
  type OwnedPost,
  type PostWhere,
  EVERY_POST,
  type Viewer,
  canEdit,
  canRead,
  editableWhere,
} from './permissions.js';
import type { PostType } from './urls.js';

interface ReadablePost {
  status: string;
  password: string | null;
  authorId: number | null;
}

export const NOT_FOUND: Record<PostType, (id: number | string) => ApiError> = {
  event: (id) =>
    new ApiError(
      404,
      'rest-event-not-found',
      `Event with ${typeof id === 'number' ? 'ID' : 'slug'} ${id} does not exist.`,
    ),
  venue: () =>
    new ApiError(404, 'venue-not-found', 'The requested post ID does not exist or is not an venue'),
  organizer: () =>
    new ApiError(404, 'organizer-not-found', 'The requested post ID does not exist or is not an organizer'),
};

/**
 * The reference's single-read checks, in its order: missing → 404, trashed → 403, not public → 403,
 * password without the right `password` → 403 (unless the viewer may edit it).
 */
export function assertReadable<T extends ReadablePost>(
  type: PostType,
  post: T | null,
  key: number | string,
  viewer: Viewer,
  password?: string | null,
): Judged<T> {
  if (!post) throw NOT_FOUND[type](key);
  if (type === 'event' && post.status === 'trash') {
    throw new ApiError(403, 'event-no-longer-available', 'This event is no longer available');
  }
  if (!canRead(viewer, post)) {
    throw new ApiError(403, `${type}-not-accessible`, `The requested ${type} is not accessible`);
  }
  if (type === 'event' && passwordWithheld(post, viewer, password)) {
    throw new ApiError(
      403,
      'event-password-protected',
      'The requested event is not accessible without a password',
    );
  }
  return judged(post, viewer, password);
}

/**
 * A password-protected post whose content this request may not see: no right `password` and no right to
 * edit it. Single reads refuse it; lists show it with its content blanked (docs/reference.md §4.3).
 */
export function passwordWithheld(post: ReadablePost, viewer: Viewer, password?: string | null): boolean {
  return Boolean(post.password) && post.password !== password && !canEdit(viewer, post);
}

/**
 * Whether a password-protected venue or organizer is shown scrubbed to this viewer (docs/reference.md §4.3):
 * everyone but those who may edit it sees its content blanked.
 */
export function passwordHides(viewer: Viewer, post: ReadablePost): boolean {
  return Boolean(post.password) && !canEdit(viewer, post);
}

/** A record that carries the verdict on its content for this request. */
export type Judged<T> = T & { readonly contentWithheld: boolean };

/**
 * The one decision on a password-protected record's content, from the viewer and the password the
 * request gave: every service that hands records to the APIs passes them through here, and the
 * verdict travels with the record.
 */
export function judged<T extends ReadablePost>(post: T, viewer: Viewer, password?: string | null): Judged<T> {
  return Object.assign(post, { contentWithheld: passwordWithheld(post, viewer, password) });
}

/**
 * Whether the fields must blank this record's content: its verdict; a record that reached a field
 * without one (a path that skipped `judged`) is withheld whenever it is password-protected.
 */
export function contentWithheld(post: ReadablePost & { contentWithheld?: boolean }): boolean {
  return post.contentWithheld ?? Boolean(post.password);
}

/**
 * `passwordWithheld` as a database condition: the records whose content this request may see. Lists
 * add it to every filter on withheld fields (venue, organizer, terms, featured, geo, search), so a
 * filter never confirms what the listing blanks.
 */
export function contentOpenWhere(viewer: Viewer, password?: string | null): PostWhere {
  const editable = editableWhere(viewer);
  if (editable === EVERY_POST) return EVERY_POST;
  return {
    OR: [{ password: null }, { password: '' }, ...(password ? [{ password }] : []), editable],
  };
}

/**
 * What a list of one event's links (`/venues?event=`, `/categories?event=`, GraphQL alike) may show:
 * an event the viewer may not read is `unknown` (the same 400 as a missing id, so nothing tells that a
 * draft exists); a protected one whose content is withheld shows none of its links.
 */
export function eventLinksAccess(
  viewer: Viewer,
  event: ReadablePost | null,
  password?: string | null,
): 'unknown' | 'withheld' | 'open' {
  if (!event || !(canRead(viewer, event) || canEdit(viewer, event))) return 'unknown';
  return passwordWithheld(event, viewer, password) ? 'withheld' : 'open';
}

/** The venues/organizers of a shown event that this viewer may read (a linked draft stays hidden). */
export function readableLinks<T extends OwnedPost>(viewer: Viewer, records: readonly T[]): T[] {
  return records.filter((record) => canRead(viewer, record));
}

/**
 * A record reached by its global id (GraphQL `node`, `nodes`): null when the viewer may not read it —
 * missing, trashed, or not public to them — as a linked record is; a password-protected post is shown
 * with its content withheld, as lists show it (its content is read with `content(password:)`).
 * Terms have no status: every term is readable.
 */
export function readableNode<T extends object>(record: T | null, viewer: Viewer): T | null {
  if (!record || !('status' in record)) return record;
  const post = record as T & ReadablePost;
  return canRead(viewer, post) ? judged(post, viewer) : null;
}
