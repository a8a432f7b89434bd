// The calendar's GraphQL client: a fetch per request, nothing else. Documents go by id (reads by GET,
// so browsers and caches may keep the answer; the RSVP by a JSON POST): the only form a server
// running trusted documents accepts. The server that serves this script knows its documents from the start (src/core/http/embed.ts);
// another `endpoint` that does not know an id (automatic persisted queries) answers
// PERSISTED_QUERY_NOT_FOUND once, and from then on this client sends the documents' text.
// Requests carry no credentials: the calendar shows what an anonymous visitor may see, whatever the
// host page's visitor is logged into.

/** A document codegen wrote as a string (`documentMode: 'string'`), carrying its id. */
export interface Document<Result, Variables> {
  toString(): string;
  __meta__?: Record<string, unknown> | undefined;
  __apiType?: (variables: Variables) => Result;
}

export class GraphqlError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    /** The refusal's details (`extensions.data`): `params`, each bad field with its reason. */
    readonly data?: { params?: Record<string, string> } & Record<string, unknown>,
  ) {
    super(message);
  }
}

interface ErrorEntry {
  message: string;
  extensions?: { code?: string; data?: GraphqlError['data'] };
}

interface Payload<Result> {
  data?: Result | null;
  errors?: ErrorEntry[];
}

const errorOf = (error: ErrorEntry | undefined, fallback: string) =>
  new GraphqlError(error?.message ?? fallback, error?.extensions?.code, error?.extensions?.data);

const NOT_FOUND = 'PERSISTED_QUERY_NOT_FOUND';

/** A refusal's body: JSON, or (asked for a stream) one Server-Sent Event holding the JSON. */
async function payloadOf<R>(response: Response): Promise<Payload<R> | null> {
  const text = await response.text().catch(() => '');
  const data = /^data: ?(.*)$/m.exec(text)?.[1] ?? text;
  try {
    return JSON.parse(data) as Payload<R>;
  } catch {
    return null;
  }
}
const operationName = (text: string): string | undefined =>
  /\b(?:query|mutation|subscription)\s+(\w+)/.exec(text)?.[1];

export class GraphqlClient {
  /** The server runs any document (it said it did not know an id): send texts. */
  private sendText = false;

  constructor(private readonly endpoint: string) {}

  private url<V>(document: Document<unknown, V>, variables: V, text: boolean): string {
    const url = new URL(this.endpoint);
    const source = document.toString();
    if (text) url.searchParams.set('query', source);
    else url.searchParams.set('documentId', String(document.__meta__?.hash));
    const name = operationName(source);
    if (name) url.searchParams.set('operationName', name);
    if (variables && Object.keys(variables).length)
      url.searchParams.set('variables', JSON.stringify(variables));
    return url.href;
  }

  private async send<R, V>(
    document: Document<R, V>,
    variables: V,
    accept: string,
    signal?: AbortSignal,
  ): Promise<Response> {
    const text = this.sendText;
    const response = await fetch(this.url(document, variables, text), {
      headers: { accept },
      credentials: 'omit',
      ...(signal ? { signal } : {}),
    });
    if (text || response.ok) return response;
    const body = await payloadOf<R>(response.clone());
    if (body?.errors?.[0]?.extensions?.code !== NOT_FOUND) return response;
    this.sendText = true;
    return this.send(document, variables, accept, signal);
  }

  /** A query's data; a request error (no data) throws. */
  async query<R, V>(document: Document<R, V>, variables: V, signal?: AbortSignal): Promise<R> {
    const response = await this.send(
      document,
      variables,
      'application/graphql-response+json, application/json',
      signal,
    );
    const body = (await response.json().catch(() => null)) as Payload<R> | null;
    if (body?.data) return body.data;
    throw errorOf(body?.errors?.[0], `HTTP ${response.status}`);
  }

  /**
   * A mutation's data, by a JSON POST (never GET: the server runs no mutation over GET); any error,
   * a field's refusal included (SOLD_OUT, rest_invalid_param…), throws with its code and details.
   */
  async mutate<R, V>(document: Document<R, V>, variables: V): Promise<R> {
    const source = document.toString();
    const post = (text: boolean) =>
      fetch(this.endpoint, {
        method: 'POST',
        headers: {
          accept: 'application/graphql-response+json, application/json',
          'content-type': 'application/json',
        },
        credentials: 'omit',
        body: JSON.stringify({
          ...(text ? { query: source } : { documentId: String(document.__meta__?.hash) }),
          operationName: operationName(source),
          variables,
        }),
      });
    let response = await post(this.sendText);
    let body = (await response.json().catch(() => null)) as Payload<R> | null;
    if (!this.sendText && body?.errors?.[0]?.extensions?.code === NOT_FOUND) {
      this.sendText = true;
      response = await post(true);
      body = (await response.json().catch(() => null)) as Payload<R> | null;
    }
    if (body?.data && !body.errors?.length) return body.data;
    throw errorOf(body?.errors?.[0], `HTTP ${response.status}`);
  }

  /**
   * A subscription over Server-Sent Events: `onNext` for each message, until the stream ends (the
   * promise resolves) or fails (it rejects). Delivery is at most once: after either, read again.
   */
  async subscribe<R, V>(
    document: Document<R, V>,
    variables: V,
    onNext: (data: R) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const response = await this.send(document, variables, 'text/event-stream', signal);
    if (
      !response.ok ||
      !response.body ||
      !response.headers.get('content-type')?.includes('text/event-stream')
    ) {
      const body = await payloadOf<R>(response);
      throw errorOf(body?.errors?.[0], `HTTP ${response.status}`);
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const message = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: ?(.*)$/m.exec(message)?.[1];
        if (event === 'complete') return;
        const data = message
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (event !== 'next' || !data) continue;
        const payload = JSON.parse(data) as Payload<R>;
        if (payload.data) {
          onNext(payload.data);
          continue;
        }
        // A refusal comes as the stream's one message (yoga answers in the media type asked for).
        const error = payload.errors?.[0];
        await reader.cancel();
        if (error?.extensions?.code === NOT_FOUND && !this.sendText) {
          this.sendText = true;
          return this.subscribe(document, variables, onNext, signal);
        }
        throw errorOf(error, 'The subscription failed.');
      }
    }
  }
}
