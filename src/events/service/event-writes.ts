import type { Scope } from '../../core/context/scope.js';
import { ApiError } from '../../core/errors/errors.js';
import {
  assertMayAttribute,
  canCreate,
  canDelete,
  canDeletePermanently,
  canEdit,
  effectiveStatus,
  forbidden,
} from '../../core/rules/permissions.js';
import { type Judged, judged } from '../../core/rules/visibility.js';
import { nextModified } from '../../core/rules/versions.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import {
  type CheckOptions,
  type EventInput,
  type FieldErrors,
  type SentSeries,
  makesSeries,
  sentSeries,
} from './event-input.js';
import { linkedIds, linkedTermIds, recount, resolveLinks, writeLinks } from './event-links.js';
import type { EventSelection } from './reads/event-reads.js';
import { publicationStatus, scheduleOf } from './event-schedule.js';
import { SLUGLESS, freeSlug, slugChange } from './event-slugs.js';
import { type EventKey, type EventRow, findEvent, findEventToUpdate } from './writes/locked-event.js';
import { eventStatusColumns, plainColumns, validate } from './writes/written-columns.js';
import { eventMove } from './writes/change-moves.js';
import { recordImage } from '../../core/db/media.js';
import { recurrenceInvalid } from '../series/recurrence.js';
import { type RecurrenceScope, type SeriesPlace, seriesRole } from '../series/series-place.js';
import type { SeriesSettings } from '../series/series-rows.js';
import {
  endSeries,
  endSeriesBefore,
  excludeFromSeries,
  removeOccurrences,
  setLines,
  shiftedToFirst,
  splitAt,
} from '../series/series-edits.js';
import { syncSeries } from '../series/event-series.js';
import type { Tx, WriteScope } from '../../core/db/transactions.js';

// Event writes (docs/reference.md §S2.1, §S4.2, §3.2, §6, D4, D9–D14, D17): the capability rules apply
// first (401/403: a caller who may not write learns nothing from validation), then a domain input (each
// API reads its own dialect into it, `event-input.ts`) is checked, then against the database (400s,
// every bad field named by its domain name, `writes/written-columns.ts`), then one transaction writes
// the event, its venues, organizers and terms (`event-links.ts`). An update writes only the fields it
// was given, with the event row locked (`writes/locked-event.ts`), so concurrent updates of one event
// never undo each other; each write tells the caches where the event was and is (`writes/change-moves.ts`).

/**
 * Reads the written event inside the transaction (GraphQL selects what it needs). `selection`, when
 * given, is what it reads: an update that changes only the event's own columns then answers with what
 * it read before writing and the row the update returned, instead of reading the event again.
 */
type EventLoader<T extends LoadedEvent> = ((tx: Tx, id: number) => Promise<T>) & {
  readonly selection?: EventSelection;
};
/** What the content verdict needs of a loaded event. */
type LoadedEvent = { status: string; password: string | null; authorId: number | null };

interface WriteOptions {
  /** `password` is accepted on create and on the by-id update route (docs/reference.md §S2.1), not by slug */
  passwordAllowed?: boolean;
  /** The clock relative dates ("tomorrow 9am") and scheduling count from. */
  now?: Date;
  /** Fields the API could not read into the input: reported with the others, after the permission checks. */
  unreadable?: FieldErrors;
  /** Written to an occurrence of a series: that one (the default), it and the later ones, or all. */
  scope?: RecurrenceScope;
}

const CONFLICT = { conflictCode: 'event-write-conflict' };

/**
 * Creates an event (201 on REST): validation → permission → writes, in one transaction, and returns it
 * as `load` reads it there.
 */
export function createEvent<T extends LoadedEvent>(
  scope: Scope,
  input: EventInput,
  load: EventLoader<T>,
  options: WriteOptions = {},
): Promise<Judged<T>> {
  const { viewer, config } = scope;
  const now = options.now ?? new Date();
  return scope.writes.run(
    scope,
    async (w) => {
      const { tx } = w;
      const check: CheckOptions = {
        mode: 'create',
        zone: config.siteTimezone,
        siteTimezone: config.siteTimezone,
        passwordAllowed: options.passwordAllowed ?? true,
        now,
      };
      // Permission first: a caller who may not write learns nothing from the validation of ids.
      if (!canCreate(viewer)) throw forbidden(viewer);
      const { values, image } = await validate(tx, viewer, input, options.unreadable ?? {}, check, null);
      assertMayAttribute(viewer, values.authorId);

      const schedule = scheduleOf(values, null, config.siteTimezone)!;
      const links = await resolveLinks(w, values);
      const publishedAt = values.publishedAt ?? now;
      const status = publicationStatus(effectiveStatus(viewer, values.status), publishedAt, now);
      const event = await tx.event.create({
        data: {
          title: values.title!,
          ...plainColumns(values),
          ...eventStatusColumns(values, null),
          ...schedule,
          slug:
            values.slug !== undefined
              ? await freeSlug(w, values.slug, null)
              : SLUGLESS.has(status)
                ? null
                : await freeSlug(w, values.title!, null),
          authorId: values.authorId ?? viewer.userId,
          status,
          publishedAt,
          postDate: values.postDate ?? null,
          ...(image ? { imageId: await recordImage(tx, viewer, image) } : {}),
        },
      });
      const terms = [...(links.categories ?? []), ...(links.tags ?? [])];
      const linked = { terms, venues: links.venues ?? [], organizers: links.organizers ?? [] };
      w.changed('event', event.id, 'created', { move: eventMove(null, { row: event, links: linked }) });
      await writeLinks(tx, event.id, links, false);
      await recount(w, terms);
      const sent = sentSeries(values);
      if (makesSeries(sent)) {
        await setLines(w, event.id, sent.set);
        await syncSeries(w, event.id, { mode: 'all', now, settings: config.series, field: sent.field });
      }
      return judged(await load(tx, event.id), viewer);
    },
    CONFLICT,
  );
}

/**
 * Updates an event by id or slug: only the fields sent are written (an omitted `status` stays, D17),
 * with the row locked for the transaction.
 */
export function updateEvent<T extends LoadedEvent>(
  scope: Scope,
  key: EventKey,
  input: EventInput,
  load: EventLoader<T>,
  options: WriteOptions = {},
): Promise<Judged<T>> {
  const { viewer, config } = scope;
  const now = options.now ?? new Date();
  return scope.writes.run(
    scope,
    async (w) => {
      const { tx } = w;
      const found = await findEventToUpdate(w, key, load.selection);
      let existing: EventRow = found.event;
      // What the answer shows, read with the row: kept only while the write touches nothing else.
      let { shown: answer, links: linksBefore } = found;
      const role = seriesRole(existing);
      const scopeAsked = role === 'occurrence' ? (options.scope ?? 'this') : 'all';
      const check: CheckOptions = {
        mode: 'update',
        zone: existing.timezone || config.siteTimezone,
        siteTimezone: config.siteTimezone,
        passwordAllowed: options.passwordAllowed ?? 'id' in key,
        now,
      };
      if (!canEdit(viewer, existing)) throw forbidden(viewer);
      w.expectVersion(existing);
      const { values, image } = await validate(
        tx,
        viewer,
        input,
        options.unreadable ?? {},
        check,
        existing.id,
      );
      assertMayAttribute(viewer, values.authorId);
      if (scopeAsked === 'all' && role === 'occurrence') {
        // The whole series is its first event's to say: the write goes there, its dates moved alike.
        const occurrence = existing;
        existing = await findEvent(w, { id: occurrence.postParentId! });
        if (!canEdit(viewer, existing)) throw forbidden(viewer);
        Object.assign(values, shiftedToFirst(values, occurrence, existing));
        [answer, linksBefore] = [null, await linkedIds(tx, existing.id)];
      } else if (scopeAsked === 'following') {
        await splitAt(w, existing, now);
        existing = await findEvent(w, { id: existing.id });
        [answer, linksBefore] = [null, await linkedIds(tx, existing.id)];
      } else if (role === 'occurrence' && sentSeries(values)) {
        throw recurrenceInvalid(
          {
            code: 'unsupported',
            message:
              "recurrence: an occurrence has the series' lines; write them to its first event, or with scope following or all.",
          },
          sentSeries(values)!.field,
        );
      }

      const schedule = scheduleOf(values, existing, config.siteTimezone);
      const links = await resolveLinks(w, values);
      const data: Prisma.EventUncheckedUpdateInput = {
        ...plainColumns(values),
        ...eventStatusColumns(values, existing),
        ...(schedule ?? {}),
        // Written on its own, an occurrence keeps its values when the whole series is edited.
        ...(scopeAsked === 'this' ? { isException: true } : {}),
      };
      if (values.slug !== undefined && values.slug !== existing.slug)
        data.slug = await freeSlug(w, values.slug, existing.id);
      if (values.status !== undefined || values.publishedAt !== undefined) {
        const publishedAt = values.publishedAt ?? existing.publishedAt;
        const requested =
          values.status !== undefined ? effectiveStatus(viewer, values.status) : existing.status;
        data.status = publicationStatus(requested, publishedAt, now);
        if (values.publishedAt !== undefined) Object.assign(data, { publishedAt, postDate: values.postDate });
      }
      if (image) data.imageId = await recordImage(tx, viewer, image);
      if (values.slug === undefined) {
        const next = (data.status as string | undefined) ?? existing.status;
        Object.assign(data, await slugChange(w, existing, next, values.title ?? existing.title));
      }
      const countsChange =
        data.status !== undefined || links.categories !== undefined || links.tags !== undefined;
      // Always written, so that `modifiedAt` (the version) and the revision (the feeds' SEQUENCE) move
      // even when only links change.
      const updated = await tx.event.update({
        where: { id: existing.id },
        data: { ...data, modifiedAt: nextModified(existing.modifiedAt, now), revision: { increment: 1 } },
      });
      const relink = Object.values(links).some((ids) => ids !== undefined);
      await writeLinks(tx, existing.id, links, true);
      // The links after it, so that the caches keep the lists filtered by other terms, venues and
      // organizers: the terms are read again after a write of only categories or only tags.
      const termsAfter =
        links.categories === undefined && links.tags === undefined
          ? linksBefore.terms
          : links.categories !== undefined && links.tags !== undefined
            ? [...links.categories, ...links.tags]
            : await linkedTermIds(tx, existing.id);
      const linksAfter = {
        terms: termsAfter,
        venues: links.venues ?? linksBefore.venues,
        organizers: links.organizers ?? linksBefore.organizers,
      };
      w.changed('event', existing.id, data.status === 'trash' ? 'trashed' : 'updated', {
        move: eventMove({ row: existing, links: linksBefore }, { row: updated, links: linksAfter }),
      });
      if (countsChange) await recount(w, [...linksBefore.terms, ...termsAfter]);
      const sent = sentSeries(values);
      await seriesAfterUpdate(w, existing, sent, { now, settings: config.series, relink });
      // Only the event's own columns written (no links, image, term counts or series): what the answer
      // read before the write still holds but for those columns, which the update returned.
      const ownColumnsOnly =
        !relink &&
        !countsChange &&
        data.imageId === undefined &&
        !makesSeries(sent) &&
        seriesRole(existing) !== 'first';
      if (answer && ownColumnsOnly) {
        for (const column of Object.keys(answer))
          if (column in updated) answer[column] = updated[column as keyof typeof updated];
        return judged(answer as unknown as T, viewer);
      }
      return judged(await load(tx, existing.id), viewer);
    },
    CONFLICT,
  );
}

/**
 * Moves an event to the trash and returns it (`status: "trash"`); a trashed one is a 410. `force`
 * deletes it for good (editors and above, D4) and returns it as it was.
 */
export function deleteEvent<T extends LoadedEvent>(
  scope: Scope,
  key: EventKey,
  force: boolean,
  load: EventLoader<T>,
  options: WriteOptions = {},
): Promise<Judged<T>> {
  const { viewer } = scope;
  const now = options.now ?? new Date();
  return scope.writes.run(
    scope,
    async (w) => {
      const { tx } = w;
      let existing = await findEvent(w, key);
      const mayDelete = (row: EventRow) => canDelete(viewer, row) && (!force || canDeletePermanently(viewer));
      if (!mayDelete(existing)) throw forbidden(viewer);
      w.expectVersion(existing);
      const role = seriesRole(existing);
      const scopeAsked = role === 'occurrence' ? (options.scope ?? 'this') : 'all';
      if (role === 'occurrence' && scopeAsked === 'all') {
        existing = await findEvent(w, { id: existing.postParentId! });
        if (!mayDelete(existing)) throw forbidden(viewer);
      }
      if (!force && existing.status === 'trash')
        throw new ApiError(410, 'event-is-in-trash', 'The event is already trashed');
      // A deleted occurrence becomes an EXDATE (or the series' end), so regeneration keeps it away;
      // the first event takes its series with it.
      if (seriesRole(existing) === 'first') await removeOccurrences(w, existing.id, force, now);
      else if (role === 'occurrence' && scopeAsked === 'this') await excludeFromSeries(w, existing, now);
      else if (role === 'occurrence') await endSeriesBefore(w, existing, force, now);
      // Its links as well as its dates: the lists filtered by other venues and organizers stay.
      const links = await linkedIds(tx, existing.id);
      const { terms } = links;
      if (force) {
        const before = judged(await load(tx, existing.id), viewer);
        await tx.event.delete({ where: { id: existing.id } });
        w.changed('event', existing.id, 'deleted', { move: eventMove({ row: existing, links }, null) });
        await recount(w, terms);
        return before;
      }
      const trashed = await tx.event.update({
        where: { id: existing.id },
        data: {
          status: 'trash',
          modifiedAt: nextModified(existing.modifiedAt, now),
          revision: { increment: 1 },
          ...(await slugChange(w, existing, 'trash', existing.title)),
        },
      });
      w.changed('event', existing.id, 'trashed', {
        move: eventMove({ row: existing, links }, { row: trashed, links }),
      });
      await recount(w, terms);
      return judged(await load(tx, existing.id), viewer);
    },
    CONFLICT,
  );
}

/**
 * After an update: lines or a pattern sent make the event a series' first (or give its series a new set; `[]` ends
 * it), and any write to a first event is a write to its whole series.
 */
async function seriesAfterUpdate(
  w: WriteScope,
  event: SeriesPlace,
  sent: SentSeries | undefined,
  options: { now: Date; settings: SeriesSettings; relink: boolean },
): Promise<void> {
  const sync = () => syncSeries(w, event.id, { mode: 'all', ...options, field: sent?.field });
  if (makesSeries(sent)) {
    await setLines(w, event.id, sent.set);
    await sync();
  } else if (seriesRole(event) === 'first') {
    if (sent) await endSeries(w, event.id);
    else await sync();
  }
}
