import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// A local endpoint webhook deliveries are sent to: it records each request and answers it as the test
// says (a status, after an optional delay).

/** One request the receiver got. */
export class ReceivedRequest {
  /** The status it was answered with, once answered (0 before). */
  answered = 0;

  constructor(
    readonly headers: IncomingHttpHeaders,
    /** The raw body, as signed. */
    readonly body: string,
    /** The status the test chose for it. */
    readonly status: number,
  ) {}

  /** The Standard Webhooks message id. */
  get id(): string {
    return String(this.headers['webhook-id']);
  }

  /** The body, parsed (tests read arbitrary paths of it). */
  /* eslint-disable @typescript-eslint/no-explicit-any -- parsed JSON */
  get json(): Record<string, any> {
    return JSON.parse(this.body) as Record<string, any>;
  }
  /* eslint-enable @typescript-eslint/no-explicit-any */
}

export interface Reply {
  status: number;
  delayMs?: number;
}

type Answer = (request: { headers: IncomingHttpHeaders; body: string }, index: number) => Reply;
const AT_ONCE: Answer = () => ({ status: 204 });

export class WebhookReceiver {
  readonly received: ReceivedRequest[] = [];
  /** How the next requests are answered (by default 204 at once); `reset` restores it. */
  answer: Answer = AT_ONCE;

  private constructor(
    private readonly server: Server,
    /** `http://127.0.0.1:<port>`. */
    readonly base: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    const holder: { receiver?: WebhookReceiver } = {};
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const { status, delayMs = 0 } = holder.receiver!.answer(
          { headers: req.headers, body },
          holder.receiver!.received.length,
        );
        const request = new ReceivedRequest(req.headers, body, status);
        holder.receiver!.received.push(request);
        setTimeout(() => {
          request.answered = status;
          res.writeHead(status).end();
        }, delayMs);
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    holder.receiver = new WebhookReceiver(
      server,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    );
    return holder.receiver;
  }

  /** Forgets what was received and answers at once again. */
  reset(): void {
    this.answer = AT_ONCE;
    this.received.length = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((done) => this.server.close(done));
  }
}
