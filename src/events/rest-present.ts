import { DECLARED_NAMES, attendanceMode, declaration } from './model/event-fields.js';
import type { Event, Media, Organizer, Term, Venue } from '../generated/sqlite/client.js';
import { isoWithOffset, startOfLocalDay } from '../core/rules/dates.js';
import { costValues } from '../core/graphql/cost.js';
import { SCHEMA_ORG_EVENT_STATUS, isEventStatus } from './model/event-status.js';
import { type SiteUrls, TAXONOMY_PATH, type Taxonomy, permalink } from '../core/rules/urls.js';
import { jsonLdDescription, renderedText, texturize } from '../core/rules/texts/rendered.js';
import { organizerJsonLd, presentImage, venueJsonLd } from '../places/rest-present.js';

// An event's embedded terms and its JSON-LD; the venues' and organizers' shapes are the places room's
// (re-exported here for the event shapes that embed them).
export { type Representation, presentImage, presentOrganizer, presentVenue } from '../places/rest-present.js';
export { texturize } from '../core/rules/texts/rendered.js';

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
