import ICAL from 'ical.js';
import nodeIcal, { type VEvent } from 'node-ical';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { API, type Harness } from '../../helpers/harness.js';
import { type Users, startWithRoles } from '../../helpers/users.js';

// A series in iCalendar: one VEVENT with its RRULE and EXDATE in its zone, one VEVENT per exception
// with the series' UID and a RECURRENCE-ID; `?expand=1` gives one flat VEVENT per occurrence. Both
// ical.js and node-ical expand the feed to the instances the service has, across the DST change.

let h: Harness;
let users: Users;

beforeAll(async () => {
  ({ h, users } = await startWithRoles());
});
afterAll(() => h.close());

interface Instance {
  start: string;
  end: string;
  summary: string;
}

const sorted = (instances: Instance[]) => instances.sort((a, b) => a.start.localeCompare(b.start));

function withIcalJs(text: string): Instance[] {
  const root = new ICAL.Component(ICAL.parse(text) as unknown[]);
  for (const zone of root.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  const components = root.getAllSubcomponents('vevent').map((component) => new ICAL.Event(component));
  const masters = components.filter((event) => !event.isRecurrenceException());
  for (const exception of components.filter((event) => event.isRecurrenceException()))
    masters.find((master) => master.uid === exception.uid)?.relateException(exception);
  const instances: Instance[] = [];
  for (const event of masters) {
    if (!event.isRecurring()) {
      instances.push({
        start: event.startDate.toJSDate().toISOString(),
        end: event.endDate.toJSDate().toISOString(),
        summary: event.summary,
      });
      continue;
    }
    const iterator = event.iterator();
    for (let next = iterator.next(); next; next = iterator.next()) {
      const details = event.getOccurrenceDetails(next);
      instances.push({
        start: details.startDate.toJSDate().toISOString(),
        end: details.endDate.toJSDate().toISOString(),
        summary: details.item.summary,
      });
    }
  }
  return sorted(instances);
}

function withNodeIcal(text: string): Instance[] {
  const parsed = nodeIcal.sync.parseICS(text);
  const events = Object.values(parsed).filter((item) => item?.type === 'VEVENT') as VEvent[];
  const instances: Instance[] = [];
  for (const event of events) {
    for (const instance of nodeIcal.expandRecurringEvent(event, {
      from: new Date('2026-01-01T00:00:00Z'),
      to: new Date('2028-12-31T00:00:00Z'),
    }))
      instances.push({
        start: new Date(instance.start).toISOString(),
        end: new Date(instance.end).toISOString(),
        summary: String(instance.summary),
      });
  }
  return sorted(instances);
}

it('a series with an exception and a cancelled instance: the same instances for both libraries, expanded or not', async () => {
  const admin = users.administrator;
  const send = (path: string, body: object) =>
    h.http.post(`${API}${path}`).auth(admin.login, admin.password).send(body);
  const first = await send('/events', {
    title: 'Choir',
    start_date: '2027-03-02 19:00:00',
    end_date: '2027-03-02 21:00:00',
    timezone: 'Europe/Paris',
    recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=6'],
  }).expect(201);
  const rows = await h.db.event.findMany({
    where: { postParentId: first.body.id },
    orderBy: { startsAt: 'asc' },
  });
  await send(`/events/${rows[1]!.id}`, {
    title: 'Choir concert',
    start_date: '2027-03-18 20:00:00',
    end_date: '2027-03-18 22:00:00',
  }).expect(200);
  await h.http.delete(`${API}/events/${rows[3]!.id}`).auth(admin.login, admin.password).expect(200);
  const query = 'start_date=2027-01-01&end_date=2027-12-31';

  const feed = (await h.http.get(`${API}/events.ics?${query}`).expect(200)).text;
  const vevents = feed.split('BEGIN:VEVENT').slice(1);
  expect(vevents).toHaveLength(2);
  expect(feed).toContain('RRULE:FREQ=WEEKLY;COUNT=6;BYDAY=TU');
  expect(feed).toContain('EXDATE;TZID=Europe/Paris:20270330T190000');
  expect(feed).toContain('RECURRENCE-ID;TZID=Europe/Paris:20270316T190000');
  const uids = vevents.map((vevent) => /UID:(.*)/.exec(vevent)![1]);
  expect(new Set(uids).size).toBe(1);

  const expected: Instance[] = [
    { start: '2027-03-02T18:00:00.000Z', end: '2027-03-02T20:00:00.000Z', summary: 'Choir' },
    { start: '2027-03-09T18:00:00.000Z', end: '2027-03-09T20:00:00.000Z', summary: 'Choir' },
    { start: '2027-03-18T19:00:00.000Z', end: '2027-03-18T21:00:00.000Z', summary: 'Choir concert' },
    { start: '2027-03-23T18:00:00.000Z', end: '2027-03-23T20:00:00.000Z', summary: 'Choir' },
    // After the spring change: 19:00 in Paris is 17:00 UTC.
    { start: '2027-04-06T17:00:00.000Z', end: '2027-04-06T19:00:00.000Z', summary: 'Choir' },
  ];
  expect(withIcalJs(feed)).toEqual(expected);
  expect(withNodeIcal(feed)).toEqual(expected);

  const expanded = (await h.http.get(`${API}/events.ics?${query}&expand=1`).expect(200)).text;
  expect(expanded.split('BEGIN:VEVENT')).toHaveLength(6);
  // The zones' own RRULEs (their DST rules) stay; the series' does not.
  expect(expanded).not.toContain('RRULE:FREQ=WEEKLY');
  expect(withIcalJs(expanded)).toEqual(expected);
  expect(withNodeIcal(expanded)).toEqual(expected);
});
