import { ApiError } from './errors.js';
import { type Viewer, canEdit, canRead } from './permissions.js';
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
 * edit it. Single reads refuse it; lists show it with its content blanked (tec-reference §4.3).
 */
export function passwordWithheld(post: ReadablePost, viewer: Viewer, password?: string | null): boolean {
  return Boolean(post.password) && post.password !== password && !canEdit(viewer, post);
}

/**
 * Whether a password-protected venue or organizer is shown scrubbed to this viewer (reference §4.3):
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
