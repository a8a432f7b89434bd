import type { Db } from '../db/client.js';
import { MAX_RECORD_ID } from '../rules/ids.js';
import { type AllowTarget, type Viewer, allowedMethods, can } from '../rules/permissions.js';
import { postOwner } from '../db/queries/post-owners.js';
import type { HttpMethod } from './route-table.js';

// `Allow`: the methods of a route this viewer may use (on this record), decided before the request
// runs, as WordPress's permission checks are, and sent on its answer whatever it is.

type PostKind = 'events' | 'venues' | 'organizers';

/** What decides a path's `Allow`: collections, single posts (by id or slug), terms, or only the methods. */
type AllowScope = { kind: 'served' | 'posts' | 'terms' } | { kind: 'record'; posts: PostKind };

function allowScope(path: string): AllowScope {
  const match = /^\/(events|venues|organizers|categories|tags)(\/(?::id|by-slug\/:slug))?$/.exec(path);
  if (!match) return { kind: 'served' };
  const [, resource, single] = match as unknown as [string, string, string | undefined];
  const terms = resource === 'categories' || resource === 'tags';
  if (!single) return { kind: terms ? 'terms' : 'posts' };
  return terms ? { kind: 'terms' } : { kind: 'record', posts: resource as PostKind };
}

/** `path`'s `Allow` for `viewer`, given the served `methods` and the request's path values (`db`: only
 * asked for when a record decides). */
export async function allowFor(
  viewer: Viewer,
  path: string,
  methods: readonly HttpMethod[],
  params: { id?: string; slug?: string },
  db: () => Db,
): Promise<string> {
  const scope = allowScope(path);
  if (scope.kind === 'served') return methods.join(', ');
  // Anonymous viewers and readers may only ever GET: no record needs reading for them.
  if (scope.kind !== 'record' || viewer.role === null || !can(viewer, 'edit_posts')) {
    const kind = scope.kind === 'record' ? 'read-only' : scope.kind;
    return allowedMethods(viewer, { kind } as AllowTarget, methods).join(', ');
  }
  if (params.id === undefined) {
    // By slug, as TEC's checks run on the id the slug resolved to; a slug naming no record resolves
    // none (`unknown-slug`: the rights on the type, to those who may learn it names none).
    const record = await postOwner(db(), scope.posts, { slug: String(params.slug) });
    const target: AllowTarget = record ? { kind: 'record', record } : { kind: 'unknown-slug' };
    return allowedMethods(viewer, target, methods).join(', ');
  }
  const id = Number(params.id);
  // An id past 32 bits names no record (and PostgreSQL refuses to compare an integer with it); an
  // unknown id allows no write.
  const record = id <= MAX_RECORD_ID ? await postOwner(db(), scope.posts, { id }) : null;
  return allowedMethods(viewer, { kind: 'record', record }, methods).join(', ');
}
