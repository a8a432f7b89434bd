import { SEARCHED_FIELDS } from '../../core/rules/search.js';
import type { Context, Scope } from '../../core/context/scope.js';
import type { Db } from '../../core/db/client.js';
import type { Prisma, Venue } from '../../generated/sqlite/client.js';
import { isUrl } from '../../core/rules/urls.js';
import type { CursorArgs } from '../../core/db/queries/keyset.js';
import {
  type LinkedListFilter,
  linkedArchive,
  linkedConnection,
  linkedListQuery,
  withSearch,
} from './linked-lists.js';
import type { LinkedSelection } from './linked-access.js';
import {
  type LinkedKey,
  type LinkedPostInput,
  type LinkedStore,
  createOrMatch,
  deleteLinked,
  updateLinked,
} from './linked-posts.js';
import type { Tx, WriteScope } from '../../core/db/transactions.js';

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

export const venueStore: LinkedStore<Venue, VenueInput, VenueColumns> = {
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

/**
 * Creates a venue, or returns its duplicate (`created: false`). `unreadable`: input fields the API
 * could not read, named in the same 400 as the invalid ones.
 */
export function createOrMatchVenue(w: WriteScope, input: VenueInput, unreadable: readonly string[] = []) {
  return createOrMatch(w, venueStore, input, unreadable);
}

export function updateVenue(
  w: WriteScope,
  key: LinkedKey,
  input: VenueInput,
  unreadable: readonly string[] = [],
) {
  return updateLinked(w, venueStore, key, input, unreadable);
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
async function venueList(
  db: Db,
  scope: Pick<Context, 'viewer' | 'config' | 'reads'>,
  filter: LinkedListFilter,
) {
  const query = await linkedListQuery(db, scope, filter);
  const where: Prisma.VenueWhereInput = withSearch(query, SEARCHED_FIELDS.Venue);
  return { where, effective: query.effective };
}

export async function venueArchive(
  db: Db,
  scope: Pick<Scope, 'viewer' | 'config'>,
  filter: LinkedListFilter,
  page: number | null | undefined,
  perPage: number | null | undefined,
) {
  const { where, effective } = await venueList(db, scope, filter);
  const archive = await linkedArchive('venue', where, { page, perPage }, (w) => db.venue.count({ where: w }));
  return { ...archive, effective };
}

/**
 * One cursor page of venues: the list's filters and order (its visibility included), bounded by the
 * cursor; the rows loaded with the API's `selection`.
 */
export async function venueConnection<Row extends object = Venue>(
  db: Db,
  scope: Pick<Scope, 'viewer' | 'config'>,
  filter: LinkedListFilter,
  args: CursorArgs,
  selection: LinkedSelection = {},
) {
  const { where } = await venueList(db, scope, filter);
  const find = async (window: { where: Prisma.VenueWhereInput; orderBy: object[]; take: number }) =>
    (await db.venue.findMany({ ...selection, ...window } as Prisma.VenueFindManyArgs)) as Row[];
  return linkedConnection(where, args, find, (w) => db.venue.count({ where: w }));
}
