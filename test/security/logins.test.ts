import { randomBytes, randomInt } from 'node:crypto';
import * as argon2 from '@node-rs/argon2';
import { Redis } from 'ioredis';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { hashApplicationPassword } from '../../src/users/application-passwords.js';
import { LOGIN_LIMITS, LoginLimits, type SharedCounts } from '../../src/users/login-limits.js';
import {
  MAX_APPLICATION_PASSWORDS,
  addApplicationPassword,
  createUser as createUserRecord,
} from '../../src/users/users.js';
import { ConfigError, loadConfig } from '../../src/core/config/config.js';
import { createLogger } from '../../src/core/ops/logger.js';
import { calendarNamespace } from '../../src/core/db/calendar-identity.js';
import { API, type Harness, startHarness } from '../helpers/harness.js';
import { startServerProcess } from '../helpers/processes/server-process.js';
import { testRedisUrl } from '../helpers/processes/services.js';
import { createUser } from '../helpers/users.js';

// Logins (#13 part 3, #30 point 11): failures are limited per client address and per (login, address)
// pair (429 + Retry-After), never per login alone: a right application password from another address
// passes however many failures its login had; a password that could be a chosen one is slowed down
// per login instead. An unknown login answers and costs what a wrong password does, a failed login
// costs one argon2 check however many passwords the user holds, and a user holds at most 25 of them.
// #50: a known sign-in (a login and address that signed in within 30 days) is spared its login's
// slow-down; the client address is believed from listed proxies only; a weak chosen password stops
// the start.

vi.mock('@node-rs/argon2', async (original) => {
  const real = await original<typeof import('@node-rs/argon2')>();
  return { ...real, verify: vi.fn(real.verify) };
});
const verifyCalls = () => vi.mocked(argon2.verify).mock.calls.length;

let h: Harness;
let address = 0;
// Addresses of this run only: the Redis tests share their counts with every earlier run for 15 minutes.
const run = `${randomInt(0x10000).toString(16)}:${randomInt(0x10000).toString(16)}`;
/**
 * A client address of its own: supertest connects from the loopback, which this file's app lists as
 * its proxy, so it believes what X-Forwarded-For says (src/core/config/client-address.ts). A /64 of its own
 * too, since the limits count an IPv6 client by its /64.
 */
const nextAddress = () => `2001:${run}:${(++address).toString(16)}::1`;
/** Wrong, but of the generated kind: it cannot be a chosen password, so no login slow-down applies. */
const WRONG_GENERATED = 'abcd efgh ijkl mnop qrst uvwx';
const { perAddress, perPair, perLogin } = LOGIN_LIMITS;

// The loopback (supertest) and a private range, so that a chain of proxies can be written too.
const PROXIES = '127.0.0.1,::1,10.0.0.0/8';

beforeAll(async () => {
  h = await startHarness({ CALENDAR_TRUSTED_PROXIES: PROXIES });
});

afterAll(async () => {
  await h?.close();
});

function attempt(
  http: ReturnType<typeof supertest>,
  login: string,
  password: string,
  from: string,
  via: 'rest' | 'graphql' = 'rest',
) {
  const request =
    via === 'rest'
      ? http.get(`${API}/events`)
      : http.post('/graphql').send({ query: '{ viewer { login } }' });
  return request.auth(login, password).set('X-Forwarded-For', from);
}

/** The answer's status and how long it took. */
async function timed(request: PromiseLike<{ status: number }>): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const { status } = await request;
  return { status, ms: performance.now() - started };
}

/**
 * An instance of the app on this file's database, counting with `limits`, warmed up by an anonymous
 * read (its routes are set up on first use); nothing verified on it yet, so each password is checked.
 */
async function instanceWith(limits: LoginLimits): Promise<ReturnType<typeof supertest>> {
  const app = buildApp({ db: h.db, config: h.config, logger: createLogger('silent'), loginLimits: limits });
  const http = supertest(app.callback());
  await http.get(`${API}/events`).expect(200);
  return http;
}

/**
 * The siege: ten wrong passwords for `login` from each of three addresses, all at once (one
 * after the other, the guesser would meet the slow-down it builds).
 */
const besieging = 3 * perPair.points;
async function besiege(http: ReturnType<typeof supertest>, login: string): Promise<void> {
  const guesses = [nextAddress(), nextAddress(), nextAddress()].flatMap((from, a) =>
    Array.from({ length: perPair.points }, (_, i) => attempt(http, login, `guess ${a}.${i}`, from)),
  );
  expect(statuses(await Promise.all(guesses))).toEqual({ 401: besieging });
}

/**
 * A pair signs in, then its login fails past its free failures elsewhere: the pair is spared the
 * slow-down until 30 days after its sign-in, by the limits' own clock (and by another instance's, when
 * the store is shared), and again after its next sign-in.
 */
/** A known sign-in is the exact login (logins are case-sensitive) and the client's /64, nothing wider. */
async function knownOnlyAsItSignedIn(shared: SharedCounts | undefined): Promise<void> {
  const limits = new LoginLimits(shared);
  const login = `Known-${run}-${++address}`;
  const home = nextAddress();
  await (await limits.begin(login, home, true)).succeeded();
  for (let i = 0; i <= perLogin.free; i++) await (await limits.begin(login, nextAddress(), true)).failed();
  // The same /64 is the same client; another spelling of the login is another user's.
  expect(await limits.waitFor(login, home.replace(/::1$/, '::beef'))).toBe(0);
  expect(await limits.waitFor(login.toLowerCase(), home)).toBeGreaterThan(0);
  expect(await limits.waitFor(login, nextAddress())).toBeGreaterThan(0);
}

async function forgottenAfter30Days(shared: SharedCounts | undefined): Promise<void> {
  let now = Date.now();
  const limits = new LoginLimits(shared, () => now);
  const elsewhere = shared && new LoginLimits(shared, () => now);
  const login = `known-${run}-${++address}`;
  const home = nextAddress();
  await (await limits.begin(login, home, true)).succeeded();
  for (let i = 0; i <= perLogin.free; i++) await (await limits.begin(login, nextAddress(), true)).failed();
  const waits = async () => [
    await limits.waitFor(login, home),
    await limits.waitFor(login, nextAddress()),
    ...(elsewhere ? [await elsewhere.waitFor(login, home)] : []),
  ];
  const spared = elsewhere ? [0, perLogin.stepMs, 0] : [0, perLogin.stepMs];
  const slowed = elsewhere
    ? [perLogin.stepMs, perLogin.stepMs, perLogin.stepMs]
    : [perLogin.stepMs, perLogin.stepMs];
  expect(await waits()).toEqual(spared);
  now += LOGIN_LIMITS.knownFor.ms - 1;
  expect(await waits()).toEqual(spared);
  now += 1;
  expect(await waits()).toEqual(slowed);
  await (await limits.begin(login, home, false)).succeeded();
  expect(await waits()).toEqual(spared);
}

const statuses = (responses: Array<{ status: number }>) =>
  responses.reduce<Record<number, number>>((count, { status }) => {
    count[status] = (count[status] ?? 0) + 1;
    return count;
  }, {});

describe('rate limits', () => {
  it(`refuses a login from one address after ${perPair.points} failures there with 429 and Retry-After, REST and GraphQL`, async () => {
    const user = await createUser(h, 'editor', 'limited-pair');
    const from = nextAddress();
    for (let i = 0; i < perPair.points; i++) await attempt(h.http, user.login, 'wrong', from).expect(401);
    // Refused from there now, even with the right password.
    const rest = await attempt(h.http, user.login, user.password, from).expect(429);
    expect(Number(rest.headers['retry-after'])).toBeGreaterThan(0);
    expect(rest.body).toMatchObject({ code: 'too_many_failed_logins', data: { status: 429 } });
    const gql = await attempt(h.http, user.login, user.password, from, 'graphql').expect(429);
    expect(gql.headers['retry-after']).toBeDefined();
    expect(gql.body.errors[0].extensions).toEqual({ code: 'too_many_failed_logins', http: { status: 429 } });
    // The login from another address, and another login from this one, are not affected.
    await attempt(h.http, user.login, user.password, nextAddress()).expect(200);
    const other = await createUser(h, 'editor', 'unaffected-login');
    await attempt(h.http, other.login, other.password, from).expect(200);
  });

  it('never locks a login: its right application password from another address passes at once after many failures', async () => {
    const user = await createUser(h, 'editor', 'besieged');
    // Failures from many addresses, each pair up to its limit; then one more of a possibly chosen
    // password, so the login is slowed down for those…
    for (let a = 0; a < 4; a++) {
      const from = nextAddress();
      for (let i = 0; i < perPair.points; i++)
        await attempt(h.http, user.login, a ? WRONG_GENERATED : `guess ${i}`, from).expect(401);
      await attempt(h.http, user.login, WRONG_GENERATED, from).expect(429);
    }
    await attempt(h.http, user.login, 'one guess more', nextAddress()).expect(401);
    expect(new LoginLimits().slowDown(perPair.points + 1)).toBeGreaterThan(0);
    // …but a generated password is not one, REST and GraphQL.
    const rest = await timed(attempt(h.http, user.login, user.password, nextAddress()));
    expect(rest.status).toBe(200);
    expect(rest.ms).toBeLessThan(perLogin.stepMs);
    const gql = await attempt(h.http, user.login, user.password, nextAddress(), 'graphql').expect(200);
    expect(gql.body.data.viewer.login).toBe(user.login);
  });

  it('a success clears the pair’s failures', async () => {
    const user = await createUser(h, 'author', 'forgetful');
    const from = nextAddress();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < perPair.points - 1; i++)
        await attempt(h.http, user.login, WRONG_GENERATED, from).expect(401);
      await attempt(h.http, user.login, user.password, from).expect(200);
    }
  });

  it(`refuses an address after ${perAddress.points} failures, whatever the logins`, async () => {
    const from = nextAddress();
    for (let i = 0; i < perAddress.points; i++)
      await attempt(h.http, `spray-${i}`, 'wrong', from).expect(401);
    await attempt(h.http, 'spray-next', 'wrong', from).expect(429);
    const user = await createUser(h, 'editor', 'elsewhere');
    await attempt(h.http, user.login, user.password, from).expect(429);
    await attempt(h.http, user.login, user.password, nextAddress()).expect(200);
  });

  it('holds both limits against concurrent attempts (each takes its point before the check)', async () => {
    const sprayFrom = nextAddress();
    const spray = await Promise.all(
      Array.from({ length: perAddress.points + 10 }, (_, i) =>
        attempt(h.http, `concurrent-${i}`, WRONG_GENERATED, sprayFrom),
      ),
    );
    expect(statuses(spray)).toEqual({ 401: perAddress.points, 429: 10 });
    const user = await createUser(h, 'editor', 'concurrent-target');
    const pairFrom = nextAddress();
    const pair = await Promise.all(
      Array.from({ length: perPair.points + 5 }, () =>
        attempt(h.http, user.login, WRONG_GENERATED, pairFrom),
      ),
    );
    expect(statuses(pair)).toEqual({ 401: perPair.points, 429: 5 });
  });

  it('believes a listed proxy: each address it names is counted apart', async () => {
    const [refused, other] = [nextAddress(), nextAddress()];
    for (let i = 0; i < perAddress.points; i++)
      await attempt(h.http, `named-${i}`, WRONG_GENERATED, refused).expect(401);
    await attempt(h.http, 'named-next', WRONG_GENERATED, refused).expect(429);
    await attempt(h.http, 'named-next', WRONG_GENERATED, other).expect(401);
  });

  it('counts the address the proxies saw, not what the client wrote before it in X-Forwarded-For', async () => {
    const real = nextAddress();
    // The client's own entry, then the one our first proxy added, then a second proxy's (listed too).
    for (let i = 0; i < perAddress.points; i++)
      await attempt(h.http, `forged-${i}`, 'wrong', `${nextAddress()}, ${real}, 10.1.2.3`).expect(401);
    await attempt(h.http, 'forged-next', 'wrong', `${nextAddress()}, ${real}`).expect(429);
  });

  it.each([
    ['no proxy is listed (the default)', {}],
    [
      'the socket peer is not a listed proxy (loopback only when named)',
      { CALENDAR_TRUSTED_PROXIES: '10.0.0.0/8,fd00::/8' },
    ],
  ])(
    'counts a client that sends a forged X-Forwarded-For directly by its socket address: %s',
    async (_, env) => {
      const direct = await startHarness(env);
      try {
        for (let i = 0; i < perAddress.points; i++)
          await attempt(direct.http, `direct-${i}`, 'wrong', nextAddress()).expect(401);
        await attempt(direct.http, 'direct-next', 'wrong', nextAddress()).expect(429);
      } finally {
        await direct.close();
      }
    },
  );

  describe('a password that could be a chosen one (CALENDAR_ADMIN_PASSWORD): a slow-down per login, not a lock', () => {
    it('grows by a step per failure past the free ones, up to a bound', () => {
      const limits = new LoginLimits();
      expect(limits.slowDown(perLogin.free)).toBe(0);
      expect(limits.slowDown(perLogin.free + 1)).toBe(perLogin.stepMs);
      expect(limits.slowDown(perLogin.free + 3)).toBe(3 * perLogin.stepMs);
      expect(limits.slowDown(10_000)).toBe(perLogin.maxMs);
      expect(perLogin.maxMs).toBeLessThanOrEqual(10_000);
    });

    it(`after ${perLogin.free + 1} failures from anywhere, the right chosen password from a new address passes after the wait`, async () => {
      const chosen = 'correct horse battery staple, slowly';
      const { user } = await createUserRecord(h, {
        login: 'slowed',
        role: 'administrator',
        password: chosen,
      });
      const generated = await addApplicationPassword(h, user.id, 'generated');
      for (let i = 0; i <= perLogin.free; i++)
        await attempt(h.http, 'slowed', `guess ${i}`, nextAddress()).expect(401);
      const right = await timed(attempt(h.http, 'slowed', chosen, nextAddress()));
      expect(right.status).toBe(200);
      expect(right.ms).toBeGreaterThanOrEqual(perLogin.stepMs - 50);
      // A generated password is not slowed down; nor is a guess of that kind (it cannot be the chosen one).
      const fast = await timed(attempt(h.http, 'slowed', generated.password, nextAddress()));
      expect(fast).toMatchObject({ status: 200 });
      expect(fast.ms).toBeLessThan(perLogin.stepMs);
      const guess = await timed(attempt(h.http, 'slowed', WRONG_GENERATED, nextAddress()));
      expect(guess).toMatchObject({ status: 401 });
      expect(guess.ms).toBeLessThan(perLogin.stepMs);
    });

    it('slows an unknown login the same way (the wait tells nothing about which logins exist)', async () => {
      for (let i = 0; i <= perLogin.free; i++)
        await attempt(h.http, 'nobody-here', `guess ${i}`, nextAddress()).expect(401);
      const next = await timed(attempt(h.http, 'nobody-here', 'guess again', nextAddress()));
      expect(next.status).toBe(401);
      expect(next.ms).toBeGreaterThanOrEqual(perLogin.stepMs - 50);
    });
  });

  describe('a known sign-in, a (login, address) that signed in within 30 days: its login’s slow-down spares it', () => {
    it(`after ${besieging} failures from three addresses, the administrator from its known address answers at once (no slow-down step) while a new address waits`, async () => {
      const limits = new LoginLimits();
      const chosen = 'the boss signs in from the office';
      await createUserRecord(h, { login: 'boss', role: 'administrator', password: chosen });
      const office = nextAddress();
      await attempt(await instanceWith(limits), 'boss', chosen, office).expect(200);
      await besiege(await instanceWith(limits), 'boss');
      const wait = limits.slowDown(besieging);
      expect(wait).toBe(perLogin.maxMs);
      // A fresh instance verified nothing in the last minute: each password is checked, as on the first
      // request of every idle minute.
      const later = await instanceWith(limits);
      const newcomer = timed(attempt(later, 'boss', chosen, nextAddress()));
      const owner = await timed(attempt(later, 'boss', chosen, office));
      expect(owner.status).toBe(200);
      // Spared every step of the slow-down (the smallest is a second; the newcomer waits ten): what is
      // left is one argon2 check, ~15 ms on a quiet machine, up to ~200 ms on a loaded one.
      expect(owner.ms).toBeLessThan(perLogin.stepMs);
      const waited = await newcomer;
      expect(waited.status).toBe(200);
      expect(waited.ms).toBeGreaterThanOrEqual(wait - 50);
    });

    it('is forgotten 30 days after its last sign-in (and known again after the next)', () =>
      forgottenAfter30Days(undefined));

    it('is the exact login and the client’s /64, nothing wider', () => knownOnlyAsItSignedIn(undefined));

    it('holds under concurrency: the owner’s connection pool passes at once while new addresses wait; its pair’s limit stays', async () => {
      const limits = new LoginLimits();
      const chosen = 'a desktop client with a pool of connections';
      await createUserRecord(h, { login: 'pooled', role: 'editor', password: chosen });
      const home = nextAddress();
      await attempt(await instanceWith(limits), 'pooled', chosen, home).expect(200);
      const guesser = await instanceWith(limits);
      for (let i = 0; i <= perLogin.free; i++)
        await attempt(guesser, 'pooled', `guess ${i}`, nextAddress()).expect(401);
      const later = await instanceWith(limits);
      const [pool, guesses] = await Promise.all([
        Promise.all(Array.from({ length: 4 }, () => timed(attempt(later, 'pooled', chosen, home)))),
        Promise.all(
          Array.from({ length: 3 }, (_, i) => timed(attempt(later, 'pooled', `again ${i}`, nextAddress()))),
        ),
      ]);
      expect(statuses(pool)).toEqual({ 200: pool.length });
      expect(Math.max(...pool.map(({ ms }) => ms))).toBeLessThan(perLogin.stepMs);
      expect(statuses(guesses)).toEqual({ 401: guesses.length });
      expect(Math.min(...guesses.map(({ ms }) => ms))).toBeGreaterThanOrEqual(perLogin.stepMs - 50);
      // Typos from home are not slowed down either, but its pair's allowance still holds (the right
      // password too is refused there now, on an instance that has not just verified it).
      const typos = await Promise.all(
        Array.from({ length: perPair.points + 5 }, (_, i) =>
          timed(attempt(later, 'pooled', `typo ${i}`, home)),
        ),
      );
      expect(statuses(typos)).toEqual({ 401: perPair.points, 429: 5 });
      expect(Math.max(...typos.map(({ ms }) => ms))).toBeLessThan(perLogin.stepMs);
      await attempt(await instanceWith(limits), 'pooled', chosen, home).expect(429);
    });
  });

  describe('across instances', () => {
    const apps: Array<ReturnType<typeof supertest>> = [];
    const connections: Redis[] = [];
    let namespace: string;
    beforeAll(async () => {
      namespace = await calendarNamespace(h.db);
      for (const url of [testRedisUrl(), testRedisUrl(), 'redis://127.0.0.1:1']) {
        const redis = new Redis(url, {
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          lazyConnect: false,
        });
        redis.on('error', () => undefined);
        connections.push(redis);
        apps.push(
          supertest(
            buildApp({
              db: h.db,
              config: h.config,
              logger: createLogger('silent'),
              shared: { redis, namespace },
            }).callback(),
          ),
        );
      }
    });
    afterAll(async () => {
      // Known sign-ins are kept for 30 days: this run's go now.
      const known = await connections[0]!.keys(`${namespace}:known-sign-ins:*`).catch(() => []);
      if (known.length) await connections[0]!.del(...known);
      for (const redis of connections) redis.disconnect();
    });
    const sharedBy = (connection: number): SharedCounts => ({ redis: connections[connection]!, namespace });

    it('counts failures in Redis, so the allowances are shared by every instance', async () => {
      await new Promise((done) => setTimeout(done, 100)); // connected
      const user = await createUser(h, 'editor', `shared-${run.replace(':', '-')}`);
      const from = nextAddress();
      for (let i = 0; i < perPair.points; i++)
        await attempt(apps[i % 2]!, user.login, WRONG_GENERATED, from).expect(401);
      await attempt(apps[0]!, user.login, user.password, from).expect(429);
      await attempt(apps[1]!, user.login, user.password, from).expect(429);
      await attempt(apps[1]!, user.login, user.password, nextAddress()).expect(200);
    });

    it('shares the slow-down of a login too', async () => {
      const chosen = 'correct horse battery staple, shared';
      const login = `shared-chosen-${run.replace(':', '-')}`;
      await createUserRecord(h, { login, role: 'editor', password: chosen });
      for (let i = 0; i <= perLogin.free; i++)
        await attempt(apps[0]!, login, `guess ${i}`, nextAddress()).expect(401);
      const right = await timed(attempt(apps[1]!, login, chosen, nextAddress()));
      expect(right.status).toBe(200);
      expect(right.ms).toBeGreaterThanOrEqual(perLogin.stepMs - 50);
    });

    it('keeps each calendar’s own counts when calendars share one Redis', async () => {
      // Another calendar: another database, whose identity names its counts (its users are alike here).
      const other = supertest(
        buildApp({
          db: h.db,
          config: h.config,
          logger: createLogger('silent'),
          shared: { redis: connections[0]!, namespace: `calendar-${randomBytes(6).toString('hex')}` },
        }).callback(),
      );
      const user = await createUser(h, 'editor', `apart-${run.replace(':', '-')}`);
      const from = nextAddress();
      for (let i = 0; i < perPair.points; i++)
        await attempt(apps[0]!, user.login, WRONG_GENERATED, from).expect(401);
      await attempt(apps[1]!, user.login, user.password, from).expect(429);
      // The same login from the same address on the other calendar: none of those failures count there.
      await attempt(other, user.login, user.password, from).expect(200);
    });

    it('still limits (per instance, in memory) while Redis is unreachable', async () => {
      const user = await createUser(h, 'editor', `no-redis-${run.replace(':', '-')}`);
      const from = nextAddress();
      for (let i = 0; i < perPair.points; i++)
        await attempt(apps[2]!, user.login, WRONG_GENERATED, from).expect(401);
      await attempt(apps[2]!, user.login, user.password, from).expect(429);
      await attempt(apps[2]!, user.login, user.password, nextAddress()).expect(200);
    });

    it('shares the known sign-ins: signed in on one instance, the owner passes at once on another during a siege', async () => {
      const chosen = 'signed in on one instance, known to all';
      const login = `known-shared-${run.replace(':', '-')}`;
      await createUserRecord(h, { login, role: 'administrator', password: chosen });
      const office = nextAddress();
      await attempt(apps[0]!, login, chosen, office).expect(200);
      await besiege(apps[1]!, login);
      const limits = new LoginLimits(sharedBy(1));
      const owner = await timed(attempt(await instanceWith(limits), login, chosen, office));
      expect(owner.status).toBe(200);
      // Spared the 10 s a new address waits (a bound that holds on a busy machine too: three Redis
      // round trips and an argon2 check).
      expect(owner.ms).toBeLessThan(perLogin.stepMs);
      expect(await limits.waitFor(login, nextAddress())).toBe(perLogin.maxMs);
    });

    it('forgets a known sign-in 30 days after it, on every instance', () =>
      forgottenAfter30Days(sharedBy(0)));

    it('is the exact login and the client’s /64 there too', () => knownOnlyAsItSignedIn(sharedBy(0)));

    it('knows the sign-ins an instance saw while Redis is unreachable, and still slows new addresses', async () => {
      const limits = new LoginLimits(sharedBy(2));
      const chosen = 'signed in while the store was away';
      const login = `known-alone-${run.replace(':', '-')}`;
      await createUserRecord(h, { login, role: 'editor', password: chosen });
      const home = nextAddress();
      await attempt(await instanceWith(limits), login, chosen, home).expect(200);
      const guesser = await instanceWith(limits);
      for (let i = 0; i <= perLogin.free; i++)
        await attempt(guesser, login, `guess ${i}`, nextAddress()).expect(401);
      const owner = await timed(attempt(await instanceWith(limits), login, chosen, home));
      expect(owner.status).toBe(200);
      expect(owner.ms).toBeLessThan(perLogin.stepMs);
      expect(await limits.waitFor(login, nextAddress())).toBe(perLogin.stepMs);
    });
  });
});

describe('a chosen password (CALENDAR_ADMIN_PASSWORD) is judged at start', () => {
  const refusal = (env: Record<string, string>): string => {
    try {
      loadConfig(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('accepted');
  };

  it.each([
    ['shorter than 12 characters', 'Tr0ub4dor&3', /must be at least 12 characters \(it has 11\)/],
    [
      'a common password',
      'password1234',
      /too easy to guess: it is similar to a commonly used password \(zxcvbn strength 1 of 4, at least 3 needed\)/,
    ],
    ['a keyboard run of digits', '12345678901234', /too easy to guess/],
    [
      'one character again and again',
      'aaaaaaaaaaaaaaaa',
      /too easy to guess: it repeats one character \(zxcvbn strength 0 of 4/,
    ],
    ['the login repeated', 'bossbossboss', /too easy to guess: it repeats a few characters/],
  ])('refuses %s, naming the variable and why, never quoting it', (_, password, why) => {
    const message = refusal({ CALENDAR_ADMIN_USER: 'boss', CALENDAR_ADMIN_PASSWORD: password });
    expect(message).toMatch(/^Invalid configuration:\n {2}CALENDAR_ADMIN_PASSWORD: /);
    expect(message).toMatch(why);
    expect(message).not.toContain(password);
  });

  it('accepts a strong one, and none (the demo, which makes no administrator)', () => {
    const strong = 'correct horse battery staple';
    expect(loadConfig({ CALENDAR_ADMIN_USER: 'boss', CALENDAR_ADMIN_PASSWORD: strong }).adminPassword).toBe(
      strong,
    );
    expect(loadConfig({}).adminPassword).toBeUndefined();
  });

  it('keeps the service from starting', async () => {
    const start = startServerProcess({
      DATABASE_URL: h.config.databaseUrl,
      CALENDAR_ADMIN_USER: 'boss',
      CALENDAR_ADMIN_PASSWORD: 'password1234',
    });
    await expect(start).rejects.toThrow(
      /the server did not start:[^]*CALENDAR_ADMIN_PASSWORD: is too easy to guess/,
    );
    await expect(start).rejects.not.toThrow(/password1234/);
    // The operator reads the reason, not a stack trace.
    await expect(start).rejects.not.toThrow(/\n\s+at /);
  });
});

describe('the cost and the answer of a failure', () => {
  it('one argon2 check per failed login: unknown login, wrong password, 25 passwords held', async () => {
    const user = await createUser(h, 'editor', 'many-passwords');
    for (let i = 1; i < MAX_APPLICATION_PASSWORDS; i++) await addApplicationPassword(h, user.id, `p${i}`);
    for (const [login, password] of [
      ['nobody-at-all', 'wrong'],
      [user.login, 'wrong'],
      [user.login, 'abcd efgh ijkl mnop qrst uvwx'],
    ] as const) {
      const before = verifyCalls();
      const res = await attempt(h.http, login, password, nextAddress()).expect(401);
      expect(res.body.code).toBe('incorrect_password');
      expect(verifyCalls() - before, login).toBe(1);
    }
    // The right one is found among the 25 with one check too.
    const before = verifyCalls();
    await attempt(h.http, user.login, user.password, nextAddress()).expect(200);
    expect(verifyCalls() - before).toBe(1);
  });

  it('a chosen password (CALENDAR_ADMIN_PASSWORD) gets no fast lookup, and still costs one check', async () => {
    const chosen = 'correct horse battery staple';
    const { user } = await createUserRecord(h, { login: 'chooser', role: 'administrator', password: chosen });
    const [row] = await h.db.applicationPassword.findMany({ where: { userId: user.id } });
    expect(row!.lookup).toBeNull();
    let before = verifyCalls();
    await attempt(h.http, 'chooser', chosen, nextAddress()).expect(200);
    expect(verifyCalls() - before).toBe(1);
    await addApplicationPassword(h, user.id, 'generated');
    for (const password of ['wrong', 'abcd efgh ijkl mnop qrst uvwx']) {
      before = verifyCalls();
      await attempt(h.http, 'chooser', password, nextAddress()).expect(401);
      expect(verifyCalls() - before, password).toBe(1);
    }
    expect((await h.db.applicationPassword.findFirstOrThrow({ where: { id: row!.id } })).lookup).toBeNull();
  });

  it('passwords made before lookups existed still work, and get their lookup on first use', async () => {
    const user = await createUser(h, 'editor', 'legacy-user');
    const legacy = 'Lega cyPa sswo rd12 3456 7890';
    await h.db.applicationPassword.create({
      data: { userId: user.id, name: 'legacy', hash: await hashApplicationPassword(legacy) },
    });
    await attempt(h.http, user.login, legacy, nextAddress()).expect(200);
    const row = await h.db.applicationPassword.findFirstOrThrow({
      where: { userId: user.id, name: 'legacy' },
    });
    expect(row.lookup).toMatch(/^[\w-]{16}$/);
    await attempt(h.http, user.login, legacy, nextAddress()).expect(200);
  });
});

describe(`at most ${MAX_APPLICATION_PASSWORDS} active application passwords`, () => {
  it('refuses one more with 409 until one is revoked (GraphQL and service)', async () => {
    const user = await createUser(h, 'subscriber', 'collector');
    const create = () =>
      h.http
        .post('/graphql')
        .auth(user.login, user.password)
        .send({ query: 'mutation { createApplicationPassword(name: "more") { id password } }' });
    for (let i = 1; i < MAX_APPLICATION_PASSWORDS; i++)
      expect((await create()).body.errors, `#${i}`).toBeUndefined();
    const refused = await create();
    expect(refused.body.errors[0].extensions).toMatchObject({
      code: 'application_password_limit',
      http: { status: 409 },
    });
    await expect(addApplicationPassword(h, user.id, 'cli')).rejects.toThrow(/at most 25/);
    // Not the first one: these requests sign in with it.
    const [, another] = await h.db.applicationPassword.findMany({
      where: { userId: user.id },
      orderBy: { id: 'asc' },
    });
    await h.http
      .post('/graphql')
      .auth(user.login, user.password)
      .send({ query: `mutation { revokeApplicationPassword(id: ${another!.id}) { id } }` })
      .expect(200);
    expect((await create()).body.errors).toBeUndefined();
  });
});
