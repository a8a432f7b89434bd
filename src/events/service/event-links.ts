import { ApiError, invalidParams, isApiError } from '../../core/errors/errors.js';
import { type Viewer, can, readableWhere } from '../../core/rules/permissions.js';
import { MAX_RECORD_ID } from '../../core/rules/ids.js';
import { toSlug } from '../../core/rules/slugs.js';
import type { Taxonomy } from '../../core/rules/urls.js';
import { Prisma } from '../../generated/sqlite/client.js';
import { type EventValues, type FieldErrors, INVALID, type LinkRef, type TermRef } from './event-input.js';
import { type ImageChoice, checkImage } from '../../core/db/media.js';
import { type OrganizerInput, createOrMatchOrganizer } from '../../places/service/organizers.js';
import { type VenueInput, createOrMatchVenue } from '../../places/service/venues.js';
import { refreshTermCounts } from '../../terms/term-counts.js';
import { CATEGORY, TAG, insertTerm, termNameKey } from '../../terms/terms.js';
import type { Tx, WriteScope } from '../../core/db/transactions.js';
import { insertRows } from '../../core/db/queries/insert-rows.js';

// An event's venues, organizers, categories and tags: the references of a write resolved to ids
// (creating what is given by fields or by an unknown name), the link rows written in order, and the
// term counts kept exact.

const LINKED = {
  venue: {
    param: 'venues',
    exists: async (tx: Tx, viewer: Viewer, id: number) =>
      Boolean(await tx.venue.findFirst({ where: { id, ...readableWhere(viewer) }, select: { id: true } })),
    create: (w: WriteScope, input: VenueInput, unreadable: readonly string[]) =>
      createOrMatchVenue(w, input, unreadable),
  },
  organizer: {
    param: 'organizers',
    exists: async (tx: Tx, viewer: Viewer, id: number) =>
      Boolean(
        await tx.organizer.findFirst({ where: { id, ...readableWhere(viewer) }, select: { id: true } }),
      ),
    create: (w: WriteScope, input: OrganizerInput, unreadable: readonly string[]) =>
      createOrMatchOrganizer(w, input, unreadable),
  },
} as const;

/** An unknown (or unreadable) linked id, as WordPress answers a failed `validate_callback`. */
function invalidLinkedPostId(param: string): ApiError {
  return invalidParams({ [param]: INVALID });
}

/**
 * The ids to link, in the order given (each once); objects of fields are created or matched
 * (docs/reference.md §6.3, §6.4).
 */
async function resolveLinked<Kind extends keyof typeof LINKED>(
  w: WriteScope,
  kind: Kind,
  refs: Array<LinkRef<Parameters<(typeof LINKED)[Kind]['create']>[1]>>,
): Promise<number[]> {
  const { param, exists } = LINKED[kind];
  // The input type follows `kind`, which TypeScript cannot carry through the lookup above.
  const create = LINKED[kind].create as (
    w: WriteScope,
    input: unknown,
    unreadable: readonly string[],
  ) => Promise<{ record: { id: number } }>;
  const ids: number[] = [];
  for (const ref of refs) {
    if (ref.kind === 'id') {
      if (ref.inObject && !(await exists(w.tx, w.viewer, ref.id))) throw invalidLinkedPostId(param);
      ids.push(ref.id);
      continue;
    }
    try {
      ids.push((await create(w, ref.input, ref.unreadable)).record.id);
    } catch (error) {
      if (!isApiError(error) || error.status !== 400) throw error;
      throw invalidParams(
        { [param]: INVALID },
        {
          [param]: {
            code: `could-not-create-${kind}`,
            message: `The ${kind} could not be created from the provided data`,
            data: { status: 400, cause: { code: error.code, message: error.message, ...error.data } },
          },
        },
      );
    }
  }
  return [...new Set(ids)];
}

const TERM_LABEL: Record<Taxonomy, { one: string; many: string }> = {
  tribe_events_cat: { one: 'category', many: 'categories' },
  post_tag: { one: 'tag', many: 'tags' },
};

/**
 * Term ids in the order given: names match a term of the taxonomy by name (any case) or slug, else a
 * new term is created — which, as every term write (D8), needs an editor.
 */
async function resolveTerms(w: WriteScope, taxonomy: Taxonomy, refs: TermRef[]): Promise<number[]> {
  const { tx, viewer } = w;
  const names = refs.flatMap((ref) => (ref.kind === 'name' ? [ref.name] : []));
  // The name locks serialise creating terms; a writer who may not create any needs none.
  if (can(viewer, 'manage_terms')) await w.lock(names.map((name) => termNameKey(taxonomy, name)));
  const known = names.length
    ? await tx.$queryRaw<Array<{ id: number | bigint; name: string; slug: string }>>(
        Prisma.sql`SELECT "id" AS id, "name" AS name, "slug" AS slug FROM "Term"
          WHERE "taxonomy" = ${taxonomy}
            AND (LOWER("name") IN (${Prisma.join(names.map((name) => name.toLowerCase()))})
              OR "slug" IN (${Prisma.join(names.map((name) => toSlug(name, '-')))}))
          ORDER BY "id"`,
      )
    : [];
  const ids: number[] = [];
  for (const ref of refs) {
    if (ref.kind === 'id') {
      ids.push(ref.id);
      continue;
    }
    const lower = ref.name.toLowerCase();
    const match =
      known.find((term) => term.name.toLowerCase() === lower) ??
      known.find((term) => term.slug === toSlug(ref.name, '-'));
    if (match) {
      ids.push(Number(match.id));
      continue;
    }
    if (!can(viewer, 'manage_terms')) {
      const { one, many } = TERM_LABEL[taxonomy];
      throw new ApiError(
        403,
        'rest_cannot_create_term',
        `Sorry, you are not allowed to create event ${many}.`,
        {
          params: { [many]: `There is no ${one} named "${ref.name}", and only editors may create one.` },
        },
      );
    }
    const created = await insertTerm(w, taxonomy, { name: ref.name });
    known.push({ id: created.id, name: created.name, slug: created.slug });
    ids.push(created.id);
  }
  return [...new Set(ids)];
}

interface ResolvedLinks {
  venues?: number[];
  organizers?: number[];
  categories?: number[];
  tags?: number[];
}

export async function resolveLinks(w: WriteScope, input: EventValues): Promise<ResolvedLinks> {
  const links: ResolvedLinks = {};
  if (input.venues) links.venues = await resolveLinked(w, 'venue', input.venues);
  if (input.organizers) links.organizers = await resolveLinked(w, 'organizer', input.organizers);
  if (input.categories) links.categories = await resolveTerms(w, CATEGORY, input.categories);
  if (input.tags) links.tags = await resolveTerms(w, TAG, input.tags);
  return links;
}

/** Replaces the links of each kind given (and only those); positions keep the order. */
export async function writeLinks(
  tx: Tx,
  eventId: number,
  links: ResolvedLinks,
  replacing: boolean,
): Promise<void> {
  if (links.venues) {
    if (replacing) await tx.eventVenue.deleteMany({ where: { eventId } });
    if (links.venues.length) {
      await insertRows(
        tx,
        'EventVenue',
        links.venues.map((venueId, position) => ({ eventId, venueId, position })),
      );
    }
  }
  if (links.organizers) {
    if (replacing) await tx.eventOrganizer.deleteMany({ where: { eventId } });
    if (links.organizers.length) {
      await insertRows(
        tx,
        'EventOrganizer',
        links.organizers.map((organizerId, position) => ({ eventId, organizerId, position })),
      );
    }
  }
  for (const [key, taxonomy] of [
    ['categories', CATEGORY],
    ['tags', TAG],
  ] as const) {
    const ids = links[key];
    if (!ids) continue;
    if (replacing) await tx.eventTerm.deleteMany({ where: { eventId, term: { taxonomy } } });
    if (ids.length)
      await insertRows(
        tx,
        'EventTerm',
        ids.map((termId, position) => ({ eventId, termId, position })),
      );
  }
}

export async function linkedTermIds(tx: Tx, eventId: number): Promise<number[]> {
  return (await tx.eventTerm.findMany({ where: { eventId }, select: { termId: true } })).map(
    (link) => link.termId,
  );
}

/** The ids an event links to, as the caches compare them with the filters of cached lists. */
export async function linkedIds(tx: Tx, eventId: number) {
  const [terms, venues, organizers] = await Promise.all([
    linkedTermIds(tx, eventId),
    tx.eventVenue.findMany({ where: { eventId }, select: { venueId: true } }),
    tx.eventOrganizer.findMany({ where: { eventId }, select: { organizerId: true } }),
  ]);
  return {
    terms,
    venues: venues.map((link) => link.venueId),
    organizers: organizers.map((link) => link.organizerId),
  };
}

/**
 * Recounts the published events of these terms. The term rows are locked first (in id order), so that
 * concurrent writes touching one term count each other's committed links.
 */
export async function recount(w: WriteScope, termIds: number[]): Promise<void> {
  if (!termIds.length) return;
  await w.lockRows('Term', termIds);
  await refreshTermCounts(w.tx, termIds);
  for (const id of new Set(termIds)) w.changed('term', id, 'updated', { countOnly: true });
}

// ---------------------------------------------------------------------------------------------------
// Checks against the database (400s, before the permission checks)

const bareIds = (refs: Array<LinkRef<unknown>> | undefined) =>
  (refs ?? []).flatMap((ref) => (ref.kind === 'id' && !ref.inObject ? [ref.id] : []));

const termIds = (refs: TermRef[] | undefined) =>
  (refs ?? []).flatMap((ref) => (ref.kind === 'id' ? [ref.id] : []));

async function missingIds(
  ids: number[],
  find: (ids: number[]) => Promise<Array<{ id: number }>>,
): Promise<boolean> {
  if (!ids.length) return false;
  const found = new Set((await find([...new Set(ids)])).map((row) => row.id));
  return ids.some((id) => !found.has(id));
}

/** Whether `parentId` is the event itself or one of its descendants. */
async function wouldLoop(tx: Tx, eventId: number, parentId: number): Promise<boolean> {
  const seen = new Set<number>();
  for (let current: number | null = parentId; current !== null;) {
    if (current === eventId) return true;
    if (seen.has(current)) return false;
    seen.add(current);
    const row: { postParentId: number | null } | null = await tx.event.findUnique({
      where: { id: current },
      select: { postParentId: true },
    });
    current = row?.postParentId ?? null;
  }
  return false;
}

/**
 * What the input names must exist: author, image, parent event, venues and organizers by id (readable
 * by the viewer), terms by id. Each missing one is added to `bad`; the image is returned checked.
 */
export async function checkReferences(
  tx: Tx,
  viewer: Viewer,
  input: EventValues,
  eventId: number | null,
  bad: FieldErrors,
): Promise<ImageChoice | undefined> {
  if (
    input.authorId !== undefined &&
    !(await tx.user.findUnique({ where: { id: input.authorId }, select: { id: true } }))
  ) {
    bad.authorId = INVALID;
  }
  if (input.postParentId) {
    const parent = await tx.event.findUnique({ where: { id: input.postParentId }, select: { id: true } });
    if (!parent || (eventId !== null && (await wouldLoop(tx, eventId, parent.id))))
      bad.postParentId = INVALID;
  }
  // Linking needs the right to read what is linked (else a contributor could publish a draft venue).
  if (
    await missingIds(bareIds(input.venues), (ids) =>
      tx.venue.findMany({ where: { id: { in: ids }, ...readableWhere(viewer) }, select: { id: true } }),
    )
  ) {
    bad.venues = INVALID;
  }
  if (
    await missingIds(bareIds(input.organizers), (ids) =>
      tx.organizer.findMany({ where: { id: { in: ids }, ...readableWhere(viewer) }, select: { id: true } }),
    )
  ) {
    bad.organizers = INVALID;
  }
  for (const [name, taxonomy] of [
    ['categories', CATEGORY],
    ['tags', TAG],
  ] as const) {
    const ids = termIds(input[name]);
    if (
      await missingIds(ids, (list) =>
        tx.term.findMany({ where: { id: { in: list }, taxonomy }, select: { id: true } }),
      )
    ) {
      bad[name] = INVALID;
    }
  }
  let image: ImageChoice | undefined;
  const imageId =
    typeof input.image === 'number' || typeof input.image === 'string' ? String(input.image).trim() : '';
  if (/^\d+$/.test(imageId) && Number(imageId) > MAX_RECORD_ID) bad.image = INVALID;
  else if (input.image !== undefined) {
    try {
      image = await checkImage(tx, viewer, input.image);
    } catch (error) {
      if (!isApiError(error)) throw error;
      bad.image = INVALID;
    }
  }
  return image;
}
