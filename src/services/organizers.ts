import { z } from 'zod';
import type { Scope } from '../context.js';
import type { Db } from '../db/client.js';
import type { Organizer, Prisma } from '../generated/sqlite/client.js';
import {
  type LinkedKey,
  type LinkedListFilter,
  type LinkedStore,
  createOrMatch,
  deleteLinked,
  linkedArchive,
  linkedListQuery,
  textField,
  updateLinked,
  urlField,
  withSearch,
} from './linked-posts.js';
import type { Tx, WriteScope } from './transactions.js';

// Organizers (docs/reference.md §1.3, §6.4, §8): phone, website and e-mail (kept as given, as the reference)
// on top of the shared linked-post rules.

const organizerFields = z.object({
  phone: textField.optional(),
  website: urlField.optional(),
  email: textField.optional(),
});

export type OrganizerFields = z.output<typeof organizerFields>;

function organizerColumns(fields: OrganizerFields = {}) {
  return { phone: fields.phone, website: fields.website, email: fields.email };
}

export const organizerStore: LinkedStore<Organizer, OrganizerFields> = {
  kind: 'organizer',
  schema: organizerFields,
  find: (db, key) => db.organizer.findUnique({ where: key }),
  named: (tx, name) => tx.organizer.findMany({ where: { name, status: { not: 'trash' } } }),
  slugTaken: async (tx, slug) => (await tx.organizer.count({ where: { slug } })) > 0,
  create: (tx, data, fields) => tx.organizer.create({ data: { ...data, ...organizerColumns(fields) } }),
  update: (tx, id, data, fields) =>
    tx.organizer.update({ where: { id }, data: { ...data, ...organizerColumns(fields) } }),
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

/** Creates an organizer from a REST-named body (`organizer`, `email`, …), or returns its duplicate (`created: false`). */
export function createOrMatchOrganizer(w: WriteScope, body: unknown) {
  return createOrMatch(w, organizerStore, body);
}

export function updateOrganizer(
  w: WriteScope,
  key: LinkedKey,
  body: unknown,
  options = { passwordAllowed: false },
) {
  return updateLinked(w, organizerStore, key, body, options);
}

export function deleteOrganizer<T>(
  w: WriteScope,
  key: LinkedKey,
  force: boolean,
  load: (tx: Tx, id: number) => Promise<T>,
) {
  return deleteLinked(w, organizerStore, key, force, load);
}

/** One page of organizers: `search` looks in the name, description, excerpt, phone, e-mail and website. */
export async function organizerArchive(
  db: Db,
  scope: Pick<Scope, 'viewer' | 'config'>,
  filter: LinkedListFilter,
  page: number | null | undefined,
  perPage: number | null | undefined,
) {
  const query = await linkedListQuery(db, scope, filter);
  const where: Prisma.OrganizerWhereInput = withSearch(query, [
    'name',
    'description',
    'excerpt',
    'phone',
    'email',
    'website',
  ] as const);
  const archive = await linkedArchive('organizer', where, { page, perPage }, (w) =>
    db.organizer.count({ where: w }),
  );
  return { ...archive, effective: query.effective };
}
