import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import SubGraphPlugin from '@pothos/plugin-sub-graph';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { Context } from '../context.js';
import type { Db } from '../db/client.js';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';

/**
 * One builder, two sub-graphs: `public` is the idiomatic GraphQL API served by yoga; `rest` holds the
 * TEC-shaped (snake_case) types and root fields that SOFA turns into the REST routes. Both resolve
 * through the same services, so nothing is computed twice.
 */
export type SubGraph = 'public' | 'rest';

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  SubGraphs: SubGraph;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [SubGraphPlugin, PrismaPlugin],
  defaultFieldNullability: false,
  subGraphs: { defaultForTypes: ['public'], fieldsInheritFromTypes: true },
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
