import { ApiError, invalidParams } from '../errors/errors.js';

// The one place that answers "may this viewer do X to this record?" — WordPress roles and the
// capability mapping of the reference (docs/reference.md §4), used by REST and GraphQL alike.

export const ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const;
export type Role = (typeof ROLES)[number];

type Capability =
  | 'read'
  | 'edit_posts'
  | 'edit_others_posts'
  | 'edit_published_posts'
  | 'edit_private_posts'
  | 'publish_posts'
  | 'delete_posts'
  | 'delete_others_posts'
  | 'delete_published_posts'
  | 'delete_private_posts'
  | 'read_private_posts'
  | 'manage_terms'
  | 'upload_files'
  | 'manage_users';

const CONTRIBUTOR: Capability[] = ['read', 'edit_posts', 'delete_posts'];
const AUTHOR: Capability[] = [
  ...CONTRIBUTOR,
  'edit_published_posts',
  'publish_posts',
  'delete_published_posts',
  'upload_files',
];
const EDITOR: Capability[] = [
  ...AUTHOR,
  'edit_others_posts',
  'edit_private_posts',
  'delete_others_posts',
  'delete_private_posts',
  'read_private_posts',
  // D8: every term write needs an editor (the reference lets authors write categories by accident).
  'manage_terms',
];

const ROLE_CAPABILITIES: Record<Role, ReadonlySet<Capability>> = {
  administrator: new Set([...EDITOR, 'manage_users']),
  editor: new Set(EDITOR),
  author: new Set(AUTHOR),
  contributor: new Set(CONTRIBUTOR),
  subscriber: new Set(['read']),
};

export interface Viewer {
  /** null for anonymous requests */
  userId: number | null;
  login: string | null;
  role: Role | null;
}

export const ANONYMOUS: Viewer = Object.freeze({ userId: null, login: null, role: null });

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function can(viewer: Viewer, capability: Capability): boolean {
  return viewer.role !== null && ROLE_CAPABILITIES[viewer.role].has(capability);
}

export function capabilitiesOf(viewer: Viewer): Capability[] {
  return viewer.role ? [...ROLE_CAPABILITIES[viewer.role]] : [];
}

/** What a permission check needs to know about a post (event, venue or organizer). */
export interface OwnedPost {
  status: string;
  authorId: number | null;
}

const isOwn = (viewer: Viewer, post: OwnedPost) => viewer.userId !== null && post.authorId === viewer.userId;
const PUBLISHED = new Set(['publish', 'future']);

/** WordPress `read_post`: published to all; private to its author and editors; drafts to who may edit them. */
export function canRead(viewer: Viewer, post: OwnedPost): boolean {
  if (post.status === 'publish') return true;
  if (post.status === 'trash') return false;
  if (post.status === 'private') return isOwn(viewer, post) || can(viewer, 'read_private_posts');
  return canEdit(viewer, post);
}

/** WordPress `edit_post` meta capability. */
export function canEdit(viewer: Viewer, post: OwnedPost): boolean {
  if (!can(viewer, 'edit_posts')) return false;
  if (isOwn(viewer, post)) return !PUBLISHED.has(post.status) || can(viewer, 'edit_published_posts');
  if (!can(viewer, 'edit_others_posts')) return false;
  if (PUBLISHED.has(post.status)) return can(viewer, 'edit_published_posts');
  if (post.status === 'private') return can(viewer, 'edit_private_posts');
  return true;
}

/**
 * `canRead` / `canEdit` as database conditions, for lists and filters that must not match what the
 * viewer may not see; test/security/visibility-rules.test.ts holds each equal to its predicate.
 * The shape is valid for the event, venue and organizer models alike.
 */
export interface PostWhere {
  AND?: PostWhere[];
  OR?: PostWhere[];
  status?: string | { in: string[] } | { notIn: string[] };
  authorId?: number;
  password?: string | null;
  id?: { in: number[] };
}

/** Matches every row / no row (compare by identity: Prisma reads `{}` inside an `OR` oddly). */
export const EVERY_POST: PostWhere = {};
const NO_POST: PostWhere = { id: { in: [] } };

export function editableWhere(viewer: Viewer): PostWhere {
  if (!can(viewer, 'edit_posts') || viewer.userId === null) return NO_POST;
  const own: PostWhere = can(viewer, 'edit_published_posts')
    ? { authorId: viewer.userId }
    : { authorId: viewer.userId, status: { notIn: [...PUBLISHED] } };
  if (!can(viewer, 'edit_others_posts')) return own;
  const barred = [
    ...(can(viewer, 'edit_published_posts') ? [] : [...PUBLISHED]),
    ...(can(viewer, 'edit_private_posts') ? [] : ['private']),
  ];
  return barred.length ? { OR: [own, { status: { notIn: barred } }] } : EVERY_POST;
}

export function readableWhere(viewer: Viewer): PostWhere {
  const privateOnes: PostWhere = can(viewer, 'read_private_posts')
    ? { status: 'private' }
    : viewer.userId !== null
      ? { status: 'private', authorId: viewer.userId }
      : NO_POST;
  return {
    OR: [
      { status: 'publish' },
      privateOnes,
      { AND: [{ status: { notIn: ['publish', 'trash', 'private'] } }, editableWhere(viewer)] },
    ],
  };
}

/** WordPress `delete_post` meta capability. */
export function canDelete(viewer: Viewer, post: OwnedPost): boolean {
  if (!can(viewer, 'delete_posts')) return false;
  if (isOwn(viewer, post)) return !PUBLISHED.has(post.status) || can(viewer, 'delete_published_posts');
  if (!can(viewer, 'delete_others_posts')) return false;
  if (PUBLISHED.has(post.status)) return can(viewer, 'delete_published_posts');
  if (post.status === 'private') return can(viewer, 'delete_private_posts');
  return true;
}

/** D4: only administrators and editors may delete permanently. */
export function canDeletePermanently(viewer: Viewer): boolean {
  return can(viewer, 'delete_others_posts');
}

export function canCreate(viewer: Viewer): boolean {
  return can(viewer, 'edit_posts');
}

/** Without `publish_posts`, `publish`/`future`/`private` become `pending` and no status becomes `draft`. */
export function effectiveStatus(viewer: Viewer, requested: string | null | undefined): string {
  if (can(viewer, 'publish_posts')) return requested || 'publish';
  if (!requested) return 'draft';
  return requested === 'draft' ? 'draft' : 'pending';
}

/** A refusal as the reference words it: 401 for anonymous callers, 403 for logged-in ones. */
export function forbidden(viewer: Viewer): ApiError {
  return new ApiError(
    viewer.userId === null ? 401 : 403,
    'rest_forbidden',
    'Sorry, you are not allowed to do that.',
  );
}

/**
 * Whether a write's caller may learn that the record it names does not exist (D22): only one who may
 * act on every record of the type (editors and up). Anyone else is answered as for an existing record
 * they may not touch, so that no write tells ids (or slugs) apart.
 */
function mayLearnMissing(viewer: Viewer, action: 'edit' | 'delete'): boolean {
  return can(viewer, action === 'edit' ? 'edit_others_posts' : 'delete_others_posts');
}

/**
 * Runs a write on the record a key names so that its not-found error (`missingCode`) reaches only a
 * caller who may learn it (`mayLearnMissing`), as `known` words it; anyone else gets the refusal an
 * existing record they may not touch gets.
 */
export async function hidingMissing<T>(
  viewer: Viewer,
  action: 'edit' | 'delete',
  missingCode: string,
  run: () => Promise<T>,
  known: (error: ApiError) => ApiError = (error) => error,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== missingCode) throw error;
    throw mayLearnMissing(viewer, action) ? known(error) : forbidden(viewer);
  }
}

export function assertAllowed(viewer: Viewer, allowed: boolean): void {
  if (!allowed) throw forbidden(viewer);
}

export function assertAdministrator(viewer: Viewer): void {
  assertAllowed(viewer, can(viewer, 'manage_users'));
}

/** Only editors may attribute a post to someone else. */
export function assertMayAttribute(viewer: Viewer, authorId: number | undefined): void {
  if (authorId !== undefined && authorId !== viewer.userId && !can(viewer, 'edit_others_posts'))
    throw forbidden(viewer);
}

const LISTABLE_STATUSES = ['publish', 'future', 'draft', 'pending', 'private'] as const;

/**
 * The statuses a list may show. Without `edit_posts` only `publish` may be asked for (anything else is
 * a 400, as the reference); editors get every non-trashed status by default; authors and contributors
 * get published posts plus their own (`ownOnlyBeyondPublish` marks the non-published part as theirs only).
 */
export function listableStatuses(
  viewer: Viewer,
  requested: string[] | null | undefined,
): { statuses: string[]; ownOnlyBeyondPublish: boolean; any: boolean } {
  // WordPress's `any`: every status the viewer may list (echoed back as `any`, as it was asked).
  const asked = requested?.length && !(requested.length === 1 && requested[0] === 'any') ? requested : null;
  if (!can(viewer, 'edit_posts')) {
    if ((asked ?? requested ?? []).some((status) => status !== 'publish'))
      throw invalidParams({ status: 'Invalid parameter.' });
    return { statuses: ['publish'], ownOnlyBeyondPublish: false, any: false };
  }
  if (asked && asked.some((status) => !(LISTABLE_STATUSES as readonly string[]).includes(status))) {
    throw invalidParams({ status: 'Invalid parameter.' });
  }
  return {
    statuses: asked ? [...new Set(asked)] : [...LISTABLE_STATUSES],
    ownOnlyBeyondPublish: !can(viewer, 'edit_others_posts'),
    any: asked === null,
  };
}

/** What the `Allow` header of a route is computed for (docs/reference/compatibility.md). */
export type AllowTarget =
  | { kind: 'read-only' }
  | { kind: 'posts' }
  | { kind: 'terms' }
  | { kind: 'record'; record: OwnedPost | null }
  /** A slug that names no record: TEC's check, resolving no id, asks for the rights on the type. */
  | { kind: 'unknown-slug' };

/**
 * The methods of a route whose permission check passes for this viewer (and record), as WordPress
 * lists them in `Allow`: `GET` always; the writes when the viewer may create in a collection
 * (contributors and up; terms: editors and up, D8), may edit the record, or may manage terms. On a
 * slug that names no record, the reference lists the rights on the type (`edit_posts`); here only to
 * those who may learn that it names none (`mayLearnMissing`: editors and up, all five), and anyone
 * else is shown what a record they may not touch shows, so that `Allow` tells no keys apart (D22).
 */
export function allowedMethods(viewer: Viewer, target: AllowTarget, served: readonly string[]): string[] {
  const writes =
    target.kind === 'posts'
      ? canCreate(viewer)
      : target.kind === 'unknown-slug'
        ? mayLearnMissing(viewer, 'edit') && mayLearnMissing(viewer, 'delete')
        : target.kind === 'terms'
          ? can(viewer, 'manage_terms')
          : target.kind === 'record'
            ? target.record !== null && canEdit(viewer, target.record)
            : false;
  return served.filter((method) => method === 'GET' || writes);
}
