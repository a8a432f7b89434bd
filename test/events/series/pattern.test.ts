import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness } from '../../helpers/harness.js';
import { dataOf, graphqlClient } from '../../helpers/graphql.js';
import { type Users, startWithRoles } from '../../helpers/users.js';

// The structured pattern beside the lines (docs/guide/series.md): REST `recurrence_pattern` and GraphQL
// `recurrencePattern` make the very series the equivalent `recurrence` lines make; a pattern with the
// lines, or a bad pattern, is a 400 naming the pattern's field, and nothing is written.

let h: Harness;
let users: Users;
const gql = graphqlClient(() => h);

beforeAll(async () => {
  ({ h, users } = await startWithRoles());
});
afterAll(() => h.close());

const admin = () => users.administrator;
const post = (path: string, body: unknown) =>
  h.http
    .post(`${API}${path}`)
    .auth(admin().login, admin().password)
    .send(body as object);

const EVENT = {
  title: 'Evening class',
  start_date: '2027-01-05 19:00:00',
  end_date: '2027-01-05 21:00:00',
  timezone: 'Europe/Paris',
};

/** A series' lines and slots (each event's start and end), first event included. */
async function seriesOf(firstId: number) {
  const events = await h.db.event.findMany({
    where: { OR: [{ id: firstId }, { postParentId: firstId }] },
    orderBy: { startsAt: 'asc' },
    select: { localStart: true, localEnd: true, startsAt: true, recurrence: true },
  });
  return {
    lines: events[0]?.recurrence,
    slots: events.map(({ localStart, localEnd, startsAt }) => ({ localStart, localEnd, startsAt })),
  };
}

async function restSeries(body: Record<string, unknown>) {
  const res = await post('/events', { ...EVENT, ...body }).expect(201);
  return {
    ...(await seriesOf(res.body.id)),
    shown: res.body.recurrence as string[],
    id: res.body.id as number,
  };
}

const CREATE = `mutation($input: CreateEventInput!) { createEvent(input: $input) { databaseId recurrence } }`;
const graphqlInput = (input: Record<string, unknown>) => ({
  title: EVENT.title,
  startDate: EVENT.start_date,
  endDate: EVENT.end_date,
  timezone: EVENT.timezone,
  ...input,
});

async function graphqlSeries(input: Record<string, unknown>) {
  const created = dataOf(await gql(CREATE, { input: graphqlInput(input) }, admin())).createEvent;
  return { ...(await seriesOf(created.databaseId)), shown: created.recurrence as string[] };
}

/** Nothing written: as many events as before. */
async function refusedWithoutWriting(run: () => Promise<void>) {
  const before = await h.db.event.count();
  await run();
  expect(await h.db.event.count()).toBe(before);
}

describe('a pattern makes the series its lines make', () => {
  it('weekly on two days with an exception date, on REST and on GraphQL', async () => {
    const lines = await restSeries({
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=10', 'EXDATE:20270112T190000'],
    });
    const restPattern = await restSeries({
      recurrence_pattern: { frequency: 'weekly', by_day: 'TH,TU', count: 10, exdates: ['2027-01-12T19:00'] },
    });
    const graphqlPattern = await graphqlSeries({
      recurrencePattern: {
        frequency: 'WEEKLY',
        byDay: ['TU', 'TH'],
        count: 10,
        exdates: ['2027-01-12T19:00'],
      },
    });
    expect(lines.shown).toEqual(['RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=TU,TH', 'EXDATE:20270112T190000']);
    expect(lines.slots).toHaveLength(9);
    for (const made of [restPattern, graphqlPattern]) {
      expect(made.shown).toEqual(lines.shown);
      expect(made.lines).toBe(lines.lines);
      expect(made.slots).toEqual(lines.slots);
    }
  });

  it('monthly on the last Friday (byDay FR, bySetPos -1)', async () => {
    const lines = await graphqlSeries({ recurrence: ['RRULE:FREQ=MONTHLY;BYDAY=FR;BYSETPOS=-1;COUNT=4'] });
    const pattern = await graphqlSeries({
      recurrencePattern: { frequency: 'MONTHLY', byDay: ['FR'], bySetPos: [-1], count: 4 },
    });
    const rest = await restSeries({
      recurrence_pattern: { frequency: 'MONTHLY', by_day: ['FR'], by_set_pos: [-1], count: 4 },
    });
    // The first event (a Tuesday) counts as the first instance, then the last Fridays from January on.
    expect(pattern.slots.map((slot) => slot.localStart)).toEqual([
      '2027-01-05 19:00:00',
      '2027-01-29 19:00:00',
      '2027-02-26 19:00:00',
      '2027-03-26 19:00:00',
    ]);
    expect(pattern.slots).toEqual(lines.slots);
    expect(rest.slots).toEqual(lines.slots);
    expect(pattern.shown).toEqual(['RRULE:FREQ=MONTHLY;COUNT=4;BYDAY=FR;BYSETPOS=-1']);
  });

  it('until as a date: through that day in the event zone', async () => {
    const pattern = await restSeries({
      recurrence_pattern: { frequency: 'DAILY', interval: '2', until: '2027-01-11' },
    });
    const lines = await restSeries({ recurrence: ['RRULE:FREQ=DAILY;INTERVAL=2;UNTIL=20270111'] });
    expect(pattern.slots.map((slot) => slot.localStart)).toEqual([
      '2027-01-05 19:00:00',
      '2027-01-07 19:00:00',
      '2027-01-09 19:00:00',
      '2027-01-11 19:00:00',
    ]);
    // The end of 11 January in Paris, in UTC, as RFC 5545 wants beside a zoned start.
    expect(pattern.shown).toEqual(['RRULE:FREQ=DAILY;UNTIL=20270111T225959Z;INTERVAL=2']);
    expect(lines.shown).toEqual(pattern.shown);
    expect(lines.slots).toEqual(pattern.slots);
  });

  it('an update with a pattern makes a single event a series, and replaces its set', async () => {
    const single = await post('/events', EVENT).expect(201);
    const updated = await post(`/events/${single.body.id}`, {
      recurrence_pattern: { frequency: 'WEEKLY', count: 3 },
    }).expect(200);
    expect(updated.body.recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=3']);
    expect((await seriesOf(single.body.id)).slots).toHaveLength(3);
    await post(`/events/${single.body.id}`, { recurrence_pattern: { frequency: 'DAILY', count: 2 } }).expect(
      200,
    );
    expect((await seriesOf(single.body.id)).slots.map((slot) => slot.localStart)).toEqual([
      '2027-01-05 19:00:00',
      '2027-01-06 19:00:00',
    ]);
  });
});

describe('refusals on REST name recurrence_pattern', () => {
  const refused = async (body: Record<string, unknown>) => {
    let res:
      { body: { code: string; data: { params: Record<string, string>; details: unknown } } } | undefined;
    await refusedWithoutWriting(async () => {
      res = await post('/events', { ...EVENT, ...body }).expect(400);
    });
    expect(res!.body.code).toBe('rest_invalid_param');
    expect(Object.keys(res!.body.data.params)).toEqual(['recurrence_pattern']);
    return res!.body.data;
  };

  it('the lines and a pattern together', async () => {
    const data = await refused({
      recurrence: ['RRULE:FREQ=WEEKLY'],
      recurrence_pattern: { frequency: 'WEEKLY', count: 2 },
    });
    expect(data.params.recurrence_pattern).toMatch(/not both/);
  });

  it.each([
    {
      case: 'an unknown frequency',
      pattern: { frequency: 'FORTNIGHTLY' },
      code: 'recurrence-malformed',
      says: /FREQ=FORTNIGHTLY/,
    },
    {
      case: 'a refused frequency',
      pattern: { frequency: 'MINUTELY' },
      code: 'recurrence-unsupported',
      says: /MINUTELY/,
    },
    {
      case: 'interval 0',
      pattern: { frequency: 'DAILY', interval: 0 },
      code: 'recurrence-malformed',
      says: /INTERVAL=0/,
    },
    {
      case: 'count and until together',
      pattern: { frequency: 'DAILY', count: 3, until: '2027-02-01' },
      code: 'recurrence-malformed',
      says: /COUNT and UNTIL/,
    },
    {
      case: 'a date that is no date',
      pattern: { frequency: 'DAILY', count: 3, exdates: ['2027-02-30T19:00'] },
      code: 'recurrence-malformed',
      says: /^exdates\[0\]: .*not a calendar date/,
    },
  ])('$case', async ({ pattern, code, says }) => {
    const data = await refused({ recurrence_pattern: pattern });
    expect(data.params.recurrence_pattern).toMatch(says);
    expect(data.details).toMatchObject({ recurrence_pattern: { code } });
  });

  it('a pattern that does not read (an unknown key, a list of objects)', async () => {
    await refused({ recurrence_pattern: { frequency: 'DAILY', every: 2 } });
    await refused({ recurrence_pattern: { frequency: 'DAILY', by_month: [{ month: 1 }] } });
    await refused({ recurrence_pattern: 'FREQ=DAILY' });
  });

  it('a pattern written to one occurrence (its series is its first event’s)', async () => {
    const { id } = await restSeries({ recurrence_pattern: { frequency: 'WEEKLY', count: 3 } });
    const occurrence = await h.db.event.findFirstOrThrow({
      where: { postParentId: id },
      select: { id: true },
    });
    const res = await post(`/events/${occurrence.id}`, {
      recurrence_pattern: { frequency: 'DAILY', count: 2 },
    }).expect(400);
    expect(Object.keys(res.body.data.params)).toEqual(['recurrence_pattern']);
  });
});

describe('refusals on GraphQL name recurrencePattern', () => {
  const refused = async (input: Record<string, unknown>) => {
    let errors: Array<{ message: string; extensions: Record<string, unknown> }> | undefined;
    await refusedWithoutWriting(async () => {
      ({ errors } = await gql(CREATE, { input: graphqlInput(input) }, admin()));
    });
    expect(errors).toHaveLength(1);
    return errors![0]!;
  };
  const invalidPattern = async (input: Record<string, unknown>, says: RegExp) => {
    const error = await refused(input);
    expect(error.extensions).toMatchObject({ code: 'rest_invalid_param' });
    const { params } = (error.extensions as { data: { params: Record<string, string> } }).data;
    expect(Object.keys(params)).toEqual(['recurrencePattern']);
    expect(params.recurrencePattern).toMatch(says);
  };

  it('the lines and a pattern together', () =>
    invalidPattern(
      { recurrence: ['RRULE:FREQ=DAILY'], recurrencePattern: { frequency: 'DAILY', count: 2 } },
      /not both/,
    ));

  it('interval 0', () =>
    invalidPattern({ recurrencePattern: { frequency: 'DAILY', interval: 0 } }, /INTERVAL=0/));

  it('count and until together', () =>
    invalidPattern(
      { recurrencePattern: { frequency: 'WEEKLY', count: 2, until: '2027-03-01T00:00:00Z' } },
      /COUNT and UNTIL/,
    ));

  it('a frequency outside the enum is the GraphQL validation error', async () => {
    for (const frequency of ['MINUTELY', 'FORTNIGHTLY']) {
      const error = await refused({ recurrencePattern: { frequency } });
      expect(error.message).toMatch(/RecurrenceFrequency/);
      expect(error.message).toContain(frequency);
    }
  });
});
