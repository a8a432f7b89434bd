import { ApiError } from '../core/errors/errors.js';
import type { Logger } from '../core/ops/logger.js';
import type { InstanceBus } from '../core/ops/instance-bus.js';
import type { Change, ChangeOperation } from '../core/db/transactions.js';

// What GraphQL subscriptions listen to: every committed write's changes (the write pipeline's
// afterCommit, the hook the response cache hangs on too), published as {kind, id, operation} only —
// never a record's content. Each subscriber re-reads what changed with its own viewer, so what it
// receives follows the same visibility rules as its queries (src/sync/graphql-subscriptions.ts).
// Ticket types and attendees are published as their event's `tickets` changing, once per write and
// event (a cancellation and the promotions it makes are one change of availability).
//
// An instance delivers its own changes to its own subscribers at once, and hears the other
// instances' on the instance bus (Redis, or PostgreSQL LISTEN/NOTIFY: src/core/ops/instance-bus.ts); on
// SQLite without Redis there is one instance and no bus. Each instance listens once and fans the
// changes out to its own subscribers' streams.

/** `tickets`: the ticket types or attendees of the event `id` changed. */
export type FeedKind = 'event' | 'venue' | 'organizer' | 'term' | 'tickets';
const FEED_KINDS: readonly FeedKind[] = ['event', 'venue', 'organizer', 'term', 'tickets'];

/** A change as the feed carries it: which record, what happened (users: to end their streams). */
export interface FeedChange {
  readonly kind: FeedKind | 'user';
  readonly id: number;
  readonly operation: ChangeOperation;
}

declare module '../core/context/scope.js' {
  interface RoomServices {
    /** Committed changes for GraphQL subscriptions (absent outside the GraphQL endpoint). */
    changes?: ChangeFeed;
  }
}

const CHANNEL = 'calendar_changes';
const OPERATIONS: ReadonlySet<string> = new Set<ChangeOperation>([
  'created',
  'updated',
  'trashed',
  'deleted',
]);

/** Changes a subscriber has not consumed yet; past this it is too slow and its stream ends. */
const MAX_PENDING = 1000;

interface ChangeFeedLimits {
  /** Open subscriptions on this instance. */
  maxSubscriptions: number;
  /** Open subscriptions of one client (a user, or an address for anonymous ones). */
  maxPerClient: number;
}

interface ChangeFeedOptions extends ChangeFeedLimits {
  logger: Logger;
  /** The other instances; without it, this process only. */
  bus?: InstanceBus;
  /** The channel on the bus (tests keep theirs apart). */
  channel?: string;
}

const tooMany = (message: string) => new ApiError(429, 'too_many_subscriptions', message);

/**
 * One subscriber's changes, in order, each passed through `select` (the subscriber's own visibility
 * check) when it is consumed: null skips it. Ends when the client goes away (`return`), when the
 * instance drains, or when the subscriber falls MAX_PENDING changes behind.
 */
class ChangeStream<T> implements AsyncIterableIterator<T> {
  private readonly pending: FeedChange[] = [];
  private wake: (() => void) | null = null;
  private ended = false;

  constructor(
    /** The user whose credentials opened the stream (null: anonymous). */
    readonly owner: number | null,
    private readonly select: (change: FeedChange) => Promise<T | null>,
    private readonly onEnd: () => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  offer(change: FeedChange): void {
    if (this.ended) return;
    if (this.pending.length >= MAX_PENDING) {
      this.end();
      return;
    }
    this.pending.push(change);
    this.wake?.();
  }

  async next(): Promise<IteratorResult<T>> {
    for (;;) {
      if (this.ended) return { value: undefined, done: true };
      const change = this.pending.shift();
      if (!change) {
        await new Promise<void>((resume) => (this.wake = resume));
        this.wake = null;
        continue;
      }
      let value: T | null;
      try {
        value = await this.select(change);
      } catch (error) {
        // A change that cannot be judged is not skipped silently: the stream ends, the client resubscribes.
        this.onError(error);
        this.end();
        continue;
      }
      if (value !== null && !this.ended) return { value, done: false };
    }
  }

  return(): Promise<IteratorResult<T>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.pending.length = 0;
    this.onEnd();
    this.wake?.();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

export class ChangeFeed {
  private readonly streams = new Map<FeedKind, Set<ChangeStream<unknown>>>(
    FEED_KINDS.map((k) => [k, new Set()]),
  );
  private readonly perClient = new Map<string, number>();
  private readonly channel: string;
  private draining = false;
  private readonly listening: Promise<void>;

  constructor(private readonly options: ChangeFeedOptions) {
    const { bus } = options;
    this.channel = options.channel ?? CHANNEL;
    let heard = () => {};
    this.listening = bus ? new Promise<void>((done) => (heard = done)) : Promise.resolve();
    // Users are published too, never delivered: a revoked password or a deleted account ends that
    // user's streams, which were authenticated once when they opened.
    bus?.listen(this.channel, {
      message: (message) => {
        if (isChange(message)) this.deliver(message);
      },
      heard: () => heard(),
    });
  }

  /** Open subscriptions on this instance. */
  get size(): number {
    let total = 0;
    for (const streams of this.streams.values()) total += streams.size;
    return total;
  }

  /** Resolves once changes from other instances can be heard (channel subscribed; at once without a bus). */
  ready(): Promise<void> {
    return this.listening;
  }

  /** Publishes committed changes (the write pipeline's afterCommit): {kind, id, operation} only. */
  publish(changes: readonly Change[]): void {
    const ticketEvents = new Set<number>();
    const send = (change: FeedChange) => {
      this.deliver(change);
      this.options.bus?.publish(this.channel, change);
    };
    for (const { kind, id, operation, event } of changes) {
      if (kind === 'user' && operation === 'created') continue;
      if (kind === 'ticket' || kind === 'attendee') {
        if (event) ticketEvents.add(event.id);
        continue;
      }
      send({ kind, id, operation });
    }
    for (const id of ticketEvents) send({ kind: 'tickets', id, operation: 'updated' });
  }

  /** Throws the 429 a new subscription of this client would get (checked before any other work). */
  assertRoom(client: string): void {
    if (this.draining) throw new ApiError(503, 'shutting_down', 'The server is restarting; subscribe again.');
    if (this.size >= this.options.maxSubscriptions)
      throw tooMany('This server holds as many subscriptions as it may; try again later.');
    if ((this.perClient.get(client) ?? 0) >= this.options.maxPerClient)
      throw tooMany(`A client may hold at most ${this.options.maxPerClient} subscriptions at once.`);
  }

  /** A stream of this kind's changes for one subscriber, each passed through its `select`. */
  subscribe<T>(
    kind: FeedKind,
    client: string,
    owner: number | null,
    select: (change: FeedChange) => Promise<T | null>,
  ): AsyncIterableIterator<T> {
    this.assertRoom(client);
    const streams = this.streams.get(kind)!;
    this.perClient.set(client, (this.perClient.get(client) ?? 0) + 1);
    const stream: ChangeStream<T> = new ChangeStream<T>(
      owner,
      select,
      () => {
        streams.delete(stream as ChangeStream<unknown>);
        const left = (this.perClient.get(client) ?? 1) - 1;
        if (left > 0) this.perClient.set(client, left);
        else this.perClient.delete(client);
      },
      (error) => this.options.logger.error({ err: error }, 'subscription ended: a change could not be read'),
    );
    streams.add(stream as ChangeStream<unknown>);
    return stream;
  }

  private deliver(change: FeedChange): void {
    const { kind } = change;
    if (kind === 'user') {
      for (const streams of this.streams.values())
        for (const stream of [...streams]) if (stream.owner === change.id) stream.end();
      return;
    }
    for (const stream of this.streams.get(kind)!) stream.offer(change);
  }

  /** Ends every open subscription (their SSE responses complete) and refuses new ones: draining. */
  endAll(): void {
    this.draining = true;
    for (const streams of this.streams.values()) for (const stream of [...streams]) stream.end();
  }

  /** Ends every open subscription (the bus, shared with the cache, is closed by whoever opened it). */
  async close(): Promise<void> {
    this.endAll();
  }
}

/** A change as another instance publishes it (anything else on the channel is not one). */
function isChange(message: unknown): message is FeedChange {
  const change = message as Partial<FeedChange> | null;
  return (
    typeof change === 'object' &&
    change !== null &&
    (FEED_KINDS.includes(change.kind as FeedKind) || change.kind === 'user') &&
    typeof change.id === 'number' &&
    OPERATIONS.has(change.operation as string)
  );
}
