import { getOperationAST } from 'graphql';
import type { Context as KoaContext } from 'koa';
import { queryReadsClock } from './clock.js';
import { viewerOf } from '../http/state.js';
import { graphqlBodyText } from '../cache/fast-path.js';
import type { ResponseCache } from '../cache/response-cache.js';
import { MAX_JSON_DEPTH, hasNul, jsonTooDeep } from '../rules/texts/request-text.js';
import { type GraphqlParams, checkGraphqlParams, graphqlSearchParams } from './params.js';
import type { PersistedDocuments } from './persisted.js';

interface GraphqlBodyError {
  status: 400 | 413 | 415;
  code: string;
  message: string;
}

/** How the service reads a GraphQL request before yoga runs it. */
type GraphqlRead =
  /**
   * A query (`key`: its shared cache entry, null when not shared) or a subscription, with its body and,
   * once they passed the checks yoga applies, its parameters as yoga's own request parser gives them.
   */
  | {
      key: string | null;
      body?: string;
      params?: GraphqlParams;
      subscription?: true;
      clockSensitive?: boolean;
    }
  /** A request refused before yoga sees it. */
  | { error: GraphqlBodyError }
  /** Anything else (a mutation sent as GET, another method): yoga's own, untouched. */
  | null;

const BODY_ERRORS = {
  mediaType: {
    status: 415,
    code: 'unsupported_media_type',
    message: 'Send GraphQL requests as GET or as a POST of Content-Type application/json.',
  },
  tooLarge: { status: 413, code: 'body_too_large', message: 'The request body is too large.' },
  unreadable: { status: 400, code: 'invalid_body', message: 'The request body could not be read.' },
  tooDeep: {
    status: 400,
    code: 'invalid_body',
    message: `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`,
  },
  nul: { status: 400, code: 'invalid_body', message: 'Text may not contain NUL characters.' },
} as const satisfies Record<string, GraphqlBodyError>;

/**
 * Recognises a GraphQL query (never a mutation) sent as GET or as a JSON POST: its body (already read)
 * and its cache key, null when the answer must not be shared (an authenticated viewer, a `password`
 * anywhere in the operation). Anything else (mutations, other encodings) is left to yoga untouched.
 */
export function graphqlReadKey(
  cache: ResponseCache,
  persisted: PersistedDocuments,
): (ctx: KoaContext) => Promise<GraphqlRead> {
  return async (ctx) => {
    let params: GraphqlParams;
    let body: string | undefined;
    let yogaParams: GraphqlParams;
    if (ctx.method === 'GET') {
      if (hasNul(ctx.querystring)) return { error: BODY_ERRORS.nul };
      // Read as yoga reads it (src/core/graphql/params.ts); parameters it refuses are never keyed.
      const read = graphqlSearchParams(ctx.querystring);
      if ('error' in read) return null;
      params = read.params;
      // yoga's GET parser gives these four; the persisted documents' plugin reads `documentId` off the URL.
      const { query, variables, operationName, extensions } = params;
      yogaParams = { query, variables, operationName, extensions };
    } else if (ctx.method === 'POST') {
      // Only JSON: a form or text/plain POST is what a browser sends cross-site without a preflight
      // (a CSRF vector for mutations), and the GraphQL-over-HTTP spec asks for JSON anyway.
      if (!ctx.is('application/json')) return { error: BODY_ERRORS.mediaType };
      try {
        body = await graphqlBodyText(ctx);
      } catch (error) {
        return {
          error:
            (error as { status?: number }).status === 413 ? BODY_ERRORS.tooLarge : BODY_ERRORS.unreadable,
        };
      }
      if (jsonTooDeep(body)) return { error: BODY_ERRORS.tooDeep };
      if (hasNul(body)) return { error: BODY_ERRORS.nul };
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        // yoga gives the GraphQL-over-HTTP error for a body it cannot parse.
        return { key: null, body };
      }
      // Parameters yoga refuses (the same rules) are never keyed: no cached answer for them.
      if (checkGraphqlParams(parsed) !== null) return { key: null, body };
      params = parsed as GraphqlParams;
      yogaParams = params;
    } else return null;
    // A persisted document's id stands for its text: same text, same key, whichever way it came.
    const { text, shareable } = persisted.resolve(params);
    const document = text !== undefined ? persisted.parsed.parse(text) : null;
    const operation = document && getOperationAST(document, params.operationName ?? undefined);
    if (operation?.operation === 'subscription') return { key: null, body, subscription: true };
    if (!operation || operation.operation !== 'query') return body !== undefined ? { key: null, body } : null;
    const viewer = viewerOf(ctx);
    const variables = JSON.stringify(params.variables ?? null);
    const shared =
      shareable &&
      (!viewer || viewer.userId === null) &&
      !/password/i.test(String(text)) &&
      !/password/i.test(variables);
    return {
      key: shared ? cache.keyOf(ctx, ['graphql', text, variables, params.operationName ?? null]) : null,
      body,
      params: yogaParams,
      clockSensitive: shared && queryReadsClock(document, params.variables, cache.siteTimezone),
    };
  };
}
