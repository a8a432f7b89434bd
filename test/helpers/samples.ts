import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { columnDefault, declaredEntries, placed } from '../../src/events/model/event-fields.js';

/**
 * A recorded response of the reference (`test/samples/`, captured from a WordPress site running the
 * plugin). An error body gains the one key ours adds to WordPress's `data` — `request_id`, the id of
 * the request in our logs.
 */
export function sample(name: string) {
  const body = JSON.parse(readFileSync(new URL(`../samples/${name}`, import.meta.url), 'utf8'));
  const isError = typeof body?.code === 'string' && typeof body?.data?.status === 'number';
  return isError ? { ...body, data: { ...body.data, request_id: expect.any(String) } } : body;
}

/**
 * A recorded event (or list of them) with the keys this service adds after the reference's own
 * (`custom_fields`): the event status, as a scheduled event shows it, and every declared extension
 * field, as an event that never set it shows it (placed as its declaration says).
 */
export function withEventStatus<T extends Record<string, unknown>>(body: T): T {
  if (Array.isArray(body.events))
    return { ...body, events: body.events.map((event: Record<string, unknown>) => withEventStatus(event)) };
  const entries = Object.entries(body);
  const at = entries.findIndex(([key]) => key === 'custom_fields');
  if (at < 0) throw new Error('not an event: no custom_fields');
  entries.splice(at + 1, 0, ['event_status', 'scheduled'], ['event_status_reason', '']);
  const extensions = declaredEntries(
    'rest',
    (_name, field) => columnDefault(field),
    (field) => 'extension' in field,
  );
  // The series extensions, then the tickets' (before a single event's json_ld): no parent, no
  // recurrence lines, no ticket type (Event Tickets' `ticketed: false`, no `tickets` summary).
  return placed(placed(Object.fromEntries(entries), extensions), [
    ['post_parent', 'json_ld' in body ? extensions.at(-1)?.[0] : undefined, 0],
    ['recurrence', undefined, []],
    ['ticketed', undefined, false],
    ['tickets', undefined, null],
  ]) as T;
}
