import type { Tx } from '../../../core/db/transactions.js';
import { invalidParams } from '../../../core/errors/errors.js';
import type { Viewer } from '../../../core/rules/permissions.js';
import { DEFAULT_EVENT_STATUS, keepsReason } from '../../model/event-status.js';
import { declaredColumns } from '../../model/event-fields.js';
import {
  type CheckOptions,
  type EventInput,
  type EventValues,
  type FieldErrors,
  checkEventInput,
} from '../event-input.js';
import { checkReferences } from '../event-links.js';
import type { EventRow } from './locked-event.js';

// An event write's input (`event-writes.ts`) checked, then against the database, and turned into the
// columns the write sets; who may attribute the event to someone else.

/** The input checked, then against the database; every bad field is named in one 400. */
export async function validate(
  tx: Tx,
  viewer: Viewer,
  input: EventInput,
  unreadable: FieldErrors,
  options: CheckOptions,
  eventId: number | null,
) {
  const { values, bad } = checkEventInput(input, unreadable, options);
  const image = await checkReferences(tx, viewer, values, eventId, bad);
  if (Object.keys(bad).length) throw invalidParams(bad);
  return { values, image };
}

/** The columns every write may set from the input (absent fields are left out; declared ones as declared). */
export function plainColumns(input: EventValues) {
  return {
    ...(input.title !== undefined ? { title: input.title } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.excerpt !== undefined ? { excerpt: input.excerpt } : {}),
    ...(input.authorId !== undefined ? { authorId: input.authorId } : {}),
    ...(input.cost !== undefined ? input.cost : {}),
    ...(input.website !== undefined ? { website: input.website } : {}),
    ...declaredColumns(input),
    ...(input.postParentId !== undefined ? { postParentId: input.postParentId } : {}),
    ...(input.password !== undefined ? { password: input.password } : {}),
  };
}

/**
 * The event status columns after a write, or nothing when neither was sent. The reason survives only
 * while the event is canceled or postponed; a status change without a reason keeps the one stored.
 */
export function eventStatusColumns(
  input: EventValues,
  existing: Pick<EventRow, 'eventStatus' | 'eventStatusReason'> | null,
): { eventStatus?: string; eventStatusReason?: string } {
  if (existing && input.eventStatus === undefined && input.eventStatusReason === undefined) return {};
  const eventStatus = input.eventStatus ?? existing?.eventStatus ?? DEFAULT_EVENT_STATUS;
  const reason = input.eventStatusReason ?? existing?.eventStatusReason ?? '';
  return { eventStatus, eventStatusReason: keepsReason(eventStatus) ? reason : '' };
}
