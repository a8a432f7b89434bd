// WordPress clients send booleans as `true/false`, `1/0`, `yes/no`, `on/off` (any case), JSON booleans
// or the numbers 1/0. The one reading of such a value for every REST parameter and body field.

/** The words read as true and as false (any case, spaces around ignored). */
export const BOOLEAN_WORDS = {
  true: ['true', '1', 'yes', 'on'],
  false: ['false', '0', 'no', 'off', ''],
} as const;

const TRUE_WORDS: ReadonlySet<string> = new Set(BOOLEAN_WORDS.true);
const FALSE_WORDS: ReadonlySet<string> = new Set(BOOLEAN_WORDS.false);

/** The boolean a WordPress client meant, or `undefined` when the value is not a boolean at all. */
export function readBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : undefined;
  if (typeof value !== 'string') return undefined;
  const word = value.trim().toLowerCase();
  return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : undefined;
}
