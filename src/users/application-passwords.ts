import { createHash, randomBytes, randomInt } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

// Application passwords as WordPress shows them: 24 characters in groups of four. Spaces are
// cosmetic, so they are ignored when checking.

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const LENGTH = 24;

/** OWASP's argon2id baseline (19 MiB, 2 passes): slow for an attacker holding the table. */
// algorithm 2 = Argon2id (the package's const enum cannot be imported under isolatedModules)
const HASH_OPTIONS = { algorithm: 2 as const, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function generateApplicationPassword(): string {
  const chars = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return chars.match(/.{4}/g)!.join(' ');
}

function normalizeApplicationPassword(password: string): string {
  return password.replace(/\s+/g, '');
}

export function hashApplicationPassword(password: string): Promise<string> {
  return hash(normalizeApplicationPassword(password), HASH_OPTIONS);
}

/** Constant-time inside argon2's verify; a malformed stored hash counts as a mismatch. */
export async function verifyApplicationPassword(storedHash: string, password: string): Promise<boolean> {
  try {
    return await verify(storedHash, normalizeApplicationPassword(password));
  } catch {
    return false;
  }
}

/** What `generateApplicationPassword` makes, spaces aside. */
const GENERATED = new RegExp(`^[${ALPHABET}]{${LENGTH}}$`);

/**
 * A short SHA-256 prefix of a generated password, stored beside its argon2 hash: a login finds the one
 * row to verify instead of trying argon2 on each of the user's passwords. Generated passwords carry
 * ~143 bits of entropy, so a fast hash of them reveals nothing an attacker could search; a chosen one
 * (CALENDAR_ADMIN_PASSWORD) gets none (null), as a fast hash of it could be searched.
 */
export function passwordLookup(password: string): string | null {
  const normalized = normalizeApplicationPassword(password);
  if (!GENERATED.test(normalized)) return null;
  return createHash('sha256').update(normalized).digest('base64url').slice(0, 16);
}

let dummyHash: Promise<string> | undefined;

/**
 * One argon2 check against a hash nobody holds: an unknown login or a password matching no row costs
 * what a wrong password costs, so the timing tells nothing.
 */
export async function verifyNothing(password: string): Promise<false> {
  dummyHash ??= hashApplicationPassword(randomBytes(18).toString('base64url'));
  await verifyApplicationPassword(await dummyHash, password);
  return false;
}
