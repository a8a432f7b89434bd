// The Events Calendar's event status (TEC 5.11+, `_tribe_events_status` / `_tribe_events_status_reason`):
// whether an event still takes place as listed. It is not the post status (publish, draft, …).

export const EVENT_STATUSES = ['scheduled', 'canceled', 'postponed'] as const;
export type EventStatusValue = (typeof EVENT_STATUSES)[number];

export const DEFAULT_EVENT_STATUS: EventStatusValue = 'scheduled';

export function isEventStatus(value: unknown): value is EventStatusValue {
  return (EVENT_STATUSES as readonly unknown[]).includes(value);
}

/** A reason is kept only for an event that does not take place as listed (as TEC's metabox). */
export function keepsReason(status: string): boolean {
  return status !== DEFAULT_EVENT_STATUS;
}

/** `json_ld.eventStatus`. */
export const SCHEMA_ORG_EVENT_STATUS: Record<EventStatusValue, string> = {
  scheduled: 'https://schema.org/EventScheduled',
  canceled: 'https://schema.org/EventCancelled',
  postponed: 'https://schema.org/EventPostponed',
};

export const INVALID_EVENT_STATUS = `Invalid parameter: one of ${EVENT_STATUSES.join(', ')}.`;
