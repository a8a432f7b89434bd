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
  type ParseOptions,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  type Source,
  TypeMetaFieldDef,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  parse,
  valueFromAST,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from '../rules/paging.js';
import { deadlineIn, pastDeadline } from './deadline.js';

// What one GraphQL request may cost, checked before anything runs (with the request's variables, so
// a filter passed as a variable is charged like one written inline) and enforced while it runs:
// - the document's size in tokens, when it is parsed (parsing and validating grow with it);
// - depth, aliases and mutations per request are counted, through fragments;
// - cost: every field costs 1, a paged list multiplies what it selects by its page size, a small
//   nested list by 5, and the expensive filters (radius, search) add their own price; introspection
//   is charged the same way (its depth is not limited: the standard introspection query is deep);
// - a deadline: once it passes, every resolver still to run fails at once (the request ends instead
//   of keeping the event loop and the database busy), unless a write began (`deadline.ts`).
// Each fragment is measured once, so the check costs what the document's size costs, however often
// its fragments are spread. Errors carry `extensions.code` (and the 400 status in `extensions.http`),
// never "Syntax Error".

interface GraphqlLimits {
  maxTokens: number;
  maxDepth: number;
  maxCost: number;
  maxAliases: number;
  maxMutations: number;
  timeoutMs: number;
  /** What each expensive list filter adds when given, by argument name: declared with the filters
   * (the events room's `FILTER_PRICES`), handed in by the wiring. */
  filterPrices: Readonly<Record<string, number>>;
}

export const DEFAULT_GRAPHQL_LIMITS: Omit<GraphqlLimits, 'maxDepth' | 'timeoutMs' | 'filterPrices'> = {
  // Ten times the standard introspection query; validation of the largest document takes ~20 ms.
  maxTokens: 2000,
  maxCost: 10_000,
  maxAliases: 30,
  maxMutations: 10,
};

const NESTED_LIST_FACTOR = 5;

function limitError(code: string, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status: 400 } } });
}

/** `parse` that stops after `maxTokens` tokens with a coded error (graphql-js calls it a syntax error). */
export function parseDocument(
  source: string | Source,
  maxTokens: number,
  options: ParseOptions = {},
): DocumentNode {
  try {
    return parse(source, { ...options, maxTokens });
  } catch (error) {
    if (error instanceof GraphQLError && /contains more tha[nt] \d+ tokens/.test(error.message))
      throw limitError('query_too_large', `A query may hold at most ${maxTokens} tokens.`);
    throw error;
  }
}

/** What a selection costs; `depth` counts the levels below it. */
interface Measure {
  cost: number;
  depth: number;
  aliases: number;
}

const NOTHING: Measure = { cost: 0, depth: 0, aliases: 0 };

class Meter {
  /** Each fragment measured once (per paged/unpaged use); `null` while it is being measured (a cycle). */
  private readonly measured = new Map<string, Measure | null>();
  private readonly rootFieldCounts = new Map<string, number>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: Map<string, FragmentDefinitionNode>,
    private readonly variables: Record<string, unknown>,
    private readonly filterPrices: Readonly<Record<string, number>>,
  ) {}

  /** Cost, depth and aliases of a selection set on `type`, fragments expanded. */
  measure(
    selectionSet: SelectionSetNode,
    type: GraphQLNamedType,
    /** Directly inside a paged field: its list (the page's items) is already counted by the page size. */
    paged = false,
    introspection = false,
  ): Measure {
    const total: Measure = { cost: 0, depth: 0, aliases: 0 };
    for (const selection of selectionSet.selections) {
      let part: Measure;
      if (selection.kind === Kind.FIELD) {
        if (selection.alias) total.aliases++;
        part = this.field(selection, type, paged, introspection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition ? this.schema.getType(selection.typeCondition.name.value) : type;
        part = this.measure(selection.selectionSet, on ?? type, paged, introspection);
      } else {
        part = this.fragment(selection.name.value, type, paged, introspection);
      }
      total.cost += part.cost;
      total.aliases += part.aliases;
      total.depth = Math.max(total.depth, part.depth);
    }
    return total;
  }

  /** How many root fields (mutations) a selection runs, through fragments. */
  rootFields(selectionSet: SelectionSetNode): number {
    let count = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) count++;
      else if (selection.kind === Kind.INLINE_FRAGMENT) count += this.rootFields(selection.selectionSet);
      else {
        const name = selection.name.value;
        if (!this.rootFieldCounts.has(name)) {
          this.rootFieldCounts.set(name, 0); // a cycle counts nothing (validation refuses it anyway)
          const fragment = this.fragments.get(name);
          this.rootFieldCounts.set(name, fragment ? this.rootFields(fragment.selectionSet) : 0);
        }
        count += this.rootFieldCounts.get(name)!;
      }
    }
    return count;
  }

  private fragment(name: string, type: GraphQLNamedType, paged: boolean, introspection: boolean): Measure {
    const key = `${name}:${paged}:${introspection}`;
    const known = this.measured.get(key);
    if (known !== undefined) return known ?? NOTHING;
    const fragment = this.fragments.get(name);
    if (!fragment) return NOTHING;
    this.measured.set(key, null);
    const on = this.schema.getType(fragment.typeCondition.name.value) ?? type;
    const measure = this.measure(fragment.selectionSet, on, paged, introspection);
    this.measured.set(key, measure);
    return measure;
  }

  private field(node: FieldNode, parent: GraphQLNamedType, paged: boolean, introspection: boolean): Measure {
    const name = node.name.value;
    if (name === '__typename') return NOTHING;
    const meta = name === '__schema' ? SchemaMetaFieldDef : name === '__type' ? TypeMetaFieldDef : undefined;
    const definition =
      meta ?? (isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined);
    if (!definition) return { cost: 1, depth: 1, aliases: 0 };
    const inIntrospection = introspection || meta !== undefined;
    const args = this.argumentsOf(node, definition);
    let price = 1;
    const filter = args.filter;
    if (filter && typeof filter === 'object') {
      for (const [key, value] of Object.entries(filter as Record<string, unknown>)) {
        if (value !== null && value !== undefined && value !== false) price += this.filterPrices[key] ?? 0;
      }
    }
    // Introspection is as deep as the type references it follows: it is charged, not depth-limited.
    const levels = inIntrospection ? 0 : 1;
    if (!node.selectionSet) return { cost: price, depth: levels, aliases: 0 };
    const isPage = definition.args.some((arg) => arg.name === 'perPage');
    const inner = this.measure(node.selectionSet, getNamedType(definition.type), isPage, inIntrospection);
    let factor = 1;
    if (isPage) {
      const perPage = typeof args.perPage === 'number' ? args.perPage : DEFAULT_PER_PAGE;
      factor = Math.min(Math.max(perPage, 1), MAX_PER_PAGE);
    } else if (!paged && isListType(getNullableType(definition.type))) factor = NESTED_LIST_FACTOR;
    return {
      cost: price + factor * inner.cost,
      depth: levels + (inIntrospection ? 0 : inner.depth),
      aliases: inner.aliases,
    };
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
function checkLimits(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  limits: Omit<GraphqlLimits, 'maxTokens' | 'timeoutMs'>,
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
  const meter = new Meter(schema, fragments, variables, limits.filterPrices);
  if (operation.operation === 'mutation' && meter.rootFields(operation.selectionSet) > limits.maxMutations)
    return limitError('too_many_mutations', `A request may run at most ${limits.maxMutations} mutations.`);
  const measured = meter.measure(operation.selectionSet, root);
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

/** The limits as a yoga plugin: checked before execution, the deadline enforced at every resolver. */
export function graphqlLimitsPlugin(limits: GraphqlLimits): Plugin {
  return {
    onPluginInit({ addPlugin }) {
      addPlugin(
        useOnResolve(
          ({ context }) => {
            if (pastDeadline(context)) {
              throw new GraphQLError('The request took too long and was stopped.', {
                extensions: { code: 'request_timeout', http: { status: 503 } },
              });
            }
          },
          // A field read straight off its parent cannot run long: checked where resolvers do work.
          { skipIntrospection: true, skipDefaultResolvers: true },
        ),
      );
    },
    onParse({ setParseFn }) {
      setParseFn((source, options) => parseDocument(source, limits.maxTokens, options));
    },
    onExecute({ args, setResultAndStopExecution, extendContext }) {
      const error = limitBroken(args, limits);
      if (error) {
        setResultAndStopExecution({ errors: [error] });
        return;
      }
      extendContext(deadlineIn(limits.timeoutMs) as never);
    },
    // A subscription is measured like a query (what each delivery selects), and has no deadline: it
    // lives until the client leaves; each delivery re-reads one record.
    onSubscribe({ args, setResultAndStopExecution }) {
      const error = limitBroken(args, limits);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
}

function limitBroken(
  args: {
    schema: GraphQLSchema;
    document: unknown;
    operationName?: string | null;
    variableValues?: unknown;
  },
  limits: GraphqlLimits,
): GraphQLError | null {
  const document = args.document as DocumentNode;
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode =>
      d.kind === Kind.OPERATION_DEFINITION &&
      (args.operationName ? d.name?.value === args.operationName : true),
  );
  if (!operation) return null;
  return checkLimits(
    args.schema,
    document,
    operation,
    (args.variableValues ?? {}) as Record<string, unknown>,
    limits,
  );
}
