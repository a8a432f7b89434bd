import {
  type DocumentNode,
  type ExecutionResult,
  type GraphQLArgument,
  type GraphQLSchema,
  execute,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Logger } from 'pino';
import { Response as SofaResponse } from 'fets';
import { useSofa } from 'sofa-api';
import type { Context } from '../context/context.js';
import { type SofaDocument, sofaPathOf } from './discovery/discovery.js';
import { JSON_CONTENT_TYPE, type WordPressError, fromGraphQLError } from '../errors/rest-errors.js';
import { withoutOmittedNulls } from './envelope.js';
import type { ParamValue } from './params.js';
import { RECORD_VERSION_KEY, type RestRoute } from './route-table.js';

// SOFA turns each route of the table into its GraphQL operation and routes to it; the edge hands it
// the route the client reached and the arguments it already read and checked (`params.ts`), which
// the operation runs with as they are.

const SOFA_BASE = '/sofa';
/**
 * What fills a path argument's segment of the URL SOFA routes by (an Int and a String alike): the
 * value itself is one of the operation's variables. A slug is data, never a segment: `..` would be a
 * dot segment that URL parsing removes.
 */
const PATH_STAND_IN = '0';

/**
 * One run of a route's operation: what SOFA passes from `fetch` through to `execute`, and what the run
 * answered. SOFA serialises the answer into the body sent; the run keeps the value it handed SOFA, so
 * that the envelope's headers are read from it rather than from parsing the body back (~1 ms of a
 * 35 KB list).
 */
interface RestOperation {
  readonly route: RestRoute;
  readonly variables: Record<string, ParamValue>;
  readonly context: Context;
  answer?: { value: unknown; version: string | undefined };
}

/** A run's outcome: the answer's value and its serialisation, or the error to send. */
type OperationOutcome =
  { value: unknown; json: string; version: string | undefined } | { error: WordPressError };

export interface RestOperations {
  /** SOFA's OpenAPI document of the operations (extended into `/doc`). */
  readonly document: SofaDocument;
  argumentsOf(route: RestRoute): readonly GraphQLArgument[];
  run(route: RestRoute, variables: Record<string, ParamValue>, context: Context): Promise<OperationOutcome>;
}

export function restOperations(
  schema: GraphQLSchema,
  routes: readonly RestRoute[],
  logger: Logger,
): RestOperations {
  const operations = routes.map((route) => route.operation);
  const repeated = operations.find((operation, i) => operations.indexOf(operation) !== i);
  if (repeated)
    throw new Error(`rest-map: ${repeated} serves two routes; SOFA maps each operation to one route`);
  const argumentsByRoute = new Map(routes.map((route) => [route, fieldArguments(schema, route.operation)]));
  const logUnexpected = (error: unknown) =>
    logger.error({ err: error }, 'unexpected error in a REST request');
  const executeCompiled = compiledExecutor();

  const sofa = useSofa({
    schema,
    basePath: SOFA_BASE,
    depthLimit: 3,
    routes: Object.fromEntries(
      routes.map((route) => [
        route.operation,
        { method: route.methods[0], path: sofaPathOf(route.path), responseStatus: 200 },
      ]),
    ),
    // SOFA would otherwise reduce nested records that have an `id` to `{id}`.
    ignore: routes.map((route) => route.operation),
    // What SOFA writes into its OpenAPI document (`discovery.ts` extends it into `/doc`).
    customScalars: { JSON: {}, DateTime: { type: 'string', format: 'date-time' } },
    context: ({ operation }: { operation: RestOperation }) => operation,
    // The operation runs with the arguments the edge read, not with SOFA's reading of the URL; its
    // value leaves without the keys the reference omits and without its version (read, not sent), so
    // SOFA's serialisation is the body sent.
    execute: ((args: Parameters<typeof execute>[0]) => {
      const operation = args.contextValue as RestOperation;
      const { route, variables, context } = operation;
      const field = fieldOf(route);
      const shaped = (result: ExecutionResult): ExecutionResult => {
        if (result.errors) return result;
        operation.answer = withoutVersion(withoutOmittedNulls(route, result.data?.[field]));
        return { data: { [field]: operation.answer.value } };
      };
      const result = executeCompiled({ ...args, contextValue: context, variableValues: variables });
      return 'then' in result ? result.then(shaped) : shaped(result);
    }) as typeof execute,
    errorHandler: (errors) => {
      const error = fromGraphQLError(errors[0], logUnexpected);
      return new SofaResponse(JSON.stringify(error), {
        status: error.data.status as 400,
        headers: { 'content-type': JSON_CONTENT_TYPE },
      });
    },
  });

  return {
    document: sofa.openAPIDocument as SofaDocument,
    argumentsOf: (route) => argumentsByRoute.get(route) ?? fieldArguments(schema, route.operation),
    async run(route, variables, context) {
      const method = route.methods[0];
      const path = sofaPathOf(route.path).replace(/:\w+/g, PATH_STAND_IN);
      const operation: RestOperation = { route, variables, context };
      const response = await sofa.fetch(new Request(`http://sofa${SOFA_BASE}${path}`, { method }), {
        operation,
      });
      const json = await response.text();
      if (response.status !== 200) return { error: JSON.parse(json) as WordPressError };
      if (!operation.answer) throw new Error(`SOFA answered ${route.operation} without running it`);
      return { ...operation.answer, json };
    },
  };
}

/** A single record's answer carries its version (the start of its entity tag): read, not sent. */
function withoutVersion(value: unknown): { value: unknown; version: string | undefined } {
  if (value === null || typeof value !== 'object' || !(RECORD_VERSION_KEY in value)) {
    return { value, version: undefined };
  }
  const { [RECORD_VERSION_KEY]: version, ...answer } = value as Record<string, unknown>;
  return { value: answer, version: typeof version === 'string' ? version : undefined };
}

function fieldArguments(
  schema: GraphQLSchema,
  operation: RestRoute['operation'],
): readonly GraphQLArgument[] {
  const [kind, field] = operation.split('.') as ['Query' | 'Mutation', string];
  const type = kind === 'Query' ? schema.getQueryType() : schema.getMutationType();
  const definition = type?.getFields()[field];
  if (!definition) throw new Error(`rest-map: ${operation} is not a field of the rest schema`);
  return definition.args;
}

/** The root field a route's operation selects (`Query.tecEvents` → `tecEvents`). */
function fieldOf(route: RestRoute): string {
  return route.operation.slice(route.operation.indexOf('.') + 1);
}

/**
 * `execute` for SOFA's operations, each compiled once into a function (graphql-jit): a route runs
 * one fixed document, and interpreting it anew was ~10 % of an uncached list's CPU. A document the
 * compiler refuses runs through graphql-js, which then reports what is wrong with it.
 */
function compiledExecutor(): typeof execute {
  const compiled = new WeakMap<DocumentNode, CompiledQuery | null>();
  return (args) => {
    let query = compiled.get(args.document);
    if (query === undefined) {
      const made = compileQuery(args.schema, args.document, args.operationName ?? undefined);
      query = isCompiledQuery(made) ? made : null;
      compiled.set(args.document, query);
    }
    return query ? query.query(args.rootValue, args.contextValue, args.variableValues ?? {}) : execute(args);
  };
}
