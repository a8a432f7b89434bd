import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { within } from '../ops/lifecycle.js';
import { connectRedis } from '../ops/redis.js';
import type { ResponseCache } from './response-cache.js';

// Carries cache invalidations between instances: each committed write clears this instance's cache
// (the write pipeline's afterCommit) and is published here; every other instance clears its own.
// Redis pub/sub when REDIS_URL is set; PostgreSQL LISTEN/NOTIFY on PostgreSQL without Redis. While
// the channel is down an instance cannot hear other writes, so it stops sharing answers (reads stay
// correct, only uncached) and starts again from an empty cache once the channel is back.

const CHANNEL = 'calendar_cache_invalidation';
const RECONNECT_MS = 1000;
const ANNOUNCE_TIMEOUT_MS = 2000;

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

/** Where running instances listen for invalidations: the same rule `server.ts` applies. */
export interface InvalidationChannel {
  redisUrl?: string;
  databaseUrl: string;
  databaseProvider: 'sqlite' | 'postgresql';
}

/**
 * Tells every running instance that data changed behind their backs (the `calendar` CLI, the seed
 * script: other processes, whose writes no server's write pipeline saw). Resolves `false` where no
 * channel exists (SQLite without Redis: restart the server) or it cannot be reached (logged); the
 * write itself is committed either way.
 */
export async function announceInvalidation(channel: InvalidationChannel, logger: Logger): Promise<boolean> {
  const from = `external:${randomUUID()}`;
  try {
    if (channel.redisUrl) {
      const redis = connectRedis(channel.redisUrl, logger);
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
        await redis.publish(CHANNEL, from);
      } finally {
        redis.disconnect();
      }
      return true;
    }
    if (channel.databaseProvider !== 'postgresql') return false;
    const client = new pg.Client({
      connectionString: channel.databaseUrl,
      connectionTimeoutMillis: ANNOUNCE_TIMEOUT_MS,
    });
    await client.connect();
    try {
      await client.query('SELECT pg_notify($1, $2)', [CHANNEL, from]);
    } finally {
      await client.end();
    }
    return true;
  } catch (error) {
    logger.warn({ err: error }, 'running instances not told of the change; their caches may be stale');
    return false;
  }
}
