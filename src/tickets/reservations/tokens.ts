import { createHash, randomBytes } from 'node:crypto';

// An attendee's secret: 32 random bytes, base64url, shown once in the confirmation; only its sha256
// is stored, so a read of the database gives no link that works. The check-in code (the QR code's
// content) is a separate, shorter random value: who scans a ticket learns no way to change it.

export function newToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Whether a string can be a token at all (43 base64url characters): anything else is refused unread. */
export const isTokenShaped = (token: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(token);

/**
 * A check-in code: 12 random bytes, base64url. Never one starting with `-`: a spreadsheet would read it
 * as a formula, so the attendee export (CSV) would have to quote it and the code printed there would no
 * longer be the one scanned at the door.
 */
export function newCheckInCode(): string {
  let code: string;
  do code = randomBytes(12).toString('base64url');
  while (code.startsWith('-'));
  return code;
}

export const isCheckInCodeShaped = (code: string): boolean => /^[A-Za-z0-9_-]{16}$/.test(code);
