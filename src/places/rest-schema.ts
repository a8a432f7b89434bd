import { builder, REST } from '../core/graphql/schema/builder.js';
import { type Lookup, LOOKUPS, keyOf, lookupArgs } from '../core/graphql/schema/common.js';
import type { Representation } from './rest-present.js';
import { archiveLinks } from '../core/rules/paging.js';
import { NOT_FOUND } from '../core/rules/visibility.js';
import { hidingMissing } from '../core/rules/permissions.js';
import type { Context } from '../core/context/context.js';
import type { Media } from '../generated/sqlite/client.js';
import type { ArchivePage } from '../core/db/queries/archive.js';
import {
  type EffectiveLinkedFilter,
  type LinkedKind,
  type LinkedListFilter,
  linkedArchiveParams,
} from './service/linked-lists.js';
import { WITH_IMAGE, linkedPageRows, readLinked, writtenLinked } from './service/linked-access.js';
import { type LinkedKey, type LinkedPostInput, type LinkedRow, writeLinked } from './service/linked-posts.js';
import type { Tx, WriteScope } from '../core/db/transactions.js';
import { type BodyTable, type ParsedBody, writingBody } from '../core/rest/body-fields.js';
import { restBodyType } from '../core/graphql/schema/rest-bodies.js';
import { linkedBody } from './rest-body.js';
import { type SchemaComponent, jsonShape } from '../core/rest/discovery/json-shapes.js';
import { TEC_ORGANIZER, TEC_VENUE } from './rest-doc-shapes.js';
import { RECORD_VERSION_KEY } from '../core/rest/route-table.js';
import { recordVersion } from '../core/rules/versions.js';

// The REST root fields of venues and organizers (docs/reference.md §S4.3–S4.4), one per route: list, read by
// id and slug, create, update and delete by id and slug. Each answers with the reference's representation
// (`presentVenue` / `presentOrganizer`, the presenters the event embeds), so every REST field of a venue or
// organizer is computed in one place; the writes run in one transaction each. Bodies are read with the
// resource's one table (`src/places/rest-body.ts`), which also names the services' errors for REST.

/** The shape `/doc` gives each kind's representation (its fields are JSON here). */
const SHAPE: Record<LinkedKind, SchemaComponent> = { venue: TEC_VENUE, organizer: TEC_ORGANIZER };

type WithImage<Row> = Row & { image: Media | null };

/** A page: its query (the services load its rows) and what the envelope needs. */
type Archive = Pick<
  ArchivePage<object, object>,
  'where' | 'orderBy' | 'skip' | 'take' | 'paging' | 'total' | 'totalPages'
> & {
  effective: EffectiveLinkedFilter;
};

/** A page and its records in the list representation. */
type ListPage = Archive & { items(): Promise<Array<Record<string, unknown>>> };

interface LinkedRestResource<Row extends LinkedRow, Page extends Archive, Input extends LinkedPostInput> {
  kind: LinkedKind;
  /** Type-name stem and collection path: `Venue`, `Venues`, `venues`. */
  one: string;
  many: string;
  path: string;
  archive(
    ctx: Context,
    filter: LinkedListFilter,
    page: number | null | undefined,
    perPage: number | null | undefined,
  ): Promise<Page>;
  present(row: WithImage<Row>, ctx: Context, as: Representation): Record<string, unknown>;
  /** The REST body of a create or update. */
  body: BodyTable<Input>;
  create(w: WriteScope, input: Input, unreadable: readonly string[]): Promise<{ record: Row }>;
  update(w: WriteScope, key: LinkedKey, input: Input, unreadable: readonly string[]): Promise<Row>;
  remove<T>(
    w: WriteScope,
    key: LinkedKey,
    force: boolean,
    load: (tx: Tx, id: number) => Promise<T>,
  ): Promise<T>;
}

export function defineLinkedRestFields<
  Row extends LinkedRow,
  Page extends Archive,
  Input extends LinkedPostInput,
>(resource: LinkedRestResource<Row, Page, Input>): void {
  const { kind, one, many, path } = resource;
  const shaped = { type: 'JSON', extensions: jsonShape(SHAPE[kind]) } as const;
  const missingCode = NOT_FOUND[kind](0).code;
  /** D22: an unknown record is told (404, D1) only to a caller who may act on every record of the kind. */
  const onNamed = <T>(ctx: Context, action: 'edit' | 'delete', run: () => Promise<T>) =>
    hidingMissing(ctx.viewer, action, missingCode, run);

  /** A create or update from a REST body (`password` only on the by-id update route). */
  const write = (
    ctx: Context,
    body: ParsedBody,
    passwordAllowed: boolean,
    run: (w: WriteScope, input: Input, unreadable: readonly string[]) => Promise<{ id: number }>,
  ) =>
    writeLinked(ctx, kind, (w) =>
      writingBody(linkedBody(resource.body, passwordAllowed), body, async (input, unreadable) =>
        presented(ctx)(w.tx, (await run(w, input, unreadable)).id),
      ),
    );

  const links = (page: Archive, ctx: Context) =>
    archiveLinks(
      `${ctx.urls.api}/${path}/`,
      linkedArchiveParams(page.paging.perPage, page.effective),
      page.paging.page,
      page.totalPages,
    );

  const List = builder.objectRef<ListPage>(`Tec${one}List`).implement({
    ...REST,
    fields: (t) => ({
      [path]: t.field({ type: ['JSON'], extensions: shaped.extensions, resolve: (page) => page.items() }),
      rest_url: t.string({ resolve: (page, _a, ctx) => links(page, ctx).restUrl }),
      next_rest_url: t.string({ nullable: true, resolve: (page, _a, ctx) => links(page, ctx).nextRestUrl }),
      previous_rest_url: t.string({
        nullable: true,
        resolve: (page, _a, ctx) => links(page, ctx).previousRestUrl,
      }),
      total: t.int({ resolve: (page) => page.total }),
      total_pages: t.int({ resolve: (page) => page.totalPages }),
    }),
  });

  /** The record as create, update and delete answer (no `json_ld`), read inside the transaction. */
  const presented = (ctx: Context) => async (tx: Tx, id: number) =>
    resource.present(await writtenLinked<LinkedKind, WithImage<Row>>(kind, WITH_IMAGE)(tx, id), ctx, 'list');

  const read = async (ctx: Context, key: LinkedKey) => {
    const row = await readLinked<LinkedKind, WithImage<Row>>(ctx, kind, key, WITH_IMAGE);
    return { ...resource.present(row, ctx, 'single'), [RECORD_VERSION_KEY]: recordVersion(row) };
  };

  /** The route's key: `id` (the post ID) or `slug` (the post name). */
  const keyArgs = (lookup: Lookup) =>
    lookupArgs(lookup, `the ${kind} post ${lookup.by === 'id' ? 'ID' : 'name'}`);
  // One input type for the creates and updates: `password` is read on the by-id update only.
  const Body = restBodyType(
    `Tec${one}Body`,
    `A ${kind} write body as WordPress sends it`,
    linkedBody(resource.body, true),
  );
  const body = builder.args((t) => ({ input: t.field({ type: Body, required: true }) }));
  const force = builder.args((t) => ({
    force: t.boolean({ description: 'Delete for good instead of trashing (editors)', defaultValue: false }),
  }));

  builder.queryFields((t) => ({
    [`tec${many}`]: t.field({
      ...REST,
      type: List,
      args: {
        page: t.arg.int({ description: 'The archive page to return', defaultValue: 1 }),
        per_page: t.arg.int({
          description: `The number of ${kind}s to return on each page (at most 50)`,
          defaultValue: 10,
        }),
        search: t.arg.string({
          description: `${many} should contain the specified string in the title, description or custom fields`,
        }),
        event: t.arg.int({ description: `${many} should be related to this event` }),
        has_events: t.arg.boolean({
          description: `${many} should (true) or should not (false) have events associated to them`,
        }),
        only_with_upcoming: t.arg.boolean({
          description: `${many} should have upcoming events associated to them`,
          defaultValue: false,
        }),
        status: t.arg.stringList({ description: `The ${kind} post status(es)` }),
      },
      resolve: async (_root, args, ctx): Promise<ListPage> => {
        const filter = {
          search: args.search,
          event: args.event,
          hasEvents: args.has_events,
          onlyWithUpcoming: args.only_with_upcoming,
          status: args.status,
        };
        const page = await resource.archive(ctx, filter, args.page, args.per_page);
        const items = async () =>
          (await linkedPageRows<LinkedKind, WithImage<Row>>(ctx, kind, page, WITH_IMAGE)).map((row) =>
            resource.present(row, ctx, 'list'),
          );
        return { ...page, items };
      },
    }),
    ...Object.fromEntries(
      LOOKUPS.map((lookup) => [
        `tec${one}${lookup.suffix}`,
        t.field({
          ...REST,
          ...shaped,
          args: keyArgs(lookup),
          resolve: (_root, args, ctx) => read(ctx, keyOf(lookup, args)),
        }),
      ]),
    ),
  }));

  builder.mutationFields((t) => ({
    [`tecCreate${one}`]: t.field({
      ...REST,
      ...shaped,
      description: 'Returns an existing duplicate unchanged (201 too)',
      args: body,
      resolve: (_root, { input }, ctx) =>
        write(
          ctx,
          input,
          false,
          async (w, fields, unreadable) => (await resource.create(w, fields, unreadable)).record,
        ),
    }),
    ...Object.fromEntries(
      LOOKUPS.map((lookup) => [
        `tecUpdate${one}${lookup.suffix}`,
        t.field({
          ...REST,
          ...shaped,
          args: { ...keyArgs(lookup), ...body },
          resolve: (_root, args, ctx) =>
            onNamed(ctx, 'edit', () =>
              // The password is set by id only.
              write(ctx, args.input, lookup.by === 'id', (w, fields, unreadable) =>
                resource.update(w, keyOf(lookup, args), fields, unreadable),
              ),
            ),
        }),
      ]),
    ),
    ...Object.fromEntries(
      LOOKUPS.map((lookup) => [
        `tecDelete${one}${lookup.suffix}`,
        t.field({
          ...REST,
          ...shaped,
          args: { ...keyArgs(lookup), ...force },
          resolve: (_root, args, ctx) =>
            onNamed(ctx, 'delete', () =>
              writeLinked(ctx, kind, (w) =>
                resource.remove(w, keyOf(lookup, args), args.force ?? false, presented(ctx)),
              ),
            ),
        }),
      ]),
    ),
  }));
}
