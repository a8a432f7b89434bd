import { usePrometheus } from '@graphql-yoga/plugin-prometheus';
import { type YogaServerInstance, createYoga } from 'graphql-yoga';
import type { GraphQLSchema } from 'graphql';
import type { Context as KoaContext } from 'koa';
import { viewerOf } from '../http/state.js';
import type { Config } from '../config/config.js';
import { type AppDeps, type Context, createContext } from '../context/context.js';
import type { Logger } from '../ops/logger.js';
import type { Metrics } from '../ops/metrics.js';
import { exposeErrorStatusPlugin, retryAfterHeaderPlugin } from './errors.js';
import { DEFAULT_GRAPHQL_LIMITS, graphqlLimitsPlugin } from './limits.js';
import { graphqlParamsPlugin } from './params.js';
import type { PersistedDocuments } from './persisted.js';
import { graphqlReadsPlugin } from './reads.js';
import type { ReadLog } from '../cache/read-log.js';

export const GRAPHQL_PATH = '/graphql';

/** What the endpoint hands yoga with a request: the Koa context, and where to log a shared read's reads. */
export interface GraphqlServerContext {
  koa: KoaContext;
  reads?: ReadLog;
}

export type GraphqlYoga = YogaServerInstance<GraphqlServerContext, Context>;

/** The public schema served by yoga: its plugins check parameters, persisted documents and limits. */
export function createGraphqlYoga(options: {
  /** The public schema and its filters' prices, from the rooms (src/schema.ts). */
  schema: GraphQLSchema;
  filterPrices: Readonly<Record<string, number>>;
  deps: AppDeps;
  config: Config;
  logger: Logger;
  metrics?: Metrics;
  persisted: PersistedDocuments;
}): GraphqlYoga {
  const { schema, filterPrices, deps, config, logger, metrics, persisted } = options;
  return createYoga<GraphqlServerContext, Context>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    // One bounded cache of parsed documents, shared with the read key (src/core/graphql/documents.ts).
    parserAndValidationCache: persisted.parsed.yogaCaches(),
    // CORS is the app's one policy (src/core/http/cors.ts); yoga's own would reflect any origin.
    cors: false,
    context: ({ koa, reads }) =>
      createContext(deps, { viewer: viewerOf(koa), address: koa.ip, ...(reads && { reads }) }),
    // GraphiQL's page carries its whole bundle (~40 MB of memory once loaded): loaded by the first
    // browser that asks for it, never by a server that only answers API calls.
    renderGraphiQL: async (graphiql) =>
      (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(graphiql),
    // Where only trusted documents run, GraphiQL could run none of its own.
    graphiql: !persisted.trustedOnly && {
      title: 'Calendar GraphQL',
      defaultQuery:
        '{ events(perPage: 5) { pageInfo { total } items { id title startDate venues { name } } } }',
    },
    logging: {
      debug: (...args) => logger.debug(args.join(' ')),
      info: (...args) => logger.info(args.join(' ')),
      warn: (...args) => logger.warn(args.join(' ')),
      error: (...args) => logger.error(args.join(' ')),
    },
    plugins: [
      // First: the parameters are checked before any plugin reads them, by the rules the cache keys by.
      graphqlParamsPlugin(),
      ...(metrics ? [usePrometheus({ registry: metrics.registry, endpoint: false })] : []),
      persisted.plugin(),
      graphqlLimitsPlugin({
        ...DEFAULT_GRAPHQL_LIMITS,
        maxDepth: config.graphqlMaxDepth,
        timeoutMs: config.graphqlTimeoutMs,
        filterPrices,
      }),
      exposeErrorStatusPlugin(),
      retryAfterHeaderPlugin(),
      // Last: what a shared answer depends on is logged only for a document that passed every check.
      graphqlReadsPlugin(),
    ],
  });
}
