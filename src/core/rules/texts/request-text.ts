// What the boundary refuses before any parser, service or database sees it: text a database cannot
// store (NUL: PostgreSQL's text type refuses it, and the error would surface as a 500) and JSON nested
// deeper than any calendar document needs (walking it later would overflow the stack). Both checks
// are linear scans of the raw text, so they cost nothing an attacker could inflate.

/** Deeper JSON bodies (REST and GraphQL) are refused with a 400. */
export const MAX_JSON_DEPTH = 32;

/** A NUL in raw text, in a JSON `\u0000` escape, or percent-encoded in a URL. */
export function hasNul(text: string): boolean {
  return text.includes('\0') || /\\u0000/i.test(text) || /%00/.test(text);
}

/** Whether `[`/`{` nest deeper than `max` outside JSON strings. */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c)
        i++; // backslash: skip the escaped character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      if (++depth > max) return true;
    } else if (char === 0x5d || char === 0x7d) depth--;
  }
  return false;
}
