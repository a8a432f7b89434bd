import { defineLinkedRestFields } from './rest-schema.js';
import { presentVenue } from './rest-present.js';
import { VENUE_BODY } from './rest-body.js';
import { createOrMatchVenue, deleteVenue, updateVenue, venueArchive } from './service/venues.js';

// `/venues`, `/venues/{id}`, `/venues/by-slug/{slug}` (docs/reference.md §S4.3) as The Events Calendar
// answers them.

defineLinkedRestFields({
  kind: 'venue',
  one: 'Venue',
  many: 'Venues',
  path: 'venues',
  archive: venueArchive,
  present: presentVenue,
  body: VENUE_BODY,
  create: createOrMatchVenue,
  update: updateVenue,
  remove: deleteVenue,
});
