import { builder } from '../../core/graphql/schema/builder.js';
import { FREQUENCIES, type Frequency, WEEKDAYS, type Weekday } from './recurrence.js';

// `EventInput.recurrencePattern`: a series as a form gives it (Microsoft Graph's patternedRecurrence, in
// RFC 5545 terms), beside `recurrence`. Its fields are the domain pattern's
// (`events/series/recurrence/pattern-lines.ts`), so the series service reads it into the same lines and
// its refusals name `recurrencePattern`.

const FREQUENCY_DESCRIPTIONS: Record<Frequency, string> = {
  YEARLY: 'Every year (or every `interval` years)',
  MONTHLY: 'Every month',
  WEEKLY: 'Every week',
  DAILY: 'Every day',
  HOURLY: 'Every hour (not for an all-day series)',
};

const RecurrenceFrequency = builder.enumType('RecurrenceFrequency', {
  description: "How often a series' rule repeats (RFC 5545 FREQ; SECONDLY and MINUTELY are refused)",
  values: Object.fromEntries(
    FREQUENCIES.map((frequency) => [frequency, { description: FREQUENCY_DESCRIPTIONS[frequency] }]),
  ) as Record<Frequency, { description: string }>,
});

const WEEKDAY_NAMES: Record<Weekday, string> = {
  MO: 'Monday',
  TU: 'Tuesday',
  WE: 'Wednesday',
  TH: 'Thursday',
  FR: 'Friday',
  SA: 'Saturday',
  SU: 'Sunday',
};

const RecurrenceWeekday = builder.enumType('RecurrenceWeekday', {
  description: 'A day of the week as RFC 5545 spells it',
  values: Object.fromEntries(WEEKDAYS.map((day) => [day, { description: WEEKDAY_NAMES[day] }])) as Record<
    Weekday,
    { description: string }
  >,
});

export const RecurrencePatternInput = builder.inputType('RecurrencePatternInput', {
  description:
    'A series as a form gives it, instead of `recurrence` lines; it becomes the same lines (docs/guide/series.md)',
  fields: (t) => ({
    frequency: t.field({ type: RecurrenceFrequency, required: true, description: 'FREQ' }),
    interval: t.int({ description: 'Every n periods (INTERVAL); default 1' }),
    byDay: t.stringList({
      description:
        'Weekdays (BYDAY), each with an optional ordinal in a monthly or yearly rule: TU, 1MO, -1FR',
    }),
    byMonthDay: t.intList({ description: 'Days of the month (BYMONTHDAY): 1 to 31, -1 the last' }),
    byMonth: t.intList({ description: 'Months (BYMONTH): 1 to 12' }),
    bySetPos: t.intList({
      description:
        'Which of the days the other parts give, in each period (BYSETPOS): 1 the first, -1 the last',
    }),
    weekStart: t.field({
      type: RecurrenceWeekday,
      description: 'The first day of the week (WKST); default MO',
    }),
    count: t.int({
      description: 'How many times the rule repeats, the first event included (COUNT); not with until',
    }),
    until: t.string({
      description:
        "The last day, YYYY-MM-DD (through that day in the event's zone), or an instant with an offset (UNTIL); not with count",
    }),
    rdates: t.stringList({
      description:
        "Starts added to the rule's (RDATE): YYYY-MM-DD for an all-day series, else a wall clock YYYY-MM-DDTHH:MM[:SS] in the event's zone or an instant with an offset",
    }),
    exdates: t.stringList({
      description: "Starts removed from the rule's (EXDATE), written as rdates are",
    }),
  }),
});
