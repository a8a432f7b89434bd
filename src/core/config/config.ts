import { IANAZone } from 'luxon';
import { z } from 'zod';
import { chosenPasswordProblem } from './chosen-password.js';
import { LOGIN_PATTERN, LOGIN_RULE } from './logins.js';
import { readTrustedDocuments } from './trusted-documents.js';
import { parseTrustedProxies } from './client-address.js';
import { CACHE_MECHANISMS, type CacheMechanism } from './cache-mechanisms.js';

/** A comma-separated setting as its non-empty items, trimmed (unset: none). */
const commaList = () =>
  z
    .string()
    .default('')
    .transform((list) =>
      list
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    );

// Every setting the service reads from the environment, validated once at start-up.
const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().min(1).default('file:./data/calendar.db'),
  CALENDAR_SITE_URL: z.url().optional(),
  CALENDAR_TIMEZONE: z
    .string()
    .default('UTC')
    .refine((zone) => IANAZone.isValidZone(zone), {
      message: 'must be an IANA time zone such as Europe/Paris',
    }),
  CALENDAR_ADMIN_USER: z.string().regex(LOGIN_PATTERN, LOGIN_RULE).optional(),
  CALENDAR_ADMIN_PASSWORD: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(2).max(50).default(10),
  GRAPHQL_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(10_000),
  CALENDAR_TRUSTED_DOCUMENTS: z.string().min(1).optional(),
  CALENDAR_CACHE: z.enum(['on', 'off']).default('on'),
  CALENDAR_CACHE_MB: z.coerce.number().min(1).max(65536).default(64),
  CALENDAR_SHAPE_CACHE_MB: z.coerce.number().min(0).max(65536).default(12),
  CALENDAR_RECORD_CACHE_MB: z.coerce.number().min(0).max(65536).default(8),
  CALENDAR_CACHE_WITHOUT: commaList().pipe(z.array(z.enum(CACHE_MECHANISMS))),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  CALENDAR_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  CALENDAR_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  CALENDAR_METRICS_HOST: z.string().default('127.0.0.1'),
  CALENDAR_TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((spec, ctx) => {
      try {
        return parseTrustedProxies(spec);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  CALENDAR_SUBSCRIPTIONS_MAX: z.coerce.number().int().min(0).max(1_000_000).default(1000),
  CALENDAR_SUBSCRIPTIONS_PER_CLIENT: z.coerce.number().int().min(0).max(10_000).default(10),
  CALENDAR_SHUTDOWN_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  CALENDAR_CHANGES_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  CALENDAR_WEBHOOKS: z.enum(['on', 'off']).default('on'),
  CALENDAR_WEBHOOKS_ALLOW_PRIVATE: z.enum(['true', 'false']).default('false'),
  CALENDAR_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  CALENDAR_WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(600_000).default(1000),
  CALENDAR_WEBHOOK_BACKOFF_MS: z.coerce.number().int().min(10).max(3_600_000).default(5000),
  CALENDAR_WEBHOOK_MAX_BACKOFF_MS: z.coerce.number().int().min(10).max(86_400_000).default(3_600_000),
  CALENDAR_WEBHOOK_MAX_FAILURES: z.coerce.number().int().min(1).max(1000).default(20),
  CALENDAR_SERIES_HORIZON_MONTHS: z.coerce.number().int().min(1).max(600).default(60),
  CALENDAR_SERIES_MAX_OCCURRENCES: z.coerce.number().int().min(1).max(100_000).default(10_000),
  CALENDAR_SERIES_EXTEND_MS: z.coerce.number().int().min(0).max(86_400_000).default(3_600_000),
  CALENDAR_IMPORT_POLL_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  CALENDAR_RSVP_PER_ADDRESS: z.coerce.number().int().min(0).max(1_000_000).default(10),
  CALENDAR_RSVP_PER_ADDRESS_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  CALENDAR_RSVP_PER_EMAIL: z.coerce.number().int().min(0).max(1_000_000).default(5),
  CALENDAR_RSVP_PER_EMAIL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600),
  CALENDAR_CORS_ORIGINS: commaList().refine(
    (origins) => origins.every((origin) => origin === '*' || /^https?:\/\/[^/\s]+$/.test(origin)),
    {
      message: 'must be * or a comma list of origins such as https://www.example.com (no path)',
    },
  ),
});

// The only password a person chooses: judged with the login a guesser would try it with.
const CheckedEnv = EnvSchema.superRefine((env, ctx) => {
  const password = env.CALENDAR_ADMIN_PASSWORD;
  const problem =
    password === undefined ? null : chosenPasswordProblem(password, [env.CALENDAR_ADMIN_USER ?? '']);
  if (problem) ctx.addIssue({ code: 'custom', path: ['CALENDAR_ADMIN_PASSWORD'], message: problem });
});

export type DatabaseProvider = 'sqlite' | 'postgresql';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  databaseProvider: DatabaseProvider;
  /**
   * Public origin used to build every URL in responses, without a trailing slash. It names nothing
   * else: what the instances share (their bus channels, their Redis keys) is named by the database
   * (`calendarNamespace`, src/core/db/calendar-identity.ts).
   */
  siteUrl: string;
  siteTimezone: string;
  adminUser?: string;
  adminPassword?: string;
  logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
  graphqlMaxDepth: number;
  /** Past this, a GraphQL request's remaining resolvers fail at once (request_timeout). */
  graphqlTimeoutMs: number;
  /**
   * Trusted documents (a persisted-documents manifest, read at start-up): when set, GraphQL runs only
   * these documents, named by id, and GraphiQL is not served. Unset: any document runs, and automatic
   * persisted queries are offered.
   */
  trustedDocuments?: { path: string; documents: ReadonlyMap<string, string> };
  /**
   * The shared response cache of anonymous reads, and its bound in bytes; `recordMaxBytes`: the kept
   * event rows' own bound, beside it (`ResponseCache.keepRecords`).
   */
  cache: { enabled: boolean; maxBytes: number; recordMaxBytes?: number };
  /** The cache's mechanisms turned off, to measure what each pays (`core/config/cache-mechanisms.ts`). */
  cacheWithout: readonly CacheMechanism[];
  /** Kept REST shapes of events (`core/cache/shape-cache.ts`); 0 bytes, or the cache off, keeps none. */
  shapeCache: { maxBytes: number };
  redisUrl?: string;
  /** `/metrics` on the public port needs `Authorization: Bearer <token>`; without a token it is not served there. */
  metricsToken?: string;
  /** A separate listener that serves only `/metrics`, without a token (bind it to a private address). */
  metricsPort?: number;
  metricsHost: string;
  /**
   * Addresses and CIDR ranges of the proxies in front of the service (none by default): only from them
   * are forwarded headers believed (src/core/config/client-address.ts).
   */
  trustedProxies: readonly string[];
  /** Open GraphQL subscriptions allowed on this instance, and per client (a user, or an anonymous address). */
  subscriptions: { maxSubscriptions: number; maxPerClient: number };
  /** How long in-flight requests may take to finish after SIGTERM. */
  shutdownMs: number;
  /** Browser origins allowed to call the APIs (CORS); `*` allows any, never with credentials. */
  corsOrigins: string[];
  /** Days the change log keeps its rows: older sync tokens answer 410 `sync_token_expired`. */
  changesRetentionDays: number;
  /** Webhook deliveries (`sync/webhook-dispatcher.ts`); `enabled` false: this instance sends none. */
  webhooks: {
    enabled: boolean;
    /** Deliveries to loopback, private and link-local addresses (refused by default: SSRF). */
    allowPrivate: boolean;
    timeoutMs: number;
    pollMs: number;
    backoffMs: number;
    maxBackoffMs: number;
    maxFailures: number;
  };
  /** Recurring events (`events/series/event-series.ts`, docs/reference/recurrence.md). */
  series: {
    /** Occurrences are materialised this many months ahead of now (TEC's default: 60). */
    horizonMonths: number;
    /** A series with more occurrences before its horizon is refused (400 naming `recurrence`). */
    maxOccurrences: number;
    /** How often an instance tries to extend every series to the moving horizon; 0: never. */
    extendEveryMs: number;
  };
  /** Subscribed import sources (`imports/subscriptions.ts`, docs/guide/import.md). */
  imports: {
    /** How often this instance looks for due sources; 0: it reads none. */
    pollMs: number;
  };
  /**
   * Reservation attempts allowed per client (a user, or an anonymous address) and per e-mail address,
   * each within its window (`tickets/reservations/limits.ts`); 0 attempts: no limit.
   */
  rsvpLimits: {
    perClient: { attempts: number; seconds: number };
    perEmail: { attempts: number; seconds: number };
  };
}

export function databaseProviderOf(url: string): DatabaseProvider {
  return /^postgres(ql)?:\/\//i.test(url) ? 'postgresql' : 'sqlite';
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = CheckedEnv.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const e = parsed.data;
  let trustedDocuments: Config['trustedDocuments'];
  if (e.CALENDAR_TRUSTED_DOCUMENTS !== undefined) {
    try {
      const path = e.CALENDAR_TRUSTED_DOCUMENTS;
      trustedDocuments = { path, documents: readTrustedDocuments(path) };
    } catch (error) {
      throw new ConfigError(
        `Invalid configuration:\n  CALENDAR_TRUSTED_DOCUMENTS: ${(error as Error).message}`,
      );
    }
  }
  const siteUrl = (e.CALENDAR_SITE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databaseProvider: databaseProviderOf(e.DATABASE_URL),
    siteUrl,
    siteTimezone: e.CALENDAR_TIMEZONE,
    adminUser: e.CALENDAR_ADMIN_USER,
    adminPassword: e.CALENDAR_ADMIN_PASSWORD,
    logLevel: e.LOG_LEVEL,
    graphqlMaxDepth: e.GRAPHQL_MAX_DEPTH,
    graphqlTimeoutMs: e.GRAPHQL_TIMEOUT_MS,
    ...(trustedDocuments ? { trustedDocuments } : {}),
    cache: {
      enabled: e.CALENDAR_CACHE === 'on',
      maxBytes: Math.round(e.CALENDAR_CACHE_MB * 1024 * 1024),
      recordMaxBytes: e.CALENDAR_CACHE_WITHOUT.includes('kept-records')
        ? 0
        : Math.round(e.CALENDAR_RECORD_CACHE_MB * 1024 * 1024),
    },
    cacheWithout: e.CALENDAR_CACHE_WITHOUT,
    shapeCache: {
      maxBytes:
        e.CALENDAR_CACHE === 'on' && !e.CALENDAR_CACHE_WITHOUT.includes('kept-shapes')
          ? Math.round(e.CALENDAR_SHAPE_CACHE_MB * 1024 * 1024)
          : 0,
    },
    redisUrl: e.REDIS_URL,
    metricsToken: e.CALENDAR_METRICS_TOKEN,
    metricsPort: e.CALENDAR_METRICS_PORT,
    metricsHost: e.CALENDAR_METRICS_HOST,
    trustedProxies: e.CALENDAR_TRUSTED_PROXIES,
    subscriptions: {
      maxSubscriptions: e.CALENDAR_SUBSCRIPTIONS_MAX,
      maxPerClient: e.CALENDAR_SUBSCRIPTIONS_PER_CLIENT,
    },
    shutdownMs: e.CALENDAR_SHUTDOWN_MS,
    corsOrigins: e.CALENDAR_CORS_ORIGINS.map((origin) => origin.toLowerCase()),
    changesRetentionDays: e.CALENDAR_CHANGES_RETENTION_DAYS,
    webhooks: {
      enabled: e.CALENDAR_WEBHOOKS === 'on',
      allowPrivate: e.CALENDAR_WEBHOOKS_ALLOW_PRIVATE === 'true',
      timeoutMs: e.CALENDAR_WEBHOOK_TIMEOUT_MS,
      pollMs: e.CALENDAR_WEBHOOK_POLL_MS,
      backoffMs: e.CALENDAR_WEBHOOK_BACKOFF_MS,
      maxBackoffMs: e.CALENDAR_WEBHOOK_MAX_BACKOFF_MS,
      maxFailures: e.CALENDAR_WEBHOOK_MAX_FAILURES,
    },
    series: {
      horizonMonths: e.CALENDAR_SERIES_HORIZON_MONTHS,
      maxOccurrences: e.CALENDAR_SERIES_MAX_OCCURRENCES,
      extendEveryMs: e.CALENDAR_SERIES_EXTEND_MS,
    },
    imports: { pollMs: e.CALENDAR_IMPORT_POLL_MS },
    rsvpLimits: {
      perClient: { attempts: e.CALENDAR_RSVP_PER_ADDRESS, seconds: e.CALENDAR_RSVP_PER_ADDRESS_SECONDS },
      perEmail: { attempts: e.CALENDAR_RSVP_PER_EMAIL, seconds: e.CALENDAR_RSVP_PER_EMAIL_SECONDS },
    },
  };
}
