import { useOnResolve } from '@envelop/on-resolve';
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  valueFromAST,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from './domain/paging.js';

// What one GraphQL request may cost, checked before anything runs (with the request's variables, so
// a filter passed as a variable is charged like one written inline) and enforced while it runs:
// - depth, aliases and mutations per request are counted;
// - cost: every field costs 1, a paged list multiplies what it selects by its page size, a small
//   nested list by 5, and the expensive filters (radius, search) add their own price;
// - a deadline: once it passes, every resolver still to run fails at once (the request ends instead
//   of keeping the event loop and the database busy).
// Errors carry `extensions.code` (and the 400 status in `extensions.http`), never "Syntax Error".

export interface GraphqlLimits {
  maxDepth: number;
  maxCost: number;
  maxAliases: number;
  maxMutations: number;
  timeoutMs: number;
}

export const DEFAULT_GRAPHQL_LIMITS: Omit<GraphqlLimits, 'maxDepth' | 'timeoutMs'> = {
  maxCost: 10_000,
  maxAliases: 30,
  maxMutations: 10,
};

const NESTED_LIST_FACTOR = 5;
// A radius search sorts up to 10,000 events by distance (~25 ms on SQLite): three fit in one request.
const FILTER_PRICES: Record<string, number> = { near: 3000, geoloc: 100, search: 100 };

function limitError(code: string, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status: 400 } } });
}

interface Measure {
  cost: number;
  depth: number;
  aliases: number;
}

class Meter {
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: Map<string, FragmentDefinitionNode>,
    private readonly variables: Record<string, unknown>,
  ) {}

  /** Cost, depth and aliases of a selection set on `type`, fragments expanded (cycles are invalid). */
  measure(
    selectionSet: SelectionSetNode,
    type: GraphQLNamedType,
    depth: number,
    seen = new Set<string>(),
    /** Directly inside a paged field: its list (the page's items) is already counted by the page size. */
    paged = false,
  ): Measure {
    const total: Measure = { cost: 0, depth, aliases: 0 };
    for (const selection of selectionSet.selections) {
      let part: Measure;
      if (selection.kind === Kind.FIELD) {
        if (selection.alias) total.aliases++;
        part = this.field(selection, type, depth, paged);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition ? this.schema.getType(selection.typeCondition.name.value) : type;
        part = this.measure(selection.selectionSet, on ?? type, depth, seen, paged);
      } else {
        const name = selection.name.value;
        const fragment = this.fragments.get(name);
        if (!fragment || seen.has(name)) continue;
        const on = this.schema.getType(fragment.typeCondition.name.value) ?? type;
        part = this.measure(fragment.selectionSet, on, depth, new Set([...seen, name]), paged);
      }
      total.cost += part.cost;
      total.aliases += part.aliases;
      total.depth = Math.max(total.depth, part.depth);
    }
    return total;
  }

  private field(node: FieldNode, parent: GraphQLNamedType, depth: number, paged: boolean): Measure {
    if (node.name.value.startsWith('__')) return { cost: 0, depth, aliases: 0 };
    const definition =
      isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[node.name.value] : undefined;
    if (!definition) return { cost: 1, depth: depth + 1, aliases: 0 };
    const args = this.argumentsOf(node, definition);
    let price = 1;
    const filter = args.filter;
    if (filter && typeof filter === 'object') {
      for (const [key, value] of Object.entries(filter as Record<string, unknown>)) {
        if (value !== null && value !== undefined && value !== false) price += FILTER_PRICES[key] ?? 0;
      }
    }
    if (!node.selectionSet) return { cost: price, depth: depth + 1, aliases: 0 };
    const isPage = definition.args.some((arg) => arg.name === 'perPage');
    const inner = this.measure(
      node.selectionSet,
      getNamedType(definition.type),
      depth + 1,
      new Set(),
      isPage,
    );
    let factor = 1;
    if (isPage) {
      const perPage = typeof args.perPage === 'number' ? args.perPage : DEFAULT_PER_PAGE;
      factor = Math.min(Math.max(perPage, 1), MAX_PER_PAGE);
    } else if (!paged && isListType(getNullableType(definition.type))) factor = NESTED_LIST_FACTOR;
    return { cost: price + factor * inner.cost, depth: inner.depth, aliases: inner.aliases };
  }

  private argumentsOf(node: FieldNode, definition: GraphQLField<unknown, unknown>) {
    const values: Record<string, unknown> = {};
    for (const argument of node.arguments ?? []) {
      const type = definition.args.find((arg) => arg.name === argument.name.value)?.type;
      if (type) values[argument.name.value] = valueFromAST(argument.value, type, this.variables);
    }
    return values;
  }
}

/** The first limit this operation breaks, or null. */
export function checkLimits(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  limits: GraphqlLimits,
): GraphQLError | null {
  const root =
    operation.operation === 'mutation'
      ? schema.getMutationType()
      : operation.operation === 'subscription'
        ? schema.getSubscriptionType()
        : schema.getQueryType();
  if (!root) return null;
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
  if (operation.operation === 'mutation') {
    const mutations = operation.selectionSet.selections.filter((s) => s.kind === Kind.FIELD).length;
    if (mutations > limits.maxMutations)
      return limitError('too_many_mutations', `A request may run at most ${limits.maxMutations} mutations.`);
  }
  const measured = new Meter(schema, fragments, variables).measure(operation.selectionSet, root, 0);
  if (measured.depth > limits.maxDepth)
    return limitError('query_too_deep', `The query is nested deeper than ${limits.maxDepth} levels.`);
  if (measured.aliases > limits.maxAliases)
    return limitError('too_many_aliases', `A query may use at most ${limits.maxAliases} aliases.`);
  if (measured.cost > limits.maxCost) {
    return limitError(
      'query_too_costly',
      `The query would cost ${measured.cost}, more than ${limits.maxCost}: ask for smaller pages or fewer fields.`,
    );
  }
  return null;
}

interface DeadlineContext {
  graphqlDeadline?: number;
}

/** The limits as a yoga plugin: checked before execution, the deadline enforced at every resolver. */
export function graphqlLimitsPlugin(limits: GraphqlLimits): Plugin {
  return {
    onPluginInit({ addPlugin }) {
      addPlugin(
        useOnResolve(({ context }) => {
          const deadline = (context as DeadlineContext).graphqlDeadline;
          if (deadline !== undefined && Date.now() > deadline) {
            throw new GraphQLError('The request took too long and was stopped.', {
              extensions: { code: 'request_timeout', http: { status: 503 } },
            });
          }
        }),
      );
    },
    onExecute({ args, setResultAndStopExecution, extendContext }) {
      const document = args.document as DocumentNode;
      const operation = document.definitions.find(
        (d): d is OperationDefinitionNode =>
          d.kind === Kind.OPERATION_DEFINITION &&
          (args.operationName ? d.name?.value === args.operationName : true),
      );
      if (!operation) return;
      const error = checkLimits(
        args.schema,
        document,
        operation,
        (args.variableValues ?? {}) as Record<string, unknown>,
        limits,
      );
      if (error) {
        setResultAndStopExecution({ errors: [error] });
        return;
      }
      extendContext({ graphqlDeadline: Date.now() + limits.timeoutMs } as DeadlineContext as never);
    },
  };
}
