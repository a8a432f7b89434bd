import type { Context } from '../../core/context/scope.js';
import { type ApiError, invalidParams } from '../../core/errors/errors.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import { nextTurn } from '../../core/db/turns.js';

// Geo lists (`geoloc_lat`/`geoloc_lng`/`geoloc_radius`, GraphQL `near`): the venues within a radius of
// a point, and the events of the list ordered by their nearest venue.

/** Geo lists: default radius (km), and the most events a radius may hold (they are sorted in memory). */
export const DEFAULT_GEO_RADIUS_KM = 50;
const GEO_MAX_EVENTS = 10_000;
/** Events of a radius read per step (the event loop gets a turn between steps). */
const GEO_READ_BATCH = 1000;
const GEO_MAX_VENUES = 10_000;
export const EARTH_RADIUS_KM = 6371.0088;
const KM_PER_DEGREE = (Math.PI * EARTH_RADIUS_KM) / 180;
function haversineKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLng = (lng2 - lng1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** A lat/lng box around the circle, for SQL; longitudes wrap at ±180, and near a pole every longitude counts. */
export function boundingBox(lat: number, lng: number, radius: number): Prisma.VenueWhereInput {
  const dLat = radius / KM_PER_DEGREE;
  const box: Prisma.VenueWhereInput = { geoLat: { gte: lat - dLat, lte: lat + dLat }, geoLng: { not: null } };
  const cos = Math.cos((Math.max(Math.abs(lat - dLat), Math.abs(lat + dLat)) * Math.PI) / 180);
  if (lat + dLat >= 90 || lat - dLat <= -90 || cos <= 0) return box;
  const dLng = radius / (KM_PER_DEGREE * cos);
  if (dLng >= 180) return box;
  const [west, east] = [lng - dLng, lng + dLng];
  if (west < -180) return { ...box, OR: [{ geoLng: { gte: west + 360 } }, { geoLng: { lte: east } }] };
  if (east > 180) return { ...box, OR: [{ geoLng: { gte: west } }, { geoLng: { lte: east - 360 } }] };
  return { ...box, geoLng: { gte: west, lte: east } };
}

/**
 * Venues within the radius, with their distance: a bounding box in SQL (a bounded scan of the venues
 * with coordinates), then the exact great-circle distance here.
 */
export async function venuesInRange(
  ctx: Pick<Context, 'db'>,
  { lat, lng, radius }: { lat: number; lng: number; radius: number },
  radiusName: string,
): Promise<Map<number, number>> {
  const candidates = await ctx.db.venue.findMany({
    where: boundingBox(lat, lng, radius),
    select: { id: true, geoLat: true, geoLng: true },
    take: GEO_MAX_VENUES + 1,
  });
  if (candidates.length > GEO_MAX_VENUES) throw tooManyInRange(radiusName, 'venues', GEO_MAX_VENUES);
  const distances = new Map<number, number>();
  for (const venue of candidates) {
    const distance = haversineKm(lat, lng, venue.geoLat as number, venue.geoLng as number);
    if (distance <= radius) distances.set(venue.id, distance);
  }
  return distances;
}

function tooManyInRange(radiusName: string, what: string, max: number): ApiError {
  return invalidParams({
    [radiusName]: `More than ${max} ${what} lie within this radius; use a smaller radius or narrower dates.`,
  });
}

/**
 * The events of a geo list, ordered by distance (an event with several venues counts its nearest one),
 * then start and id. The events of the bounding box are read narrowly (ids, start, venue ids), those
 * with no venue inside the circle dropped, and the rest sorted here; a box holding more than
 * GEO_MAX_EVENTS of them is refused rather than answered out of order. They are read in steps, with a
 * turn of the event loop between two.
 */
export async function nearestEventIds(
  ctx: Context,
  { where, distances }: { where: Prisma.EventWhereInput; distances: Map<number, number> | null },
  radiusName: string,
): Promise<number[]> {
  const rows: Array<{ id: number; localStart: string; venues: Array<{ venueId: number }> }> = [];
  for (let after = 0; ;) {
    const batch = await ctx.db.event.findMany({
      where: { AND: [where, { id: { gt: after } }] },
      select: { id: true, localStart: true, venues: { select: { venueId: true } } },
      orderBy: { id: 'asc' },
      take: GEO_READ_BATCH,
    });
    rows.push(...batch);
    if (rows.length > GEO_MAX_EVENTS) throw tooManyInRange(radiusName, 'events', GEO_MAX_EVENTS);
    if (batch.length < GEO_READ_BATCH) break;
    after = batch[batch.length - 1]!.id;
    await nextTurn();
  }
  const keyed = [];
  for (const row of rows) {
    const distance = Math.min(...row.venues.map((link) => distances?.get(link.venueId) ?? Infinity));
    if (distance !== Infinity) keyed.push({ id: row.id, localStart: row.localStart, distance });
  }
  keyed.sort((a, b) => a.distance - b.distance || a.localStart.localeCompare(b.localStart) || a.id - b.id);
  return keyed.map((row) => row.id);
}
