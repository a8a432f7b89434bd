import { bodyDoc } from '../src/core/rest/body-fields.js';
import { ORGANIZER_BODY, POST_PASSWORD_BODY, VENUE_BODY } from '../src/places/rest-body.js';
import { CATEGORY_BODY, TAG_BODY } from '../src/terms/rest-body.js';
import type { RestField } from '../src/core/rest/route-table.js';

// The flat request bodies of the write routes (docs/reference.md §S2), as the reference documents them: a
// route names its table in `bodyFields`, and the namespace index and `/doc` describe the body from it.

type Fields = Record<string, RestField>;

/** The same fields with none required (updates). */
export function optional(fields: Fields): Fields {
  return Object.fromEntries(
    Object.entries(fields).map(([name, field]) => [name, { ...field, required: false }]),
  );
}

// The event body is declared with its reading into the domain input, and documented from there.
export { EVENT_FIELDS, EVENT_PASSWORD } from '../src/events/rest-body.js';

// Venue, organizer, category and tag bodies are documented from the tables that read them.
export const VENUE_FIELDS: Fields = bodyDoc(VENUE_BODY);
export const ORGANIZER_FIELDS: Fields = bodyDoc(ORGANIZER_BODY);
/** A venue's or an organizer's own password (by-id update routes, an extension of the reference). */
export const POST_PASSWORD: Fields = bodyDoc(POST_PASSWORD_BODY);

export const CATEGORY_FIELDS: Fields = bodyDoc(CATEGORY_BODY);
export const TAG_FIELDS: Fields = bodyDoc(TAG_BODY);
