import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { connectRedis } from '../ops/redis.js';
import type { ResponseCache } from './response-cache.js';

// Carries cache invalidations between instances: each committed write clears this instance's cache
// (the write pipeline's afterCommit) and is published here; every other instance clears its own.
// Redis pub/sub when REDIS_URL is set; PostgreSQL LISTEN/NOTIFY on PostgreSQL without Redis. While
// the channel is down an instance cannot hear other writes, so it stops sharing answers (reads stay
// correct, only uncached) and starts again from an empty cache once the channel is back.

const CHANNEL = 'calendar_cache_invalidation';
const RECONNECT_MS = 1000;

export interface InvalidationBus {
  /** Resolves once the channel listens (the cache is suspended until then). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Redis pub/sub: one connection publishes, a second (in subscriber mode) listens. */
export function redisInvalidationBus(cache: ResponseCache, url: string, logger: Logger): InvalidationBus {
  const instance = randomUUID();
  const publisher: Redis = connectRedis(url, logger);
  const subscriber: Redis = connectRedis(url, logger);
  cache.suspend();
  let listening: () => void;
  const ready = new Promise<void>((done) => (listening = done));
  const subscribe = () =>
    subscriber
      .subscribe(CHANNEL)
      .then(() => {
        cache.resume();
        listening();
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'cache invalidation channel: subscribe failed'));
  subscriber.on('ready', () => void subscribe());
  // `close` fires on every lost connection; ioredis reconnects by itself and `ready` fires again.
  subscriber.on('close', () => cache.suspend());
  subscriber.on('message', (_channel: string, from: string) => {
    if (from !== instance) cache.invalidate('remote');
  });
  cache.onInvalidate(() => {
    publisher.publish(CHANNEL, instance).catch((error: unknown) => {
      logger.warn({ err: error }, 'cache invalidation not published (Redis unreachable)');
    });
  });
  return {
    ready: () => ready,
    close: async () => {
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}

/** PostgreSQL LISTEN/NOTIFY on a dedicated connection, reconnected after a loss. */
export function postgresInvalidationBus(cache: ResponseCache, url: string, logger: Logger): InvalidationBus {
  const instance = randomUUID();
  let client: pg.Client | null = null;
  let closed = false;
  let listening: () => void;
  const ready = new Promise<void>((done) => (listening = done));
  cache.suspend();

  const connect = async (): Promise<void> => {
    if (closed) return;
    const next = new pg.Client({ connectionString: url });
    const lost = (error?: Error) => {
      if (client !== next) return;
      client = null;
      cache.suspend();
      if (error) logger.warn({ err: error }, 'cache invalidation channel lost; reconnecting');
      setTimeout(() => void connect(), RECONNECT_MS).unref();
    };
    next.on('error', lost);
    next.on('end', () => lost());
    next.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload !== instance) cache.invalidate('remote');
    });
    client = next;
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANNEL}`);
      cache.resume();
      listening();
    } catch (error) {
      lost(error as Error);
      await next.end().catch(() => undefined);
    }
  };
  cache.onInvalidate(() => {
    if (!client) return;
    client.query('SELECT pg_notify($1, $2)', [CHANNEL, instance]).catch((error: unknown) => {
      logger.warn({ err: error }, 'cache invalidation not published');
    });
  });
  void connect();
  return {
    ready: () => ready,
    close: async () => {
      closed = true;
      const current = client;
      client = null;
      await current?.end().catch(() => undefined);
    },
  };
}
