import type { Db } from '../db/client.js';
import { type Role, isRole } from '../domain/permissions.js';
import { generateApplicationPassword, hashApplicationPassword } from './application-passwords.js';

// User administration shared by the CLI, the start-up bootstrap and GraphQL.

export class UserAdminError extends Error {}

const LOGIN = /^[a-z0-9][a-z0-9._@-]{0,59}$/i;

export function assertRole(role: string): Role {
  if (!isRole(role))
    throw new UserAdminError(
      `Unknown role "${role}". Use one of: administrator, editor, author, contributor, subscriber.`,
    );
  return role;
}

async function findUser(db: Db, login: string) {
  const user = await db.user.findUnique({ where: { login } });
  if (!user) throw new UserAdminError(`No user "${login}". See \`calendar users list\`.`);
  return user;
}

export async function addApplicationPassword(
  db: Db,
  userId: number,
  name = 'default',
  password = generateApplicationPassword(),
) {
  const record = await db.applicationPassword.create({
    data: { userId, name, hash: await hashApplicationPassword(password) },
  });
  return { id: record.id, name: record.name, password };
}

export async function createUser(
  db: Db,
  input: { login: string; role: string; email?: string; displayName?: string; password?: string },
) {
  if (!LOGIN.test(input.login)) {
    throw new UserAdminError('A login is 1–60 characters: letters, digits, and . _ @ - (not first).');
  }
  const role = assertRole(input.role);
  if (await db.user.findUnique({ where: { login: input.login } }))
    throw new UserAdminError(`User "${input.login}" already exists.`);
  const user = await db.user.create({
    data: {
      login: input.login,
      role,
      email: input.email ?? null,
      displayName: input.displayName ?? input.login,
    },
  });
  const credential = await addApplicationPassword(db, user.id, 'initial', input.password);
  return { user, ...credential };
}

export async function listUsers(db: Db) {
  const users = await db.user.findMany({
    orderBy: { id: 'asc' },
    include: { applicationPasswords: { where: { revokedAt: null }, select: { id: true, lastUsedAt: true } } },
  });
  return users.map((user) => ({
    id: user.id,
    login: user.login,
    role: user.role,
    email: user.email ?? '',
    activePasswords: user.applicationPasswords.length,
    lastUsedAt:
      user.applicationPasswords
        .map((p) => p.lastUsedAt)
        .filter((d): d is Date => d !== null)
        .sort((a, b) => +b - +a)[0] ?? null,
  }));
}

export async function addPasswordFor(db: Db, login: string, name?: string) {
  const user = await findUser(db, login);
  return addApplicationPassword(db, user.id, name);
}

/** Revokes every active password of the user (or only `passwordId`); returns how many. */
export async function revokePasswords(db: Db, login: string, passwordId?: number): Promise<number> {
  const user = await findUser(db, login);
  const { count } = await db.applicationPassword.updateMany({
    where: { userId: user.id, revokedAt: null, ...(passwordId ? { id: passwordId } : {}) },
    data: { revokedAt: new Date() },
  });
  if (passwordId && count === 0)
    throw new UserAdminError(`User "${login}" has no active password ${passwordId}.`);
  return count;
}

/**
 * Deletes a user. Their events, venues, organizers and media are kept: they move to `reassignTo`,
 * and without it the command refuses when the user owns anything.
 */
export async function deleteUser(
  db: Db,
  login: string,
  reassignTo?: string,
): Promise<{ reassigned: number }> {
  const user = await findUser(db, login);
  return db.$transaction(async (tx) => {
    const where = { authorId: user.id };
    const owned =
      (await tx.event.count({ where })) +
      (await tx.venue.count({ where })) +
      (await tx.organizer.count({ where })) +
      (await tx.media.count({ where }));
    let reassigned = 0;
    if (owned > 0) {
      if (!reassignTo)
        throw new UserAdminError(
          `User "${login}" owns ${owned} record(s); pass --reassign <login> to move them to another user.`,
        );
      const heir = await tx.user.findUnique({ where: { login: reassignTo } });
      if (!heir || heir.id === user.id)
        throw new UserAdminError(`Cannot reassign to "${reassignTo}": no such other user.`);
      const data = { authorId: heir.id };
      reassigned += (await tx.event.updateMany({ where, data })).count;
      reassigned += (await tx.venue.updateMany({ where, data })).count;
      reassigned += (await tx.organizer.updateMany({ where, data })).count;
      reassigned += (await tx.media.updateMany({ where, data })).count;
    }
    await tx.user.delete({ where: { id: user.id } });
    return { reassigned };
  });
}

/** `CALENDAR_ADMIN_USER` + `CALENDAR_ADMIN_PASSWORD` create the first administrator of an empty database. */
export async function bootstrapAdministrator(db: Db, login?: string, password?: string): Promise<boolean> {
  if (!login || !password || (await db.user.count()) > 0) return false;
  await createUser(db, { login, role: 'administrator', password });
  return true;
}
