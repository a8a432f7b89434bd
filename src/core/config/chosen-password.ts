import { type TranslationKeys, ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';

// The one password a person chooses (CALENDAR_ADMIN_PASSWORD; every other one is generated) is judged
// once, at start. A guesser with many addresses meets only the per-login slow-down
// (src/users/login-limits.ts), which delays each try but not how many run at once, so the password must
// be long and far from the common passwords, words, keyboard rows, repeats and dates zxcvbn knows. Its
// score estimates the guesses needed: 3 (10^8 and more) is zxcvbn's "safely unguessable" online.

const CHOSEN_PASSWORD_RULE = { minLength: 12, minScore: 3 } as const;

/** zxcvbn's warnings, said in words (it ships keys only; language packages add their own). */
const WARNINGS: TranslationKeys['warnings'] = {
  straightRow: 'it is a straight row of keys',
  keyPattern: 'it is a short keyboard pattern',
  simpleRepeat: 'it repeats one character',
  extendedRepeat: 'it repeats a few characters',
  sequences: 'it is a common character sequence',
  recentYears: 'it holds a recent year',
  dates: 'it holds a date',
  topTen: 'it is one of the ten most used passwords',
  topHundred: 'it is one of the hundred most used passwords',
  common: 'it is a commonly used password',
  similarToCommon: 'it is similar to a commonly used password',
  wordByItself: 'it is a single word',
  namesByThemselves: 'it is a name',
  commonNames: 'it is a common name',
  userInputs: 'it holds the login or the site’s name',
  pwned: 'it appeared in a data breach',
};

let strength: ZxcvbnFactory | undefined;

/**
 * Why `password` is too weak to be chosen, or null when it is strong enough; `context` holds what a
 * guesser knows (the login), so a password built from it scores low.
 */
export function chosenPasswordProblem(password: string, context: readonly string[] = []): string | null {
  const { minLength, minScore } = CHOSEN_PASSWORD_RULE;
  const length = [...password].length;
  if (length < minLength) return `must be at least ${minLength} characters (it has ${length})`;
  strength ??= new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs });
  const { score, feedback } = strength.check(password, [...context, 'calendar']);
  if (score >= minScore) return null;
  const why =
    feedback.warning && feedback.warning in WARNINGS
      ? `: ${WARNINGS[feedback.warning as keyof TranslationKeys['warnings']]}`
      : '';
  return (
    `is too easy to guess${why} (zxcvbn strength ${score} of 4, at least ${minScore} needed); choose a ` +
    'passphrase of four or five random words, or leave it unset and create the administrator with ' +
    '`npx calendar users create` (a generated password)'
  );
}
