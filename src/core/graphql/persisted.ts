import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { LRUCache } from 'lru-cache';
import { stringBytes } from '../cache/held-bytes.js';
import { DocumentCache } from './documents.js';
import { documentHash, normaliseId } from '../config/trusted-documents.js';

// Persisted documents: a request names its document by the SHA-256 of the document's text instead of
// sending the text.
// - Trusted documents (`CALENDAR_TRUSTED_DOCUMENTS=<manifest>`): the server runs only the documents of
//   the manifest codegen writes (`examples/generated/persisted-documents.json`); a raw query or an
//   unknown id is refused. For production frontends: nothing else can be run against the API.
// - Otherwise automatic persisted queries (APQ): a client sends the hash alone; when the server does not
//   know it (PERSISTED_QUERY_NOT_FOUND) the client sends hash and query, which the server checks and
//   keeps (bounded, least recently used first), and from then on the hash alone runs the query. Each
//   instance keeps its own store: on another instance the client simply registers again.
// Either way the service's own documents (those of <calendar-view>, the component it serves) run by id
// from the start: registered when the app is built, beside the trusted ones or the automatic store,
// never evicted. Only those few fixed documents: an unknown id is refused as before, and where only
// trusted documents run their texts are refused like any text.
// An id arrives as `extensions.persistedQuery.sha256Hash` (Apollo's APQ, hex) or as `documentId`
// (GraphQL over HTTP's persisted documents, `sha256:<hex>` as codegen's client preset writes it), in
// a JSON POST or in the query string of a GET.

/**
 * The parameters of a GraphQL request that name its document, once read and checked
 * (src/core/graphql/params.ts: a GET's `extensions` is parsed, and a map, before anything looks inside).
 */
interface PersistedParams {
  query?: unknown;
  extensions?: unknown;
  documentId?: unknown;
}

/** The id a request names its document by, normalised; null when it names none. */
function persistedIdOf(params: PersistedParams): string | null {
  if (typeof params.documentId === 'string' && params.documentId !== '')
    return normaliseId(params.documentId);
  const persistedQuery = (
    params.extensions as { persistedQuery?: { sha256Hash?: unknown } } | null | undefined
  )?.persistedQuery;
  const hash = persistedQuery && typeof persistedQuery === 'object' ? persistedQuery.sha256Hash : undefined;
  return typeof hash === 'string' && hash !== '' ? normaliseId(hash) : null;
}

interface PersistedDocumentsOptions {
  /** The trusted documents by id: when given, nothing else runs (but the service's own documents). */
  trusted?: ReadonlyMap<string, string>;
  /** The service's own documents by id (`<calendar-view>`'s, src/core/http/embed.ts): run by id in any mode. */
  own?: ReadonlyMap<string, string>;
  /** Bounds of the automatic persisted queries' store (entries, and bytes of their ids and texts). */
  maxQueries?: number;
  maxBytes?: number;
}

/** What a request's document is before it runs. */
interface ResolvedDocument {
  /** Its text, when the request sent it or names one known here. */
  text?: string;
  /**
   * Whether its answer may be shared with another request of the same text: not when it will be
   * refused (an unknown id, a raw query where only trusted documents run, a hash that does not match).
   */
  shareable: boolean;
}

const NO_STORE = { 'Cache-Control': 'no-store' };

function refusal(message: string, code: string) {
  // 400, never stored by a cache: once the document is registered the same request succeeds.
  return createGraphQLError(message, { extensions: { code, http: { status: 400, headers: NO_STORE } } });
}

const SEND_ID = 'send its id as documentId or extensions.persistedQuery.sha256Hash';

export class PersistedDocuments {
  private readonly trusted: ReadonlyMap<string, string> | undefined;
  private readonly own: ReadonlyMap<string, string>;
  private readonly automatic: LRUCache<string, string>;
  /** The documents' syntax trees by text, shared by the read key and yoga's parser (`documents.ts`). */
  readonly parsed = new DocumentCache();

  constructor(options: PersistedDocumentsOptions = {}) {
    this.trusted = options.trusted;
    this.own = options.own ?? new Map();
    this.automatic = new LRUCache<string, string>({
      max: options.maxQueries ?? 1000,
      maxSize: options.maxBytes ?? 4 * 1024 * 1024,
      sizeCalculation: (text, id) => stringBytes(text) + stringBytes(id),
    });
  }

  /** Only the trusted documents run. */
  get trustedOnly(): boolean {
    return this.trusted !== undefined;
  }

  /** The document text of an id, when known. */
  lookup(id: string): string | undefined {
    return this.own.get(id) ?? (this.trusted ? this.trusted.get(id) : this.automatic.get(id));
  }

  /**
   * Keeps a query sent with its hash (automatic persisted queries): false when the hash is not the
   * query's (nothing is kept) or when only trusted documents run.
   */
  register(id: string, query: string): boolean {
    if (this.trusted) return false;
    // Known from the start: nothing to keep, and the store's bound is left to other clients.
    if (this.own.has(id)) return this.own.get(id) === query;
    if (this.automatic.has(id)) return this.automatic.get(id) === query;
    if (documentHash(query) !== id) return false;
    this.automatic.set(id, query);
    return true;
  }

  /** The document of a request before it runs (registering a query sent with its hash). */
  resolve(params: PersistedParams): ResolvedDocument {
    const id = persistedIdOf(params);
    const query = typeof params.query === 'string' ? params.query : undefined;
    if (query !== undefined) {
      if (this.trusted) return { text: query, shareable: false };
      return { text: query, shareable: id === null || this.register(id, query) };
    }
    if (id === null) return { shareable: !this.trusted };
    const text = this.lookup(id);
    return text === undefined ? { shareable: false } : { text, shareable: true };
  }

  /** The yoga plugin: resolves ids to documents, registers APQ queries, refuses what may not run. */
  plugin(): Plugin {
    const trustedOnly = this.trustedOnly;
    const idOf = (params: object, request: Request): string | null => {
      const fromBody = persistedIdOf(params as PersistedParams);
      if (fromBody !== null || request.method !== 'GET') return fromBody;
      // yoga's GET parser keeps only query, variables, operationName and extensions.
      const documentId = new URL(request.url).searchParams.get('documentId');
      return documentId ? persistedIdOf({ documentId }) : null;
    };
    const notFound = () =>
      trustedOnly
        ? refusal(
            'Unknown document id: this server runs only its trusted documents (the manifest codegen writes).',
            'PERSISTED_QUERY_NOT_FOUND',
          )
        : refusal(
            'Unknown document id: send the query together with its SHA-256 hash (extensions.persistedQuery.sha256Hash) once, then the hash alone.',
            'PERSISTED_QUERY_NOT_FOUND',
          );
    const persistedOnly = () =>
      refusal(
        `This server runs only trusted documents: instead of a document's text, ${SEND_ID}.`,
        'PERSISTED_QUERY_ONLY',
      );
    const inner = usePersistedOperations({
      allowArbitraryOperations: !trustedOnly,
      extractPersistedOperationId: (params, request) => idOf(params, request),
      getPersistedOperation: (id) => this.lookup(id) ?? null,
      customErrors: { notFound, persistedQueryOnly: persistedOnly, keyNotFound: persistedOnly },
    });
    return {
      ...inner,
      onParams: (payload) => {
        const { params, request } = payload;
        const id = idOf(params, request);
        if (typeof params.query === 'string' && !trustedOnly) {
          if (id !== null && !this.register(id, params.query))
            throw refusal(
              'The SHA-256 hash sent in extensions.persistedQuery (or documentId) is not the hash of the query.',
              'PERSISTED_QUERY_HASH_MISMATCH',
            );
          // The query runs as sent; yoga refuses parameters it does not know.
          if ((params as PersistedParams).documentId !== undefined)
            payload.setParams({ ...params, documentId: undefined } as typeof params);
          return;
        }
        // Neither a query nor an id: yoga's own answer (`Must provide query string`), unless only
        // trusted documents run.
        if (params.query == null && id === null && !trustedOnly) return;
        return inner.onParams?.(payload);
      },
    };
  }
}
