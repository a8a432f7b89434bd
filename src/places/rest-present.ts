import type { Media, Organizer, Venue } from '../generated/sqlite/client.js';
import { postDateOf, wallClock } from '../core/rules/dates.js';
import { globalId, permalink } from '../core/rules/urls.js';
import type { Context } from '../core/context/context.js';
import { passwordHides } from '../core/rules/visibility.js';
import { jsonLdDescription, renderedText, texturize } from '../core/rules/texts/rendered.js';

// The reference's embedded objects. Venues and organizers drop falsy values (TEC filters them);
// events never drop keys. Key order is the reference's, so JSON.stringify reproduces it.

export type Representation = 'list' | 'single';

type WithImage<T> = T & { image: Media | null };

/** What a representation reads of the request: the site's addresses and zone, and who asks. */
type Reader = Pick<Context, 'urls' | 'config' | 'viewer'>;

function dropFalsy(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => Boolean(value)));
}

export function presentImage(media: Media | null): Record<string, unknown> | false {
  if (!media) return false;
  const extension = new URL(media.url).pathname.split('.').pop()?.toLowerCase() ?? '';
  return dropFalsy({
    url: media.url,
    id: media.id,
    extension,
    width: media.width,
    height: media.height,
    filesize: media.filesize,
  });
}

/** The keys a venue and an organizer open with, in the reference's order; the name's key is the kind. */
function postHead(
  post: WithImage<Venue> | WithImage<Organizer>,
  kind: 'venue' | 'organizer',
  { urls, config }: Reader,
) {
  const siteZone = config.siteTimezone;
  return {
    id: post.id,
    author: post.authorId ? String(post.authorId) : '',
    status: post.status,
    date: postDateOf(post, siteZone),
    date_utc: wallClock(post.publishedAt, 'UTC'),
    modified: wallClock(post.modifiedAt, siteZone),
    modified_utc: wallClock(post.modifiedAt, 'UTC'),
    url: permalink(urls, kind, post),
    [kind]: texturize(post.name),
    description: renderedText(post.description),
    excerpt: texturize(post.excerpt),
    slug: post.slug,
    image: presentImage(post.image),
  };
}

/** Blanks a protected venue's or organizer's content (docs/reference.md §4.3); its name stays (D6). */
const HIDDEN_VALUES: Record<string, unknown> = {
  description: '',
  excerpt: '',
  image: false,
  address: '',
  city: '',
  country: '',
  province: '',
  state: '',
  zip: '',
  stateprovince: '',
  phone: '',
  email: '',
  website: '',
  geo_lat: 0,
  geo_lng: 0,
  show_map: null,
  show_map_link: null,
};

function scrub(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [key, key in HIDDEN_VALUES ? HIDDEN_VALUES[key] : value]),
  );
}

/** schema.org Place; blank but for its name when `hidden` (by default whenever it has a password). */
export function venueJsonLd(venue: Venue, hidden = Boolean(venue.password)) {
  const shown = (value: string) => (hidden ? '' : value);
  // Empty address parts are left out, as TEC does.
  const address = Object.fromEntries(
    Object.entries({
      streetAddress: shown(venue.address),
      addressLocality: shown(venue.city),
      addressRegion: shown(venue.stateprovince || venue.state || venue.province),
      postalCode: shown(venue.zip),
      addressCountry: shown(venue.country),
    }).filter(([, value]) => value !== ''),
  );
  return {
    '@type': 'Place',
    name: texturize(venue.name),
    description: shown(jsonLdDescription(renderedText(venue.description))),
    url: '',
    address: { '@type': 'PostalAddress', ...address },
    telephone: shown(venue.phone),
    sameAs: shown(venue.website),
  };
}

/** WordPress `antispambot`-style e-mail obfuscation as HTML entities (deterministic here). */
function obfuscateEmail(email: string): string {
  return [...email]
    .map((char, i) => (i % 2 === 0 || char === '@' || char === '.' ? `&#${char.charCodeAt(0)};` : char))
    .join('');
}

/** schema.org Person; blank but for its name when `hidden` (by default whenever it has a password). */
export function organizerJsonLd(organizer: Organizer, hidden = Boolean(organizer.password)) {
  const shown = (value: string) => (hidden ? '' : value);
  return {
    '@type': 'Person',
    name: texturize(organizer.name),
    description: shown(jsonLdDescription(renderedText(organizer.description))),
    url: shown(organizer.website),
    telephone: shown(organizer.phone),
    email: organizer.email && !hidden ? obfuscateEmail(organizer.email) : '',
    sameAs: shown(organizer.website),
  };
}

/**
 * The reference's venue (docs/reference.md §1.2): falsy fields dropped, coordinates when known, `json_ld` in
 * the single representation, then `show_map`, `show_map_link` and the global ids. The viewer decides whether a
 * password-protected venue is scrubbed (everyone who may not edit it).
 */
export function presentVenue(venue: WithImage<Venue>, ctx: Reader, as: Representation) {
  const hidden = passwordHides(ctx.viewer, venue);
  const record = {
    ...dropFalsy({
      ...postHead(venue, 'venue', ctx),
      address: venue.address,
      city: venue.city,
      country: venue.country,
      province: venue.province,
      state: venue.state,
      zip: venue.zip,
      phone: venue.phone,
      website: venue.website,
      stateprovince: venue.stateprovince,
    }),
    ...(venue.geoLat !== null && venue.geoLng !== null
      ? { geo_lat: venue.geoLat, geo_lng: venue.geoLng }
      : {}),
    // A password-protected venue has no JSON-LD at all (the reference omits it whoever asks).
    ...(as === 'single' && !venue.password ? { json_ld: venueJsonLd(venue, hidden) } : {}),
    show_map: venue.showMap,
    show_map_link: venue.showMapLink,
    global_id: globalId(ctx.urls, venue.id),
    global_id_lineage: [globalId(ctx.urls, venue.id)],
  };
  return hidden ? scrub(record) : record;
}

/**
 * The reference's organizer (docs/reference.md §1.3): every falsy field dropped; `json_ld` in the single
 * representation.
 */
export function presentOrganizer(organizer: WithImage<Organizer>, ctx: Reader, as: Representation) {
  const hidden = passwordHides(ctx.viewer, organizer);
  const record = dropFalsy({
    ...postHead(organizer, 'organizer', ctx),
    phone: organizer.phone,
    website: organizer.website,
    email: organizer.email,
    json_ld: as === 'single' ? organizerJsonLd(organizer, hidden) : null,
    global_id: globalId(ctx.urls, organizer.id),
    global_id_lineage: [globalId(ctx.urls, organizer.id)],
  });
  return hidden ? scrub(record) : record;
}
