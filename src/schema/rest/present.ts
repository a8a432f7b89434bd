import { autop } from '@wordpress/autop';
import { DECLARED_NAMES, attendanceMode, declaration } from '../../model/event-fields.js';
import { LRUCache } from 'lru-cache';
import { texturize as wptexturize } from '../../domain/texturize.js';
import type { Event, Media, Organizer, Term, Venue } from '../../generated/sqlite/client.js';
import { isoWithOffset, postDateOf, startOfLocalDay, wallClock } from '../../domain/dates.js';
import { costValues } from '../../domain/cost.js';
import { SCHEMA_ORG_EVENT_STATUS, isEventStatus } from '../../domain/event-status.js';
import { type SiteUrls, TAXONOMY_PATH, type Taxonomy, globalId, permalink } from '../../domain/urls.js';
import { ANONYMOUS, type Viewer } from '../../domain/permissions.js';
import { passwordHides } from '../../domain/visibility.js';

// The reference's embedded objects. Venues and organizers drop falsy values (TEC filters them);
// events never drop keys. Key order is the reference's, so JSON.stringify reproduces it.

export type Representation = 'list' | 'single';

type WithImage<T> = T & { image: Media | null };

function dropFalsy(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => Boolean(value)));
}

function postDates(post: { publishedAt: Date; postDate: string | null; modifiedAt: Date }, siteZone: string) {
  return {
    date: postDateOf(post, siteZone),
    date_utc: wallClock(post.publishedAt, 'UTC'),
    modified: wallClock(post.modifiedAt, siteZone),
    modified_utc: wallClock(post.modifiedAt, 'UTC'),
  };
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

/**
 * Each page renders the same texts again (titles, the venues' and organizers' descriptions): a
 * rendering, a pure function of its text, is kept by that text, within a bound of characters.
 */
function kept(render: (text: string) => string): (text: string) => string {
  const MAX_CHARS = 1_000_000;
  const renderings = new LRUCache<string, string>({
    maxSize: MAX_CHARS,
    sizeCalculation: (rendering, text) => rendering.length + text.length || 1,
  });
  return (text) => {
    let rendering = renderings.get(text);
    if (rendering === undefined) {
      rendering = render(text);
      if (text.length + rendering.length <= MAX_CHARS / 100) renderings.set(text, rendering);
    }
    return rendering;
  };
}

/** `wptexturize` (domain/texturize.ts), as every REST title, content and excerpt shows it. */
export const texturize = kept(wptexturize);

/** A description as WordPress renders it (`wpautop`), trimmed as the REST fields show it. */
export const renderedText = kept((text) => wptexturize(autop(text).trim()));

/**
 * A description in JSON-LD as TEC writes it: the rendered HTML escaped, then a newline that TEC's
 * double JSON encoding leaves as the two characters `\n` (tec-samples/04: `&lt;p&gt;Hello&lt;/p&gt;\n`).
 */
function jsonLdDescription(html: string): string {
  return html ? `${escapeHtml(html)}\\n` : '';
}

/** schema.org Place; blank but for its name when `hidden` (by default whenever it has a password). */
function venueJsonLd(venue: Venue, hidden = Boolean(venue.password)) {
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
function organizerJsonLd(organizer: Organizer, hidden = Boolean(organizer.password)) {
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
 * the single representation, then `show_map`, `show_map_link` and the global ids. `viewer` decides whether a
 * password-protected venue is scrubbed (everyone who may not edit it); anonymous by default.
 */
export function presentVenue(
  venue: WithImage<Venue>,
  urls: SiteUrls,
  siteZone: string,
  as: Representation,
  viewer: Viewer = ANONYMOUS,
) {
  const hidden = passwordHides(viewer, venue);
  const record = {
    ...dropFalsy({
      id: venue.id,
      author: venue.authorId ? String(venue.authorId) : '',
      status: venue.status,
      ...postDates(venue, siteZone),
      url: permalink(urls, 'venue', venue),
      venue: texturize(venue.name),
      description: renderedText(venue.description),
      excerpt: texturize(venue.excerpt),
      slug: venue.slug,
      image: presentImage(venue.image),
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
    global_id: globalId(urls, venue.id),
    global_id_lineage: [globalId(urls, venue.id)],
  };
  return hidden ? scrub(record) : record;
}

/**
 * The reference's organizer (docs/reference.md §1.3): every falsy field dropped; `json_ld` in the single
 * representation.
 */
export function presentOrganizer(
  organizer: WithImage<Organizer>,
  urls: SiteUrls,
  siteZone: string,
  as: Representation,
  viewer: Viewer = ANONYMOUS,
) {
  const hidden = passwordHides(viewer, organizer);
  const record = dropFalsy({
    id: organizer.id,
    author: organizer.authorId ? String(organizer.authorId) : '',
    status: organizer.status,
    ...postDates(organizer, siteZone),
    url: permalink(urls, 'organizer', organizer),
    organizer: texturize(organizer.name),
    description: renderedText(organizer.description),
    excerpt: texturize(organizer.excerpt),
    slug: organizer.slug,
    image: presentImage(organizer.image),
    phone: organizer.phone,
    website: organizer.website,
    email: organizer.email,
    json_ld: as === 'single' ? organizerJsonLd(organizer, hidden) : null,
    global_id: globalId(urls, organizer.id),
    global_id_lineage: [globalId(urls, organizer.id)],
  });
  return hidden ? scrub(record) : record;
}

/** Term shape (a): the WordPress term object embedded in an event. */
export function presentEmbeddedTerm(term: Term, count: number, urls: SiteUrls) {
  const collection = `${urls.api}/${TAXONOMY_PATH[term.taxonomy as Taxonomy].rest}`;
  return {
    name: term.name,
    slug: term.slug,
    term_group: 0,
    term_taxonomy_id: term.id,
    taxonomy: term.taxonomy,
    description: term.description,
    parent: term.parentId ?? 0,
    count,
    filter: 'raw',
    id: term.id,
    urls: {
      self: `${collection}/${term.id}`,
      collection,
      ...(term.parentId ? { up: `${collection}/${term.parentId}` } : {}),
    },
  };
}

/** The declared fields' JSON-LD properties (`jsonLd` of their declarations), in declaration order. */
function declaredJsonLd(event: Event): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const name of DECLARED_NAMES) {
    const ld = declaration(name).jsonLd;
    const stored = String(event[name]);
    // An empty text is no property at all (schema.org has no "none").
    if (ld && (ld.value || stored !== '')) properties[ld.name] = ld.value ? ld.value(stored) : stored;
  }
  return properties;
}

export function eventJsonLd(
  event: Event & { image: Media | null },
  venues: Venue[],
  organizers: Organizer[],
  urls: SiteUrls,
) {
  const url = permalink(urls, 'event', event);
  const values = costValues(event.cost);
  const image = presentImage(event.image);
  const people = organizers.map((organizer) => organizerJsonLd(organizer));
  // An event attended online also takes place at its URL (schema.org's VirtualLocation).
  const online = attendanceMode(event.attendanceMode) !== 'offline' && event.onlineUrl;
  const places: object[] = [
    ...(venues[0] ? [venueJsonLd(venues[0])] : []),
    ...(online ? [{ '@type': 'VirtualLocation', url: event.onlineUrl }] : []),
  ];
  return {
    '@context': 'http://schema.org',
    '@type': 'Event',
    name: texturize(event.title),
    description: jsonLdDescription(renderedText(event.excerpt || event.description)),
    ...(image ? { image: image.url } : {}),
    url,
    ...declaredJsonLd(event),
    eventStatus: isEventStatus(event.eventStatus)
      ? SCHEMA_ORG_EVENT_STATUS[event.eventStatus]
      : SCHEMA_ORG_EVENT_STATUS.scheduled,
    startDate: isoWithOffset(event.startsAt, event.timezone),
    endDate: isoWithOffset(event.endsAt, event.timezone),
    ...(places.length ? { location: places.length === 1 ? places[0] : places } : {}),
    // One organizer is an object, several a list (as TEC's JSON-LD).
    ...(people.length ? { organizer: people.length === 1 ? people[0] : people } : {}),
    ...(values.length
      ? {
          offers: {
            '@type': 'Offer',
            price: values[0],
            priceCurrency: event.currencyCode || 'USD',
            url,
            category: 'primary',
            availability: 'inStock',
            // Valid from the day of publication: the reference prints its midnight.
            validFrom: isoWithOffset(startOfLocalDay(event.publishedAt, event.timezone), event.timezone),
          },
        }
      : {}),
    performer: 'Organization',
  };
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
