import { declaredFromSource } from '../../events/model/event-fields.js';
import type { EventFields, LinkSpec, SourceRecord } from '../records.js';

// A TEC REST API item read into the source record the import engine writes: venues, organizers, terms
// and events, linked by their `global_id` keys, with the terms ordered parents first.

export type Json = Record<string, unknown>;

export const text = (value: unknown) =>
  typeof value === 'string' ? value : value == null ? '' : String(value);
const flag = (value: unknown) => value === true || value === 'yes' || value === '1' || value === 1;
const imageUrl = (image: unknown) =>
  image && typeof image === 'object' ? text((image as Json).url) : typeof image === 'string' ? image : '';
const number = (value: unknown) => {
  const parsed = typeof value === 'number' ? value : Number.parseFloat(text(value));
  return Number.isFinite(parsed) ? parsed : null;
};
/** WordPress gives some text HTML-escaped (`&amp;`): the services store it as written. */
const decoded = (value: unknown) =>
  text(value)
    .replace(/&#0?38;|&amp;/g, '&')
    .replace(/&#0?39;|&#8217;/g, "'")
    .replace(/&quot;|&#0?34;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

export function keyOf(item: Json): string {
  return text(item.global_id) || text(item.id);
}

export function venueRecord(item: Json, where: string): SourceRecord {
  return {
    kind: 'venue',
    key: keyOf(item),
    where,
    fields: {
      name: decoded(item.venue),
      description: text(item.description),
      status: text(item.status) || undefined,
      address: text(item.address),
      city: text(item.city),
      country: text(item.country),
      province: text(item.province),
      state: text(item.state),
      stateProvince: text(item.stateprovince),
      zip: text(item.zip),
      phone: text(item.phone),
      website: text(item.website),
      showMap: item.show_map === undefined ? undefined : flag(item.show_map),
      showMapLink: item.show_map_link === undefined ? undefined : flag(item.show_map_link),
      geoLat: number(item.geo_lat),
      geoLng: number(item.geo_lng),
      image: imageUrl(item.image),
    },
  };
}

export function organizerRecord(item: Json, where: string): SourceRecord {
  return {
    kind: 'organizer',
    key: keyOf(item),
    where,
    fields: {
      name: decoded(item.organizer),
      description: text(item.description),
      status: text(item.status) || undefined,
      phone: text(item.phone),
      website: text(item.website),
      email: text(item.email),
      image: imageUrl(item.image),
    },
  };
}

const asList = (value: unknown): Json[] =>
  Array.isArray(value) ? (value as Json[]) : value && typeof value === 'object' ? [value as Json] : [];

/** A linked venue or organizer: its key, and its name should it not have been imported itself. */
function linkTo(item: Json, nameField: 'venue' | 'organizer'): LinkSpec {
  return { key: keyOf(item), name: decoded(item[nameField]) || undefined };
}

/** The global id of the post `id` on the site that gave `sibling` (`host?id=6`). */
function globalIdOf(sibling: string, id: number): string {
  return sibling.includes('?id=') ? sibling.replace(/\?id=\d+$/, `?id=${id}`) : String(id);
}

/** A TEC event as a record, with the source key of the event it is an occurrence of (`post_parent`). */
export interface EventItem {
  record: EventRecord;
  parent: string | null;
  /** The series' lines, when the source gives them (another instance of this service). */
  lines: string[];
}

export type EventRecord = Extract<SourceRecord, { kind: 'event' }>;

export function eventItem(item: Json, where: string): EventItem {
  const record = eventRecord(item, where);
  const parent = number(item.post_parent);
  const lines = Array.isArray(item.recurrence)
    ? (item.recurrence as unknown[]).map(text).filter(Boolean)
    : [];
  return { record, parent: parent ? globalIdOf(record.key, parent) : null, lines };
}

export function eventRecord(item: Json, where: string): EventRecord {
  const key = keyOf(item);
  const costDetails = (item.cost_details ?? {}) as Json;
  const values = Array.isArray(costDetails.values) ? (costDetails.values as unknown[]).map(text) : [];
  const fields: EventFields = {
    title: decoded(item.title),
    description: text(item.description),
    excerpt: text(item.excerpt),
    status: text(item.status) || undefined,
    start: text(item.start_date),
    end: text(item.end_date),
    timezone: text(item.timezone),
    allDay: flag(item.all_day),
    cost: values.length ? values.join(' - ') : decoded(item.cost),
    // Where an event has no website of its own the API gives its page (`url`): not the event's website.
    website: text(item.website) === text(item.url) ? '' : text(item.website),
    declared: declaredFromSource((_name, field) => item[field.source ?? field.rest], { flag, text }),
    eventStatus: text(item.event_status) || undefined,
    image: imageUrl(item.image),
    venues: asList(item.venue).map((venue) => linkTo(venue, 'venue')),
    organizers: asList(item.organizer).map((organizer) => linkTo(organizer, 'organizer')),
    categories: asList(item.categories).map((term) => ({ key: text(term.id), name: decoded(term.name) })),
    tags: asList(item.tags).map((term) => ({ key: text(term.id), name: decoded(term.name) })),
  };
  return { kind: 'event', key, where, fields };
}

export function termRecord(kind: 'category' | 'tag', item: Json, where: string): SourceRecord {
  const parent = number(item.parent);
  return {
    kind,
    key: text(item.id),
    where,
    fields: {
      name: decoded(item.name),
      description: text(item.description),
      slug: text(item.slug) || undefined,
      parent: kind === 'category' && parent ? String(parent) : null,
    },
  };
}

/** Categories ordered so that every parent comes before its children. */
export function parentsFirst(records: SourceRecord[]): SourceRecord[] {
  const byKey = new Map(records.map((record) => [record.key, record]));
  const ordered: SourceRecord[] = [];
  const placed = new Set<string>();
  const place = (record: SourceRecord, path: Set<string>) => {
    if (placed.has(record.key) || path.has(record.key)) return;
    path.add(record.key);
    const parentKey = record.kind === 'category' ? record.fields.parent : null;
    const parent = parentKey ? byKey.get(parentKey) : undefined;
    if (parent) place(parent, path);
    placed.add(record.key);
    ordered.push(record);
  };
  for (const record of records) place(record, new Set());
  return ordered;
}
