import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { createEvent } from '../helpers/fixtures.js';

const run = promisify(execFile);
const CLI = new URL('../../bin/calendar.js', import.meta.url).pathname;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function calendar(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: { ...process.env, DATABASE_URL: h.config.databaseUrl },
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}

const lastLine = (text: string) => text.trim().split('\n').at(-1) ?? '';
const viewerQuery = { query: '{ viewer { login role } }' };

describe('calendar users', () => {
  it('creates a user of each role whose password works on GraphQL', async () => {
    for (const role of ['administrator', 'editor', 'author', 'contributor', 'subscriber']) {
      const result = await calendar(
        'users',
        'create',
        `cli-${role}`,
        '--role',
        role,
        '--email',
        `${role}@example.com`,
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const password = lastLine(result.stdout);
      expect(password).toMatch(/^(\w{4} ){5}\w{4}$/);
      const res = await h.http.post('/graphql').auth(`cli-${role}`, password).send(viewerQuery).expect(200);
      expect(res.body.data.viewer).toEqual({ login: `cli-${role}`, role });
    }
  }, 60_000);

  it('adds and revokes passwords, and lists users', async () => {
    const added = await calendar('users', 'passwords', 'add', 'cli-editor', '--name', 'laptop');
    const password = lastLine(added.stdout);
    await h.http.post('/graphql').auth('cli-editor', password).send(viewerQuery).expect(200);
    expect((await calendar('users', 'revoke', 'cli-editor')).stdout).toMatch(
      /Revoked 2 application password/,
    );
    await h.http.post('/graphql').auth('cli-editor', password).send(viewerQuery).expect(401);
    const list = await calendar('users', 'list');
    expect(list.stdout).toMatch(/cli-editor/);
  }, 60_000);

  it('explains mistakes with a non-zero exit code', async () => {
    const badRole = await calendar('users', 'create', 'x', '--role', 'king');
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr).toMatch(/Allowed choices are administrator/);
    const duplicate = await calendar('users', 'create', 'cli-author', '--role', 'author');
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/already exists/);
    const missing = await calendar('users', 'delete', 'nobody');
    expect(missing.stderr).toMatch(/No user "nobody"/);
  }, 60_000);

  it('refuses to delete a user who owns events unless they are reassigned', async () => {
    const author = await h.db.user.findUniqueOrThrow({ where: { login: 'cli-author' } });
    const event = await createEvent(h.db, { fields: { authorId: author.id } });
    const refused = await calendar('users', 'delete', 'cli-author');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--reassign/);
    const done = await calendar('users', 'delete', 'cli-author', '--reassign', 'cli-administrator');
    expect(done.code).toBe(0);
    const kept = await h.db.event.findUniqueOrThrow({ where: { id: event.id }, include: { author: true } });
    expect(kept.author?.login).toBe('cli-administrator');
  }, 60_000);
});
