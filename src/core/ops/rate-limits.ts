import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

// Counts against a limit, shared by the instances through Redis when there is one: the failed logins
// (users/login-limits.ts) and the RSVP limits (tickets/reservations/limits.ts) count with them.

/** Every instance's counts: a Redis, and the calendar's namespace in it (`calendarNamespace`). */
export interface SharedCounts {
  redis: Redis;
  namespace: string;
}

/**
 * A count of `points` per `duration` seconds under `name`: in Redis when `shared` (with this process's
 * memory as its insurance while Redis is unreachable), else in memory. The RSVP limits count with it too.
 */
export function limiter(
  name: string,
  points: number,
  duration: number,
  shared: SharedCounts | undefined,
): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ keyPrefix: name, points, duration });
  if (!shared) return memory;
  return new RateLimiterRedis({
    storeClient: shared.redis,
    keyPrefix: `${shared.namespace}:${name}`,
    points,
    duration,
    insuranceLimiter: memory,
  });
}
