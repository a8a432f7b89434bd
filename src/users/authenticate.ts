import { createHash } from 'node:crypto';
import DataLoader from 'dataloader';
import type { Db } from '../core/db/client.js';
import { ApiError } from '../core/errors/errors.js';
import { Prisma } from '../generated/sqlite/client.js';
import { ANONYMOUS, type Viewer, isRole } from '../core/rules/permissions.js';
import { passwordLookup, verifyApplicationPassword, verifyNothing } from './application-passwords.js';
import { LoginLimits } from './login-limits.js';

// HTTP Basic with application passwords, as WordPress clients send it. argon2 makes every check cost
// ~15 ms, so a successful check is remembered (by a SHA-256 of the credential, never the credential)
// for a minute; the password row is still read on every request, so a revocation or a role change
// takes effect at once on every instance.

const REMEMBER_MS = 60_000;
const REMEMBER_MAX = 10_000;
const LAST_USED_EVERY_MS = 60_000;

const INCORRECT_PASSWORD = () =>
  new ApiError(401, 'incorrect_password', 'The provided password is an invalid application password.');
const MALFORMED = () =>
  new ApiError(
    401,
    'invalid_authorization_header',
    'The Authorization header must be "Basic base64(login:password)".',
  );

interface Remembered {
  passwordId: number;
  expiresAt: number;
}

/** An active (unrevoked) application password and its user, as one statement reads them. */
type ActivePassword = { id: number; userId: number; login: string; role: string };

/** A password row the login's check may verify, with its user. */
type Candidate = ActivePassword & { hash: string; lookup: string | null };

const ACTIVE_COLUMNS = Prisma.sql`p."id" AS "id", u."id" AS "userId", u."login" AS "login", u."role" AS "role"`;

export class Authenticator {
  private readonly verified = new Map<string, Remembered>();
  private readonly lastUsedWritten = new Map<number, number>();
  /**
   * Concurrent requests (a client's connection pool) check their password rows in one query per tick;
   * nothing is cached across ticks, so a revocation is seen by the next request.
   */
  private readonly passwordRows: DataLoader<number, ActivePassword | null>;

  constructor(
    private readonly db: Db,
    private readonly limits: LoginLimits = new LoginLimits(),
  ) {
    this.passwordRows = new DataLoader(
      async (ids) => {
        // The password and its user in one statement (Prisma reads a relation apart on SQLite).
        const rows = await db.$queryRaw<ActivePassword[]>`SELECT ${ACTIVE_COLUMNS}
          FROM "ApplicationPassword" p JOIN "User" u ON u."id" = p."userId"
          WHERE p."id" IN (${Prisma.join([...ids])}) AND p."revokedAt" IS NULL`;
        const byId = new Map(rows.map((row) => [Number(row.id), row]));
        return ids.map((id) => byId.get(id) ?? null);
      },
      { cache: false },
    );
  }

  /**
   * The viewer behind an `Authorization` header; no header → anonymous; bad credentials → 401
   * `incorrect_password`, the same for an unknown login (D23), after one argon2 check either way;
   * too many failures from the client address, or for the login from it → 429 (src/users/login-limits.ts).
   */
  async viewerFor(authorization: string | undefined, address = 'unknown'): Promise<Viewer> {
    if (!authorization) return ANONYMOUS;
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
    if (!match) throw MALFORMED();
    const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
    // A NUL never reaches a database query (PostgreSQL would refuse it with an error, not a no).
    if (decoded.includes('\0'))
      throw new ApiError(400, 'invalid_authorization_header', 'Credentials may not contain NUL characters.');
    const colon = decoded.indexOf(':');
    if (colon <= 0) throw MALFORMED();
    const login = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);

    const key = createHash('sha256').update(decoded).digest('base64');
    const remembered = this.verified.get(key);
    if (remembered && remembered.expiresAt > Date.now()) {
      const viewer = await this.activeViewer(remembered.passwordId, login);
      if (viewer) {
        await this.limits.rememberedSuccess(login, address);
        return viewer;
      }
      this.verified.delete(key);
    }

    // Only a password not of the generated kind can be a chosen one: the login's slow-down applies.
    const lookup = passwordLookup(password);
    const attempt = await this.limits.begin(login, address, lookup === null);
    let viewer: Viewer | null;
    try {
      viewer = await this.check(login, password, lookup, key);
    } catch (error) {
      await attempt.abandoned();
      throw error;
    }
    if (viewer) {
      await attempt.succeeded();
      return viewer;
    }
    await attempt.failed();
    throw INCORRECT_PASSWORD();
  }

  /** One argon2 check of the password against the login's rows: the viewer, or null when wrong. */
  private async check(
    login: string,
    password: string,
    lookup: string | null,
    key: string,
  ): Promise<Viewer | null> {
    // The row whose lookup matches, then rows without one: chosen passwords, and passwords made before
    // lookups existed (a generated one gets its lookup on its first success). Each comes with its
    // user, so that the one verified makes the viewer without another read.
    const candidates = (
      await this.db.$queryRaw<
        Candidate[]
      >`SELECT ${ACTIVE_COLUMNS}, p."hash" AS "hash", p."lookup" AS "lookup"
        FROM "User" u JOIN "ApplicationPassword" p ON p."userId" = u."id"
        WHERE u."login" = ${login} AND p."revokedAt" IS NULL
          AND (p."lookup" IS NULL${lookup ? Prisma.sql` OR p."lookup" = ${lookup}` : Prisma.empty})`
    ).sort((a, b) => Number(b.lookup !== null) - Number(a.lookup !== null));
    if (!candidates.length) await verifyNothing(password);
    for (const candidate of candidates) {
      if (!(await verifyApplicationPassword(candidate.hash, password))) continue;
      const id = Number(candidate.id);
      if (candidate.lookup === null && lookup !== null) {
        await this.db.applicationPassword.update({ where: { id }, data: { lookup } });
      }
      this.remember(key, id);
      const viewer = this.viewerOf(candidate, login);
      if (viewer) return viewer;
    }
    return null;
  }

  private async activeViewer(passwordId: number, login: string): Promise<Viewer | null> {
    const row = await this.passwordRows.load(passwordId);
    return row ? this.viewerOf(row, login) : null;
  }

  /** The viewer an active password row makes for `login` (null: not that login's, or no known role). */
  private viewerOf(row: ActivePassword, login: string): Viewer | null {
    if (row.login !== login || !isRole(row.role)) return null;
    this.touch(Number(row.id));
    return { userId: Number(row.userId), login: row.login, role: row.role };
  }

  private remember(key: string, passwordId: number): void {
    if (this.verified.size >= REMEMBER_MAX) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(key, { passwordId, expiresAt: Date.now() + REMEMBER_MS });
  }

  /** Records the last use at most once a minute per password, off the request's critical path. */
  private touch(passwordId: number): void {
    const now = Date.now();
    if ((this.lastUsedWritten.get(passwordId) ?? 0) > now - LAST_USED_EVERY_MS) return;
    this.lastUsedWritten.set(passwordId, now);
    void this.db.applicationPassword
      .update({ where: { id: passwordId }, data: { lastUsedAt: new Date(now) } })
      .catch(() => this.lastUsedWritten.delete(passwordId));
  }
}
