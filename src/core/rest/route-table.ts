import type { DependencyKind } from '../cache/dependencies.js';

/**
 * The key a single record's answer carries its version under (the start of its entity tag): read and
 * removed by the engine, never sent, never documented.
 */
export const RECORD_VERSION_KEY = '_record_version';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type RestFieldType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';

/**
 * One field of a flat request body, as WordPress documents a route argument (JSON-schema keywords):
 * the namespace index lists it under the endpoint's `args`, `/doc` puts it in the request body.
 * Several types (e.g. a venue id or an object of venue fields) are given as a list; none means any.
 */
export interface RestField {
  type?: RestFieldType | RestFieldType[];
  items?: { type: RestFieldType | RestFieldType[] };
  format?: string;
  enum?: string[];
  description: string;
  default?: unknown;
  required?: boolean;
}

/**
 * One REST route of the reference API, served by one root field of the `rest` GraphQL sub-graph.
 * Everything here is data (the table is `rest-map/routes.ts`); `src/core/rest/router.ts` interprets it.
 */
export interface RestRoute {
  /** Methods answered; the first is the one SOFA sees (PUT and PATCH are served like POST). */
  methods: [HttpMethod, ...HttpMethod[]];
  /** Path under `/calendar/events/v1`, in the seed's form (`:id` binds the argument `id`). */
  path: string;
  /** `Query.<field>` or `Mutation.<field>` of the rest schema. */
  operation: `${'Query' | 'Mutation'}.${string}`;
  /** Success status (default 200). */
  status?: number;
  /** Response headers filled from top-level keys of the result. */
  headers?: Record<string, string>;
  /** Top-level keys the reference omits (rather than sending `null`) when they have no value. */
  omitWhenNull?: string[];
  /**
   * Arguments read from a request header only, never from the URL or the body (a secret kept out of
   * URLs, and so out of access logs, browser histories and `Referer`): argument → header name. Their
   * answers are never shared by the response cache.
   */
  headerArguments?: Record<string, string>;
  /** The argument that receives the flat request body (mutations), e.g. `input`. */
  bodyArgument?: string;
  /**
   * An update: every field of the body is optional, whatever the body type's documentation requires
   * (the namespace index and `/doc` describe the body from its input type, `core/rest/body-fields.ts`).
   */
  bodyOptional?: true;
  /** Fields of the body type this route does not take (its service ignores or refuses them): undocumented. */
  bodyOmits?: string[];
  /** Query parameters an empty value makes invalid (400), as the reference's `is_string` validators. */
  nonEmpty?: string[];
  /** Header `Location` is set to this key of the result (a dotted path reaches nested keys: `urls.self`). */
  locationFrom?: string;
  /**
   * The route answers with a document rather than JSON: the body is the string under `bodyKey` of the
   * result, sent as `contentType` (with a download name from `filenameKey`), with a strong ETag.
   */
  document?: {
    contentType: string;
    bodyKey: string;
    filenameKey?: string;
    /** `attachment`: a download (an export); default `inline` (a feed a calendar app reads). */
    disposition?: 'inline' | 'attachment';
  };
  /** The route also answers GET `path` when the query's boolean `flag` is true (`?ical=1`). */
  alsoAt?: { path: string; flag: string };
  /**
   * A read whose cached answers depend only on the records they show, what the services logged while
   * reading (an event list's window, the records its filters name) and these families (a list of
   * venues changes with any venue). Absent: any write drops its answers.
   */
  dependsOn?: { families: DependencyKind[] };
  /**
   * An event list whose rows (`events`) the route renders again for the given ids (its `include`
   * filter): an answer stays cached when a write changes only some of its rows (`core/rest/shown/shown-rows.ts`).
   */
  rendersRows?: true;
  description: string;
}
