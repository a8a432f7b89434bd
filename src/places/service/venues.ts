import { SEARCHED_FIELDS } from '../../core/rules/search.js';
import type { Prisma, Venue } from '../../generated/sqlite/client.js';
import { isUrl } from '../../core/rules/urls.js';
import { linkedLists } from './linked-lists.js';
import { type LinkedPostInput, type LinkedStore, linkedWrites } from './linked-posts.js';

// Venues (docs/reference.md §1.2, §6.4, §8): the venue's own fields on top of the shared linked-post rules.

export interface VenueInput extends LinkedPostInput {
  address?: string;
  city?: string;
  country?: string;
  province?: string;
  state?: string;
  /** Filled from `state`, else `province` (the first non-empty one), when not given itself (as TEC does). */
  stateProvince?: string;
  zip?: string;
  phone?: string;
  /** A URL; `""` clears it. */
  website?: string;
  showMap?: boolean;
  showMapLink?: boolean;
  /** -90 to 90; `null` clears it. */
  geoLat?: number | null;
  /** -180 to 180; `null` clears it. */
  geoLng?: number | null;
}

const VENUE_FIELDS = [
  'address',
  'city',
  'country',
  'province',
  'state',
  'stateProvince',
  'zip',
  'phone',
  'website',
  'showMap',
  'showMapLink',
  'geoLat',
  'geoLng',
] as const;

/** `stateprovince` as TEC fills it when it is not sent: from whichever of `state`, `province` is non-empty. */
function stateProvince(input: VenueInput): string | undefined {
  if (input.stateProvince !== undefined) return input.stateProvince;
  if (input.state === undefined && input.province === undefined) return undefined;
  return input.state || input.province || '';
}

const within = (value: number | null | undefined, limit: number) =>
  value === undefined || value === null || (Number.isFinite(value) && Math.abs(value) <= limit);

function venueColumns(input: VenueInput) {
  const website = input.website?.trim();
  const invalid = [
    ...(website && !isUrl(website) ? ['website'] : []),
    ...(within(input.geoLat, 90) ? [] : ['geoLat']),
    ...(within(input.geoLng, 180) ? [] : ['geoLng']),
  ];
  const data = {
    address: input.address,
    city: input.city,
    country: input.country,
    province: input.province,
    state: input.state,
    stateprovince: stateProvince(input),
    zip: input.zip,
    phone: input.phone,
    website,
    showMap: input.showMap,
    showMapLink: input.showMapLink,
    geoLat: input.geoLat,
    geoLng: input.geoLng,
  };
  return { data, invalid };
}

type VenueColumns = ReturnType<typeof venueColumns>['data'];

const venueStore: LinkedStore<Venue, VenueInput, VenueColumns> = {
  kind: 'venue',
  fields: VENUE_FIELDS,
  own: venueColumns,
  find: (db, key) => db.venue.findUnique({ where: key }),
  named: (tx, name) => tx.venue.findMany({ where: { name, status: { not: 'trash' } } }),
  slugsLike: async (tx, prefix) =>
    (await tx.venue.findMany({ where: { slug: { startsWith: prefix } }, select: { slug: true } })).map(
      (row) => row.slug,
    ),
  create: (tx, data, own) => tx.venue.create({ data: { ...data, ...own } }),
  update: (tx, id, data, own) => tx.venue.update({ where: { id }, data: { ...data, ...own } }),
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

// The shared writes and lists, over this kind's store and table.
export const {
  createOrMatch: createOrMatchVenue,
  update: updateVenue,
  remove: deleteVenue,
} = linkedWrites(venueStore);

export const { archive: venueArchive, connection: venueConnection } = linkedLists({
  kind: 'venue',
  searched: SEARCHED_FIELDS.Venue,
  count: (db, where) => db.venue.count({ where }),
  findMany: (db, args) => db.venue.findMany(args as Prisma.VenueFindManyArgs),
});
