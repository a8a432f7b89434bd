import { setTimeout as sleep } from 'node:timers/promises';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ApiError } from '../core/errors/errors.js';
import { limitedClient } from '../core/config/client-address.js';
import { type SharedCounts, limiter } from '../core/ops/rate-limits.js';

export type { SharedCounts };

// Failed logins (rate-limiter-flexible), limited where a guesser is and never where its victim is:
// - per client address and per (login, address) pair: past the allowance that address's attempts
//   (for that login) are refused with 429 and Retry-After before any password is checked. An attempt
//   takes its point before the check, so concurrent attempts cannot overrun the allowance; a success
//   gives it back (and clears the pair's failures).
// - per login, only for a password that could be a chosen one (CALENDAR_ADMIN_PASSWORD): a generated
//   one (24 random characters) cannot be guessed in any number of tries, so its login is never held
//   back. A chosen one can: past the login's free failures every such attempt, from any address,
//   waits before its check — a slow-down the right password still passes, never a lock that hands an
//   attacker a denial of service. Decided by the password sent, not by the account, so it says
//   nothing about which logins exist or what they hold (D23).
// - a known sign-in, a (login, address) that succeeded in the last 30 days, meets no per-login
//   slow-down (OWASP's "device cookie", by address for HTTP Basic clients; a browser sign-in, if one
//   ever comes, would name its device by a signed cookie instead of the address): the owner is never
//   slowed by a guesser elsewhere, while new addresses still wait, and its address and pair limits stay.
// In Redis when configured, so the counts and the known sign-ins hold across instances; in memory
// besides, which insures each instance while Redis is unreachable (degraded: counted per instance,
// never unlimited; a sign-in known to this instance only).

export const LOGIN_LIMITS = {
  /** Failures from one address, whatever the logins, before its attempts answer 429. */
  perAddress: { points: 50, duration: 15 * 60 },
  /** Failures for one login from one address before that pair's attempts answer 429. */
  perPair: { points: 10, duration: 15 * 60 },
  /**
   * Failures of possibly chosen passwords for one login: past `free`, each such attempt waits
   * `stepMs` per further failure, at most `maxMs`, then is checked.
   */
  perLogin: { free: 10, duration: 15 * 60, stepMs: 1000, maxMs: 10_000 },
  /** How long a successful sign-in keeps its (login, address) out of the login's slow-down. */
  knownFor: { ms: 30 * 24 * 3600 * 1000, maxInMemory: 100_000 },
} as const;

/** One password check under way: its outcome adjusts the counts. */
interface LoginAttempt {
  /**
   * The right password: the pair's failures are forgotten, the address's point given back, and the
   * pair is a known sign-in from now on. The login's count stays: clearing it would hand a guesser its
   * free tries again each time the owner signs in.
   */
  succeeded(): Promise<void>;
  /** A wrong password (or an unknown login): its points stay taken. */
  failed(): Promise<void>;
  /** No answer (the check itself failed): the points taken are given back. */
  abandoned(): Promise<void>;
}

const ignore = () => undefined;
// Logins are case-sensitive (`boss` and `Boss` may be two users), so a pair is the exact login; the
// per-login count folds case, which only ever slows more.
const pairOf = (login: string, client: string) => `${client} ${login}`;

/**
 * When each (login, address) last signed in: in Redis (shared) and in this instance's memory (bounded,
 * oldest first out). Judged by `now`, so a stored time is read the same whatever the store's own
 * expiry (Redis drops a key once it is older than `knownFor`, a clean-up, never the rule).
 */
class KnownSignIns {
  private readonly local = new Map<string, number>();

  constructor(
    private readonly shared: SharedCounts | undefined,
    private readonly now: () => number,
  ) {}

  private key(pair: string): string {
    return `${this.shared!.namespace}:known-sign-ins:${pair}`;
  }

  private fresh(at: number | undefined): boolean {
    const age = this.now() - (at ?? Number.NaN);
    return age >= 0 && age < LOGIN_LIMITS.knownFor.ms;
  }

  async has(pair: string): Promise<boolean> {
    if (this.fresh(this.local.get(pair))) return true;
    if (!this.shared) return false;
    const stored = await this.shared.redis.get(this.key(pair)).catch(ignore);
    return stored != null && this.fresh(Number(stored));
  }

  async add(pair: string): Promise<void> {
    const at = this.now();
    this.local.delete(pair);
    if (this.local.size >= LOGIN_LIMITS.knownFor.maxInMemory)
      this.local.delete(this.local.keys().next().value as string);
    this.local.set(pair, at);
    await this.shared?.redis.set(this.key(pair), String(at), 'PX', LOGIN_LIMITS.knownFor.ms).catch(ignore);
  }
}

export class LoginLimits {
  private readonly byAddress: RateLimiterAbstract;
  private readonly byPair: RateLimiterAbstract;
  /** Counts only: it never refuses (its points are out of reach), it sets the slow-down. */
  private readonly byLogin: RateLimiterAbstract;
  /** Pairs this instance saw fail: only their remembered successes need a store call. */
  private readonly failing = new Set<string>();
  private readonly known: KnownSignIns;

  /**
   * Counts in this process, or `shared` by every instance under the calendar's namespace, so that
   * calendars sharing one Redis keep their own counts: failures on one never lock a login out of another.
   * `now` is the clock known sign-ins are judged by.
   */
  constructor(shared?: SharedCounts, now: () => number = Date.now) {
    this.known = new KnownSignIns(shared, now);
    const { perAddress, perPair, perLogin } = LOGIN_LIMITS;
    this.byAddress = limiter('address-failures', perAddress.points, perAddress.duration, shared);
    this.byPair = limiter('pair-failures', perPair.points, perPair.duration, shared);
    this.byLogin = limiter('login-failures', Number.MAX_SAFE_INTEGER, perLogin.duration, shared);
  }

  /**
   * Takes the attempt's points (429 when the address or the pair has none left), then, for a password
   * that could be a chosen one, waits out the login's slow-down (none for a known sign-in).
   */
  async begin(login: string, address: string, mayBeChosen: boolean): Promise<LoginAttempt> {
    const client = limitedClient(address);
    const loginKey = login.toLowerCase();
    const pairKey = pairOf(login, client);
    const taken = await Promise.allSettled([this.byAddress.consume(client), this.byPair.consume(pairKey)]);
    const refusals = taken.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    for (const refusal of refusals) if (!(refusal instanceof RateLimiterRes)) throw refusal;
    if (refusals.length) {
      const wait = Math.max(...(refusals as RateLimiterRes[]).map((refusal) => refusal.msBeforeNext));
      throw new ApiError(429, 'too_many_failed_logins', 'Too many failed logins. Try again later.', {
        retry_after: Math.max(1, Math.ceil(wait / 1000)),
      });
    }
    if (mayBeChosen) {
      const delay = await this.waitFor(login, address);
      if (delay > 0) await sleep(delay);
    }
    return {
      succeeded: async () => {
        this.failing.delete(pairKey);
        await Promise.all([
          this.byAddress.reward(client, 1),
          this.byPair.delete(pairKey),
          this.known.add(pairKey),
        ]).catch(ignore);
      },
      failed: async () => {
        if (this.failing.size > 100_000) this.failing.clear();
        this.failing.add(pairKey);
        if (mayBeChosen) await this.byLogin.penalty(loginKey, 1).catch(ignore);
      },
      abandoned: async () => {
        await Promise.all([this.byAddress.reward(client, 1), this.byPair.reward(pairKey, 1)]).catch(ignore);
      },
    };
  }

  /** A success without a check (a credential verified in the last minute) clears its pair's failures too. */
  async rememberedSuccess(login: string, address: string): Promise<void> {
    const pairKey = pairOf(login, limitedClient(address));
    if (this.failing.delete(pairKey)) await this.byPair.delete(pairKey).catch(ignore);
  }

  /**
   * How long an attempt of a possibly chosen password for `login` from `address` waits now: the login's
   * slow-down, unless that pair is a known sign-in (looked up only when there is a wait to skip).
   */
  async waitFor(login: string, address: string): Promise<number> {
    const failures = (await this.byLogin.get(login.toLowerCase()).catch(ignore))?.consumedPoints ?? 0;
    const delay = this.slowDown(failures);
    return delay > 0 && (await this.known.has(pairOf(login, limitedClient(address)))) ? 0 : delay;
  }

  /** How long an attempt waits after `failures` failures of possibly chosen passwords for its login. */
  slowDown(failures: number): number {
    const { free, stepMs, maxMs } = LOGIN_LIMITS.perLogin;
    return Math.min(maxMs, Math.max(0, failures - free) * stepMs);
  }
}
