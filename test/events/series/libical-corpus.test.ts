import { readFileSync } from 'node:fs';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import {
  MAX_SERIES_OCCURRENCES,
  type RecurrenceResult,
  type SeriesKind,
  canonicalRecurrence,
  expandRecurrence,
  parseRecurrence,
  recurrenceInvalid,
} from '../../../src/events/series/recurrence.js';

// libical's regression corpus (fixtures/icalrecur_test.txt, unchanged; its source and licence in
// fixtures/README.md) through the expansion as the series writer drives it (series-rows.ts): the lines
// checked and stored in canonical form, read back against the first event's zone and all-day flag, and
// expanded to the horizon under the cap. docs/reference/recurrence.md#libicals-corpus says how the
// cases are compared and which readings differ from libical's, and why.

interface Case {
  /** The line of its RRULE in the file, to name it. */
  line: number;
  title: string;
  rrule: string;
  /** `19970902T090000` (floating), `…Z` (UTC) or `20241024` (a date). */
  dtstart: string;
  /** Where libical's iterator starts, for the cases that have one. */
  startAt: string | null;
  /** libical's instances, in the form of DTSTART; null where libical says it does not implement the rule. */
  instances: string[] | null;
}

function readCorpus(text: string): Case[] {
  const cases: Case[] = [];
  let pending: Partial<Omit<Case, 'title'>> & { title: string[] } = { title: [] };
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line.startsWith('#')) pending.title.push(line.slice(1).trim());
    else if (line.startsWith('RRULE:')) Object.assign(pending, { rrule: line, line: index + 1 });
    else if (line.startsWith('DTSTART:')) pending.dtstart = line.slice('DTSTART:'.length);
    else if (line.startsWith('START-AT:')) pending.startAt = line.slice('START-AT:'.length);
    else if (line.startsWith('INSTANCES:')) {
      const list = line.slice('INSTANCES:'.length).trim();
      cases.push({
        line: pending.line!,
        title: pending.title.join(' '),
        rrule: pending.rrule!,
        dtstart: pending.dtstart!,
        startAt: pending.startAt ?? null,
        instances: /^\d{8}(T\d{6}Z?)?(,|$)/.test(list) ? list.split(',') : list === '' ? [] : null,
      });
      pending = { title: [] };
    }
  }
  return cases;
}

const CORPUS = readCorpus(
  readFileSync(new URL('fixtures/icalrecur_test.txt', import.meta.url), 'utf8').replace(/\r/g, ''),
);

/** The writer's settings: the longest horizon CALENDAR_SERIES_HORIZON_MONTHS allows, the default cap. */
const HORIZON_MONTHS = 600;
const CAP = MAX_SERIES_OCCURRENCES;

const isDate = (value: string) => /^\d{8}$/.test(value);
const wallOf = (value: string) =>
  Temporal.PlainDateTime.from(isDate(value) ? `${value}T000000` : value.replace(/Z$/, ''));
/** An occurrence's start in the corpus' notation: a date for an all-day series, else the wall clock. */
const icsOf = (localStart: string, allDay: boolean) =>
  allDay ? localStart.slice(0, 10).replaceAll('-', '') : localStart.replace(/[-:]/g, '').replace(' ', 'T');

interface Expanded {
  /** The occurrences' starts, in the corpus' notation (no `Z`: wall clocks in the series' zone). */
  starts: string[];
  /** Where the horizon ends, on the same wall clock. */
  horizon: Temporal.PlainDateTime;
}

/**
 * A case as a series: its DTSTART the first event's start (in `zone`; a date makes an all-day series,
 * a `Z` a series in UTC), written now (the horizon counts from it), the RRULE its one line.
 */
function expandCase(c: Pick<Case, 'rrule' | 'dtstart'>, zone: string): RecurrenceResult<Expanded> {
  const allDay = isDate(c.dtstart);
  const kind: SeriesKind = { timezone: c.dtstart.endsWith('Z') ? 'UTC' : zone, allDay };
  const stored = canonicalRecurrence([c.rrule], kind);
  if (!stored.ok) return stored;
  const recurrence = parseRecurrence(stored.value, kind);
  if (!recurrence.ok) return recurrence;
  const start = wallOf(c.dtstart).toZonedDateTime(kind.timezone);
  const horizon = start.add({ months: HORIZON_MONTHS });
  const localStart = start.toPlainDateTime().toString().replace('T', ' ');
  const expanded = expandRecurrence(
    recurrence.value,
    { ...kind, localStart, startsAt: new Date(start.epochMilliseconds) },
    { horizon: new Date(horizon.epochMilliseconds), cap: CAP },
  );
  if (!expanded.ok) return expanded;
  return {
    ok: true,
    value: {
      starts: expanded.value.map((occurrence) => icsOf(occurrence.localStart, allDay)),
      horizon: horizon.toPlainDateTime(),
    },
  };
}

function expanded(c: Pick<Case, 'rrule' | 'dtstart'>, zone = 'UTC'): Expanded {
  const result = expandCase(c, zone);
  if (!result.ok) throw new Error(`${c.rrule} from ${c.dtstart}: ${result.problem.message}`);
  return result.value;
}

/** libical's instances as wall clocks, those before the horizon (later ones are not made yet). */
const withinHorizon = (instances: string[], horizon: Temporal.PlainDateTime) =>
  instances
    .map((value) => value.replace(/Z$/, ''))
    .filter((value) => Temporal.PlainDateTime.compare(wallOf(value), horizon) < 0);

const countOf = (rrule: string) => Number(/COUNT=(\d+)/.exec(rrule)?.[1] ?? Infinity);
const partOf = (rrule: string, part: string) => new RegExp(`[:;]${part}=`).test(rrule);

// The kinds of case, told by what they say, not by their place in the file.
const refusedFrequency = (c: Case) => /FREQ=(MINUTELY|SECONDLY)/.test(c.rrule);
/** RFC 5545 §3.3.10's table: BYMONTHDAY expands a YEARLY rule, in every month when BYMONTH is absent. */
const yearlyMonthDay = (c: Case) =>
  /FREQ=YEARLY/.test(c.rrule) &&
  partOf(c.rrule, 'BYMONTHDAY') &&
  !partOf(c.rrule, 'BYMONTH') &&
  !partOf(c.rrule, 'BYWEEKNO');
const timeOfDayOnDate = (c: Case) => isDate(c.dtstart) && /BY(HOUR|MINUTE|SECOND)=/.test(c.rrule);
const firstIsStart = (c: Case) => c.instances?.[0] === c.dtstart;

// A START-AT case lists its instances from DTSTART too (START-AT is where libical's own test starts
// its iterator): it is compared as the others are.
const compared = CORPUS.filter(
  (c) =>
    c.instances !== null &&
    firstIsStart(c) &&
    !refusedFrequency(c) &&
    !yearlyMonthDay(c) &&
    !timeOfDayOnDate(c),
);

// RFC 5545 §3.3.10: "The "DTSTART" property value always counts as the first occurrence."
const unmatchedStart = CORPUS.filter((c) => c.instances !== null && !firstIsStart(c) && !refusedFrequency(c));
/** libical lists no instances for it ("UNIMPLEMENTED"): nothing to compare. */
const unimplemented = CORPUS.filter((c) => c.instances === null);

describe('the corpus as read', () => {
  it('has its 146 cases, each with a rule and a start', () => {
    expect(CORPUS).toHaveLength(146);
    for (const c of CORPUS) {
      expect(c.rrule).toMatch(/^RRULE:FREQ=/);
      expect(c.dtstart).toMatch(/^\d{8}(T\d{6}Z?)?$/);
    }
    expect(CORPUS.filter((c) => c.startAt !== null && firstIsStart(c))).toHaveLength(7);
  });

  it('puts every case in exactly one of the groups below, most of them compared as they are', () => {
    const groups = [
      compared,
      unmatchedStart,
      CORPUS.filter(refusedFrequency),
      CORPUS.filter(yearlyMonthDay),
      CORPUS.filter(timeOfDayOnDate),
      unimplemented,
    ];
    expect(groups.map((group) => group.length)).toEqual([120, 11, 11, 2, 1, 1]);
    const lines = groups.flat().map((c) => c.line);
    expect(lines.sort((a, b) => a - b)).toEqual(CORPUS.map((c) => c.line));
  });
});

describe('cases whose DTSTART is the first instance: the same instances as libical', () => {
  it.each(compared.map((c) => [`line ${c.line}: ${c.rrule} from ${c.dtstart}`, c] as const))('%s', (_, c) => {
    const series = expanded(c);
    expect(series.starts).toEqual(withinHorizon(c.instances!, series.horizon));
  });

  // The corpus' floating starts and wall-clock ends name the same wall clocks in any zone: the rule
  // runs on the series' wall clock, across DST. (A UTC UNTIL names an instant, so those cases stay in UTC.)
  const wallClockOnly = compared.filter(
    (c) => !/UNTIL=\d{8}T\d{6}Z/.test(c.rrule) && !c.dtstart.endsWith('Z'),
  );
  it.each(wallClockOnly.map((c) => [`line ${c.line}: ${c.rrule} from ${c.dtstart}`, c] as const))(
    'in New York too: %s',
    (_, c) => {
      const series = expanded(c, 'America/New_York');
      expect(series.starts).toEqual(withinHorizon(c.instances!, series.horizon));
    },
  );

  it('the cases issue #50 names are among them', () => {
    const named = [
      'RRULE:FREQ=YEARLY;BYWEEKNO=-1,-2;COUNT=5',
      'RRULE:FREQ=YEARLY;BYWEEKNO=1;BYDAY=MO,TU;INTERVAL=3;UNTIL=20320101',
      'RRULE:FREQ=YEARLY;BYWEEKNO=53;BYDAY=TU,SA;INTERVAL=5;UNTIL=20170101T000000Z',
      'RRULE:FREQ=YEARLY;BYWEEKNO=53;BYDAY=TU,SA;INTERVAL=6;UNTIL=20170101T000000Z',
      'RRULE:FREQ=YEARLY;UNTIL=20100326T000000Z;BYDAY=FR;BYYEARDAY=-275,-276,-277,-278,-279,-280,-281',
      'RRULE:FREQ=YEARLY;BYYEARDAY=366;UNTIL=20200101T000000',
    ];
    for (const rrule of named) expect(compared.map((c) => c.rrule)).toContain(rrule);
    // The Friday-on-or-after-the-26th rule: four Fridays, where the library alone gives all seven days.
    const fridays = expanded(compared.find((c) => c.rrule === named[4])!);
    expect(fridays.starts).toHaveLength(4);
    for (const start of fridays.starts) expect(wallOf(start).dayOfWeek).toBe(5);
  });
});

describe('the readings where the service and libical differ', () => {
  // RFC 5545 §3.3.10: "The COUNT rule part defines the number of occurrences at which to range-bound
  // the recurrence. The "DTSTART" property value always counts as the first occurrence." libical
  // leaves out a DTSTART its rule does not give; here the first event is the first instance and counts.
  it.each(unmatchedStart.map((c) => [`line ${c.line}: ${c.rrule} from ${c.dtstart}`, c] as const))(
    'a DTSTART the rule does not give is the first instance, then libical’s: %s',
    (_, c) => {
      const series = expanded(c);
      expect(c.instances).not.toContain(c.dtstart);
      const expected = [c.dtstart, ...c.instances!].slice(0, countOf(c.rrule));
      expect(series.starts).toEqual(withinHorizon(expected, series.horizon));
    },
  );

  // RFC 5545 §3.3.10's table: BYMONTHDAY "Expand"s a YEARLY rule, and BYMONTH, the part that would
  // narrow it to months, is absent — every month's day, as python-dateutil and rrule.js read it. libical
  // takes DTSTART's month, the reading the rule gives when that BYMONTH is written out.
  const monthDays = CORPUS.filter(yearlyMonthDay);
  it.each(monthDays.map((c) => [`line ${c.line}: ${c.rrule} from ${c.dtstart}`, c] as const))(
    'a yearly BYMONTHDAY without BYMONTH is in every month: %s',
    (_, c) => {
      expect(firstIsStart(c)).toBe(true);
      const months = Array.from({ length: 12 }, (_, i) => i + 1).join(',');
      const series = expanded(c);
      expect(series.starts).toEqual(expanded({ ...c, rrule: `${c.rrule};BYMONTH=${months}` }).starts);
      expect(new Set(series.starts.map((start) => start.slice(4, 6))).size).toBeGreaterThan(1);
      // libical's reading is the rule with DTSTART's month written out.
      const libical = expanded({ ...c, rrule: `${c.rrule};BYMONTH=${Number(c.dtstart.slice(4, 6))}` });
      expect(libical.starts).toEqual(withinHorizon(c.instances!, series.horizon));
    },
  );

  // An all-day series has no time of day: BYHOUR/BYMINUTE/BYSECOND are refused (docs/reference/
  // recurrence.md) where libical ignores them; the rule without them gives libical's instances.
  const timesOnDates = CORPUS.filter(timeOfDayOnDate);
  it.each(timesOnDates.map((c) => [`line ${c.line}: ${c.rrule} from ${c.dtstart}`, c] as const))(
    'a time of day on an all-day series is refused: %s',
    (_, c) => {
      const refused = expandCase(c, 'UTC');
      expect(refused).toMatchObject({ ok: false, problem: { code: 'malformed', message: /do not apply/ } });
      const withoutTimes = c.rrule.replace(/;BY(HOUR|MINUTE|SECOND)=[\d,]+/g, '');
      expect(expanded({ ...c, rrule: withoutTimes }).starts).toEqual(c.instances);
    },
  );
});

describe('MINUTELY and SECONDLY stay refused', () => {
  const refused = CORPUS.filter(refusedFrequency);
  it.each(refused.map((c) => [`line ${c.line}: ${c.rrule}`, c] as const))(
    'a 400 naming recurrence: %s',
    (_, c) => {
      const result = expandCase(c, 'UTC');
      if (result.ok) throw new Error('accepted');
      expect(result.problem.code).toBe('unsupported');
      const error = recurrenceInvalid(result.problem);
      expect(error.status).toBe(400);
      expect(error.data).toMatchObject({ params: { recurrence: expect.stringMatching(/HOURLY at most/) } });
    },
  );
});
