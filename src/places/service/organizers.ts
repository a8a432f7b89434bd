import { SEARCHED_FIELDS } from '../../core/rules/search.js';
import type { Organizer, Prisma } from '../../generated/sqlite/client.js';
import { isUrl } from '../../core/rules/urls.js';
import { linkedLists } from './linked-lists.js';
import { type LinkedPostInput, type LinkedStore, linkedWrites } from './linked-posts.js';

// Organizers (docs/reference.md §1.3, §6.4, §8): phone, website and e-mail (kept as given, as the reference)
// on top of the shared linked-post rules.

export interface OrganizerInput extends LinkedPostInput {
  phone?: string;
  /** A URL; `""` clears it. */
  website?: string;
  email?: string;
}

function organizerColumns(input: OrganizerInput) {
  const website = input.website?.trim();
  return {
    data: { phone: input.phone, website, email: input.email },
    invalid: website && !isUrl(website) ? ['website'] : [],
  };
}

type OrganizerColumns = ReturnType<typeof organizerColumns>['data'];

const organizerStore: LinkedStore<Organizer, OrganizerInput, OrganizerColumns> = {
  kind: 'organizer',
  fields: ['phone', 'website', 'email'],
  own: organizerColumns,
  find: (db, key) => db.organizer.findUnique({ where: key }),
  named: (tx, name) => tx.organizer.findMany({ where: { name, status: { not: 'trash' } } }),
  slugsLike: async (tx, prefix) =>
    (await tx.organizer.findMany({ where: { slug: { startsWith: prefix } }, select: { slug: true } })).map(
      (row) => row.slug,
    ),
  create: (tx, data, own) => tx.organizer.create({ data: { ...data, ...own } }),
  update: (tx, id, data, own) => tx.organizer.update({ where: { id }, data: { ...data, ...own } }),
  linkedEvents: async (tx, id) =>
    (await tx.eventOrganizer.findMany({ where: { organizerId: id }, select: { eventId: true } })).map(
      (link) => link.eventId,
    ),
  unlinkEvents: async (tx, id) => {
    await tx.eventOrganizer.deleteMany({ where: { organizerId: id } });
  },
  remove: async (tx, id) => {
    await tx.organizer.delete({ where: { id } });
  },
};

// The shared writes and lists, over this kind's store and table.
export const {
  createOrMatch: createOrMatchOrganizer,
  update: updateOrganizer,
  remove: deleteOrganizer,
} = linkedWrites(organizerStore);

export const { archive: organizerArchive, connection: organizerConnection } = linkedLists({
  kind: 'organizer',
  searched: SEARCHED_FIELDS.Organizer,
  count: (db, where) => db.organizer.count({ where }),
  findMany: (db, args) => db.organizer.findMany(args as Prisma.OrganizerFindManyArgs),
});
