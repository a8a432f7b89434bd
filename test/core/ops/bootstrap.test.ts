import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCounts } from '../../../scripts/sample-data/generate.js';
import { SAMPLE_AUTHOR, seedDatabase } from '../../../scripts/sample-data/seed.js';
import { bootstrapAdministrator } from '../../../src/users/users.js';
import { ConfigError, databaseProviderOf, loadConfig } from '../../../src/core/config/config.js';
import { type Db, createDb } from '../../../src/core/db/client.js';
import { migrateDatabase } from '../../../src/core/db/migrate.js';
import { freshDatabase } from '../../helpers/database.js';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { type ServerProcess, startServerProcess } from '../../helpers/processes/server-process.js';
import { createUser } from '../../helpers/users.js';

// CALENDAR_ADMIN_USER / CALENDAR_ADMIN_PASSWORD (#30): the administrator is created whenever no user
// has that login — on a seeded database too, which has its sample author before the server ever
// starts — and a login that exists is left alone with a warning naming the variable, never silently.

const LOGIN = 'me';
const PASSWORD = 'my own chosen password';
const WHEN = { start_date: '2031-05-01 10:00:00', end_date: '2031-05-01 11:00:00' };

let database: { url: string; drop: () => Promise<void> };
let db: Db;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  await migrateDatabase(database.url);
  db = await createDb(database.url);
  await seedDatabase(db, databaseProviderOf(database.url), {
    seed: 7,
    now: new Date(),
    events: 5,
    ...defaultCounts(5),
    reset: false,
  });
});

afterAll(async () => {
  for (const server of servers) server.kill();
  await Promise.all(servers.map((server) => server.exited));
  await db?.$disconnect();
  await database?.drop();
});

async function start(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServerProcess({ DATABASE_URL: database.url, CALENDAR_WEBHOOKS: 'off', ...env });
  servers.push(server);
  return server;
}

function logLines(output: string): Array<{ level: number; msg: string }> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string });
}

const basic = (login: string, password: string) =>
  `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

async function restWrite(server: ServerProcess, password: string, title: string) {
  return fetch(`http://127.0.0.1:${server.port}${API}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: basic(LOGIN, password) },
    body: JSON.stringify({ title, ...WHEN }),
  });
}

async function graphqlWrite(server: ServerProcess, password: string, title: string) {
  const response = await fetch(`http://127.0.0.1:${server.port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: basic(LOGIN, password) },
    body: JSON.stringify({
      query: `mutation($input: CreateEventInput!) { createEvent(input: $input) { databaseId title } }`,
      variables: { input: { title, startDate: WHEN.start_date, endDate: WHEN.end_date } },
    }),
  });
  return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: unknown } };
}

describe('a seeded database started with CALENDAR_ADMIN_USER and CALENDAR_ADMIN_PASSWORD', () => {
  it('gets that administrator, who writes on REST and GraphQL', async () => {
    // What `npm run demo` leaves before the server starts: users already, none of them the operator.
    expect(await db.user.findUnique({ where: { login: SAMPLE_AUTHOR } })).not.toBeNull();
    expect(await db.user.findUnique({ where: { login: LOGIN } })).toBeNull();

    const server = await start({ CALENDAR_ADMIN_USER: LOGIN, CALENDAR_ADMIN_PASSWORD: PASSWORD });
    const created = logLines(server.output()).find((line) => line.msg.includes(`administrator "${LOGIN}"`));
    expect(created).toMatchObject({ level: 30, msg: expect.stringMatching(/^created administrator "me"/) });
    expect(server.output()).not.toContain(PASSWORD);

    const rest = await restWrite(server, PASSWORD, 'Written over REST');
    expect(rest.status, server.output()).toBe(201);
    expect(((await rest.json()) as { title: string }).title).toBe('Written over REST');
    const graphql = await graphqlWrite(server, PASSWORD, 'Written over GraphQL');
    expect(graphql.body.errors).toBeUndefined();
    expect(graphql.body.data).toMatchObject({ createEvent: { title: 'Written over GraphQL' } });
    expect((await db.user.findUniqueOrThrow({ where: { login: LOGIN } })).role).toBe('administrator');
    // Its stdout is a pipe here: the welcome block is for terminals only.
    expect(server.output()).not.toContain('The calendar service is running');
  });
});

describe('bootstrapAdministrator', () => {
  let h: Harness;
  const lines: Array<{ level: number; msg: string; login?: string }> = [];
  const log = pino(
    { level: 'info' },
    new Writable({ write: (chunk, _encoding, done) => (lines.push(JSON.parse(String(chunk))), done()) }),
  );

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.close());

  it('leaves a login of another role as it is, with a warning naming CALENDAR_ADMIN_USER', async () => {
    const editor = await createUser(h, 'editor', 'ed-the-editor');
    const before = await h.db.user.findUniqueOrThrow({
      where: { login: editor.login },
      include: { applicationPasswords: true },
    });
    lines.length = 0;
    expect(await bootstrapAdministrator(h, log, editor.login, editor.password)).toBe('other-role');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        login: editor.login,
        msg: expect.stringMatching(/^CALENDAR_ADMIN_USER names "ed-the-editor", an existing editor/),
      }),
    ]);
    expect(
      await h.db.user.findUniqueOrThrow({
        where: { login: editor.login },
        include: { applicationPasswords: true },
      }),
    ).toEqual(before);
    // Still an editor: the password it holds cannot manage users.
    const viewer = await h.http
      .post('/graphql')
      .auth(editor.login, editor.password)
      .send({ query: '{ viewer { role } }' })
      .expect(200);
    expect(viewer.body.data.viewer.role).toBe('editor');
  });

  it('leaves an administrator whose password is another as it is, with a warning', async () => {
    const admin = await createUser(h, 'administrator', 'an-admin');
    const before = await h.db.user.findUniqueOrThrow({
      where: { login: admin.login },
      include: { applicationPasswords: true },
    });
    lines.length = 0;
    expect(await bootstrapAdministrator(h, log, admin.login, PASSWORD)).toBe('other-password');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        login: admin.login,
        msg: expect.stringMatching(
          /^CALENDAR_ADMIN_PASSWORD is not an active application password of the existing administrator "an-admin"/,
        ),
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain(PASSWORD);
    expect(
      await h.db.user.findUniqueOrThrow({
        where: { login: admin.login },
        include: { applicationPasswords: true },
      }),
    ).toEqual(before);
    const write = { title: 'Refused', ...WHEN };
    await h.http.post(`${API}/events`).auth(admin.login, PASSWORD).send(write).expect(401);
    await h.http
      .post('/graphql')
      .auth(admin.login, PASSWORD)
      .send({ query: '{ viewer { role } }' })
      .expect(401);
    await h.http.post(`${API}/events`).auth(admin.login, admin.password).send(write).expect(201);
  });

  it('creates the administrator beside other users, and finds it there on the next start', async () => {
    await createUser(h, 'author');
    lines.length = 0;
    expect(await bootstrapAdministrator(h, log, 'second-admin', PASSWORD)).toBe('created');
    expect(await bootstrapAdministrator(h, log, 'second-admin', PASSWORD)).toBe('present');
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [30, expect.stringMatching(/^created administrator "second-admin"/)],
      [30, expect.stringMatching(/^administrator "second-admin" \(CALENDAR_ADMIN_USER\) exists/)],
    ]);
    await h.http
      .post(`${API}/events`)
      .auth('second-admin', PASSWORD)
      .send({ title: 'By the second administrator', ...WHEN })
      .expect(201);
  });

  it('warns when only one of the two variables is set, and creates nobody', async () => {
    const users = await h.db.user.count();
    lines.length = 0;
    expect(await bootstrapAdministrator(h, log, 'half-set', undefined)).toBe('incomplete');
    expect(await bootstrapAdministrator(h, log, undefined, PASSWORD)).toBe('incomplete');
    expect(await bootstrapAdministrator(h, log, undefined, undefined)).toBe('unset');
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [40, expect.stringMatching(/^CALENDAR_ADMIN_USER is set without CALENDAR_ADMIN_PASSWORD/)],
      [40, expect.stringMatching(/^CALENDAR_ADMIN_PASSWORD is set without CALENDAR_ADMIN_USER/)],
    ]);
    expect(await h.db.user.count()).toBe(users);
  });
});

describe('CALENDAR_ADMIN_USER at start-up', () => {
  it('refuses a login user administration would refuse, naming the variable, before anything starts', () => {
    for (const login of ['has spaces', '-dash-first', 'x'.repeat(61), '']) {
      expect(() => loadConfig({ CALENDAR_ADMIN_USER: login })).toThrow(ConfigError);
      expect(() => loadConfig({ CALENDAR_ADMIN_USER: login })).toThrow(/CALENDAR_ADMIN_USER/);
    }
    expect(loadConfig({ CALENDAR_ADMIN_USER: 'jane.doe@example.org' }).adminUser).toBe(
      'jane.doe@example.org',
    );
  });
});
