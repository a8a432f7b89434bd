/** The roots every URL of a response is built from; they keep the request's language segment. */
export interface SiteUrls {
  /** e.g. `http://localhost:4000` or `http://localhost:4000/fr` */
  site: string;
  /** `<site>/calendar/events/v1` */
  api: string;
  /** `host[/path]` without scheme or port, as the reference's `global_id` */
  globalIdBase: string;
}

export const API_PREFIX = '/calendar/events/v1';

export function siteUrls(siteUrl: string, languageSegment?: string): SiteUrls {
  const site = languageSegment ? `${siteUrl}/${languageSegment}` : siteUrl;
  const parsed = new URL(siteUrl);
  return {
    site,
    api: `${site}${API_PREFIX}`,
    globalIdBase: `${parsed.hostname}${parsed.pathname.replace(/\/+$/, '')}`,
  };
}

export type PostType = 'event' | 'venue' | 'organizer';

const WORDPRESS_POST_TYPE: Record<PostType, string> = {
  event: 'tribe_events',
  venue: 'tribe_venue',
  organizer: 'tribe_organizer',
};

/** Front-end permalink; unpublished posts have no pretty permalink in WordPress. */
export function permalink(
  urls: SiteUrls,
  type: PostType,
  post: { id: number; slug: string | null; status: string },
): string {
  if (post.status === 'publish' && post.slug) return `${urls.site}/${type}/${post.slug}/`;
  return `${urls.site}/?post_type=${WORDPRESS_POST_TYPE[type]}&p=${post.id}`;
}

export function globalId(urls: SiteUrls, id: number): string {
  return `${urls.globalIdBase}?id=${id}`;
}

export type Taxonomy = 'tribe_events_cat' | 'post_tag';

export const TAXONOMY_PATH: Record<Taxonomy, { rest: string; site: string }> = {
  tribe_events_cat: { rest: 'categories', site: 'events/category' },
  // WordPress's own tag archive (docs/reference/compatibility.md: terms): tags are not the calendar's.
  post_tag: { rest: 'tags', site: 'tag' },
};

/** PHP's FILTER_VALIDATE_URL in spirit: a scheme and a host. */
export function isUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return /^[a-z][a-z0-9+.-]*:$/i.test(url.protocol) && (url.hostname !== '' || url.protocol === 'mailto:');
  } catch {
    return false;
  }
}
