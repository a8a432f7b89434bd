// A GraphQL-over-SSE client for tests ("distinct connections" mode, as yoga serves it): fetch with a
// streamed body, parsed into `next` / `complete` events.

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
export interface SseEvent {
  event: string;
  data: any;
}

export interface Subscription {
  status: number;
  headers: Headers;
  /** Events received so far (comments/pings left out). */
  events: SseEvent[];
  /** The next `next` payload (waits up to `ms`; rejects when none comes, or the stream ends). */
  next(ms?: number): Promise<any>;
  /** Resolves when the stream has ended (by the server). */
  ended: Promise<void>;
  /** No `next` event arrives within `ms`. */
  quiet(ms: number): Promise<void>;
  close(): void;
}

export async function subscribe(
  base: string,
  query: string,
  options: { variables?: Record<string, unknown>; authorization?: string; method?: 'GET' | 'POST' } = {},
): Promise<Subscription> {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (options.authorization) headers.authorization = options.authorization;
  let response: Response;
  if (options.method === 'GET') {
    const params = new URLSearchParams({ query });
    if (options.variables) params.set('variables', JSON.stringify(options.variables));
    response = await fetch(`${base}/graphql?${params}`, { headers, signal: controller.signal });
  } else {
    response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables: options.variables ?? {} }),
      signal: controller.signal,
    });
  }
  const events: SseEvent[] = [];
  const waiting: Array<() => void> = [];
  let consumed = 0;
  let done = false;
  const notify = () => waiting.splice(0).forEach((wake) => wake());
  const ended = (async () => {
    if (!response.body) return;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
          }
          if (!data.length && event === 'message') continue; // a keep-alive comment
          const text = data.join('\n');
          events.push({ event, data: text ? JSON.parse(text) : null });
          notify();
        }
      }
    } catch {
      // aborted by close()
    } finally {
      done = true;
      notify();
    }
  })();
  const nextEvents = () => events.filter((e) => e.event === 'next');
  return {
    status: response.status,
    headers: response.headers,
    events,
    ended,
    async next(ms = 5000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const pending = nextEvents();
        if (pending.length > consumed) return pending[consumed++]!.data;
        if (done) throw new Error(`stream ended; events: ${JSON.stringify(events)}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no event within ${ms} ms; events: ${JSON.stringify(events)}`);
        await new Promise<void>((wake) => {
          const timer = setTimeout(wake, left);
          waiting.push(() => {
            clearTimeout(timer);
            wake();
          });
        });
      }
    },
    async quiet(ms) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      const pending = nextEvents();
      if (pending.length > consumed)
        throw new Error(`unexpected event: ${JSON.stringify(pending[consumed]!.data)}`);
    },
    close() {
      controller.abort();
    },
  };
}
