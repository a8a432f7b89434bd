import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { addApplicationPassword, bootstrapAdministrator, revokePasswords } from '../../src/users/users.js';
import { API, type Harness, startHarness } from '../helpers/harness.js';
import { basicAuth, createUser } from '../helpers/users.js';
import { createEvent } from '../helpers/fixtures.js';

let h: Harness;
const logLines: string[] = [];
let editor: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  const sink = new Writable({ write: (chunk, _enc, done) => (logLines.push(String(chunk)), done()) });
  h = await startHarness({}, pino({ level: 'trace' }, sink));
  editor = await createUser(h, 'editor', 'eddie');
  await createEvent(h.db);
});
afterAll(() => h.close());

const viewerQuery = { query: '{ viewer { login role capabilities } }' };

describe('HTTP Basic with application passwords', () => {
  it('identifies the user on REST and GraphQL', async () => {
    await h.http.get(`${API}/events`).auth(editor.login, editor.password).expect(200);
    const res = await h.http
      .post('/graphql')
      .auth(editor.login, editor.password)
      .send(viewerQuery)
      .expect(200);
    expect(res.body.data.viewer).toMatchObject({ login: 'eddie', role: 'editor' });
    expect(res.body.data.viewer.capabilities).toContain('manage_terms');
    expect(res.body.data.viewer.capabilities).not.toContain('manage_users');
  });

  it('accepts the password with or without its spaces', async () => {
    const res = await h.http
      .post('/graphql')
      .auth(editor.login, editor.password.replace(/ /g, ''))
      .send(viewerQuery)
      .expect(200);
    expect(res.body.data.viewer.login).toBe('eddie');
  });

  it('is anonymous without a header', async () => {
    const res = await h.http.post('/graphql').send(viewerQuery).expect(200);
    expect(res.body.data.viewer).toBeNull();
  });

  it('refuses a wrong password with 401 incorrect_password', async () => {
    const res = await h.http
      .get(`${API}/events`)
      .auth(editor.login, 'abcd efgh ijkl mnop qrst uvwx')
      .expect(401);
    expect(res.body).toEqual({
      code: 'incorrect_password',
      message: 'The provided password is an invalid application password.',
      data: { status: 401, request_id: expect.any(String) },
    });
    const gql = await h.http.post('/graphql').auth(editor.login, 'nope').send(viewerQuery).expect(401);
    expect(gql.body.errors[0].extensions).toEqual({ code: 'incorrect_password', http: { status: 401 } });
  });

  it('answers an unknown login exactly as a wrong password (D23: no account enumeration)', async () => {
    const res = await h.http.get(`${API}/events`).auth('ghost', 'whatever').expect(401);
    expect(res.body).toEqual({
      code: 'incorrect_password',
      message: 'The provided password is an invalid application password.',
      data: { status: 401, request_id: expect.any(String) },
    });
  });

  it('refuses a malformed header with 401', async () => {
    for (const header of [
      'Basic !!!notbase64',
      `Basic ${Buffer.from('no-colon').toString('base64')}`,
      'Bearer abc',
    ]) {
      const res = await h.http.get(`${API}/events`).set('authorization', header).expect(401);
      expect(res.body.code).toBe('invalid_authorization_header');
    }
  });

  it('stops accepting a revoked password at once, even after a successful use', async () => {
    const user = await createUser(h, 'author');
    await h.http.get(`${API}/events`).auth(user.login, user.password).expect(200);
    await revokePasswords(h, user.login);
    const res = await h.http.get(`${API}/events`).auth(user.login, user.password).expect(401);
    expect(res.body.code).toBe('incorrect_password');
  });

  it('takes a role change into account at once', async () => {
    const user = await createUser(h, 'subscriber');
    await h.http.post('/graphql').auth(user.login, user.password).send(viewerQuery).expect(200);
    await h.db.user.update({ where: { id: user.id }, data: { role: 'author' } });
    const res = await h.http.post('/graphql').auth(user.login, user.password).send(viewerQuery).expect(200);
    expect(res.body.data.viewer.role).toBe('author');
  });

  it('records when a password was last used', async () => {
    const user = await createUser(h, 'contributor');
    await h.http.get(`${API}/events`).auth(user.login, user.password).expect(200);
    await expect
      .poll(
        async () => (await h.db.applicationPassword.findFirst({ where: { userId: user.id } }))?.lastUsedAt,
      )
      .toBeInstanceOf(Date);
  });

  it('stores only an argon2id hash', async () => {
    const stored = await h.db.applicationPassword.findFirstOrThrow({ where: { userId: editor.id } });
    expect(stored.hash).toMatch(/^\$argon2id\$/);
    expect(stored.hash).not.toContain(editor.password.replace(/ /g, ''));
  });

  it('never writes a credential to the logs', async () => {
    await h.http.get(`${API}/events/abc`).set('authorization', basicAuth(editor)).expect(404);
    await h.http.post('/graphql').set('authorization', basicAuth(editor)).send({ query: '{ nope }' });
    await h.http.get(`${API}/events`).auth(editor.login, 'wrong-secret-123').expect(401);
    const logs = logLines.join('');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [
      editor.password,
      editor.password.replace(/ /g, ''),
      'wrong-secret-123',
      basicAuth(editor).slice(6),
    ]) {
      expect(logs).not.toContain(secret);
    }
  });
});

describe('GraphQL account mutations', () => {
  it('refuses anonymous callers with rest_forbidden 401', async () => {
    const res = await h.http
      .post('/graphql')
      .send({ query: 'mutation { createApplicationPassword(name: "x") { password } }' })
      .expect(200);
    expect(res.body.errors[0].extensions).toEqual({ code: 'rest_forbidden', http: { status: 401 } });
  });

  it('lets a user add a password that then works, and revoke it', async () => {
    const user = await createUser(h, 'subscriber');
    const created = await h.http
      .post('/graphql')
      .auth(user.login, user.password)
      .send({ query: 'mutation { createApplicationPassword(name: "phone") { id password } }' })
      .expect(200);
    const { id, password } = created.body.data.createApplicationPassword;
    await h.http.post('/graphql').auth(user.login, password).send(viewerQuery).expect(200);
    await h.http
      .post('/graphql')
      .auth(user.login, user.password)
      .send({ query: `mutation { revokeApplicationPassword(id: ${id}) { revokedAt } }` })
      .expect(200);
    await h.http.post('/graphql').auth(user.login, password).send(viewerQuery).expect(401);
  });
});

describe('first administrator', () => {
  // Any database state, and an existing login left alone: test/core/ops/bootstrap.test.ts.
  it('is created from the environment once', async () => {
    const fresh = await startHarness();
    const log = { info: () => undefined, warn: () => undefined };
    try {
      expect(await bootstrapAdministrator(fresh, log, 'root', 'a-long-secret-password')).toBe('created');
      expect(await bootstrapAdministrator(fresh, log, 'root', 'a-long-secret-password')).toBe('present');
      const res = await fresh.http
        .post('/graphql')
        .auth('root', 'a-long-secret-password')
        .send(viewerQuery)
        .expect(200);
      expect(res.body.data.viewer.role).toBe('administrator');
      await addApplicationPassword(fresh, (await fresh.db.user.findFirstOrThrow()).id, 'second');
    } finally {
      await fresh.close();
    }
  });
});
