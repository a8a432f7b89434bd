import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import SubGraphPlugin from '@pothos/plugin-sub-graph';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { Context } from '../../context/context.js';
import type { Db } from '../../db/client.js';
import type PrismaTypes from '../../../generated/pothos-types.js';
import { getDatamodel } from '../../../generated/pothos-types.js';
import { invalidParams } from '../../errors/errors.js';
import { MAX_LIST_VALUES, tooManyValues } from '../../rules/limits.js';
import { readableNode } from '../../rules/visibility.js';
import { decodeGlobalId, encodeGlobalId } from './global-ids.js';

/**
 * One builder, two sub-graphs: `public` is the idiomatic GraphQL API served by yoga; `rest` holds the
 * TEC-shaped (snake_case) types and root fields that SOFA turns into the REST routes. Both resolve
 * through the same services, so nothing is computed twice.
 */
type SubGraph = 'public' | 'rest';

/** The options of a type or root field that only the REST routes reach (SOFA's sub-graph). */
export const REST: { subGraphs: SubGraph[] } = { subGraphs: ['rest'] };

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  SubGraphs: SubGraph;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
  Connection: { totalCount: () => Promise<number> };
}>({
  plugins: [SubGraphPlugin, RelayPlugin, PrismaPlugin],
  defaultFieldNullability: false,
  subGraphs: { defaultForTypes: ['public'], fieldsInheritFromTypes: true },
  // Relay's conventions on the public API only: the REST sub-graph keeps TEC's numeric ids.
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    encodeGlobalID: encodeGlobalId,
    decodeGlobalID: decodeGlobalId,
    idFieldOptions: {
      description: 'Global id (opaque, unique across types): fetch it again with `node(id:)`',
    },
    nodeTypeOptions: {
      subGraphs: ['public'],
      description: 'A record with a global id (Relay): Event, Venue, Organizer, Category or Tag',
    },
    // `PageInfo` is the page/perPage lists' (it mirrors the REST totals); connections have their own.
    pageInfoTypeOptions: {
      name: 'ConnectionPageInfo',
      subGraphs: ['public'],
      description: 'Where a connection page stands (Relay cursor paging)',
    },
    hasNextPageFieldOptions: { description: 'Whether more records follow the last edge' },
    hasPreviousPageFieldOptions: {
      description:
        'Whether records precede the first edge (true when paging forward with `after`, or backward and more remain)',
    },
    startCursorFieldOptions: { description: 'The cursor of the first edge; null when there are no edges' },
    endCursorFieldOptions: { description: 'The cursor of the last edge; null when there are no edges' },
    cursorFieldOptions: { description: 'Where this edge stands in the list: pass it as `after` or `before`' },
    nodeFieldOptions: { description: 'The record' },
    edgesFieldOptions: { description: 'The records of this page with their cursors, in list order' },
    pageInfoFieldOptions: { description: 'Cursors and whether more records exist either side' },
    firstArgOptions: { description: 'Forward paging: at most this many records (default 10, at most 50)' },
    afterArgOptions: { description: 'Forward paging: the records after this cursor' },
    lastArgOptions: {
      description: 'Backward paging: at most this many records before `before` (at most 50)',
    },
    beforeArgOptions: { description: 'Backward paging: the records before this cursor' },
    defaultConnectionTypeOptions: { subGraphs: ['public'] },
    defaultEdgeTypeOptions: { subGraphs: ['public'] },
    nodeQueryOptions: {
      subGraphs: ['public'],
      nullable: true,
      description:
        'A record by global id; null when it does not exist or you may not read it (a password-protected event comes with its content withheld: read it with `content(password:)`)',
      args: { id: { description: 'A global id (the `id` field of a Node)' } },
      resolve: async (_root, { id }, ctx, _info, resolveNode) =>
        readableNode((await resolveNode(id)) as object | null, ctx.viewer),
    },
    nodesQueryOptions: {
      subGraphs: ['public'],
      nullable: { list: false, items: true },
      description: 'Records by global id, in the order asked; null for each one `node` would answer null',
      args: { ids: { description: `Global ids (at most ${MAX_LIST_VALUES})` } },
      resolve: async (_root, { ids }, ctx, _info, resolveNodes) => {
        if (ids.length > MAX_LIST_VALUES) throw invalidParams({ ids: tooManyValues(MAX_LIST_VALUES) });
        return (await resolveNodes(ids)).map((node) => readableNode(node as object | null, ctx.viewer));
      },
    },
  },
  prisma: {
    // The client is per request (tests and instances may use different databases).
    client: (ctx) => ctx.db as Db,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: process.env.NODE_ENV === 'production' ? null : 'warn',
  },
});

builder.addScalarType('DateTime', DateTimeResolver, { subGraphs: ['public', 'rest'] });
builder.addScalarType('JSON', JSONResolver, { subGraphs: ['public', 'rest'] });

builder.queryType({
  subGraphs: ['public', 'rest'],
  description:
    'Reads. Without authentication only published content is shown; HTTP Basic with an application password shows what that user may read',
});
builder.mutationType({
  subGraphs: ['public', 'rest'],
  description:
    "Writes, as the authenticated user's role allows. Errors carry the REST error code in `extensions.code` (e.g. rest_forbidden, rest_invalid_param, precondition_failed)",
});
