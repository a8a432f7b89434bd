import { describe, expect, it } from 'vitest';
import { isCheckInCodeShaped, newCheckInCode } from '../../../src/tickets/reservations/tokens.js';

// A check-in code is printed in the attendee export as it is scanned: one starting with `-` would be a
// formula to a spreadsheet, quoted by the export (test/tickets/rest/export.test.ts). One in 64 random
// codes would start so; 5,000 draws miss that with a chance of about e^-78.

describe('check-in codes', () => {
  it('are 16 base64url characters, never starting with a formula character', () => {
    const codes = Array.from({ length: 5_000 }, newCheckInCode);
    for (const code of codes) {
      expect(isCheckInCodeShaped(code), code).toBe(true);
      expect(code.startsWith('-'), code).toBe(false);
    }
    expect(new Set(codes).size).toBe(codes.length);
  });
});
