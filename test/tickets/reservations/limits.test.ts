import { randomBytes, randomInt } from 'node:crypto';
import { Redis } from 'ioredis';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/core/config/config.js';
import { createLogger } from '../../../src/core/ops/logger.js';
import { RsvpLimits } from '../../../src/tickets/reservations/limits.js';
import { createEvent } from '../../helpers/fixtures.js';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { testRedisUrl } from '../../helpers/processes/services.js';
import { type Users, basicAuth, withRoles } from '../../helpers/users.js';
import { RSVP, createType } from '../tickets-setup.js';

// Reservation attempts are limited per client (an address, or a signed-in user) and per e-mail, on
// both APIs, counted together: past either limit a request is refused with 429 RATE_LIMITED and
// Retry-After before anything is read or written. Every attempt counts, refused ones too, so the
// limit of an e-mail says nothing about whether it holds a reservation.

const TICKETS = '/calendar/tickets/v1';
const PER_CLIENT = 3;
const PER_EMAIL = 2;
let h: Harness;
let users: Users;
let typeId: number;
let closedTypeId: number;
let address = 0;
// Addresses and e-mails of this run only: the Redis counts outlive it.
const run = `${randomInt(0x10000).toString(16)}:${randomInt(0x10000).toString(16)}`;
/** A client of its own: this app believes the loopback's X-Forwarded-For (it is listed as a proxy). */
const nextAddress = () => `2001:${run}:${(++address).toString(16)}::1`;
let mail = 0;
const nextEmail = () => `person${++mail}.${run.replace(':', '-')}@example.org`;

type Http = ReturnType<typeof supertest>;
const restRsvp = (http: Http, from: string, email: string, ticket = typeId) =>
  http
    .post(`${TICKETS}/attendees`)
    .set('X-Forwarded-For', from)
    .send({ ticket_id: ticket, full_name: 'Lim', email });
const graphqlRsvp = (http: Http, from: string, email: string, ticket = typeId) =>
  http
    .post('/graphql')
    .set('X-Forwarded-For', from)
    .send({ query: RSVP, variables: { input: { ticketTypeId: ticket, name: 'Lim', email } } });

const ENV = {
  CALENDAR_RSVP_PER_ADDRESS: String(PER_CLIENT),
  CALENDAR_RSVP_PER_ADDRESS_SECONDS: '60',
  CALENDAR_RSVP_PER_EMAIL: String(PER_EMAIL),
  CALENDAR_RSVP_PER_EMAIL_SECONDS: '3600',
  CALENDAR_TRUSTED_PROXIES: '127.0.0.1,::1',
};

beforeAll(async () => {
  h = await startHarness(ENV);
  users = await withRoles(h);
  const event = await createEvent(h.db);
  typeId = await createType(h, users.editor, event.id, {});
  closedTypeId = await createType(h, users.editor, event.id, {
    name: 'Closed',
    salesEnd: '2001-01-01 00:00:00',
  });
});
afterAll(() => h?.close());

describe('the settings', () => {
  it('default to 10 a minute per client and 5 an hour per e-mail', () => {
    expect(loadConfig({}).rsvpLimits).toEqual({
      perClient: { attempts: 10, seconds: 60 },
      perEmail: { attempts: 5, seconds: 3600 },
    });
  });

  it('turn a limit off with 0 attempts', async () => {
    const off = new RsvpLimits({
      perClient: { attempts: 0, seconds: 60 },
      perEmail: { attempts: 0, seconds: 60 },
    });
    for (let i = 0; i < 50; i++) await off.take('address:192.0.2.1', 'same@example.org');
    const on = new RsvpLimits({
      perClient: { attempts: 0, seconds: 60 },
      perEmail: { attempts: 1, seconds: 60 },
    });
    await on.take('address:192.0.2.1', 'one@example.org');
    await expect(on.take('address:192.0.2.2', 'ONE@example.org ')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
    });
  });
});

describe('per client', () => {
  it('refuses an address past its allowance with 429 and Retry-After, nothing written; other addresses go on', async () => {
    const from = nextAddress();
    for (let i = 0; i < PER_CLIENT; i++) await restRsvp(h.http, from, nextEmail()).expect(201);
    const before = await h.db.attendee.count();
    const refused = await restRsvp(h.http, from, nextEmail()).expect(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', data: { status: 429 } });
    expect(refused.body.message).toMatch(/too many/i);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.body.data.retry_after).toBe(retryAfter);
    expect(await h.db.attendee.count()).toBe(before);
    await restRsvp(h.http, nextAddress(), nextEmail()).expect(201);
  });

  it('counts both APIs together; GraphQL refuses with RATE_LIMITED and Retry-After', async () => {
    const from = nextAddress();
    await restRsvp(h.http, from, nextEmail()).expect(201);
    const first = await graphqlRsvp(h.http, from, nextEmail()).expect(200);
    expect(first.body.data.rsvp.attendee.status).toBe('GOING');
    await restRsvp(h.http, from, nextEmail()).expect(201);
    const before = await h.db.attendee.count();
    const refused = await graphqlRsvp(h.http, from, nextEmail()).expect(200);
    expect(refused.body.data).toBeNull();
    expect(refused.body.errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      http: { status: 429 },
      data: { retry_after: expect.any(Number) },
    });
    // The HTTP answer says when to try again, as REST's does.
    expect(Number(refused.headers['retry-after'])).toBe(refused.body.errors[0].extensions.data.retry_after);
    expect(first.headers['retry-after']).toBeUndefined();
    expect(await h.db.attendee.count()).toBe(before);
  });

  it('counts a signed-in user as one client, wherever it comes from', async () => {
    const as = basicAuth(users.author);
    for (let i = 0; i < PER_CLIENT; i++)
      await restRsvp(h.http, nextAddress(), nextEmail()).set('Authorization', as).expect(201);
    await restRsvp(h.http, nextAddress(), nextEmail()).set('Authorization', as).expect(429);
  });
});

describe('per e-mail', () => {
  it('refuses an e-mail past its allowance from any address, in any case', async () => {
    const email = nextEmail();
    await restRsvp(h.http, nextAddress(), email).expect(201);
    await graphqlRsvp(h.http, nextAddress(), email.toUpperCase()).expect(200);
    const before = await h.db.attendee.count();
    expect((await restRsvp(h.http, nextAddress(), ` ${email} `).expect(429)).body.code).toBe('RATE_LIMITED');
    expect(await h.db.attendee.count()).toBe(before);
  });

  it('counts attempts, refused ones too: a limited e-mail answers alike whether it holds reservations or not', async () => {
    const holder = nextEmail();
    const never = nextEmail();
    for (let i = 0; i < PER_EMAIL; i++) {
      await restRsvp(h.http, nextAddress(), holder).expect(201);
      // Outside its sales window: refused, yet an attempt.
      const closed = await restRsvp(h.http, nextAddress(), never, closedTypeId).expect(409);
      expect(closed.body.code).toBe('SALES_CLOSED');
    }
    expect(await h.db.attendee.count({ where: { email: never } })).toBe(0);
    expect(await h.db.attendee.count({ where: { email: holder } })).toBe(PER_EMAIL);
    const answers = [
      await restRsvp(h.http, nextAddress(), holder),
      await restRsvp(h.http, nextAddress(), never),
    ];
    const shapes = answers.map((answer) => {
      const { request_id: _id, retry_after: _after, ...data } = answer.body.data;
      return { status: answer.status, code: answer.body.code, message: answer.body.message, data };
    });
    expect(shapes[0]).toEqual(shapes[1]);
    expect(shapes[0]!.status).toBe(429);
  });
});

describe('across instances, in Redis', () => {
  const connections: Redis[] = [];
  const apps: Http[] = [];
  const namespace = `calendar-test-${randomBytes(6).toString('hex')}`;
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const redis = new Redis(testRedisUrl(), { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
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
    await Promise.all(
      connections.map(
        (redis) =>
          new Promise<void>((ready) =>
            redis.status === 'ready' ? ready() : redis.once('ready', () => ready()),
          ),
      ),
    );
  });
  afterAll(() => {
    for (const redis of connections) redis.disconnect();
  });

  it('shares the counts: an address and an e-mail are limited on every instance', async () => {
    const from = nextAddress();
    for (let i = 0; i < PER_CLIENT; i++) await restRsvp(apps[i % 2]!, from, nextEmail()).expect(201);
    await restRsvp(apps[0]!, from, nextEmail()).expect(429);
    expect((await graphqlRsvp(apps[1]!, from, nextEmail())).body.errors[0].extensions.code).toBe(
      'RATE_LIMITED',
    );
    const email = nextEmail();
    await restRsvp(apps[0]!, nextAddress(), email).expect(201);
    await restRsvp(apps[1]!, nextAddress(), email).expect(201);
    await restRsvp(apps[0]!, nextAddress(), email).expect(429);
    // The counts never hold an e-mail address itself.
    const keys = await connections[0]!.keys(`${namespace}:*`);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.join(' ')).not.toContain('example.org');
    await connections[0]!.del(...keys);
  });
});
