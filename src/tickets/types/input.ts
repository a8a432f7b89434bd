import { DateTime } from 'luxon';
import { WALL_CLOCK } from '../../core/rules/dates.js';
import { invalidParams } from '../../core/errors/errors.js';
import { DEFAULT_MAX_PER_REQUEST, LIMITS, TICKET_KINDS, type TicketKind, checkedText } from '../model.js';

// A ticket type as written: every field checked at once (all bad fields named together), its sales
// window read as wall-clock in the event's zone and stored as UTC.

export interface TicketTypeInput {
  kind?: TicketKind | null;
  name?: string | null;
  description?: string | null;
  price?: string | null;
  currency?: string | null;
  /** null: unlimited. */
  capacity?: number | null;
  /** Draw from this shared capacity (of the same event) as well. */
  sharedCapacityId?: number | null;
  /** A new shared capacity of this size, which this type then draws from. */
  newSharedCapacity?: number | null;
  /** Wall-clock in the event's zone, `YYYY-MM-DD HH:mm:ss`; null: open on that side. */
  salesStart?: string | null;
  salesEnd?: string | null;
  maxPerRequest?: number | null;
  waitlist?: boolean | null;
}

export function checkedInput(input: TicketTypeInput, zone: string, creating: boolean) {
  const reasons: Record<string, string> = {};
  const data: Record<string, unknown> = {};
  if (input.kind !== undefined && input.kind !== null) {
    if (!TICKET_KINDS.includes(input.kind)) reasons.kind = 'RSVP or TICKET.';
    data.kind = input.kind;
  }
  if (input.name !== undefined && input.name !== null) {
    const name = checkedText(input.name, LIMITS.typeNameLength, 'name', reasons);
    if (!name) reasons.name = 'A name is required.';
    data.name = name;
  } else if (creating) reasons.name = 'A name is required.';
  if (input.description !== undefined && input.description !== null)
    data.description = checkedText(input.description, LIMITS.descriptionLength, 'description', reasons);
  if (input.price !== undefined && input.price !== null) {
    // A decimal for display: never parsed into a float, so "12.10" stays "12.10".
    if (input.price !== '' && !/^\d{1,9}(?:\.\d{1,2})?$/.test(input.price))
      reasons.price = 'A decimal amount such as 12 or 12.50 ("" for none).';
    data.price = input.price;
  }
  if (input.currency !== undefined && input.currency !== null) {
    if (input.currency !== '' && !/^[A-Z]{3}$/.test(input.currency))
      reasons.currency = 'An ISO 4217 code such as EUR.';
    data.currency = input.currency;
  }
  const count = (field: 'capacity' | 'maxPerRequest' | 'newSharedCapacity', min: number, max: number) => {
    const value = input[field];
    if (value === undefined || value === null) return;
    if (!Number.isInteger(value) || value < min || value > max)
      reasons[field] = `A whole number from ${min} to ${max}.`;
  };
  count('capacity', 0, LIMITS.maxCapacity);
  count('newSharedCapacity', 0, LIMITS.maxCapacity);
  count('maxPerRequest', 1, LIMITS.maxGuests);
  if (input.capacity !== undefined) data.capacity = input.capacity;
  if (input.maxPerRequest !== undefined && input.maxPerRequest !== null)
    data.maxPerRequest = input.maxPerRequest;
  else if (creating) data.maxPerRequest = DEFAULT_MAX_PER_REQUEST;
  if (input.waitlist !== undefined && input.waitlist !== null) data.waitlist = input.waitlist;
  for (const field of ['salesStart', 'salesEnd'] as const) {
    const value = input[field];
    if (value === undefined) continue;
    if (value === null || value === '') {
      data[field] = null;
      continue;
    }
    const local = DateTime.fromFormat(value, WALL_CLOCK, { zone });
    // A wall-clock the zone skips (a DST gap) names no instant: refused rather than moved.
    if (!local.isValid || local.toFormat(WALL_CLOCK) !== value)
      reasons[field] = `A wall-clock time "YYYY-MM-DD HH:mm:ss" that exists in ${zone}.`;
    else data[field] = local.toJSDate();
  }
  if (
    input.sharedCapacityId !== undefined &&
    input.newSharedCapacity !== undefined &&
    input.sharedCapacityId !== null &&
    input.newSharedCapacity !== null
  )
    reasons.sharedCapacityId = 'Give either sharedCapacityId or newSharedCapacity.';
  if (Object.keys(reasons).length) throw invalidParams(reasons);
  return data;
}

export function checkWindow(start: Date | null, end: Date | null) {
  if (start && end && end <= start)
    throw invalidParams({ salesEnd: 'The sales end must come after its start.' });
}
