import { createHash } from 'node:crypto';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../../core/config/config.js';
import { type SharedCounts, limiter } from '../../core/ops/rate-limits.js';
import { ApiError } from '../../core/errors/errors.js';
import type { Context } from '../../core/context/scope.js';

// How many reservations may be attempted, on both APIs (every reservation goes through `reserve`,
// which takes its attempt here before anything is read or written): per client — a signed-in user,
// or an anonymous address (an IPv6 one by its /64, `context.ts`) — and per e-mail address, whoever
// sends it, so that neither one address nor many can flood one inbox's reservations. Every attempt
// counts, refused ones included (a refusal never gives its point back): the count says how often an
// e-mail was tried, never whether it holds a reservation. The counts are the login limits' machinery:
// in Redis when the instances share one, in each process's memory otherwise (and while Redis is away).

type RsvpLimitSettings = Config['rsvpLimits'];

const rateLimited = (retryAfter: number) =>
  new ApiError(
    429,
    'RATE_LIMITED',
    'Too many reservation attempts from this client or for this e-mail address. Try again later.',
    { retry_after: retryAfter },
  );

/** An e-mail address as a key: the counts never hold the address itself. */
const emailKey = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex');

export class RsvpLimits {
  private readonly perClient: RateLimiterAbstract | null;
  private readonly perEmail: RateLimiterAbstract | null;

  constructor(settings: RsvpLimitSettings, shared?: SharedCounts) {
    const { perClient, perEmail } = settings;
    // 0 attempts: that limit is off.
    this.perClient = perClient.attempts
      ? limiter('rsvp-client', perClient.attempts, perClient.seconds, shared)
      : null;
    this.perEmail = perEmail.attempts
      ? limiter('rsvp-email', perEmail.attempts, perEmail.seconds, shared)
      : null;
  }

  /** Takes one attempt for `client` and for `email`; 429 RATE_LIMITED when either has none left. */
  async take(client: string, email: string): Promise<void> {
    const taken = await Promise.allSettled([
      this.perClient?.consume(client),
      this.perEmail?.consume(emailKey(email)),
    ]);
    const refusals = taken.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    for (const refusal of refusals) if (!(refusal instanceof RateLimiterRes)) throw refusal;
    if (refusals.length) {
      const wait = Math.max(...(refusals as RateLimiterRes[]).map((refusal) => refusal.msBeforeNext));
      throw rateLimited(Math.max(1, Math.ceil(wait / 1000)));
    }
  }
}

const limitsByApp = new WeakMap<object, RsvpLimits>();

/**
 * The limits of the app whose write pipeline `writes` is (app.ts hands it the instances' shared
 * counts); an app that was handed none counts in this process, by its configuration.
 */
export function useRsvpLimits(writes: object, limits: RsvpLimits): void {
  limitsByApp.set(writes, limits);
}

/** One reservation attempt of this request, for `email` (429 RATE_LIMITED past either limit). */
export async function takeRsvpAttempt(
  ctx: Pick<Context, 'writes' | 'config' | 'client'>,
  email: string,
): Promise<void> {
  let limits = limitsByApp.get(ctx.writes);
  if (!limits) limitsByApp.set(ctx.writes, (limits = new RsvpLimits(ctx.config.rsvpLimits)));
  await limits.take(ctx.client ?? 'address:unknown', email);
}
