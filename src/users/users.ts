import type { Scope } from '../core/context/context.js';
import type { Db } from '../core/db/client.js';
import { ANONYMOUS, type Role, isRole } from '../core/rules/permissions.js';
import type { WriteScope } from '../core/db/transactions.js';
import { ApiError } from '../core/errors/errors.js';
import {
  generateApplicationPassword,
  hashApplicationPassword,
  passwordLookup,
  verifyApplicationPassword,
} from './application-passwords.js';
import type { Logger } from '../core/ops/logger.js';
import { LOGIN_PATTERN, LOGIN_RULE } from '../core/config/logins.js';

/** Active application passwords a user may hold (each failed login must stay one argon2 check). */
export const MAX_APPLICATION_PASSWORDS = 25;

// User administration shared by the CLI, the start-up bootstrap and GraphQL. Every change runs
// through the write pipeline, like any other write.

/** Where user administration writes: the database, its settings and the write pipeline. */
export type UserAdmin = Pick<Scope, 'db' | 'config' | 'writes'>;

function write<T>(admin: UserAdmin, work: (w: WriteScope) => Promise<T>): Promise<T> {
  return admin.writes.run({ ...admin, viewer: ANONYMOUS }, work);
}

export class UserAdminError extends Error {}

function assertRole(role: string): Role {
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
  admin: UserAdmin,
  userId: number,
  name = 'default',
  password = generateApplicationPassword(),
) {
  const hash = await hashApplicationPassword(password);
  const record = await write(admin, async (w) => {
    // The user's row is locked, so two concurrent creates cannot both pass the cap.
    await w.lockRows('User', [userId]);
    const active = await w.tx.applicationPassword.count({ where: { userId, revokedAt: null } });
    if (active >= MAX_APPLICATION_PASSWORDS) {
      throw new ApiError(
        409,
        'application_password_limit',
        `A user may hold at most ${MAX_APPLICATION_PASSWORDS} active application passwords; revoke one first.`,
      );
    }
    return w.tx.applicationPassword.create({
      data: { userId, name, hash, lookup: passwordLookup(password) },
    });
  });
  return { id: record.id, name: record.name, password };
}

export async function createUser(
  admin: UserAdmin,
  input: { login: string; role: string; email?: string; displayName?: string; password?: string },
) {
  if (!LOGIN_PATTERN.test(input.login)) {
    throw new UserAdminError(LOGIN_RULE);
  }
  const role = assertRole(input.role);
  const password = input.password ?? generateApplicationPassword();
  const hash = await hashApplicationPassword(password);
  return write(admin, async (w) => {
    if (await w.tx.user.findUnique({ where: { login: input.login } }))
      throw new UserAdminError(`User "${input.login}" already exists.`);
    const user = await w.tx.user.create({
      data: {
        login: input.login,
        role,
        email: input.email ?? null,
        displayName: input.displayName ?? input.login,
      },
    });
    const record = await w.tx.applicationPassword.create({
      data: { userId: user.id, name: 'initial', hash, lookup: passwordLookup(password) },
    });
    w.changed('user', user.id, 'created');
    return { user, id: record.id, name: record.name, password };
  });
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

export async function addPasswordFor(admin: UserAdmin, login: string, name?: string) {
  const user = await findUser(admin.db, login);
  return addApplicationPassword(admin, user.id, name);
}

/** Revokes every active password of the user (or only `passwordId`); returns how many. */
export async function revokePasswords(admin: UserAdmin, login: string, passwordId?: number): Promise<number> {
  const user = await findUser(admin.db, login);
  const count = await write(admin, async (w) => {
    const revoked = await w.tx.applicationPassword.updateMany({
      where: { userId: user.id, revokedAt: null, ...(passwordId ? { id: passwordId } : {}) },
      data: { revokedAt: new Date() },
    });
    // Requests with a revoked password are anonymous from now on: what they may see changes.
    if (revoked.count) w.changed('user', user.id, 'updated');
    return revoked.count;
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
  admin: UserAdmin,
  login: string,
  reassignTo?: string,
): Promise<{ reassigned: number }> {
  const user = await findUser(admin.db, login);
  return write(admin, async (w) => {
    const { tx } = w;
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
      // The records show their new author: each is recorded as updated.
      const select = { id: true } as const;
      for (const { id } of await tx.event.findMany({ where, select })) w.changed('event', id, 'updated');
      for (const { id } of await tx.venue.findMany({ where, select })) w.changed('venue', id, 'updated');
      for (const { id } of await tx.organizer.findMany({ where, select }))
        w.changed('organizer', id, 'updated');
      const data = { authorId: heir.id };
      reassigned += (await tx.event.updateMany({ where, data })).count;
      reassigned += (await tx.venue.updateMany({ where, data })).count;
      reassigned += (await tx.organizer.updateMany({ where, data })).count;
      reassigned += (await tx.media.updateMany({ where, data })).count;
    }
    await tx.user.delete({ where: { id: user.id } });
    w.changed('user', user.id, 'deleted');
    return { reassigned };
  });
}

/** What the start-up bootstrap found and did (each outcome is also logged). */
export type BootstrapOutcome =
  'unset' | 'incomplete' | 'created' | 'present' | 'other-role' | 'other-password';

/**
 * `CALENDAR_ADMIN_USER` + `CALENDAR_ADMIN_PASSWORD`: the administrator an operator asks for at start-up.
 * It is created whenever no user has that login, whatever else the database holds (a seeded or
 * imported one has users already). A login that exists is never changed: when it is not an
 * administrator, or the password is not one of its active ones, the start logs a warning naming the
 * variable, since the operator's credentials would otherwise fail on every write without a word.
 */
export async function bootstrapAdministrator(
  admin: UserAdmin,
  log: Pick<Logger, 'info' | 'warn'>,
  login?: string,
  password?: string,
): Promise<BootstrapOutcome> {
  if (!login && !password) return 'unset';
  if (!login || !password) {
    log.warn(
      `${login ? 'CALENDAR_ADMIN_USER' : 'CALENDAR_ADMIN_PASSWORD'} is set without ` +
        `${login ? 'CALENDAR_ADMIN_PASSWORD' : 'CALENDAR_ADMIN_USER'}: no administrator is created`,
    );
    return 'incomplete';
  }
  if (!(await admin.db.user.findUnique({ where: { login } }))) {
    try {
      await createUser(admin, { login, role: 'administrator', password });
      log.info(
        { login },
        `created administrator "${login}" from CALENDAR_ADMIN_USER and CALENDAR_ADMIN_PASSWORD`,
      );
      return 'created';
    } catch (error) {
      // Another instance starting beside this one may have created it first: judge that user below.
      if (!(await admin.db.user.findUnique({ where: { login } }))) throw error;
    }
  }
  const user = await admin.db.user.findUniqueOrThrow({
    where: { login },
    include: { applicationPasswords: { where: { revokedAt: null }, select: { hash: true } } },
  });
  if (user.role !== 'administrator') {
    log.warn(
      { login, role: user.role },
      `CALENDAR_ADMIN_USER names "${login}", an existing ${user.role}, not an administrator: nothing changed ` +
        '(name a login that does not exist yet to have it created as an administrator)',
    );
    return 'other-role';
  }
  // One argon2 check per active password (at most MAX_APPLICATION_PASSWORDS), once per start.
  let matches = false;
  for (const { hash } of user.applicationPasswords) {
    if (await verifyApplicationPassword(hash, password)) {
      matches = true;
      break;
    }
  }
  if (!matches) {
    log.warn(
      { login },
      `CALENDAR_ADMIN_PASSWORD is not an active application password of the existing administrator "${login}" ` +
        '(CALENDAR_ADMIN_USER): nothing changed, and that password will not log in ' +
        `(\`npx calendar users passwords add ${login}\` makes a new one)`,
    );
    return 'other-password';
  }
  log.info({ login }, `administrator "${login}" (CALENDAR_ADMIN_USER) exists with that password`);
  return 'present';
}
