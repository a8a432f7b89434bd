import { IANAZone } from 'luxon';

const HOUR_MS = 3_600_000;

const DAY_MS = 86_400_000;

/**
 * Wall-clock ⇄ instant in one IANA zone, with the zone offset memoised per UTC day. Luxon asks Intl
 * for the offset on every call, which made up most of the time to generate 100k events. Exact for
 * zones whose offset changes only on a whole UTC hour (every zone in `vocabulary.ts`); the tests
 * compare each generated event against `wallClock()` from the domain.
 */
export class ZoneClock {
  private readonly zone: IANAZone;
  /** Offset of a UTC day, or NaN on the few days with a transition (then looked up per hour). */
  private readonly days = new Map<number, number>();

  constructor(zoneName: string) {
    this.zone = IANAZone.create(zoneName);
    if (!this.zone.isValid) throw new Error(`invalid time zone ${zoneName}`);
  }

  private zoneOffset(instantMs: number): number {
    return this.zone.offset(instantMs) * 60_000;
  }

  /** Milliseconds to add to the instant to read its wall-clock as if it were UTC. */
  offsetAt(instantMs: number): number {
    const day = Math.floor(instantMs / DAY_MS);
    let offset = this.days.get(day);
    if (offset === undefined) {
      const first = this.zoneOffset(day * DAY_MS);
      offset = first === this.zoneOffset((day + 1) * DAY_MS - HOUR_MS) ? first : Number.NaN;
      this.days.set(day, offset);
    }
    return Number.isNaN(offset) ? this.zoneOffset(Math.floor(instantMs / HOUR_MS) * HOUR_MS) : offset;
  }

  /** `Date.UTC(...)` of a wall-clock reading → the instant; a time in a DST gap moves forward, as luxon does. */
  instant(wallMs: number): Date {
    const guess = wallMs - this.offsetAt(wallMs);
    const offset = this.offsetAt(guess);
    const settled = this.offsetAt(wallMs - offset);
    return new Date(wallMs - Math.min(offset, settled));
  }

  /** `YYYY-MM-DD HH:mm:ss` of the instant in this zone (whole seconds, as stored). */
  wall(instant: Date): string {
    return new Date(instant.getTime() + this.offsetAt(instant.getTime()))
      .toISOString()
      .slice(0, 19)
      .replace('T', ' ');
  }
}
