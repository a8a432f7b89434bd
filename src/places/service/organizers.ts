import { SEARCHED_FIELDS } from '../../core/rules/search.js';
import type { Context, Scope } from '../../core/context/scope.js';
import type { Db } from '../../core/db/client.js';
import type { Organizer, Prisma } from '../../generated/sqlite/client.js';
import { isUrl } from '../../core/rules/urls.js';
import type { CursorArgs } from '../../core/db/queries/keyset.js';
import {
  type LinkedListFilter,
  linkedArchive,
  linkedConnection,
  linkedListQuery,
  withSearch,
} from './linked-lists.js';
import type { LinkedSelection } from './linked-access.js';
import {
  type LinkedKey,
  type LinkedPostInput,
  type LinkedStore,
  createOrMatch,
  deleteLinked,
  updateLinked,
} from './linked-posts.js';
import type { Tx, WriteScope } from '../../core/db/transactions.js';

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

export const organizerStore: LinkedStore<Organizer, OrganizerInput, OrganizerColumns> = {
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

/**
 * Creates an organizer, or returns its duplicate (`created: false`). `unreadable`: input fields the
 * API could not read, named in the same 400 as the invalid ones.
 */
export function createOrMatchOrganizer(
  w: WriteScope,
  input: OrganizerInput,
  unreadable: readonly string[] = [],
) {
  return createOrMatch(w, organizerStore, input, unreadable);
}

export function updateOrganizer(
  w: WriteScope,
  key: LinkedKey,
  input: OrganizerInput,
  unreadable: readonly string[] = [],
) {
  return updateLinked(w, organizerStore, key, input, unreadable);
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
async function organizerList(
  db: Db,
  scope: Pick<Context, 'viewer' | 'config' | 'reads'>,
  filter: LinkedListFilter,
) {
  const query = await linkedListQuery(db, scope, filter);
  const where: Prisma.OrganizerWhereInput = withSearch(query, SEARCHED_FIELDS.Organizer);
  return { where, effective: query.effective };
}

export async function organizerArchive(
  db: Db,
  scope: Pick<Scope, 'viewer' | 'config'>,
  filter: LinkedListFilter,
  page: number | null | undefined,
  perPage: number | null | undefined,
) {
  const { where, effective } = await organizerList(db, scope, filter);
  const archive = await linkedArchive('organizer', where, { page, perPage }, (w) =>
    db.organizer.count({ where: w }),
  );
  return { ...archive, effective };
}

/**
 * One cursor page of organizers: the list's filters and order (its visibility included), bounded by the
 * cursor; the rows loaded with the API's `selection`.
 */
export async function organizerConnection<Row extends object = Organizer>(
  db: Db,
  scope: Pick<Scope, 'viewer' | 'config'>,
  filter: LinkedListFilter,
  args: CursorArgs,
  selection: LinkedSelection = {},
) {
  const { where } = await organizerList(db, scope, filter);
  const find = async (window: { where: Prisma.OrganizerWhereInput; orderBy: object[]; take: number }) =>
    (await db.organizer.findMany({ ...selection, ...window } as Prisma.OrganizerFindManyArgs)) as Row[];
  return linkedConnection(where, args, find, (w) => db.organizer.count({ where: w }));
}
