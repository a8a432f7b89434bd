import type { Event, Media, Organizer, Term, Venue } from '../../generated/sqlite/client.js';
import { isoWithOffset, wallClock } from '../../domain/dates.js';
import { costValues } from '../../domain/cost.js';
import { type SiteUrls, TAXONOMY_PATH, type Taxonomy, globalId, permalink } from '../../domain/urls.js';

// The reference's embedded objects. Venues and organizers drop falsy values (TEC filters them);
// events never drop keys. Key order is the reference's, so JSON.stringify reproduces it.

export type Representation = 'list' | 'single';

type WithImage<T> = T & { image: Media | null };

function dropFalsy(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => Boolean(value)));
}

function postDates(post: { publishedAt: Date; modifiedAt: Date }, siteZone: string) {
  return {
    date: wallClock(post.publishedAt, siteZone),
    date_utc: wallClock(post.publishedAt, 'UTC'),
    modified: wallClock(post.modifiedAt, siteZone),
    modified_utc: wallClock(post.modifiedAt, 'UTC'),
  };
}

export function presentImage(media: Media | null): Record<string, unknown> | false {
  if (!media) return false;
  const extension = new URL(media.url).pathname.split('.').pop()?.toLowerCase() ?? '';
  return dropFalsy({ url: media.url, id: media.id, extension, width: media.width, height: media.height, filesize: media.filesize });
}

function venueJsonLd(venue: Venue) {
  return {
    '@type': 'Place',
    name: venue.name,
    description: venue.excerpt,
    url: '',
    address: {
      '@type': 'PostalAddress',
      streetAddress: venue.address,
      addressLocality: venue.city,
      addressRegion: venue.stateprovince || venue.state || venue.province,
      postalCode: venue.zip,
      addressCountry: venue.country,
    },
    telephone: venue.phone,
    sameAs: venue.website,
  };
}

/** WordPress `antispambot`-style e-mail obfuscation as HTML entities (deterministic here). */
function obfuscateEmail(email: string): string {
  return [...email].map((char, i) => (i % 2 === 0 || char === '@' || char === '.' ? `&#${char.charCodeAt(0)};` : char)).join('');
}

function organizerJsonLd(organizer: Organizer) {
  return {
    '@type': 'Person',
    name: organizer.name,
    description: organizer.excerpt,
    url: organizer.website,
    telephone: organizer.phone,
    email: organizer.email ? obfuscateEmail(organizer.email) : '',
    sameAs: organizer.website,
  };
}

export function presentVenue(venue: WithImage<Venue>, urls: SiteUrls, siteZone: string, as: Representation) {
  return {
    ...dropFalsy({
      id: venue.id,
      author: venue.authorId ? String(venue.authorId) : '',
      status: venue.status,
      ...postDates(venue, siteZone),
      url: permalink(urls, 'venue', venue),
      venue: venue.name,
      description: venue.description,
      excerpt: venue.excerpt,
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
      geo_lat: venue.geoLat,
      geo_lng: venue.geoLng,
      json_ld: as === 'single' ? venueJsonLd(venue) : null,
    }),
    show_map: venue.showMap,
    show_map_link: venue.showMapLink,
    global_id: globalId(urls, venue.id),
    global_id_lineage: [globalId(urls, venue.id)],
  };
}

export function presentOrganizer(organizer: WithImage<Organizer>, urls: SiteUrls, siteZone: string, as: Representation) {
  return dropFalsy({
    id: organizer.id,
    author: organizer.authorId ? String(organizer.authorId) : '',
    status: organizer.status,
    ...postDates(organizer, siteZone),
    url: permalink(urls, 'organizer', organizer),
    organizer: organizer.name,
    description: organizer.description,
    excerpt: organizer.excerpt,
    slug: organizer.slug,
    image: presentImage(organizer.image),
    phone: organizer.phone,
    website: organizer.website,
    email: organizer.email,
    json_ld: as === 'single' ? organizerJsonLd(organizer) : null,
    global_id: globalId(urls, organizer.id),
    global_id_lineage: [globalId(urls, organizer.id)],
  });
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

export function eventJsonLd(
  event: Event & { image: Media | null },
  venues: Venue[],
  organizers: Organizer[],
  urls: SiteUrls,
) {
  const url = permalink(urls, 'event', event);
  const values = costValues(event.cost);
  const image = presentImage(event.image);
  const [firstOrganizer] = organizers;
  return {
    '@context': 'http://schema.org',
    '@type': 'Event',
    name: event.title,
    description: escapeHtml(event.excerpt || event.description),
    ...(image ? { image: image.url } : {}),
    url,
    eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
    eventStatus: 'https://schema.org/EventScheduled',
    startDate: isoWithOffset(event.startsAt, event.timezone),
    endDate: isoWithOffset(event.endsAt, event.timezone),
    ...(venues[0] ? { location: venueJsonLd(venues[0]) } : {}),
    ...(firstOrganizer ? { organizer: organizerJsonLd(firstOrganizer) } : {}),
    ...(values.length
      ? {
          offers: {
            '@type': 'Offer',
            price: values[0],
            priceCurrency: event.currencyCode || 'USD',
            url,
            category: 'primary',
            availability: 'inStock',
            validFrom: isoWithOffset(event.publishedAt, event.timezone),
          },
        }
      : {}),
    performer: 'Organization',
  };
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
