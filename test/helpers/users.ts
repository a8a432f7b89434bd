import { createUser as createUserRecord } from '../../src/users/users.js';
import { ROLES, type Role } from '../../src/core/rules/permissions.js';
import { type Harness, startHarness } from './harness.js';

/** A user's login and one of its application passwords (supertest `.auth(login, password)`). */
export interface Credentials {
  id: number;
  login: string;
  password: string;
}

/** One user of each role, by role. */
export type Users = Record<Role, Credentials>;

let sequence = 0;

/** A user of `role` with a fresh application password: use as supertest `.auth(login, password)`. */
export async function createUser(
  h: Pick<Harness, 'db' | 'config' | 'writes'>,
  role: Role,
  login = `${role}${++sequence}`,
): Promise<Credentials> {
  const { user, password } = await createUserRecord(h, { login, role, email: `${login}@example.com` });
  return { id: user.id, login, password };
}

/** The role set-up most files share: one user of every role, created in the order of `ROLES`. */
export async function withRoles(h: Pick<Harness, 'db' | 'config' | 'writes'>): Promise<Users> {
  const users: Partial<Users> = {};
  for (const role of ROLES) users[role] = await createUser(h, role);
  return users as Users;
}

/** The app on a database of its own (`startHarness(env)`) with one user of every role. */
export async function startWithRoles(env?: Record<string, string>): Promise<{ h: Harness; users: Users }> {
  const h = await startHarness(env);
  return { h, users: await withRoles(h) };
}

export function basicAuth(credentials: Pick<Credentials, 'login' | 'password'>): string {
  return `Basic ${Buffer.from(`${credentials.login}:${credentials.password}`).toString('base64')}`;
}
