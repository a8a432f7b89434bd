import { createUser as createUserRecord } from '../../src/auth/users.js';
import type { Role } from '../../src/domain/permissions.js';
import type { Harness } from './harness.js';

let sequence = 0;

/** A user of `role` with a fresh application password: use as supertest `.auth(login, password)`. */
export async function createUser(
  h: Pick<Harness, 'db' | 'config' | 'writes'>,
  role: Role,
  login = `${role}${++sequence}`,
) {
  const { user, password } = await createUserRecord(h, { login, role, email: `${login}@example.com` });
  return { id: user.id, login, password };
}

export function basicAuth(credentials: { login: string; password: string }): string {
  return `Basic ${Buffer.from(`${credentials.login}:${credentials.password}`).toString('base64')}`;
}
