import ical from 'ical-generator';
import { describe, expect, it } from 'vitest';
import { foldLines } from '../../src/events/ical.js';

// The feeds fold their lines themselves (ical-generator's folding costs a TextEncoder per character):
// the same folding, checked against ical-generator's own output.

const texts = [
  'Plain ASCII. '.repeat(40),
  'Café, crème brûlée et pâtisseries — déjà vu. '.repeat(12),
  'Emoji 🎉🎶🍕 between words 📅 and CJK 日本語のテキスト '.repeat(10),
  `${'x'.repeat(73)}é${'y'.repeat(80)}`,
  `${'x'.repeat(73)}🎉${'y'.repeat(80)}`,
  'short',
];

describe('foldLines', () => {
  it.each(texts.map((text) => [text.slice(0, 20), text]))(
    'folds %s as ical-generator does',
    (_name, text) => {
      const calendar = ical({ name: 'fold' });
      calendar.createEvent({ id: 'x', start: new Date(0), summary: text, description: text });
      const theirs = calendar.toString();
      const unfolded = theirs.replace(/\r\n /g, '');
      expect(foldLines(unfolded)).toBe(theirs);
    },
  );

  it('keeps every line within 75 octets and never splits a character', () => {
    for (const text of texts) {
      const folded = foldLines(`DESCRIPTION:${text}`);
      for (const line of folded.split('\r\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
      expect(folded).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
      expect(folded.replace(/\r\n /g, '')).toBe(`DESCRIPTION:${text}`);
    }
  });
});
