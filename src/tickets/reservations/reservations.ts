import type { Event } from '../../generated/sqlite/client.js';
import type { Attendee } from '../../generated/sqlite/client.js';
import { ApiError } from '../../core/errors/errors.js';
import type { Context } from '../../core/context/scope.js';
import type { AttendeeOperation, TicketOperation, WriteScope } from '../../core/db/transactions.js';
import { dropHeldTokens, holdTokenForWebhooks } from './held-tokens.js';
import { eventsVisibleTo, visibleEvent } from '../../events/service/event-access.js';
import {
  type AttendeeStatus,
  HOLDING,
  attendeeNotFound,
  checkedPerson,
  invalidToken,
  managesTickets,
  notCheckable,
  rsvpClosed,
  soldOut,
  ticketTypeNotFound,
  ticketsForbidden,
  tooMany,
} from '../model.js';
import { Places, inTurn, lockType } from './places.js';
import { takeRsvpAttempt } from './limits.js';
import { assertOnSale } from './sales.js';
import { hashToken, isCheckInCodeShaped, isTokenShaped, newCheckInCode, newToken } from './tokens.js';

// Reservations: each runs in one write transaction under its type's lock (`places.ts`), so N
// concurrent requests for M places confirm exactly M, queue the rest in the order they took the lock
// (when the type has a waitlist) and refuse beyond it; a released place goes to the first in the queue
// in the same transaction. Every reservation is a new attendee whatever its e-mail: the answer never
// says whether an address already has one.

export interface Confirmation {
  attendee: Attendee;
  /** The attendee's secret, shown only here: it reads, changes and cancels the reservation. */
  token: string;
}

const holds = (status: string) => (HOLDING as readonly string[]).includes(status);
const slot = (status: string, guests: number) => ({
  holds: holds(status),
  waits: status === 'WAITLISTED',
  guests,
});

type EventOfChange = Pick<Event, 'id' | 'localStart' | 'localEnd' | 'status'>;

const changedEvent = (event: EventOfChange) => ({
  id: event.id,
  span: { localStart: event.localStart, localEnd: event.localEnd, status: event.status },
});

/**
 * Records an attendee's change for the change stream, webhooks and the caches: its event's answers
 * showing tickets drop (nothing the event lists read changed), and who may read it is who may see the
 * event (`write-effects.ts`, `services/sync/`).
 */
function attendeeChanged(
  scope: WriteScope,
  event: EventOfChange,
  attendeeId: number,
  operation: AttendeeOperation,
) {
  scope.changed('attendee', attendeeId, operation, { event: changedEvent(event) });
}

/** Records a ticket type's change: it may change whether its event is `ticketed`, so lists holding it drop. */
export function ticketTypeChanged(
  scope: WriteScope,
  event: EventOfChange,
  typeId: number,
  operation: TicketOperation,
) {
  scope.changed('ticket', typeId, operation, { event: changedEvent(event) });
}

/** The event of a ticket path as the viewer may see it: invisible is unknown; protected needs its password. */
export async function eventForTickets(
  ctx: Context,
  eventId: number,
  password?: string | null,
): Promise<Event> {
  const event = await visibleEvent(ctx, eventId, {}, password);
  if (!event) throw ticketTypeNotFound();
  if (event.contentWithheld)
    throw new ApiError(
      403,
      'event-password-protected',
      'The requested event is not accessible without a password',
    );
  return event;
}

const writeRequest = (ctx: Context) => ({ db: ctx.db, viewer: ctx.viewer, config: ctx.config });

/** One write on a type's places, in its turn in this instance (`inTurn`), in one transaction. */
const placesWrite = <T>(ctx: Context, typeId: number, work: (scope: WriteScope) => Promise<T>) =>
  inTurn(ctx, typeId, () => ctx.writes.run(writeRequest(ctx), work));

export async function reserve(
  ctx: Context,
  input: {
    ticketTypeId: number;
    name?: unknown;
    email?: unknown;
    guests?: unknown;
    password?: string | null;
  },
  now: () => Date = () => new Date(),
): Promise<Confirmation> {
  const person = checkedPerson(input);
  await takeRsvpAttempt(ctx, person.email);
  const found = await ctx.db.ticketType.findUnique({ where: { id: input.ticketTypeId } });
  if (!found) throw ticketTypeNotFound();
  const event = await eventForTickets(ctx, found.eventId, input.password);
  if (person.guests > found.maxPerRequest) throw tooMany(found.maxPerRequest);
  const { token, hash } = newToken();
  const attendee = await placesWrite(ctx, found.id, async (scope) => {
    const type = await lockType(scope, found.id);
    if (!type) throw ticketTypeNotFound();
    assertOnSale(type, event, now());
    if (person.guests > type.maxPerRequest) throw tooMany(type.maxPerRequest);
    const places = await Places.count(scope.tx, [type]);
    const status: AttendeeStatus =
      places.waitingFor(type.id) === 0 && places.fits(type.id, person.guests)
        ? 'GOING'
        : type.waitlist
          ? 'WAITLISTED'
          : (() => {
              throw soldOut();
            })();
    const created = await scope.tx.attendee.create({
      data: {
        ticketTypeId: type.id,
        eventId: type.eventId,
        ...person,
        status,
        checkInCode: newCheckInCode(),
        tokenHash: hash,
      },
    });
    attendeeChanged(scope, event, created.id, 'created');
    // The plain token leaves only in the confirmation, and to endpoints that asked for it.
    await holdTokenForWebhooks(scope.tx, { attendeeId: created.id, token, expiresAt: event.endsAt });
    return created;
  });
  return { attendee, token };
}

/** The attendee a token names, with its event, while the event has not ended; otherwise one refusal. */
async function byToken(ctx: Context, token: string, now: Date) {
  if (!isTokenShaped(token)) throw invalidToken();
  const attendee = await ctx.db.attendee.findUnique({
    where: { tokenHash: hashToken(token) },
    include: { event: true },
  });
  if (!attendee || attendee.erased || attendee.event.endsAt <= now || attendee.event.status === 'trash')
    throw invalidToken();
  return attendee;
}

/** The reservation as its own link shows it (no account: the token is the credential). */
export async function attendeeByToken(ctx: Context, token: string, now = new Date()): Promise<Attendee> {
  const { event: _event, ...attendee } = await byToken(ctx, token, now);
  return attendee;
}

/** Promotes waitlisted attendees of the capacity group, first come first served, while the first fits. */
export async function promote(
  scope: WriteScope,
  places: Places,
  typeId: number,
  event: EventOfChange,
): Promise<void> {
  const queue = await scope.tx.attendee.findMany({
    where: { ticketTypeId: { in: places.groupIds(typeId) }, status: 'WAITLISTED' },
    orderBy: { id: 'asc' },
    select: { id: true, ticketTypeId: true, guests: true },
  });
  for (const next of queue) {
    if (!places.fits(next.ticketTypeId, next.guests)) return;
    await scope.tx.attendee.update({ where: { id: next.id }, data: { status: 'GOING' } });
    attendeeChanged(scope, event, next.id, 'updated');
    places.move(next.ticketTypeId, slot('WAITLISTED', next.guests), slot('GOING', next.guests));
  }
}

interface RsvpChange {
  name?: string | null;
  guests?: number | null;
  /** false: not going (the places are released); true: going again (a place, or the waitlist). */
  attending?: boolean | null;
}

/** Changes a reservation through its link: its name, its places, or whether the attendee comes. */
export async function updateReservation(
  ctx: Context,
  token: string,
  change: RsvpChange,
  now = new Date(),
): Promise<Attendee> {
  const current = await byToken(ctx, token, now);
  return placesWrite(ctx, current.ticketTypeId, async (scope) => {
    const type = await lockType(scope, current.ticketTypeId);
    const attendee = await scope.tx.attendee.findUnique({ where: { id: current.id } });
    if (!type || !attendee) throw invalidToken();
    if (attendee.status === 'CANCELLED' || attendee.status === 'CHECKED_IN')
      throw rsvpClosed(attendee.status);
    // What is not changed is the row's as read under the lock: a concurrent change is kept, not undone.
    const person = checkedPerson({
      name: change.name ?? attendee.name,
      email: attendee.email,
      guests: change.guests ?? attendee.guests,
    });
    if (person.guests > type.maxPerRequest) throw tooMany(type.maxPerRequest);
    const wanted = change.attending ?? attendee.status !== 'NOT_GOING';
    // Asking for places not already held (going again, or more guests) is a reservation: it needs sales open.
    if (wanted && (attendee.status === 'NOT_GOING' || person.guests > attendee.guests))
      assertOnSale(type, current.event, now);
    const places = await Places.count(scope.tx, [type]);
    places.move(type.id, slot(attendee.status, attendee.guests), slot('NOT_GOING', 0));
    let status: AttendeeStatus;
    if (!wanted) status = 'NOT_GOING';
    else if (attendee.status === 'GOING' && places.fits(type.id, person.guests)) status = 'GOING';
    else if (attendee.status === 'WAITLISTED') status = 'WAITLISTED';
    else if (places.waitingFor(type.id) === 0 && places.fits(type.id, person.guests)) status = 'GOING';
    else if (type.waitlist && attendee.status !== 'GOING') status = 'WAITLISTED';
    else throw soldOut();
    places.move(type.id, slot('NOT_GOING', 0), slot(status, person.guests));
    // Going from the waitlist back to it keeps the place in the queue; going again joins its end.
    const updated = await scope.tx.attendee.update({
      where: { id: attendee.id },
      data: { name: person.name, guests: person.guests, status },
    });
    attendeeChanged(scope, current.event, updated.id, 'updated');
    if (updated.status !== 'WAITLISTED' || attendee.status !== 'WAITLISTED')
      await promote(scope, places, type.id, current.event);
    return updated;
  });
}

/** Cancels a reservation through its link; its places go to the waitlist in the same transaction. */
export async function cancelReservation(ctx: Context, token: string, now = new Date()): Promise<Attendee> {
  const current = await byToken(ctx, token, now);
  return placesWrite(ctx, current.ticketTypeId, async (scope) => {
    const type = await lockType(scope, current.ticketTypeId);
    const attendee = await scope.tx.attendee.findUnique({ where: { id: current.id } });
    if (!type || !attendee) throw invalidToken();
    if (attendee.status === 'CANCELLED') return attendee;
    if (attendee.status === 'CHECKED_IN') throw rsvpClosed(attendee.status);
    const places = await Places.count(scope.tx, [type]);
    const cancelled = await scope.tx.attendee.update({
      where: { id: attendee.id },
      data: { status: 'CANCELLED' },
    });
    places.move(type.id, slot(attendee.status, attendee.guests), slot('CANCELLED', 0));
    attendeeChanged(scope, current.event, cancelled.id, 'cancelled');
    await promote(scope, places, type.id, current.event);
    return cancelled;
  });
}

/**
 * Checks an attendee in at the door by the code of their ticket (editors and administrators), of an
 * event the viewer may see. `attendeeId`, when sent, must be the code's attendee: checked before anything
 * is written.
 */
export async function checkIn(ctx: Context, code: string, attendeeId?: number): Promise<Attendee> {
  if (!managesTickets(ctx.viewer)) throw ticketsForbidden(ctx.viewer);
  if (!isCheckInCodeShaped(code)) throw attendeeNotFound();
  const found = await managedAttendee(ctx, { checkInCode: code });
  if (attendeeId !== undefined && attendeeId !== found.id) throw attendeeNotFound();
  return placesWrite(ctx, found.ticketTypeId, async (scope) => {
    await lockType(scope, found.ticketTypeId);
    const attendee = await scope.tx.attendee.findUnique({ where: { id: found.id } });
    if (!attendee) throw attendeeNotFound();
    if (attendee.status !== 'GOING') throw notCheckable(attendee.status);
    const checked = await scope.tx.attendee.update({
      where: { id: attendee.id },
      data: { status: 'CHECKED_IN' },
    });
    attendeeChanged(scope, found.event, checked.id, 'checked_in');
    return checked;
  });
}

/** An attendee, with its event, of an event the (managing) viewer may see: a trashed one's are unknown. */
async function managedAttendee(ctx: Context, where: { id: number } | { checkInCode: string }) {
  const found = await ctx.db.attendee.findFirst({
    where: { ...where, event: { AND: [eventsVisibleTo(ctx.viewer)] } },
    include: { event: true },
  });
  if (!found) throw attendeeNotFound();
  return found;
}

/** Removes an attendee's name and e-mail (an editor, or the attendee's link), keeping the count. */
export async function eraseAttendee(
  ctx: Context,
  key: { id: number } | { token: string },
  now = new Date(),
): Promise<Attendee> {
  let found: Awaited<ReturnType<typeof byToken>>;
  if ('token' in key) found = await byToken(ctx, key.token, now);
  else if (managesTickets(ctx.viewer)) found = await managedAttendee(ctx, { id: key.id });
  else throw ticketsForbidden(ctx.viewer);
  return ctx.writes.run(writeRequest(ctx), async (scope) => {
    const erased = await scope.tx.attendee.update({
      where: { id: found.id },
      data: { name: '', email: '', erased: true },
    });
    // A token still waiting for a webhook is personal data too.
    await dropHeldTokens(scope.tx, erased.id);
    attendeeChanged(scope, found.event, erased.id, 'erased');
    return erased;
  });
}
