import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { type PubSub, type PubSubEvent, type PubSubEventTarget, createPubSub } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import pg from 'pg';
import { ApiError } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import { connectRedis } from '../ops/redis.js';
import type { Change, ChangeKind } from './transactions.js';

// What GraphQL subscriptions listen to: every committed write's changes (the write pipeline's
// afterCommit, the hook the response cache hangs on too), published as {kind, id, operation} only —
// never a record's content. Each subscriber re-reads what changed with its own viewer, so what it
// receives follows the same visibility rules as its queries (src/schema/subscriptions.ts).
//
// Transport: a yoga pub/sub whose event target is Redis pub/sub when REDIS_URL is set (every
// instance hears every instance's writes, its own included, through Redis), PostgreSQL LISTEN/NOTIFY
// on PostgreSQL without Redis (as the cache invalidations), and in-memory otherwise (SQLite).
// Each instance listens once per kind and fans the changes out to its own subscribers' streams.

export type FeedKind = Exclude<ChangeKind, 'user'>;
export const FEED_KINDS: readonly FeedKind[] = ['event', 'venue', 'organizer', 'term'];

type Topics = Record<string, [Change]>;

const PG_CHANNEL = 'calendar_changes';

/** Changes a subscriber has not consumed yet; past this it is too slow and its stream ends. */
const MAX_PENDING = 1000;

export interface ChangeFeedLimits {
  /** Open subscriptions on this instance. */
  maxSubscriptions: number;
  /** Open subscriptions of one client (a user, or an address for anonymous ones). */
  maxPerClient: number;
}

export interface ChangeFeedOptions extends ChangeFeedLimits {
  logger: Logger;
  /** Redis shared by the instances (preferred). */
  redisUrl?: string;
  /** Without Redis, the PostgreSQL database the instances share (LISTEN/NOTIFY); neither: this process only. */
  postgresUrl?: string;
  /** Prefix of the Redis channels (tests keep theirs apart). */
  channelPrefix?: string;
}

const tooMany = (message: string) => new ApiError(429, 'too_many_subscriptions', message);

/**
 * One subscriber's changes, in order, each passed through `select` (the subscriber's own visibility
 * check) when it is consumed: null skips it. Ends when the client goes away (`return`), when the
 * instance drains, or when the subscriber falls MAX_PENDING changes behind.
 */
class ChangeStream<T> implements AsyncIterableIterator<T> {
  private readonly pending: Change[] = [];
  private wake: (() => void) | null = null;
  private ended = false;

  constructor(
    /** The user whose credentials opened the stream (null: anonymous). */
    readonly owner: number | null,
    private readonly select: (change: Change) => Promise<T | null>,
    private readonly onEnd: () => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  offer(change: Change): void {
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
  private readonly pubsub: PubSub<Topics>;
  private readonly streams = new Map<FeedKind, Set<ChangeStream<unknown>>>(
    FEED_KINDS.map((k) => [k, new Set()]),
  );
  private readonly perClient = new Map<string, number>();
  private readonly listeners: Array<AsyncIterator<unknown>> = [];
  private readonly connections: Redis[] = [];
  private readonly closers: Array<() => Promise<void>> = [];
  private readonly prefix: string;
  private draining = false;
  private readonly listening: Promise<void>;

  constructor(private readonly options: ChangeFeedOptions) {
    this.prefix = options.channelPrefix ?? 'calendar:changes:';
    let listening = () => {};
    this.listening = new Promise<void>((done) => (listening = done));
    const eventTarget = options.redisUrl
      ? this.redisEventTarget(options.redisUrl, () => listening())
      : options.postgresUrl
        ? this.postgresEventTarget(options.postgresUrl, () => listening())
        : undefined;
    if (!eventTarget) listening();
    this.pubsub = createPubSub<Topics>(eventTarget ? { eventTarget } : {});
    // Users are published too, never delivered: a revoked password or a deleted account ends that
    // user's streams, which were authenticated once when they opened.
    for (const kind of [...FEED_KINDS, 'user'] as const) {
      const source = this.pubsub.subscribe(this.topic(kind));
      this.listeners.push(source);
      void (async () => {
        for await (const change of source) this.deliver(kind, change);
      })().catch((error: unknown) => options.logger.error({ err: error }, 'subscriptions: listener failed'));
    }
  }

  /** Open subscriptions on this instance. */
  get size(): number {
    let total = 0;
    for (const streams of this.streams.values()) total += streams.size;
    return total;
  }

  /** Resolves once changes from other instances can be heard (channel subscribed; at once in-memory). */
  ready(): Promise<void> {
    return this.listening;
  }

  /** Publishes committed changes (the write pipeline's afterCommit): {kind, id, operation} only. */
  publish(changes: readonly Change[]): void {
    for (const change of changes) {
      const { kind, id, operation } = change;
      if (kind === 'user' && operation === 'created') continue;
      this.pubsub.publish(this.topic(kind), { kind, id, operation });
    }
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
    select: (change: Change) => Promise<T | null>,
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

  private deliver(kind: ChangeKind, change: Change): void {
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

  async close(): Promise<void> {
    this.endAll();
    for (const listener of this.listeners) await listener.return?.();
    for (const connection of this.connections) connection.disconnect();
    for (const close of this.closers) await close();
  }

  private topic(kind: ChangeKind): string {
    return `${this.prefix}${kind}`;
  }

  /**
   * yoga's Redis event target over the service's resilient connections: a publish while Redis is away
   * is logged and lost (subscribers of other instances miss it, as the response cache would), and the
   * channels are subscribed again whenever the connection is back.
   */
  private redisEventTarget(url: string, listening: () => void) {
    const { logger } = this.options;
    const publisher = connectRedis(url, logger);
    const subscriber = connectRedis(url, logger);
    this.connections.push(publisher, subscriber);
    const topics = new Set<string>();
    const warn = (what: string) => (error: unknown) =>
      logger.warn({ err: error }, `subscriptions: ${what} failed`);
    subscriber.on('ready', () => {
      if (topics.size)
        subscriber
          .subscribe(...topics)
          .then(listening)
          .catch(warn('subscribe'));
    });
    // This instance's own changes reach its own subscribers through Redis; while it cannot publish or
    // cannot hear, they are delivered here directly (other instances miss them, as their caches would).
    const local = (channel: string, message: string) => {
      const kind = channel.slice(this.prefix.length) as ChangeKind;
      if (kind === 'user' || this.streams.has(kind)) this.deliver(kind, JSON.parse(message) as Change);
    };
    // Only what the event target calls of its clients, with failures handled instead of unhandled.
    const publishClient = {
      publish: (channel: string, message: string) => {
        const heard = subscriber.status === 'ready';
        if (!heard) local(channel, message);
        // Down: connectRedis has logged the outage once; a publish failing on a live connection is logged.
        if (publisher.status !== 'ready') {
          if (heard) local(channel, message);
          return;
        }
        publisher.publish(channel, message).catch((error: unknown) => {
          warn('publish')(error);
          if (heard) local(channel, message);
        });
      },
    };
    const subscribeClient = {
      on: (event: string, listener: (...args: string[]) => void) => subscriber.on(event, listener),
      subscribe: (topic: string) => {
        topics.add(topic);
        if (subscriber.status === 'ready') subscriber.subscribe(topic).catch(warn('subscribe'));
      },
      unsubscribe: (topic: string) => {
        topics.delete(topic);
        if (subscriber.status === 'ready') subscriber.unsubscribe(topic).catch(warn('unsubscribe'));
      },
    };
    return createRedisEventTarget<PubSubEvent<Topics, string>>({
      publishClient: publishClient as unknown as Redis,
      subscribeClient: subscribeClient as unknown as Redis,
    });
  }

  /**
   * LISTEN/NOTIFY on a dedicated connection, reconnected after a loss. While it is down this instance's
   * changes are delivered here directly (others miss them, and this one misses theirs).
   */
  private postgresEventTarget(url: string, listening: () => void): PubSubEventTarget<Topics> {
    const { logger } = this.options;
    const callbacks = new Map<string, Set<(event: PubSubEvent<Topics, string>) => void>>();
    let client: pg.Client | null = null;
    let heard = false;
    let closed = false;
    const fire = (topic: string, detail: Change) => {
      for (const callback of callbacks.get(topic) ?? []) callback(new CustomEvent(topic, { detail }));
    };
    const connect = async (): Promise<void> => {
      if (closed) return;
      const next = new pg.Client({ connectionString: url });
      const lost = (error?: Error) => {
        if (client !== next) return;
        client = null;
        heard = false;
        if (error) logger.warn({ err: error }, 'subscriptions channel lost; reconnecting');
        setTimeout(() => void connect(), 1000).unref();
      };
      next.on('error', lost);
      next.on('end', () => lost());
      next.on('notification', (message) => {
        if (message.channel !== PG_CHANNEL || !message.payload) return;
        const { topic, change } = JSON.parse(message.payload) as { topic: string; change: Change };
        fire(topic, change);
      });
      client = next;
      try {
        await next.connect();
        await next.query(`LISTEN ${PG_CHANNEL}`);
        heard = true;
        listening();
      } catch (error) {
        lost(error as Error);
        await next.end().catch(() => undefined);
      }
    };
    void connect();
    this.closers.push(async () => {
      closed = true;
      const current = client;
      client = null;
      await current?.end().catch(() => undefined);
    });
    const add = (topic: string, listener: unknown) => {
      if (typeof listener !== 'function') return;
      let set = callbacks.get(topic);
      if (!set) callbacks.set(topic, (set = new Set()));
      set.add(listener as (event: PubSubEvent<Topics, string>) => void);
    };
    return {
      addEventListener: (topic: string, listener: unknown) => add(topic, listener),
      removeEventListener: (topic: string, listener: unknown) =>
        void callbacks.get(topic)?.delete(listener as (event: PubSubEvent<Topics, string>) => void),
      dispatchEvent: (event: PubSubEvent<Topics, string>) => {
        const change = event.detail;
        if (!client || !heard) {
          fire(event.type, change);
          return true;
        }
        client
          .query('SELECT pg_notify($1, $2)', [PG_CHANNEL, JSON.stringify({ topic: event.type, change })])
          .catch((error: unknown) => {
            logger.warn({ err: error }, 'subscriptions: notify failed');
            fire(event.type, change);
          });
        return true;
      },
    } as unknown as PubSubEventTarget<Topics>;
  }
}
