// A webhook endpoint's subscription, as stored (`*`, `<resource>.*` or exact change types, comma
// separated): matched by the sync room's deliveries and by the tickets room, which keeps a new
// attendee's token only for the endpoints that will deliver it.

/** Whether an endpoint subscribed to `events` (comma list; `*` all, `event.*` a resource) wants `type`. */
export function subscribes(events: string, type: string): boolean {
  return events
    .split(',')
    .some(
      (entry) =>
        entry === '*' || entry === type || (entry.endsWith('.*') && type.startsWith(entry.slice(0, -1))),
    );
}
