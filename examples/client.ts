// A small typed GraphQL client built on the documents `npm run codegen` generates from
// examples/operations/*.graphql: variables and results are checked by TypeScript against schema.graphql.
//
//   npm run codegen && npx tsx examples/client.ts http://localhost:4000/graphql
import { pathToFileURL } from 'node:url';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import {
  type CreateEventInput,
  CreateEventDocument,
  type EventChangeFilter,
  EventChangedDocument,
  EventWithVenueAndOrganizersDocument,
  EventsConnectionDocument,
  type EventsConnectionQuery,
  type EventFilter,
  UpcomingEventsDocument,
} from './generated/graphql.js';

export interface GraphQLErrorPayload {
  message: string;
  extensions?: { code?: string; http?: { status?: number } };
}

/** The service refused the operation; `code` is the REST error code it would have used. */
export class CalendarError extends Error {
  readonly code: string | undefined;

  constructor(readonly errors: GraphQLErrorPayload[]) {
    super(errors.map((error) => error.message).join('; '));
    this.code = errors[0]?.extensions?.code;
  }
}

export interface CalendarClientOptions {
  /**
   * Send each document's id (`documentId`, the `sha256:…` codegen wrote into the document and into
   * persisted-documents.json) instead of its text: what a server started with
   * CALENDAR_TRUSTED_DOCUMENTS requires.
   */
  persistedDocuments?: boolean;
}

/** The id codegen embeds in a generated document (`persistedDocuments` in codegen.ts). */
export function documentIdOf(document: object): string | undefined {
  return (document as { __meta__?: { hash?: string } }).__meta__?.hash;
}

export class CalendarClient {
  constructor(
    private readonly endpoint: string,
    private readonly credentials?: { login: string; password: string },
    private readonly options: CalendarClientOptions = {},
  ) {}

  /** The request body of a document: its id, or its text. */
  private body<Result, Variables>(
    document: TypedDocumentNode<Result, Variables>,
    variables: Variables,
  ): string {
    const documentId = this.options.persistedDocuments ? documentIdOf(document) : undefined;
    return JSON.stringify(documentId ? { documentId, variables } : { query: print(document), variables });
  }

  private headers(accept: string): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept };
    if (this.credentials) {
      headers.authorization = `Basic ${Buffer.from(`${this.credentials.login}:${this.credentials.password}`).toString('base64')}`;
    }
    return headers;
  }

  /** Runs any generated document: the variables and the result are typed by the document. */
  async request<Result, Variables>(
    document: TypedDocumentNode<Result, Variables>,
    variables: Variables,
  ): Promise<Result> {
    const headers = this.headers('application/graphql-response+json, application/json');
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers,
      body: this.body(document, variables),
    });
    const body = (await response.json()) as { data?: Result | null; errors?: GraphQLErrorPayload[] };
    if (body.errors?.length || !body.data)
      throw new CalendarError(body.errors ?? [{ message: `HTTP ${response.status}` }]);
    return body.data;
  }

  /**
   * Runs a generated subscription over Server-Sent Events: yields each message's data, typed by the
   * document, until the server completes the stream or `signal` aborts it.
   */
  async *subscribe<Result, Variables>(
    document: TypedDocumentNode<Result, Variables>,
    variables: Variables,
    signal?: AbortSignal,
  ): AsyncGenerator<Result> {
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: this.headers('text/event-stream'),
      body: this.body(document, variables),
      signal,
    });
    if (!response.ok || !response.body) throw new CalendarError([{ message: `HTTP ${response.status}` }]);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        // Messages end with a blank line: `event: next|complete` and `data: <JSON>` lines.
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const lines = buffer.slice(0, end).split('\n');
          buffer = buffer.slice(end + 2);
          const event = lines
            .find((line) => line.startsWith('event:'))
            ?.slice(6)
            .trim();
          if (event === 'complete') return;
          if (event !== 'next') continue;
          const data = lines
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trimStart())
            .join('\n');
          const body = JSON.parse(data) as { data?: Result | null; errors?: GraphQLErrorPayload[] };
          if (body.errors?.length || !body.data)
            throw new CalendarError(body.errors ?? [{ message: 'no data' }]);
          yield body.data;
        }
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }

  /** Events created, changed or removed from now on, as this client may see them. */
  async *eventChanges(filter: EventChangeFilter = {}, signal?: AbortSignal) {
    for await (const { eventChanged } of this.subscribe(EventChangedDocument, { filter }, signal))
      yield eventChanged;
  }

  /** One page of upcoming events, filtered. */
  async upcomingEvents(filter: EventFilter = {}, page = 1, perPage = 10) {
    const { events } = await this.request(UpcomingEventsDocument, { filter, page, perPage });
    return events;
  }

  /**
   * Every event the filter matches, page after page by cursor (Relay connection): records inserted
   * while it walks neither skip nor repeat the others.
   */
  async *allEvents(filter: EventFilter = {}, pageSize = 50) {
    let after: string | null = null;
    for (;;) {
      const { eventsConnection }: EventsConnectionQuery = await this.request(EventsConnectionDocument, {
        filter,
        first: pageSize,
        after,
      });
      for (const edge of eventsConnection.edges) yield edge.node;
      if (!eventsConnection.pageInfo.hasNextPage) return;
      after = eventsConnection.pageInfo.endCursor ?? null;
    }
  }

  /** One event with its venues and organizers; null when it does not exist or may not be read. */
  async event(id: number) {
    const { event } = await this.request(EventWithVenueAndOrganizersDocument, { id });
    return event;
  }

  /** Creates an event (needs credentials of a user who may). */
  async createEvent(input: CreateEventInput) {
    const { createEvent } = await this.request(CreateEventDocument, { input });
    return createEvent;
  }
}

async function main(endpoint = 'http://localhost:4000/graphql'): Promise<void> {
  const client = new CalendarClient(endpoint);
  const { pageInfo, items } = await client.upcomingEvents({}, 1, 5);
  console.log(`${pageInfo.total} upcoming events; the first ${items.length}:`);
  for (const item of items)
    console.log(
      `  #${item.databaseId} ${item.startDate} ${item.title}${item.cost ? ` (${item.cost.formatted})` : ''}`,
    );
  const first = items[0];
  if (first) {
    const event = await client.event(first.databaseId);
    if (event)
      console.log(
        `#${event.databaseId} at ${event.venues.map((venue) => venue.name).join(', ') || 'no venue'}, by ${event.organizers.map((organizer) => organizer.name).join(', ') || 'nobody'}`,
      );
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv[2]).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
