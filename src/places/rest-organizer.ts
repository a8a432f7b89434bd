import { defineLinkedRestFields } from './rest-schema.js';
import { presentOrganizer } from './rest-present.js';
import { ORGANIZER_BODY } from './rest-body.js';
import {
  createOrMatchOrganizer,
  deleteOrganizer,
  organizerArchive,
  updateOrganizer,
} from './service/organizers.js';

// `/organizers`, `/organizers/{id}`, `/organizers/by-slug/{slug}` (docs/reference.md §S4.4) as The Events
// Calendar answers them.

defineLinkedRestFields({
  kind: 'organizer',
  one: 'Organizer',
  many: 'Organizers',
  path: 'organizers',
  archive: organizerArchive,
  present: presentOrganizer,
  body: ORGANIZER_BODY,
  create: createOrMatchOrganizer,
  update: updateOrganizer,
  remove: deleteOrganizer,
});
