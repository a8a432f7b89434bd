import { describe, expect, it } from 'vitest';
import { startOfLocalDay, wallClock } from '../../../src/core/rules/dates.js';
import {
  MAX_RECURRENCE_DATES,
  canonicalRecurrence,
  continueFrom,
  endBefore,
  excludeOccurrence,
  expandRecurrence,
  formatRecurrence,
  parseRecurrence,
  recurrenceFromPattern,
  recurrenceInvalid,
  type Occurrence,
  type Recurrence,
  type RecurrenceProblemCode,
  type SeriesKind,
} from '../../../src/events/series/recurrence.js';

const NY = 'America/New_York';
const TIMED: SeriesKind = { timezone: NY, allDay: false };

function parsed(lines: string[], kind: SeriesKind = TIMED): Recurrence {
  const result = parseRecurrence(lines, kind);
  if (!result.ok) throw new Error(result.problem.message);
  return result.value;
}

function occurrences(
  lines: string[],
  localStart: string,
  options: { horizon?: string; cap?: number; kind?: SeriesKind; startsAt?: string } = {},
): Occurrence[] {
  const kind = options.kind ?? TIMED;
  const result = expandRecurrence(
    parsed(lines, kind),
    { ...kind, localStart, ...(options.startsAt ? { startsAt: new Date(options.startsAt) } : {}) },
    { horizon: new Date(options.horizon ?? '2100-01-01T00:00:00Z'), cap: options.cap },
  );
  if (!result.ok) throw new Error(result.problem.message);
  return result.value;
}

/** `1997-09-02 09:00 EDT`: the local start, and the New York offset its instant has. */
function labelled(occurrence: Occurrence): string {
  const local = Date.parse(`${occurrence.localStart.replace(' ', 'T')}Z`);
  const offset = (local - occurrence.startsAt.getTime()) / 3_600_000;
  const name = offset === -4 ? 'EDT' : offset === -5 ? 'EST' : `UTC${offset}`;
  return `${occurrence.localStart.slice(0, 16)} ${name}`;
}

/** The RFC's notation: `on('1997-09', '2-30', 'EDT')` or `on('1997-09', '2,4,6', 'EDT')`, at 09:00. */
function on(month: string, days: string, zone: 'EDT' | 'EST', time = '09:00'): string[] {
  return days.split(',').flatMap((item) => {
    const [from, to = from] = item.split('-').map(Number) as [number, number?];
    return Array.from(
      { length: to! - from + 1 },
      (_, i) => `${month}-${String(from + i).padStart(2, '0')} ${time} ${zone}`,
    );
  });
}

// RFC 5545 §3.8.5.3, every example with DTSTART;TZID=America/New_York (the MINUTELY ones are refused
// below). "Forever" rules are cut by a horizon just after the dates the RFC lists.
const RFC_EXAMPLES: Array<{
  name: string;
  start: string;
  lines: string[];
  horizon?: string;
  expected: string[];
}> = [
  {
    name: 'daily for 10 occurrences',
    start: '1997-09-02 09:00:00',
    lines: ['RRULE:FREQ=DAILY;COUNT=10'],
    expected: on('1997-09', '2-11', 'EDT'),
  },
  {
    name: 'daily until December 24, 1997',
    start: '1997-09-02 09:00:00',
    lines: ['RRULE:FREQ=DAILY;UNTIL=19971224T000000Z'],
    expected: [
      ...on('1997-09', '2-30', 'EDT'),
      ...on('1997-10', '1-25', 'EDT'),
      ...on('1997-10', '26-31', 'EST'),
      ...on('1997-11', '1-30', 'EST'),
      ...on('1997-12', '1-23', 'EST'),
    ],
  },
  {
    name: 'every other day, forever',
    start: '1997-09-02 09:00:00',
    lines: ['RRULE:FREQ=DAILY;INTERVAL=2'],
    horizon: '1998-01-01T00:00:00Z',
    expected: [
      ...on('1997-09', '2,4,6,8,10,12,14,16,18,20,22,24,26,28,30', 'EDT'),
      ...on('1997-10', '2,4,6,8,10,12,14,16,18,20,22,24', 'EDT'),
      ...on('1997-10', '26,28,30', 'EST'),
      ...on('1997-11', '1,3,5,7,9,11,13,15,17,19,21,23,25,27,29', 'EST'),
      ...on('1997-12', '1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31', 'EST'),
    ],
  },
  {
    name: 'every 10 days, 5 occurrences',
    start: '1997-09-02 09:00:00',
    lines: ['RRULE:FREQ=DAILY;INTERVAL=10;COUNT=5'],
    expected: [...on('1997-09', '2,12,22', 'EDT'), ...on('1997-10', '2,12', 'EDT')],
  },
  ...[
    'RRULE:FREQ=YEARLY;UNTIL=20000131T140000Z;BYMONTH=1;BYDAY=SU,MO,TU,WE,TH,FR,SA',
    'RRULE:FREQ=DAILY;UNTIL=20000131T140000Z;BYMONTH=1',
  ].map((line) => ({
    name: `every day in January, for 3 years (${line.slice(11, 17)})`,
    start: '1998-01-01 09:00:00',
    lines: [line],
    expected: [
      ...on('1998-01', '1-31', 'EST'),
      ...on('1999-01', '1-31', 'EST'),
      ...on('2000-01', '1-31', 'EST'),
    ],
  })),
  {
    name: 'weekly for 10 occurrences',
    start: '1997-09-02 09:00:00',
    lines: ['RRULE:FREQ=WEEKLY;COUNT=10'],
    expected: [
      ...on('1997-09', '2,9,16,23,30', 'EDT'),
      ...on('1997-10', '7,14,21', 'EDT'),
      ...on('1997-10', '28', 'EST'),
      ...on('1997-11', '4', 'EST'),
    ],
  },
  {
    name: 'weekly until December 24, 1997',
    start: '1997-09-02 09:00:00',
    lines: ['RRULE:FREQ=WEEKLY;UNTIL=19971224T000000Z'],
    expected: [
      ...on('1997-09', '2,9,16,23,30', 'EDT'),
      ...on('1997-10', '7,14,21', 'EDT'),
      ...on('1997-10', '28', 'EST'),
      ...on('1997-11', '4,11,18,25', 'EST'),
      ...on('1997-12', '2,9,16,23', 'EST'),
    ],
  },
  {
    name: 'every other week, forever',
    start: '1997-09-02 09:00:00',
    lines: ['RRULE:FREQ=WEEKLY;INTERVAL=2;WKST=SU'],
    horizon: '1998-02-18T00:00:00Z',
    expected: [
      ...on('1997-09', '2,16,30', 'EDT'),
      ...on('1997-10', '14', 'EDT'),
      ...on('1997-10', '28', 'EST'),
      ...on('1997-11', '11,25', 'EST'),
      ...on('1997-12', '9,23', 'EST'),
      ...on('1998-01', '6,20', 'EST'),
      ...on('1998-02', '3,17', 'EST'),
    ],
  },
  ...[
    'RRULE:FREQ=WEEKLY;UNTIL=19971007T000000Z;WKST=SU;BYDAY=TU,TH',
    'RRULE:FREQ=WEEKLY;COUNT=10;WKST=SU;BYDAY=TU,TH',
  ].map((line) => ({
    name: `weekly on Tuesday and Thursday for five weeks (${line.slice(19, 24)})`,
    start: '1997-09-02 09:00:00',
    lines: [line],
    expected: [...on('1997-09', '2,4,9,11,16,18,23,25,30', 'EDT'), ...on('1997-10', '2', 'EDT')],
  })),
  {
    name: 'every other week on Monday, Wednesday and Friday until December 24, 1997',
    start: '1997-09-01 09:00:00',
    lines: ['RRULE:FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR'],
    expected: [
      ...on('1997-09', '1,3,5,15,17,19,29', 'EDT'),
      ...on('1997-10', '1,3,13,15,17', 'EDT'),
      ...on('1997-10', '27,29,31', 'EST'),
      ...on('1997-11', '10,12,14,24,26,28', 'EST'),
      ...on('1997-12', '8,10,12,22', 'EST'),
    ],
  },
  {
    name: 'every other week on Tuesday and Thursday, for 8 occurrences',
    start: '1997-09-02 09:00:00',
    lines: ['RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=8;WKST=SU;BYDAY=TU,TH'],
    expected: [...on('1997-09', '2,4,16,18,30', 'EDT'), ...on('1997-10', '2,14,16', 'EDT')],
  },
  {
    name: 'monthly on the first Friday for 10 occurrences',
    start: '1997-09-05 09:00:00',
    lines: ['RRULE:FREQ=MONTHLY;COUNT=10;BYDAY=1FR'],
    expected: [
      ...on('1997-09', '5', 'EDT'),
      ...on('1997-10', '3', 'EDT'),
      ...on('1997-11', '7', 'EST'),
      ...on('1997-12', '5', 'EST'),
      ...on('1998-01', '2', 'EST'),
      ...on('1998-02', '6', 'EST'),
      ...on('1998-03', '6', 'EST'),
      ...on('1998-04', '3', 'EST'),
      ...on('1998-05', '1', 'EDT'),
      ...on('1998-06', '5', 'EDT'),
    ],
  },
  {
    name: 'monthly on the first Friday until December 24, 1997',
    start: '1997-09-05 09:00:00',
    lines: ['RRULE:FREQ=MONTHLY;UNTIL=19971224T000000Z;BYDAY=1FR'],
    expected: [
      ...on('1997-09', '5', 'EDT'),
      ...on('1997-10', '3', 'EDT'),
      ...on('1997-11', '7', 'EST'),
      ...on('1997-12', '5', 'EST'),
    ],
  },
  {
    name: 'every other month on the first and last Sunday, 10 occurrences',
    start: '1997-09-07 09:00:00',
    lines: ['RRULE:FREQ=MONTHLY;INTERVAL=2;COUNT=10;BYDAY=1SU,-1SU'],
    expected: [
      ...on('1997-09', '7,28', 'EDT'),
      ...on('1997-11', '2,30', 'EST'),
      ...on('1998-01', '4,25', 'EST'),
      ...on('1998-03', '1,29', 'EST'),
      ...on('1998-05', '3,31', 'EDT'),
    ],
  },
  {
    name: 'monthly on the second-to-last Monday for 6 months',
    start: '1997-09-22 09:00:00',
    lines: ['RRULE:FREQ=MONTHLY;COUNT=6;BYDAY=-2MO'],
    expected: [
      ...on('1997-09', '22', 'EDT'),
      ...on('1997-10', '20', 'EDT'),
      ...on('1997-11', '17', 'EST'),
      ...on('1997-12', '22', 'EST'),
      ...on('1998-01', '19', 'EST'),
      ...on('1998-02', '16', 'EST'),
    ],
  },
  {
    name: 'monthly on the third-to-last day (BYMONTHDAY=-3), forever',
    start: '1997-09-28 09:00:00',
    lines: ['RRULE:FREQ=MONTHLY;BYMONTHDAY=-3'],
    horizon: '1998-03-01T00:00:00Z',
    expected: [
      ...on('1997-09', '28', 'EDT'),
      ...on('1997-10', '29', 'EST'),
      ...on('1997-11', '28', 'EST'),
      ...on('1997-12', '29', 'EST'),
      ...on('1998-01', '29', 'EST'),
      ...on('1998-02', '26', 'EST'),
    ],
  },
  {
    name: 'monthly on the 2nd and 15th for 10 occurrences',
    start: '1997-09-02 09:00:00',
    lines: ['RRULE:FREQ=MONTHLY;COUNT=10;BYMONTHDAY=2,15'],
    expected: [
      ...on('1997-09', '2,15', 'EDT'),
      ...on('1997-10', '2,15', 'EDT'),
      ...on('1997-11', '2,15', 'EST'),
      ...on('1997-12', '2,15', 'EST'),
      ...on('1998-01', '2,15', 'EST'),
    ],
  },
  {
    name: 'monthly on the first and last day for 10 occurrences',
    start: '1997-09-30 09:00:00',
    lines: ['RRULE:FREQ=MONTHLY;COUNT=10;BYMONTHDAY=1,-1'],
    expected: [
      ...on('1997-09', '30', 'EDT'),
      ...on('1997-10', '1', 'EDT'),
      ...on('1997-10', '31', 'EST'),
      ...on('1997-11', '1,30', 'EST'),
      ...on('1997-12', '1,31', 'EST'),
      ...on('1998-01', '1,31', 'EST'),
      ...on('1998-02', '1', 'EST'),
    ],
  },
  {
    name: 'every 18 months on the 10th thru 15th for 10 occurrences',
    start: '1997-09-10 09:00:00',
    lines: ['RRULE:FREQ=MONTHLY;INTERVAL=18;COUNT=10;BYMONTHDAY=10,11,12,13,14,15'],
    expected: [...on('1997-09', '10-15', 'EDT'), ...on('1999-03', '10-13', 'EST')],
  },
  {
    name: 'every Tuesday, every other month',
    start: '1997-09-02 09:00:00',
    lines: ['RRULE:FREQ=MONTHLY;INTERVAL=2;BYDAY=TU'],
    horizon: '1998-04-01T00:00:00Z',
    expected: [
      ...on('1997-09', '2,9,16,23,30', 'EDT'),
      ...on('1997-11', '4,11,18,25', 'EST'),
      ...on('1998-01', '6,13,20,27', 'EST'),
      ...on('1998-03', '3,10,17,24,31', 'EST'),
    ],
  },
  {
    name: 'yearly in June and July for 10 occurrences',
    start: '1997-06-10 09:00:00',
    lines: ['RRULE:FREQ=YEARLY;COUNT=10;BYMONTH=6,7'],
    expected: ['1997', '1998', '1999', '2000', '2001'].flatMap((year) => [
      ...on(`${year}-06`, '10', 'EDT'),
      ...on(`${year}-07`, '10', 'EDT'),
    ]),
  },
  {
    name: 'every other year on January, February and March for 10 occurrences',
    start: '1997-03-10 09:00:00',
    lines: ['RRULE:FREQ=YEARLY;INTERVAL=2;COUNT=10;BYMONTH=1,2,3'],
    expected: [
      ...on('1997-03', '10', 'EST'),
      ...['1999', '2001', '2003'].flatMap((year) =>
        ['01', '02', '03'].flatMap((month) => on(`${year}-${month}`, '10', 'EST')),
      ),
    ],
  },
  {
    name: 'every third year on the 1st, 100th and 200th day for 10 occurrences',
    start: '1997-01-01 09:00:00',
    lines: ['RRULE:FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200'],
    expected: [
      ...on('1997-01', '1', 'EST'),
      ...on('1997-04', '10', 'EDT'),
      ...on('1997-07', '19', 'EDT'),
      ...on('2000-01', '1', 'EST'),
      ...on('2000-04', '9', 'EDT'),
      ...on('2000-07', '18', 'EDT'),
      ...on('2003-01', '1', 'EST'),
      ...on('2003-04', '10', 'EDT'),
      ...on('2003-07', '19', 'EDT'),
      ...on('2006-01', '1', 'EST'),
    ],
  },
  {
    name: 'every 20th Monday of the year, forever',
    start: '1997-05-19 09:00:00',
    lines: ['RRULE:FREQ=YEARLY;BYDAY=20MO'],
    horizon: '2000-01-01T00:00:00Z',
    expected: [...on('1997-05', '19', 'EDT'), ...on('1998-05', '18', 'EDT'), ...on('1999-05', '17', 'EDT')],
  },
  {
    name: 'Monday of week number 20, forever',
    start: '1997-05-12 09:00:00',
    lines: ['RRULE:FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO'],
    horizon: '2000-01-01T00:00:00Z',
    expected: [...on('1997-05', '12', 'EDT'), ...on('1998-05', '11', 'EDT'), ...on('1999-05', '17', 'EDT')],
  },
  {
    name: 'every Thursday in March, forever',
    start: '1997-03-13 09:00:00',
    lines: ['RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=TH'],
    horizon: '2000-01-01T00:00:00Z',
    expected: [
      ...on('1997-03', '13,20,27', 'EST'),
      ...on('1998-03', '5,12,19,26', 'EST'),
      ...on('1999-03', '4,11,18,25', 'EST'),
    ],
  },
  {
    name: 'every Thursday, but only during June, July and August, forever',
    start: '1997-06-05 09:00:00',
    lines: ['RRULE:FREQ=YEARLY;BYDAY=TH;BYMONTH=6,7,8'],
    horizon: '2000-01-01T00:00:00Z',
    expected: [
      ...on('1997-06', '5,12,19,26', 'EDT'),
      ...on('1997-07', '3,10,17,24,31', 'EDT'),
      ...on('1997-08', '7,14,21,28', 'EDT'),
      ...on('1998-06', '4,11,18,25', 'EDT'),
      ...on('1998-07', '2,9,16,23,30', 'EDT'),
      ...on('1998-08', '6,13,20,27', 'EDT'),
      ...on('1999-06', '3,10,17,24', 'EDT'),
      ...on('1999-07', '1,8,15,22,29', 'EDT'),
      ...on('1999-08', '5,12,19,26', 'EDT'),
    ],
  },
  {
    name: 'every Friday the 13th, forever (the first start excluded)',
    start: '1997-09-02 09:00:00',
    lines: ['EXDATE;TZID=America/New_York:19970902T090000', 'RRULE:FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13'],
    horizon: '2001-01-01T00:00:00Z',
    expected: [
      ...on('1998-02', '13', 'EST'),
      ...on('1998-03', '13', 'EST'),
      ...on('1998-11', '13', 'EST'),
      ...on('1999-08', '13', 'EDT'),
      ...on('2000-10', '13', 'EDT'),
    ],
  },
  {
    name: 'the first Saturday that follows the first Sunday of the month, forever',
    start: '1997-09-13 09:00:00',
    lines: ['RRULE:FREQ=MONTHLY;BYDAY=SA;BYMONTHDAY=7,8,9,10,11,12,13'],
    horizon: '1998-07-01T00:00:00Z',
    expected: [
      ...on('1997-09', '13', 'EDT'),
      ...on('1997-10', '11', 'EDT'),
      ...on('1997-11', '8', 'EST'),
      ...on('1997-12', '13', 'EST'),
      ...on('1998-01', '10', 'EST'),
      ...on('1998-02', '7', 'EST'),
      ...on('1998-03', '7', 'EST'),
      ...on('1998-04', '11', 'EDT'),
      ...on('1998-05', '9', 'EDT'),
      ...on('1998-06', '13', 'EDT'),
    ],
  },
  {
    name: 'every 4 years, the first Tuesday after a Monday in November, forever',
    start: '1996-11-05 09:00:00',
    lines: ['RRULE:FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8'],
    horizon: '2005-01-01T00:00:00Z',
    expected: [...on('1996-11', '5', 'EST'), ...on('2000-11', '7', 'EST'), ...on('2004-11', '2', 'EST')],
  },
  {
    name: 'the third instance of Tuesday, Wednesday or Thursday, for the next 3 months',
    start: '1997-09-04 09:00:00',
    lines: ['RRULE:FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3'],
    expected: [...on('1997-09', '4', 'EDT'), ...on('1997-10', '7', 'EDT'), ...on('1997-11', '6', 'EST')],
  },
  {
    name: 'the second-to-last weekday of the month',
    start: '1997-09-29 09:00:00',
    lines: ['RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2'],
    horizon: '1998-04-01T00:00:00Z',
    expected: [
      ...on('1997-09', '29', 'EDT'),
      ...on('1997-10', '30', 'EST'),
      ...on('1997-11', '27', 'EST'),
      ...on('1997-12', '30', 'EST'),
      ...on('1998-01', '29', 'EST'),
      ...on('1998-02', '26', 'EST'),
      ...on('1998-03', '30', 'EST'),
    ],
  },
  {
    // The RFC prints UNTIL=19970902T170000Z, which is 13:00 EDT and would stop at 12:00; its list (to
    // 15:00, "to 5:00 PM") is the rule with 17:00 EDT as UNTIL.
    name: 'every 3 hours from 9:00 AM to 5:00 PM on a specific day',
    start: '1997-09-02 09:00:00',
    lines: ['RRULE:FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T210000Z'],
    expected: ['09:00', '12:00', '15:00'].map((time) => `1997-09-02 ${time} EDT`),
  },
  {
    name: 'an example where the days generated makes a difference because of WKST=MO',
    start: '1997-08-05 09:00:00',
    lines: ['RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO'],
    expected: on('1997-08', '5,10,19,24', 'EDT'),
  },
  {
    name: 'changing only WKST from MO to SU yields different results',
    start: '1997-08-05 09:00:00',
    lines: ['RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU'],
    expected: on('1997-08', '5,17,19,31', 'EDT'),
  },
  {
    name: 'an invalid date (February 30) is ignored',
    start: '2007-01-15 09:00:00',
    lines: ['RRULE:FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5'],
    expected: [
      ...on('2007-01', '15,30', 'EST'),
      ...on('2007-02', '15', 'EST'),
      ...on('2007-03', '15,30', 'EDT'),
    ],
  },
];

describe('RFC 5545 §3.8.5.3 examples, DTSTART;TZID=America/New_York', () => {
  it.each(RFC_EXAMPLES)('$name', ({ start, lines, horizon, expected }) => {
    expect(occurrences(lines, start, { horizon }).map(labelled)).toEqual(expected);
  });

  it('every 20 minutes from 9:00 AM to 4:40 PM every day (the DAILY form)', () => {
    const found = occurrences(
      ['RRULE:FREQ=DAILY;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,20,40'],
      '1997-09-02 09:00:00',
      {
        horizon: '1997-09-04T00:00:00Z',
      },
    ).map(labelled);
    const day = (date: string) =>
      [9, 10, 11, 12, 13, 14, 15, 16].flatMap((hour) =>
        ['00', '20', '40'].map((minute) => `${date} ${String(hour).padStart(2, '0')}:${minute} EDT`),
      );
    expect(found).toEqual([...day('1997-09-02'), ...day('1997-09-03')]);
  });

  it.each([
    'RRULE:FREQ=MINUTELY;INTERVAL=15;COUNT=6',
    'RRULE:FREQ=MINUTELY;INTERVAL=90;COUNT=4',
    'RRULE:FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10,11,12,13,14,15,16',
  ])('refuses the MINUTELY example %s', (line) => {
    const result = parseRecurrence([line], TIMED);
    expect(result).toMatchObject({ ok: false, problem: { code: 'unsupported', line: 0 } });
  });
});

describe('hard cases', () => {
  it('spring forward: a 02:30 the gap skips is no occurrence and does not count', () => {
    // 2026-03-08 02:00 EST → 03:00 EDT in New York.
    expect(occurrences(['RRULE:FREQ=DAILY;COUNT=4'], '2026-03-06 02:30:00').map(labelled)).toEqual([
      '2026-03-06 02:30 EST',
      '2026-03-07 02:30 EST',
      '2026-03-09 02:30 EDT',
      '2026-03-10 02:30 EDT',
    ]);
    expect(occurrences(['RRULE:FREQ=WEEKLY;COUNT=2'], '2026-03-01 02:30:00').map(labelled)).toEqual([
      '2026-03-01 02:30 EST',
      '2026-03-15 02:30 EDT',
    ]);
  });

  it('fall back: a 01:30 the clock shows twice is one occurrence, at its first pass', () => {
    // 2026-11-01 02:00 EDT → 01:00 EST.
    const found = occurrences(['RRULE:FREQ=DAILY;COUNT=3'], '2026-10-31 01:30:00');
    expect(found.map(labelled)).toEqual([
      '2026-10-31 01:30 EDT',
      '2026-11-01 01:30 EDT',
      '2026-11-02 01:30 EST',
    ]);
    expect(found[1]!.startsAt.toISOString()).toBe('2026-11-01T05:30:00.000Z');
  });

  it('a first start at the second pass of the repeated hour keeps its instant', () => {
    const found = occurrences(['RRULE:FREQ=DAILY;COUNT=2'], '2026-11-01 01:30:00', {
      startsAt: '2026-11-01T06:30:00Z',
    });
    expect(found.map((occurrence) => occurrence.startsAt.toISOString())).toEqual([
      '2026-11-01T06:30:00.000Z',
      '2026-11-02T06:30:00.000Z',
    ]);
  });

  it('19:00 stays 19:00 across DST, its UTC instant moving by the hour', () => {
    const found = occurrences(['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=3'], '2026-03-03 19:00:00');
    expect(found.map((occurrence) => occurrence.localStart)).toEqual([
      '2026-03-03 19:00:00',
      '2026-03-10 19:00:00',
      '2026-03-17 19:00:00',
    ]);
    expect(found.map((occurrence) => occurrence.startsAt.toISOString())).toEqual([
      '2026-03-04T00:00:00.000Z',
      '2026-03-10T23:00:00.000Z',
      '2026-03-17T23:00:00.000Z',
    ]);
  });

  it('an all-day series: dates, each starting when its day begins in the zone', () => {
    const kind = { timezone: NY, allDay: true };
    const found = occurrences(
      [
        'RRULE:FREQ=WEEKLY;BYDAY=SU;UNTIL=20260322',
        'EXDATE;VALUE=DATE:20260315',
        'RDATE;VALUE=DATE:20260310',
      ],
      '2026-03-01 00:00:00',
      { kind },
    );
    expect(found.map(labelled)).toEqual([
      '2026-03-01 00:00 EST',
      '2026-03-08 00:00 EST',
      '2026-03-10 00:00 EDT',
      '2026-03-22 00:00 EDT',
    ]);
    // Where midnight is skipped (Santiago, 2026-09-06), the day begins at 01:00, as the event's own
    // schedule (luxon, src/core/rules/dates.ts) says.
    const santiago = { timezone: 'America/Santiago', allDay: true };
    const [, second] = occurrences(['RRULE:FREQ=WEEKLY;COUNT=2'], '2026-08-30 00:00:00', { kind: santiago });
    const dayStart = startOfLocalDay(new Date('2026-09-06T12:00:00Z'), 'America/Santiago');
    expect(second).toEqual({ localStart: wallClock(dayStart, 'America/Santiago'), startsAt: dayStart });
    expect(second!.localStart).toBe('2026-09-06 01:00:00');
  });

  it('a floating UNTIL (no Z) is a wall clock in the series zone, as libical and Google Calendar read it', () => {
    // 19:00 on 8 January in New York is 00:00Z on the 9th: the 8 January occurrence is the last.
    expect(canonicalRecurrence(['RRULE:FREQ=DAILY;UNTIL=20260108T190000'], TIMED)).toEqual({
      ok: true,
      value: ['RRULE:FREQ=DAILY;UNTIL=20260109T000000Z'],
    });
    expect(
      occurrences(['RRULE:FREQ=DAILY;UNTIL=20260108T190000'], '2026-01-06 19:00:00').map(labelled),
    ).toEqual(['2026-01-06 19:00 EST', '2026-01-07 19:00 EST', '2026-01-08 19:00 EST']);
    // In the spring-forward gap it moves forward (03:30 EDT), in the repeated hour it is the first pass.
    expect(canonicalRecurrence(['RRULE:FREQ=DAILY;UNTIL=20260308T023000'], TIMED)).toMatchObject({
      value: ['RRULE:FREQ=DAILY;UNTIL=20260308T073000Z'],
    });
    expect(canonicalRecurrence(['RRULE:FREQ=DAILY;UNTIL=20261101T013000'], TIMED)).toMatchObject({
      value: ['RRULE:FREQ=DAILY;UNTIL=20261101T053000Z'],
    });
    // An all-day series still ends on a date.
    expect(
      parseRecurrence(['RRULE:FREQ=DAILY;UNTIL=20260108T190000'], { timezone: NY, allDay: true }),
    ).toMatchObject({
      ok: false,
      problem: { code: 'malformed' },
    });
  });

  it('UNTIL in UTC landing in the repeated hour compares instants', () => {
    const rule = (until: string) => [`RRULE:FREQ=DAILY;UNTIL=${until}`];
    // 05:15Z is 01:15 EDT, before the first 01:30: the 1 November occurrence is out.
    expect(occurrences(rule('20261101T051500Z'), '2026-10-30 01:30:00').map(labelled)).toEqual([
      '2026-10-30 01:30 EDT',
      '2026-10-31 01:30 EDT',
    ]);
    // 06:15Z is 01:15 EST, the second pass, after the first 01:30 (05:30Z): it is in.
    expect(occurrences(rule('20261101T061500Z'), '2026-10-30 01:30:00').map(labelled)).toEqual([
      '2026-10-30 01:30 EDT',
      '2026-10-31 01:30 EDT',
      '2026-11-01 01:30 EDT',
    ]);
  });

  it('BYDAY=-1FR: the last Friday of each month', () => {
    expect(
      occurrences(['RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=4'], '2026-01-30 19:00:00').map(labelled),
    ).toEqual([
      '2026-01-30 19:00 EST',
      '2026-02-27 19:00 EST',
      '2026-03-27 19:00 EDT',
      '2026-04-24 19:00 EDT',
    ]);
  });

  it('BYMONTHDAY=31 skips the months without a 31st, not counting them', () => {
    expect(
      occurrences(['RRULE:FREQ=MONTHLY;BYMONTHDAY=31;COUNT=5'], '2026-01-31 10:00:00').map((o) =>
        o.localStart.slice(0, 10),
      ),
    ).toEqual(['2026-01-31', '2026-03-31', '2026-05-31', '2026-07-31', '2026-08-31']);
  });

  it('BYMONTHDAY=-3 counts from each month end (February of a leap year too)', () => {
    expect(
      occurrences(['RRULE:FREQ=MONTHLY;BYMONTHDAY=-3;COUNT=4'], '2027-12-29 10:00:00').map((o) =>
        o.localStart.slice(0, 10),
      ),
    ).toEqual(['2027-12-29', '2028-01-29', '2028-02-27', '2028-03-29']);
  });

  it('Feb 29: a yearly series keeps to leap years', () => {
    expect(
      occurrences(['RRULE:FREQ=YEARLY;COUNT=3'], '2024-02-29 12:00:00').map((o) => o.localStart),
    ).toEqual(['2024-02-29 12:00:00', '2028-02-29 12:00:00', '2032-02-29 12:00:00']);
    expect(
      occurrences(['RRULE:FREQ=MONTHLY;BYMONTHDAY=29;BYMONTH=2'], '2024-02-29 12:00:00', {
        horizon: '2033-01-01T00:00:00Z',
      }).map((o) => o.localStart.slice(0, 10)),
    ).toEqual(['2024-02-29', '2028-02-29', '2032-02-29']);
  });

  it('BYSETPOS=1,-1: the first and the last weekday of each month', () => {
    expect(
      occurrences(
        ['RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1,-1;COUNT=6'],
        '2026-01-01 09:00:00',
      ).map((o) => o.localStart.slice(0, 10)),
    ).toEqual(['2026-01-01', '2026-01-30', '2026-02-02', '2026-02-27', '2026-03-02', '2026-03-31']);
  });

  it('COUNT bounds the RRULE only: RDATEs add to it and EXDATEs take from it', () => {
    const found = occurrences(
      [
        'RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=4',
        'RDATE;TZID=America/New_York:20260108T190000',
        'EXDATE;TZID=America/New_York:20260113T190000',
      ],
      '2026-01-06 19:00:00',
    );
    expect(found.map((o) => o.localStart.slice(0, 10))).toEqual([
      '2026-01-06',
      '2026-01-08',
      '2026-01-20',
      '2026-01-27',
    ]);
  });

  it('an EXDATE on the first start removes it, and it still counts for COUNT', () => {
    const found = occurrences(
      ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=3', 'EXDATE:20260107T000000Z'],
      '2026-01-06 19:00:00',
    );
    expect(found.map((o) => o.localStart.slice(0, 10))).toEqual(['2026-01-13', '2026-01-20']);
  });

  it('a first start the rule does not give is still the first occurrence, counted by COUNT', () => {
    expect(
      occurrences(['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=3'], '2026-01-01 19:00:00').map((o) =>
        o.localStart.slice(0, 10),
      ),
    ).toEqual(['2026-01-01', '2026-01-06', '2026-01-13']);
  });

  it('no RRULE: the first start and the RDATEs, less the EXDATEs; values in other zones are instants', () => {
    expect(
      occurrences(
        [
          'RDATE;TZID=Europe/Paris:20260110T010000,20260112T190000',
          'RDATE:20260111T190000',
          'EXDATE:20260112T180000Z',
        ],
        '2026-01-05 19:00:00',
      ).map(labelled),
    ).toEqual(['2026-01-05 19:00 EST', '2026-01-09 19:00 EST', '2026-01-11 19:00 EST']);
    expect(occurrences([], '2026-01-05 19:00:00').map(labelled)).toEqual(['2026-01-05 19:00 EST']);
  });

  it('the horizon bounds a series without end; nothing starts at or after it', () => {
    const found = occurrences(['RRULE:FREQ=WEEKLY'], '2026-01-06 19:00:00', {
      horizon: '2026-01-28T00:00:01Z',
    });
    expect(found.map((o) => o.localStart.slice(0, 10))).toEqual([
      '2026-01-06',
      '2026-01-13',
      '2026-01-20',
      '2026-01-27',
    ]);
    // 2026-01-28 00:00Z is the 27th's start exactly: an exclusive bound.
    expect(
      occurrences(['RRULE:FREQ=WEEKLY'], '2026-01-06 19:00:00', { horizon: '2026-01-28T00:00:00Z' }),
    ).toHaveLength(3);
  });
});

describe('refusals', () => {
  const REFUSED: Array<{
    lines: string[];
    code: RecurrenceProblemCode;
    says: RegExp;
    kind?: SeriesKind;
    line?: number;
  }> = [
    { lines: ['RRULE:FREQ=SECONDLY;COUNT=5'], code: 'unsupported', says: /SECONDLY.*HOURLY at most/ },
    { lines: ['RRULE:FREQ=MINUTELY'], code: 'unsupported', says: /MINUTELY/ },
    { lines: ['EXRULE:FREQ=WEEKLY'], code: 'unsupported', says: /EXRULE is not a recurrence line/ },
    { lines: ['X-SOMETHING:1'], code: 'unsupported', says: /X-SOMETHING/ },
    {
      lines: ['DTSTART;TZID=America/New_York:20260106T190000'],
      code: 'unsupported',
      says: /event's own start/,
    },
    { lines: ['RRULE:FREQ=WEEKLY;RSCALE=HEBREW'], code: 'unsupported', says: /RSCALE/ },
    { lines: ['RRULE:FREQ=WEEKLY', 'RRULE:FREQ=DAILY'], code: 'unsupported', says: /One RRULE/, line: 1 },
    { lines: ['RDATE;VALUE=PERIOD:19960403T020000Z/19960403T040000Z'], code: 'unsupported', says: /PERIOD/ },
    {
      lines: ['RRULE:FREQ=HOURLY'],
      code: 'unsupported',
      says: /daily at most/,
      kind: { timezone: NY, allDay: true },
    },
    { lines: ['RRULE:COUNT=3'], code: 'malformed', says: /needs FREQ/ },
    { lines: ['RRULE:FREQ=FORTNIGHTLY'], code: 'malformed', says: /not a frequency/ },
    { lines: ['RRULE:FREQ=WEEKLY;INTERVAL=0'], code: 'malformed', says: /INTERVAL=0/ },
    { lines: ['RRULE:FREQ=WEEKLY;COUNT=two'], code: 'malformed', says: /COUNT=two/ },
    { lines: ['RRULE:FREQ=WEEKLY;BYDAY=XX'], code: 'malformed', says: /not a weekday/ },
    { lines: ['RRULE:FREQ=WEEKLY;BYDAY=-1FR'], code: 'malformed', says: /ordinal.*MONTHLY or YEARLY/ },
    { lines: ['RRULE:FREQ=MONTHLY;BYDAY=6FR'], code: 'malformed', says: /±1…±5/ },
    { lines: ['RRULE:FREQ=MONTHLY;BYMONTHDAY=0'], code: 'malformed', says: /BYMONTHDAY=0/ },
    { lines: ['RRULE:FREQ=MONTHLY;BYMONTHDAY=32'], code: 'malformed', says: /outside/ },
    { lines: ['RRULE:FREQ=WEEKLY;BYMONTHDAY=3'], code: 'malformed', says: /WEEKLY/ },
    {
      lines: ['RRULE:FREQ=YEARLY;BYMONTH=2,4;BYMONTHDAY=-31,31'],
      code: 'malformed',
      says: /BYMONTHDAY=-31,31 never falls in BYMONTH=2,4/,
    },
    { lines: ['RRULE:FREQ=MONTHLY;BYWEEKNO=3'], code: 'malformed', says: /BYWEEKNO goes with FREQ=YEARLY/ },
    { lines: ['RRULE:FREQ=MONTHLY;BYSETPOS=1'], code: 'malformed', says: /another BYxxx/ },
    {
      lines: ['RRULE:FREQ=DAILY;COUNT=3;UNTIL=20260101T000000Z'],
      code: 'malformed',
      says: /COUNT and UNTIL/,
    },
    { lines: ['RRULE:FREQ=DAILY;COUNT=3;COUNT=4'], code: 'malformed', says: /twice/ },
    { lines: ['RRULE;X-A=1:FREQ=DAILY'], code: 'malformed', says: /no parameters/ },
    { lines: ['FREQ=DAILY'], code: 'malformed', says: /no ":" found/ },
    {
      lines: ['RRULE:FREQ=DAILY', 'EXDATE:20260230T190000'],
      code: 'malformed',
      says: /not a calendar date/,
      line: 1,
    },
    { lines: ['EXDATE:20260110T250000'], code: 'malformed', says: /not a time of day/ },
    { lines: ['EXDATE:0999-01-01'], code: 'malformed', says: /not a date-time/ },
    { lines: ['EXDATE;VALUE=DATE:20260110'], code: 'malformed', says: /starts at a time of day/ },
    {
      lines: ['EXDATE;TZID=America/New_York:20260110T190000Z'],
      code: 'malformed',
      says: /TZID does not apply/,
    },
    { lines: ['EXDATE;LANGUAGE=en:20260110T190000'], code: 'malformed', says: /TZID and VALUE only/ },
    {
      lines: ['EXDATE:20260110T190000'],
      code: 'malformed',
      says: /all-day series takes dates/,
      kind: { timezone: NY, allDay: true },
    },
    {
      lines: ['RRULE:FREQ=DAILY;UNTIL=20260110T000000Z'],
      code: 'malformed',
      says: /ends on a date/,
      kind: { timezone: NY, allDay: true },
    },
    {
      lines: ['RRULE:FREQ=DAILY;BYHOUR=9'],
      code: 'malformed',
      says: /BYHOUR do not apply/,
      kind: { timezone: NY, allDay: true },
    },
    {
      lines: ['EXDATE;TZID=Mars/Olympus_Mons:20260110T190000'],
      code: 'unknown-zone',
      says: /Mars\/Olympus_Mons/,
    },
    {
      lines: ['EXDATE;TZID="W. Europe Standard Time":20260110T190000'],
      code: 'unknown-zone',
      says: /W\. Europe Standard Time/,
    },
    {
      lines: [
        `EXDATE:${Array.from({ length: MAX_RECURRENCE_DATES + 1 }, (_, i) => `${2030 + Math.floor(i / 365)}0101T${String(i % 24).padStart(2, '0')}${String(Math.floor(i / 24) % 60).padStart(2, '0')}00Z`).join(',')}`,
      ],
      code: 'too-many-dates',
      says: /At most 1000 EXDATE values/,
    },
  ];

  it.each(REFUSED)('$lines.0 → $code', ({ lines, code, says, kind, line }) => {
    const result = parseRecurrence(lines, kind ?? TIMED);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problem.code).toBe(code);
    expect(result.problem.message).toMatch(says);
    expect(result.problem.line).toBe(line ?? 0);
    expect(result.problem.message).toMatch(new RegExp(`^recurrence\\[${line ?? 0}\\]: `));
  });

  it('an RDATE before the first start is refused when the series is expanded', () => {
    const result = expandRecurrence(
      parsed(['RRULE:FREQ=WEEKLY;COUNT=2', 'RDATE:20260101T000000Z']),
      { ...TIMED, localStart: '2026-01-06 19:00:00' },
      { horizon: new Date('2027-01-01T00:00:00Z') },
    );
    expect(result).toMatchObject({
      ok: false,
      problem: { code: 'malformed', message: /before the series' first start/ },
    });
  });

  it('a problem becomes the 400 naming recurrence, with its code and line', () => {
    const result = parseRecurrence(['RRULE:FREQ=WEEKLY', 'RRULE:FREQ=MINUTELY'], TIMED);
    if (result.ok) throw new Error('accepted');
    const error = recurrenceInvalid(result.problem);
    expect(error.status).toBe(400);
    expect(error.code).toBe('rest_invalid_param');
    expect(error.data).toEqual({
      params: { recurrence: result.problem.message },
      details: {
        recurrence: { code: 'recurrence-unsupported', message: result.problem.message, data: { line: 1 } },
      },
    });
  });
});

describe('the cap', () => {
  const start = { ...TIMED, localStart: '2026-01-01 19:00:00' };

  it('a series with more occurrences before the horizon than the cap is refused, never cut', () => {
    const result = expandRecurrence(parsed(['RRULE:FREQ=DAILY']), start, {
      horizon: new Date('2060-01-01T00:00:00Z'),
    });
    expect(result).toMatchObject({
      ok: false,
      problem: { code: 'too-many-occurrences', message: /more than 10,000 occurrences/ },
    });
  });

  it('counts what is left after the EXDATEs, at exactly the cap and one past it', () => {
    const horizon = new Date('2030-01-01T00:00:00Z');
    const expand = (lines: string[]) => expandRecurrence(parsed(lines), start, { horizon, cap: 5 });
    expect(expand(['RRULE:FREQ=DAILY;COUNT=5'])).toMatchObject({ ok: true, value: { length: 5 } });
    expect(expand(['RRULE:FREQ=DAILY;COUNT=6'])).toMatchObject({
      ok: false,
      problem: { code: 'too-many-occurrences' },
    });
    expect(expand(['RRULE:FREQ=DAILY;COUNT=6', 'EXDATE:20260103T000000Z'])).toMatchObject({
      ok: true,
      value: { length: 5 },
    });
    expect(expand(['RRULE:FREQ=DAILY;COUNT=5', 'RDATE:20260102T230000Z'])).toMatchObject({
      ok: false,
      problem: { code: 'too-many-occurrences' },
    });
  });

  it('a sparse rule started long ago is refused once it has walked the periods allowed', () => {
    const result = expandRecurrence(
      parsed(['RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29']),
      { ...TIMED, localStart: '1804-02-29 19:00:00' },
      { horizon: new Date('2031-01-01T00:00:00Z') },
    );
    expect(result).toMatchObject({
      ok: false,
      problem: { code: 'too-complex', message: /more than 50,000 days/ },
    });
  });

  it('expands a 10,000-occurrence daily series (times printed: the first run, then warm runs)', () => {
    const recurrence = parsed(['RRULE:FREQ=DAILY;COUNT=10000']);
    const times: number[] = [];
    let last: Occurrence[] = [];
    for (let run = 0; run < 3; run++) {
      const began = performance.now();
      const result = expandRecurrence(recurrence, start, { horizon: new Date('2100-01-01T00:00:00Z') });
      times.push(performance.now() - began);
      if (!result.ok) throw new Error(result.problem.message);
      last = result.value;
    }
    console.log(
      `10,000-occurrence daily series expanded in ${times.map((ms) => ms.toFixed(0)).join(' / ')} ms`,
    );
    expect(last).toHaveLength(10_000);
    expect(last.at(-1)!.localStart).toBe('2053-05-18 19:00:00');
  });
});

describe('canonical lines', () => {
  it('writes one spelling for the same set: names upper-case, parts in order, lists sorted, dates grouped', () => {
    const lines = [
      'rrule:byday=fr,-1mo,tu;wkst=mo;interval=1;freq=monthly;count=12;',
      'EXDATE:20260301T000000Z',
      'exdate;tzid=America/New_York:20260220T190000,20260210T190000',
      'EXDATE;TZID=America/New_York:20260210T190000',
      'RDATE:20260215T120000',
    ];
    expect(canonicalRecurrence(lines, TIMED)).toEqual({
      ok: true,
      value: [
        'RRULE:FREQ=MONTHLY;COUNT=12;BYDAY=-1MO,TU,FR',
        'RDATE:20260215T120000',
        'EXDATE;TZID=America/New_York:20260210T190000,20260220T190000',
        'EXDATE:20260301T000000Z',
      ],
    });
  });

  it('reads its own lines back to the same lines', () => {
    const canonical = formatRecurrence(
      parsed([
        'RRULE:FREQ=YEARLY;INTERVAL=2;BYMONTH=3,1;BYDAY=2SU;BYSETPOS=-1,1;UNTIL=20300101T000000Z;WKST=SU',
        'RDATE;TZID=Europe/Paris:20270101T090000',
        'EXDATE:20280101T090000',
      ]),
    );
    expect(formatRecurrence(parsed(canonical))).toEqual(canonical);
    expect(canonical[0]).toBe(
      'RRULE:FREQ=YEARLY;UNTIL=20300101T000000Z;INTERVAL=2;BYDAY=2SU;BYMONTH=1,3;BYSETPOS=-1,1;WKST=SU',
    );
  });

  it('a date UNTIL on a timed series becomes the last second of that day in the series zone, in UTC', () => {
    expect(canonicalRecurrence(['RRULE:FREQ=DAILY;UNTIL=20260110'], TIMED)).toEqual({
      ok: true,
      value: ['RRULE:FREQ=DAILY;UNTIL=20260111T045959Z'],
    });
    expect(
      canonicalRecurrence(['RRULE:FREQ=DAILY;UNTIL=20260110', 'EXDATE:20260105'], {
        timezone: NY,
        allDay: true,
      }),
    ).toEqual({
      ok: true,
      value: ['RRULE:FREQ=DAILY;UNTIL=20260110', 'EXDATE;VALUE=DATE:20260105'],
    });
  });
});

describe('structured pattern', () => {
  it.each([
    {
      pattern: { frequency: 'monthly', byDay: ['-1FR'], count: 4 },
      text: 'RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=4',
    },
    {
      pattern: { frequency: 'WEEKLY', interval: 2, byDay: ['TH', 'TU'], until: '2026-06-30' },
      text: 'RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;UNTIL=20260630',
    },
    {
      pattern: {
        frequency: 'MONTHLY',
        byDay: ['MO', 'TU', 'WE', 'TH', 'FR'],
        bySetPos: [-1, 1],
        until: '2026-12-31T23:00:00Z',
      },
      text: 'RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1,-1;UNTIL=20261231T230000Z',
    },
    {
      pattern: { frequency: 'YEARLY', byMonth: [2], byMonthDay: [29], weekStart: 'SU' },
      text: 'RRULE:FREQ=YEARLY;BYMONTHDAY=29;BYMONTH=2;WKST=SU',
    },
  ])('$text', ({ pattern, text }) => {
    const fromPattern = recurrenceFromPattern(pattern, TIMED, ['EXDATE:20260303T000000Z']);
    if (!fromPattern.ok) throw new Error(fromPattern.problem.message);
    expect(formatRecurrence(fromPattern.value)).toEqual(
      formatRecurrence(parsed([text, 'EXDATE:20260303T000000Z'])),
    );
  });

  it('is checked by the same rules as the lines', () => {
    expect(recurrenceFromPattern({ frequency: 'MINUTELY' }, TIMED)).toMatchObject({
      ok: false,
      problem: { code: 'unsupported' },
    });
    expect(recurrenceFromPattern({ frequency: 'WEEKLY', byDay: ['-1FR'] }, TIMED)).toMatchObject({
      ok: false,
      problem: { code: 'malformed', message: /ordinal/ },
    });
    expect(recurrenceFromPattern({ frequency: 'DAILY', until: 'next week' }, TIMED)).toMatchObject({
      ok: false,
      problem: { code: 'malformed', message: /until "next week"/ },
    });
  });
});

describe('edits', () => {
  const start = { ...TIMED, localStart: '2026-01-06 19:00:00' };
  const weekly = parsed(['RRULE:FREQ=WEEKLY;COUNT=10']);
  const expand = (recurrence: Recurrence, from = start) => {
    const result = expandRecurrence(recurrence, from, { horizon: new Date('2030-01-01T00:00:00Z') });
    if (!result.ok) throw new Error(result.problem.message);
    return result.value;
  };

  it('excluding one occurrence adds its EXDATE in the series zone and takes it out of the expansion', () => {
    const all = expand(weekly);
    const result = excludeOccurrence(weekly, all[2]!, TIMED);
    if (!result.ok) throw new Error(result.problem.message);
    expect(formatRecurrence(result.value)).toEqual([
      'RRULE:FREQ=WEEKLY;COUNT=10',
      'EXDATE;TZID=America/New_York:20260120T190000',
    ]);
    expect(expand(result.value)).toEqual(all.filter((_, index) => index !== 2));
  });

  it('an occurrence at the second pass of a repeated hour is excluded by its UTC instant', () => {
    const second = { localStart: '2026-11-01 01:30:00', startsAt: new Date('2026-11-01T06:30:00Z') };
    const result = excludeOccurrence(parsed(['RRULE:FREQ=DAILY']), second, TIMED);
    expect(result.ok && formatRecurrence(result.value)).toEqual([
      'RRULE:FREQ=DAILY',
      'EXDATE:20261101T063000Z',
    ]);
  });

  it('refuses an EXDATE past the limit', () => {
    const full = parsed([
      `EXDATE:${Array.from({ length: MAX_RECURRENCE_DATES }, (_, i) => `2027${String(1 + (Math.floor(i / 28) % 12)).padStart(2, '0')}${String(1 + (i % 28)).padStart(2, '0')}T${String(Math.floor(i / 336)).padStart(2, '0')}0000Z`).join(',')}`,
    ]);
    expect(full.exdates).toHaveLength(MAX_RECURRENCE_DATES);
    const result = excludeOccurrence(full, expand(weekly)[1]!, TIMED);
    expect(result).toMatchObject({ ok: false, problem: { code: 'too-many-dates' } });
  });

  it('this and following: the old series ends with UNTIL before the occurrence, the new one goes on with the rest of COUNT', () => {
    const all = expand(
      parsed(['RRULE:FREQ=WEEKLY;COUNT=10', 'EXDATE;TZID=America/New_York:20260113T190000,20260224T190000']),
    );
    const recurrence = parsed([
      'RRULE:FREQ=WEEKLY;COUNT=10',
      'EXDATE;TZID=America/New_York:20260113T190000,20260224T190000',
    ]);
    const split = all[3]!; // 2026-02-03: the fifth rule instance, the fourth left (the 13th is excluded)
    const before = endBefore(recurrence, split, TIMED);
    expect(formatRecurrence(before)).toEqual([
      'RRULE:FREQ=WEEKLY;UNTIL=20260203T235959Z',
      'EXDATE;TZID=America/New_York:20260113T190000',
    ]);
    // UNTIL is one second before the occurrence: 2026-02-03 19:00 EST is 2026-02-04T00:00:00Z.
    expect(before.rule?.until).toMatchObject({ type: 'utc' });
    expect(expand(before)).toEqual(all.slice(0, 3));
    const after = continueFrom(recurrence, split, start);
    if (!after.ok) throw new Error(after.problem.message);
    expect(formatRecurrence(after.value)).toEqual([
      'RRULE:FREQ=WEEKLY;COUNT=6',
      'EXDATE;TZID=America/New_York:20260224T190000',
    ]);
    expect(expand(after.value, { ...TIMED, localStart: split.localStart })).toEqual(all.slice(3));
  });

  it('an all-day series ends on the day before the occurrence', () => {
    const kind = { timezone: NY, allDay: true };
    const recurrence = parsed(['RRULE:FREQ=DAILY;UNTIL=20260301', 'EXDATE;VALUE=DATE:20260210'], kind);
    const occurrence = { localStart: '2026-02-05 00:00:00', startsAt: new Date('2026-02-05T05:00:00Z') };
    expect(formatRecurrence(endBefore(recurrence, occurrence, kind))).toEqual([
      'RRULE:FREQ=DAILY;UNTIL=20260204',
    ]);
  });
});
