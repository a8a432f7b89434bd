export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One REST route of the reference API, served by one root field of the `rest` GraphQL sub-graph.
 * Everything here is data; `src/rest/adapter.ts` is the one engine that interprets it.
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
  /** The argument that receives the flat request body (mutations), e.g. `input`. */
  bodyArgument?: string;
  /** Header `Location` is set to this key of the result. */
  locationFrom?: string;
  description: string;
}
