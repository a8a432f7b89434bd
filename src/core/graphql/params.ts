import { createGraphQLError, type GraphQLParams, type Plugin } from 'graphql-yoga';

// The parameters of a GraphQL-over-HTTP request (`query`, `variables`, `operationName`, `extensions`,
// and the persisted documents' `documentId`), read and checked by one set of rules for everyone who
// looks at them: yoga (through `graphqlParamsPlugin`) before it runs a request, and the response
// cache before it keys one. A request either path refuses is refused by both, so a cached answer is
// never given to a request the uncached path would turn away, and a query string that is not JSON
// is a 400, never a 500.

/** A request's parameters once read and checked. */
export interface GraphqlParams {
  query?: string | null;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  extensions?: Record<string, unknown> | null;
  documentId?: string | null;
}

/** Why a request's parameters are refused (400 `BAD_REQUEST`). */
interface GraphqlParamsError {
  message: string;
}

const KNOWN = new Set(['query', 'variables', 'operationName', 'extensions', 'documentId']);

function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/**
 * Checks parameters as they arrive (a JSON body, or a query string once read): null when yoga may
 * run them, else why not. The rules are yoga's own (`checkGraphQLQueryParams`: no unknown parameter,
 * `variables` and `extensions` absent, null or a map), plus the GraphQL-over-HTTP types yoga leaves
 * to chance: `query`, `operationName` and `documentId` absent, null or a string. A missing `query` is
 * not refused here: a persisted document's id stands for it.
 */
export function checkGraphqlParams(params: unknown): GraphqlParamsError | null {
  const type = typeOf(params);
  if (type !== 'object') return { message: `Expected params to be an object but given ${type}.` };
  const record = params as Record<string, unknown>;
  for (const name in record) {
    const value = record[name];
    if (value == null) continue;
    if (!KNOWN.has(name)) return { message: `Unexpected parameter "${name}" in the request body.` };
    const given = typeOf(value);
    if (name === 'variables' || name === 'extensions') {
      if (given !== 'object')
        return { message: `Expected "${name}" param to be empty or an object, but given ${given}.` };
    } else if (given !== 'string') {
      return { message: `Expected "${name}" param to be empty or a string, but given ${given}.` };
    }
  }
  return null;
}

/** A JSON-valued query-string parameter (`variables`, `extensions`), parsed; undefined when absent. */
function jsonParam(
  search: URLSearchParams,
  name: 'variables' | 'extensions',
): { value: unknown } | GraphqlParamsError {
  const text = search.get(name) || undefined;
  if (text === undefined) return { value: undefined };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { message: `Expected "${name}" param to be empty or an object, but given text that is not JSON.` };
  }
}

/**
 * The parameters of a GET, from its raw query string, as yoga's GET parser reads them (the first of
 * repeated names; an empty value counts as absent), with `documentId` besides.
 */
export function graphqlSearchParams(
  querystring: string,
): { params: GraphqlParams } | { error: GraphqlParamsError } {
  const search = new URLSearchParams(querystring);
  const variables = jsonParam(search, 'variables');
  if ('message' in variables) return { error: variables };
  const extensions = jsonParam(search, 'extensions');
  if ('message' in extensions) return { error: extensions };
  const params = {
    query: search.get('query') || undefined,
    variables: variables.value,
    operationName: search.get('operationName') || undefined,
    extensions: extensions.value,
    documentId: search.get('documentId') || undefined,
  };
  const error = checkGraphqlParams(params);
  return error ? { error } : { params: params as GraphqlParams };
}

const badRequest = (error: GraphqlParamsError) =>
  createGraphQLError(error.message, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });

/**
 * The yoga plugin: reads a GET's query string by `graphqlSearchParams` (yoga's own parser throws on
 * a value that is not JSON, a 500) and checks every request's parameters by `checkGraphqlParams`
 * before any other plugin sees them. List it first.
 */
export function graphqlParamsPlugin(): Plugin {
  return {
    onRequestParse({ request, setRequestParser }) {
      if (request.method !== 'GET') return;
      setRequestParser((get) => {
        const url = get.url;
        const query = url.indexOf('?');
        const read = graphqlSearchParams(query < 0 ? '' : url.slice(query + 1));
        if ('error' in read) throw badRequest(read.error);
        // yoga knows only these four; the persisted documents' plugin reads `documentId` off the URL.
        const { query: text, variables, operationName, extensions } = read.params;
        return { query: text, variables, operationName, extensions } as GraphQLParams;
      });
    },
    onParams({ params }) {
      const error = checkGraphqlParams(params);
      if (error) throw badRequest(error);
    },
  };
}
