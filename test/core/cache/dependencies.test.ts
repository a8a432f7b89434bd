import { describe, expect, it } from 'vitest';
import { type WriteEffect, withoutTexts } from '../../../src/core/cache/dependencies.js';

// An effect's event texts judge this instance's cached searches; they never travel to other instances
// (a message the bus must keep small) nor stay in the cache's memory of recent writes.
describe('withoutTexts', () => {
  it('drops the texts of every span and keeps the rest', () => {
    const effect: WriteEffect = {
      records: ['event:7'],
      kinds: ['events'],
      events: [
        {
          id: 7,
          before: {
            localStart: '2031-06-01 10:00:00',
            localEnd: '2031-06-01 12:00:00',
            texts: ['Jazz', '', ''],
          },
          after: {
            localStart: '2031-06-02 10:00:00',
            localEnd: '2031-06-02 12:00:00',
            texts: ['Blues', '', ''],
          },
          facts: ['span', 'text'],
        },
      ],
    };
    expect(withoutTexts(effect)).toEqual({
      records: ['event:7'],
      kinds: ['events'],
      events: [
        {
          id: 7,
          before: { localStart: '2031-06-01 10:00:00', localEnd: '2031-06-01 12:00:00' },
          after: { localStart: '2031-06-02 10:00:00', localEnd: '2031-06-02 12:00:00' },
          facts: ['span', 'text'],
        },
      ],
    });
    expect(JSON.stringify(withoutTexts(effect))).not.toContain('Jazz');
  });

  it('returns an effect without texts as it is', () => {
    const effect: WriteEffect = { records: [], kinds: ['venue'], events: [] };
    expect(withoutTexts(effect)).toBe(effect);
  });
});
