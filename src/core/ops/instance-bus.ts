import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Config } from '../config/config.js';
import type { Logger } from './logger.js';
import { within } from './lifecycle.js';
import { connectRedis } from './redis.js';

// Messages between the instances that serve one calendar, on named channels: the response cache's
// invalidations and the subscriptions' changes. Redis pub/sub when REDIS_URL is set, PostgreSQL
// LISTEN/NOTIFY on PostgreSQL without Redis; an embedded SQLite database has one instance and no bus.
//
// A message goes to the *other* instances: the publisher acts on its own at once, so a bus that is
// down never delays or loses what an instance does for itself. A lost connection is reconnected in
// the background; meanwhile the listeners are told that other instances go unheard (the cache stops
// sharing answers), and again when they are heard.

const RECONNECT_MS = 1000;
const ANNOUNCE_TIMEOUT_MS = 2000;

/** Where the instances meet: Redis when set, else their PostgreSQL database; neither, no bus. */
export interface BusAddress {
  redisUrl?: string;
  postgresUrl?: string;
  /**
   * The calendar's namespace (`calendarNamespace`, read from its database): each channel is named
   * within it, so calendars that share one Redis (or one PostgreSQL server) never hear each other.
   * Absent: the bare names.
   */
  namespace?: string;
}

/** What decides where the instances meet: the settings, and the namespace their database holds. */
export type BusSettings = Pick<Config, 'redisUrl' | 'databaseUrl' | 'databaseProvider'> & {
  namespace: string;
};

/** The bus address the settings imply: the one rule of the servers, the CLI and the seed script. */
export function busAddressOf(config: BusSettings): BusAddress {
  const { namespace } = config;
  if (config.redisUrl) return { redisUrl: config.redisUrl, namespace };
  return config.databaseProvider === 'postgresql' ? { postgresUrl: config.databaseUrl, namespace } : {};
}

/** A channel's name on the wire: within the address's namespace. */
function wireName(address: BusAddress, channel: string): string {
  return address.namespace ? `${address.namespace}.${channel}` : channel;
}

interface ChannelListener {
  /** A message another instance (or another process, as the CLI) published on the channel. */
  message(message: unknown): void;
  /** The channel is listened to (again): other instances are heard from now on. */
  heard?(): void;
  /** The connection is lost: what other instances publish is missed until `heard` again. */
  lost?(): void;
}

export interface InstanceBus {
  listen(channel: string, listener: ChannelListener): void;
  /** Sends a JSON-serialisable message to the other instances listening on the channel; never throws. */
  publish(channel: string, message: unknown): void;
  /** Resolves once the channels listened to so far are heard. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** The bus at `address`, or undefined where there is none (SQLite without Redis: one instance). */
export function connectInstanceBus(address: BusAddress, logger: Logger): InstanceBus | undefined {
  const bus = address.redisUrl
    ? redisBus(address.redisUrl, logger)
    : address.postgresUrl
      ? postgresBus(address.postgresUrl, logger)
      : undefined;
  if (!bus || !address.namespace) return bus;
  return {
    listen: (channel, listener) => bus.listen(wireName(address, channel), listener),
    publish: (channel, message) => bus.publish(wireName(address, channel), message),
    ready: () => bus.ready(),
    close: () => bus.close(),
  };
}

/** Redis pub/sub: one connection publishes, a second (in subscriber mode) listens. */
function redisBus(url: string, logger: Logger): InstanceBus {
  const channels = new Channels(logger);
  const publisher = connectRedis(url, logger);
  const subscriber = connectRedis(url, logger);
  const subscribe = (names: string[]) =>
    subscriber
      .subscribe(...names)
      .then(() => channels.heard(names))
      .catch((error: unknown) =>
        logger.warn({ err: error, channels: names }, 'instance bus: subscribe failed'),
      );
  subscriber.on('ready', () => {
    const names = [...channels.names()];
    if (names.length) void subscribe(names);
    else channels.heard(names);
  });
  // `close` fires on every lost connection; ioredis reconnects by itself and `ready` fires again.
  subscriber.on('close', () => channels.lost());
  subscriber.on('message', (channel: string, payload: string) => channels.deliver(channel, payload));
  return {
    listen: (channel, listener) => {
      channels.add(channel, listener);
      if (subscriber.status === 'ready') void subscribe([channel]);
    },
    publish: (channel, message) => {
      // Down: connectRedis has logged the outage once.
      if (publisher.status !== 'ready') return;
      publisher.publish(channel, channels.envelope(message)).catch((error: unknown) => {
        logger.warn({ err: error, channel }, 'instance bus: not published');
      });
    },
    ready: () => channels.ready,
    close: async () => {
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}

/** PostgreSQL LISTEN/NOTIFY on a dedicated connection, reconnected after a loss. */
function postgresBus(url: string, logger: Logger): InstanceBus {
  const channels = new Channels(logger);
  let client: pg.Client | null = null;
  let listening = false;
  let closed = false;
  const listen = (on: pg.Client, channel: string) => on.query(`LISTEN ${channelIdentifier(channel)}`);

  const connect = async (): Promise<void> => {
    if (closed) return;
    const next = new pg.Client({ connectionString: url });
    const lost = (error?: Error) => {
      if (client !== next) return;
      client = null;
      listening = false;
      channels.lost();
      if (error) logger.warn({ err: error }, 'instance bus: connection lost; reconnecting');
      setTimeout(() => void connect(), RECONNECT_MS).unref();
    };
    next.on('error', lost);
    next.on('end', () => lost());
    next.on('notification', ({ channel, payload }) => channels.deliver(channel, payload ?? ''));
    client = next;
    try {
      await next.connect();
      // Live: a channel added while an earlier one is being listened to is listened to as well.
      const names: string[] = [];
      for (const name of channels.names()) {
        await listen(next, name);
        names.push(name);
      }
      listening = true;
      channels.heard(names);
    } catch (error) {
      lost(error as Error);
      await next.end().catch(() => undefined);
    }
  };
  void connect();
  return {
    listen: (channel, listener) => {
      channels.add(channel, listener);
      // Otherwise the connection being opened listens to it with the others.
      const current = client;
      if (current && listening)
        listen(current, channel)
          .then(() => channels.heard([channel]))
          .catch((error: unknown) => logger.warn({ err: error, channel }, 'instance bus: LISTEN failed'));
    },
    publish: (channel, message) => {
      // While connecting, the notification waits for the connection; while reconnecting, it is lost.
      client
        ?.query('SELECT pg_notify($1, $2)', [channel, channels.envelope(message)])
        .catch((error: unknown) => logger.warn({ err: error, channel }, 'instance bus: not published'));
    },
    ready: () => channels.ready,
    close: async () => {
      closed = true;
      const current = client;
      client = null;
      await current?.end().catch(() => undefined);
    },
  };
}

/**
 * Publishes one message from a process that is not an instance (the `calendar` CLI, the seed script).
 * Resolves false where there is no bus (SQLite without Redis); rejects when it cannot be reached.
 */
export async function announce(
  address: BusAddress,
  channel: string,
  message: unknown,
  logger: Logger,
): Promise<boolean> {
  const payload = envelope(`external:${randomUUID()}`, message);
  if (address.redisUrl) {
    const redis = connectRedis(address.redisUrl, logger);
    try {
      // The connection refuses commands until it is ready (no offline queue).
      await within(
        new Promise((ready, failed) => {
          redis.once('ready', ready);
          redis.once('error', failed);
        }),
        ANNOUNCE_TIMEOUT_MS,
        'Redis',
      );
      await redis.publish(wireName(address, channel), payload);
    } finally {
      redis.disconnect();
    }
    return true;
  }
  if (!address.postgresUrl) return false;
  const client = new pg.Client({
    connectionString: address.postgresUrl,
    connectionTimeoutMillis: ANNOUNCE_TIMEOUT_MS,
  });
  await client.connect();
  try {
    await client.query('SELECT pg_notify($1, $2)', [wireName(address, channel), payload]);
  } finally {
    await client.end();
  }
  return true;
}

/** A message on the wire: who sent it (an instance hears its own and drops them) and what. */
interface Envelope {
  from: string;
  message: unknown;
}

function envelope(from: string, message: unknown): string {
  return JSON.stringify({ from, message } satisfies Envelope);
}

/** Plain names stay unquoted, as `pg_stat_activity` shows them; others are quoted identifiers. */
function channelIdentifier(channel: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(channel) ? channel : `"${channel.replaceAll('"', '""')}"`;
}

/** The listeners of one bus by channel, and whether it has been heard once. */
class Channels {
  private readonly self = randomUUID();
  private readonly listeners = new Map<string, ChannelListener[]>();
  private heardOnce: () => void = () => undefined;
  readonly ready = new Promise<void>((done) => (this.heardOnce = done));

  constructor(private readonly logger: Logger) {}

  add(channel: string, listener: ChannelListener): void {
    const listeners = this.listeners.get(channel);
    if (listeners) listeners.push(listener);
    else this.listeners.set(channel, [listener]);
  }

  /** The channels listened to, live: a channel added during the iteration is visited too. */
  names(): IterableIterator<string> {
    return this.listeners.keys();
  }

  envelope(message: unknown): string {
    return envelope(this.self, message);
  }

  deliver(channel: string, payload: string): void {
    let from: unknown;
    let message: unknown;
    try {
      ({ from, message } = JSON.parse(payload) as Envelope);
    } catch {
      // Not an envelope (an older instance's message): it still tells that something happened.
    }
    if (from === this.self) return;
    for (const listener of this.listeners.get(channel) ?? []) {
      try {
        listener.message(message);
      } catch (error) {
        this.logger.error({ err: error, channel }, 'instance bus: a listener failed');
      }
    }
  }

  heard(channels: readonly string[]): void {
    for (const channel of channels)
      for (const listener of this.listeners.get(channel) ?? []) listener.heard?.();
    this.heardOnce();
  }

  lost(): void {
    for (const listeners of this.listeners.values()) for (const listener of listeners) listener.lost?.();
  }
}
