import { z } from 'zod';
import type { Scope } from '../context.js';
import type { Db } from '../db/client.js';
import type { Prisma, Venue } from '../generated/sqlite/client.js';
import {
  type LinkedKey,
  type LinkedListFilter,
  type LinkedStore,
  coordinateField,
  createOrMatch,
  deleteLinked,
  flagField,
  linkedArchive,
  linkedListQuery,
  textField,
  updateLinked,
  urlField,
  withSearch,
} from './linked-posts.js';
import type { Tx, WriteScope } from './transactions.js';

// Venues (docs/reference.md §1.2, §6.4, §8): the venue's own fields on top of the shared linked-post rules.

const venueFields = z.object({
  address: textField.optional(),
  city: textField.optional(),
  country: textField.optional(),
  province: textField.optional(),
  state: textField.optional(),
  stateprovince: textField.optional(),
  zip: textField.optional(),
  phone: textField.optional(),
  website: urlField.optional(),
  show_map: flagField.optional(),
  show_map_link: flagField.optional(),
  geo_lat: coordinateField(90).optional(),
  geo_lng: coordinateField(180).optional(),
});

export type VenueFields = z.output<typeof venueFields>;

function venueColumns(fields: VenueFields = {}) {
  return {
    // TEC fills `stateprovince` from whichever of `state` or `province` is sent (when it is not sent itself).
    ...(fields.stateprovince === undefined && (fields.state ?? fields.province) !== undefined
      ? { stateprovince: fields.state ?? fields.province }
      : {}),
    address: fields.address,
    city: fields.city,
    country: fields.country,
    province: fields.province,
    state: fields.state,
    ...(fields.stateprovince !== undefined ? { stateprovince: fields.stateprovince } : {}),
    zip: fields.zip,
    phone: fields.phone,
    website: fields.website,
    showMap: fields.show_map,
    showMapLink: fields.show_map_link,
    geoLat: fields.geo_lat,
    geoLng: fields.geo_lng,
  };
}

export const venueStore: LinkedStore<Venue, VenueFields> = {
  kind: 'venue',
  schema: venueFields,
  find: (db, key) => db.venue.findUnique({ where: key }),
  named: (tx, name) => tx.venue.findMany({ where: { name, status: { not: 'trash' } } }),
  slugTaken: async (tx, slug) => (await tx.venue.count({ where: { slug } })) > 0,
  create: (tx, data, fields) => tx.venue.create({ data: { ...data, ...venueColumns(fields) } }),
  update: (tx, id, data, fields) =>
    tx.venue.update({ where: { id }, data: { ...data, ...venueColumns(fields) } }),
  linkedEvents: async (tx, id) =>
    (await tx.eventVenue.findMany({ where: { venueId: id }, select: { eventId: true } })).map(
      (link) => link.eventId,
    ),
  unlinkEvents: async (tx, id) => {
    await tx.eventVenue.deleteMany({ where: { venueId: id } });
  },
  remove: async (tx, id) => {
    await tx.venue.delete({ where: { id } });
  },
};

/** Creates a venue from a REST-named body (`venue`, `address`, …), or returns its duplicate (`created: false`). */
export function createOrMatchVenue(w: WriteScope, body: unknown) {
  return createOrMatch(w, venueStore, body);
}

export function updateVenue(
  w: WriteScope,
  key: LinkedKey,
  body: unknown,
  options = { passwordAllowed: false },
) {
  return updateLinked(w, venueStore, key, body, options);
}

export function deleteVenue<T>(
  w: WriteScope,
  key: LinkedKey,
  force: boolean,
  load: (tx: Tx, id: number) => Promise<T>,
) {
  return deleteLinked(w, venueStore, key, force, load);
}

/** One page of venues: `search` looks in the name, description, excerpt and the address fields. */
export async function venueArchive(
  db: Db,
  scope: Pick<Scope, 'viewer' | 'config'>,
  filter: LinkedListFilter,
  page: number | null | undefined,
  perPage: number | null | undefined,
) {
  const query = await linkedListQuery(db, scope, filter);
  const where: Prisma.VenueWhereInput = withSearch(query, [
    'name',
    'description',
    'excerpt',
    'address',
    'city',
    'province',
    'state',
    'stateprovince',
    'zip',
    'phone',
  ] as const);
  const archive = await linkedArchive('venue', where, { page, perPage }, (w) => db.venue.count({ where: w }));
  return { ...archive, effective: query.effective };
}
