import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ApiError } from '../domain/errors.js';

// Failed logins are counted per login and per client address (rate-limiter-flexible): past the
// allowance, the next attempt is refused with 429 and Retry-After before any password is checked.
// In Redis when configured, so the count holds across instances; an in-memory limiter insures it
// while Redis is unreachable (degraded: counted per instance, never unlimited).

/** Failures allowed per window before a 429; a success clears the login's count. */
export const LOGIN_LIMITS = {
  perLogin: { points: 10, duration: 15 * 60 },
  perAddress: { points: 50, duration: 15 * 60 },
} as const;

function limiter(
  name: string,
  { points, duration }: { points: number; duration: number },
  redis: Redis | undefined,
): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ keyPrefix: name, points, duration });
  if (!redis) return memory;
  return new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `calendar:${name}`,
    points,
    duration,
    insuranceLimiter: memory,
  });
}

export class LoginLimits {
  private readonly byLogin: RateLimiterAbstract;
  private readonly byAddress: RateLimiterAbstract;
  /** Logins this instance saw fail: only their successes need to clear a count (no store call otherwise). */
  private readonly failing = new Set<string>();

  constructor(redis?: Redis) {
    this.byLogin = limiter('login-failures', LOGIN_LIMITS.perLogin, redis);
    this.byAddress = limiter('address-failures', LOGIN_LIMITS.perAddress, redis);
  }

  /** 429 when this login or this address used up its failures. */
  async assertAllowed(login: string, address: string): Promise<void> {
    const [forLogin, forAddress] = await Promise.all([
      this.byLogin.get(login.toLowerCase()),
      this.byAddress.get(address),
    ]);
    const waits = [
      forLogin && forLogin.consumedPoints >= LOGIN_LIMITS.perLogin.points ? forLogin.msBeforeNext : 0,
      forAddress && forAddress.consumedPoints >= LOGIN_LIMITS.perAddress.points ? forAddress.msBeforeNext : 0,
    ];
    const wait = Math.max(...waits);
    if (wait > 0) {
      throw new ApiError(429, 'too_many_failed_logins', 'Too many failed logins. Try again later.', {
        retry_after: Math.ceil(wait / 1000),
      });
    }
  }

  async failed(login: string, address: string): Promise<void> {
    if (this.failing.size > 100_000) this.failing.clear();
    this.failing.add(login.toLowerCase());
    // A rejection only says the allowance is used up; the next attempt's check answers 429.
    await Promise.all([
      this.byLogin.penalty(login.toLowerCase(), 1),
      this.byAddress.penalty(address, 1),
    ]).catch(() => undefined);
  }

  async succeeded(login: string): Promise<void> {
    const key = login.toLowerCase();
    if (!this.failing.delete(key)) return;
    await this.byLogin.delete(key).catch(() => undefined);
  }
}
