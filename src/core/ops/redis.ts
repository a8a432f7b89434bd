import { Redis } from 'ioredis';
import type { Logger } from './logger.js';

/**
 * A Redis connection that never takes the service down: commands fail fast while Redis is away
 * (callers degrade), reconnection is retried in the background, and the outage is logged once.
 */
export function connectRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5000),
  });
  let down = false;
  redis.on('error', (error: Error) => {
    if (!down) logger.warn({ err: error }, 'Redis unreachable; continuing without it');
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger.info('Redis reachable again');
    down = false;
  });
  return redis;
}
