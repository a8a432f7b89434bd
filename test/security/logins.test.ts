import * as argon2 from '@node-rs/argon2';
import { Redis } from 'ioredis';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { hashApplicationPassword } from '../../src/auth/application-passwords.js';
import { LOGIN_LIMITS } from '../../src/auth/login-limits.js';
import {
  MAX_APPLICATION_PASSWORDS,
  addApplicationPassword,
  createUser as createUserRecord,
} from '../../src/auth/users.js';
import { createLogger } from '../../src/logger.js';
import { API, type Harness, startHarness } from '../helpers/harness.js';
import { testRedisUrl } from '../helpers/services.js';
import { createUser } from '../helpers/users.js';

// Logins (#13 part 3): failures are rate-limited per login and per address (429 + Retry-After), an
// unknown login answers and costs what a wrong password does, a failed login costs one argon2 check
// however many passwords the user holds, and a user holds at most 25 of them.

vi.mock('@node-rs/argon2', async (original) => {
  const real = await original<typeof import('@node-rs/argon2')>();
  return { ...real, verify: vi.fn(real.verify) };
});
const verifyCalls = () => vi.mocked(argon2.verify).mock.calls.length;

let h: Harness;
let address = 0;
/** A client address of its own (the app trusts X-Forwarded-For from its balancer). */
const nextAddress = () => `10.0.${Math.floor(++address / 250)}.${address % 250}`;

beforeAll(async () => {
  h = await startHarness();
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

describe('rate limits', () => {
  it(`refuses a login after ${LOGIN_LIMITS.perLogin.points} failures with 429 and Retry-After, REST and GraphQL`, async () => {
    const user = await createUser(h, 'editor', 'limited-login');
    for (let i = 0; i < LOGIN_LIMITS.perLogin.points; i++)
      await attempt(h.http, user.login, 'wrong', nextAddress()).expect(401);
    // Blocked now, even with the right password, and from another address.
    const rest = await attempt(h.http, user.login, user.password, nextAddress()).expect(429);
    expect(Number(rest.headers['retry-after'])).toBeGreaterThan(0);
    expect(rest.body).toMatchObject({ code: 'too_many_failed_logins', data: { status: 429 } });
    const gql = await attempt(h.http, user.login, user.password, nextAddress(), 'graphql').expect(429);
    expect(gql.headers['retry-after']).toBeDefined();
    expect(gql.body.errors[0].extensions).toEqual({ code: 'too_many_failed_logins', http: { status: 429 } });
    // Other logins are not affected.
    const other = await createUser(h, 'editor', 'unaffected-login');
    await attempt(h.http, other.login, other.password, nextAddress()).expect(200);
  });

  it('a success clears the login’s failures', async () => {
    const user = await createUser(h, 'author', 'forgetful');
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < LOGIN_LIMITS.perLogin.points - 1; i++)
        await attempt(h.http, user.login, 'wrong', nextAddress()).expect(401);
      await attempt(h.http, user.login, user.password, nextAddress()).expect(200);
    }
  });

  it(`refuses an address after ${LOGIN_LIMITS.perAddress.points} failures, whatever the logins`, async () => {
    const from = nextAddress();
    for (let i = 0; i < LOGIN_LIMITS.perAddress.points; i++)
      await attempt(h.http, `spray-${i}`, 'wrong', from).expect(401);
    await attempt(h.http, 'spray-next', 'wrong', from).expect(429);
    const user = await createUser(h, 'editor', 'elsewhere');
    await attempt(h.http, user.login, user.password, nextAddress()).expect(200);
  });

  it('counts the address the proxy saw, not what the client wrote before it in X-Forwarded-For', async () => {
    const real = nextAddress();
    for (let i = 0; i < LOGIN_LIMITS.perAddress.points; i++)
      await attempt(h.http, `forged-${i}`, 'wrong', `${nextAddress()}, ${real}`).expect(401);
    await attempt(h.http, 'forged-next', 'wrong', `${nextAddress()}, ${real}`).expect(429);
  });

  it('ignores X-Forwarded-For without a trusted proxy (CALENDAR_TRUSTED_PROXIES=0)', async () => {
    const direct = await startHarness({ CALENDAR_TRUSTED_PROXIES: '0' });
    try {
      for (let i = 0; i < LOGIN_LIMITS.perAddress.points; i++)
        await attempt(direct.http, `direct-${i}`, 'wrong', nextAddress()).expect(401);
      await attempt(direct.http, 'direct-next', 'wrong', nextAddress()).expect(429);
    } finally {
      await direct.close();
    }
  });

  describe('across instances', () => {
    const apps: Array<ReturnType<typeof supertest>> = [];
    const connections: Redis[] = [];
    beforeAll(() => {
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
            buildApp({ db: h.db, config: h.config, logger: createLogger('silent'), redis }).callback(),
          ),
        );
      }
    });
    afterAll(() => {
      for (const redis of connections) redis.disconnect();
    });

    it('counts failures in Redis, so the allowance is shared by every instance', async () => {
      await new Promise((done) => setTimeout(done, 100)); // connected
      const user = await createUser(h, 'editor', `shared-${Date.now()}`);
      for (let i = 0; i < LOGIN_LIMITS.perLogin.points; i++)
        await attempt(apps[i % 2]!, user.login, 'wrong', nextAddress()).expect(401);
      await attempt(apps[0]!, user.login, user.password, nextAddress()).expect(429);
      await attempt(apps[1]!, user.login, user.password, nextAddress()).expect(429);
    });

    it('still limits (per instance, in memory) while Redis is unreachable', async () => {
      const user = await createUser(h, 'editor', `no-redis-${Date.now()}`);
      for (let i = 0; i < LOGIN_LIMITS.perLogin.points; i++)
        await attempt(apps[2]!, user.login, 'wrong', nextAddress()).expect(401);
      await attempt(apps[2]!, user.login, user.password, nextAddress()).expect(429);
    });
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
