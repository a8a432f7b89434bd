import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API } from '../../helpers/harness.js';
import { type Users, startWithRoles } from '../../helpers/users.js';
import type { Harness } from '../../helpers/harness.js';

// Series through the REST extension (docs/reference/recurrence.md): `recurrence` on create and update,
// `post_parent` and `recurrence` on every event of a series, `scope` (this, following, all) on an
// occurrence's update and delete, with exceptions present; refusals name `recurrence` and write nothing.

let h: Harness;
let users: Users;

beforeAll(async () => {
  ({ h, users } = await startWithRoles({ CALENDAR_SERIES_MAX_OCCURRENCES: '400' }));
});
afterAll(() => h.close());

const admin = () => users.administrator;
const post = (path: string, body: unknown) =>
  h.http
    .post(`${API}${path}`)
    .auth(admin().login, admin().password)
    .send(body as object);
const del = (path: string) => h.http.delete(`${API}${path}`).auth(admin().login, admin().password);

const WEEKLY = {
  title: 'Tuesday class',
  start_date: '2027-01-05 19:00:00',
  end_date: '2027-01-05 21:00:00',
  timezone: 'Europe/Paris',
  recurrence: ['rrule:FREQ=WEEKLY;BYDAY=TU;COUNT=10'],
};

/** The series' events in slot order: the first event, then its occurrences. */
async function seriesOf(firstId: number) {
  return h.db.event.findMany({
    where: { OR: [{ id: firstId }, { postParentId: firstId }] },
    orderBy: { startsAt: 'asc' },
    select: {
      id: true,
      title: true,
      status: true,
      localStart: true,
      localEnd: true,
      originalStart: true,
      isException: true,
      postParentId: true,
      recurrence: true,
    },
  });
}

async function createSeries(body: Record<string, unknown> = {}) {
  const res = await post('/events', { ...WEEKLY, ...body }).expect(201);
  return { first: res.body as Record<string, unknown> & { id: number }, events: await seriesOf(res.body.id) };
}

describe('creating a series', () => {
  it('materialises each occurrence as an event of the first one, every event showing the canonical lines', async () => {
    const { first, events } = await createSeries();
    expect(first.recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=TU']);
    expect(first.post_parent).toBe(0);
    expect(events).toHaveLength(10);
    // 19:00 in Paris on each Tuesday, across the spring DST change (2027-03-28).
    expect(events.map((e) => e.localStart)).toEqual(
      Array.from({ length: 10 }, (_, i) => {
        const day = new Date(Date.UTC(2027, 0, 5 + 7 * i)).toISOString().slice(0, 10);
        return `${day} 19:00:00`;
      }),
    );
    const later = await h.http
      .get(`${API}/events?post_parent=${first.id}&per_page=50&start_date=2027-01-01`)
      .expect(200);
    expect(later.body.events).toHaveLength(9);
    for (const event of later.body.events) {
      expect(event.post_parent).toBe(first.id);
      expect(event.recurrence).toEqual(first.recurrence);
      expect(event.slug).toMatch(/^tuesday-class-2027-\d\d-\d\d$/);
    }
  });

  it('refuses a set past the cap with a 400 naming recurrence, and writes nothing', async () => {
    const events = await h.db.event.count();
    const changes = await h.db.changeLog.count();
    const res = await post('/events', { ...WEEKLY, recurrence: ['RRULE:FREQ=DAILY;COUNT=401'] }).expect(400);
    expect(res.body.code).toBe('rest_invalid_param');
    expect(res.body.data.params).toHaveProperty('recurrence');
    expect(res.body.data.details.recurrence.code).toBe('recurrence-too-many-occurrences');
    expect(await h.db.event.count()).toBe(events);
    expect(await h.db.changeLog.count()).toBe(changes);
  });

  it('refuses malformed lines and an unknown scope, naming the parameter', async () => {
    const bad = await post('/events', { ...WEEKLY, recurrence: ['RRULE:FREQ=MINUTELY'] }).expect(400);
    expect(bad.body.data.params).toHaveProperty('recurrence');
    const { events } = await createSeries();
    const scope = await post(`/events/${events[2]!.id}?scope=some`, { title: 'x' }).expect(400);
    expect(scope.body.data.params).toHaveProperty('scope');
  });
});

describe('scope this (the default)', () => {
  it('changes that occurrence only, which keeps its slot and survives an edit of the whole series', async () => {
    const { first, events } = await createSeries();
    const third = events[2]!;
    const moved = await post(`/events/${third.id}`, {
      title: 'Moved class',
      start_date: '2027-01-20 18:00:00',
      end_date: '2027-01-20 20:00:00',
    }).expect(200);
    expect(moved.body).toMatchObject({ title: 'Moved class', post_parent: first.id });
    let after = await seriesOf(first.id);
    const exception = after.find((e) => e.id === third.id)!;
    expect(exception).toMatchObject({ isException: true, originalStart: third.originalStart });
    expect(after.filter((e) => e.title === 'Moved class')).toHaveLength(1);

    // The whole series (a write to its first event): the regular occurrences follow, the exception stays.
    await post(`/events/${first.id}`, { title: 'Renamed class', password: 'secret' }).expect(200);
    after = await seriesOf(first.id);
    expect(after.map((e) => e.id)).toEqual(
      events.map((e) => (e.id === third.id ? e.id : e.id)).sort((a, b) => a - b),
    );
    expect(after.filter((e) => e.title === 'Renamed class')).toHaveLength(9);
    expect(after.find((e) => e.id === third.id)).toMatchObject({
      title: 'Moved class',
      localStart: '2027-01-20 18:00:00',
    });
    // The password is the series': the exception has it too.
    const rows = await h.db.event.findMany({ where: { OR: [{ id: first.id }, { postParentId: first.id }] } });
    expect(rows.every((row) => row.password === 'secret')).toBe(true);
  });

  it('refuses lines sent to an occurrence alone', async () => {
    const { events } = await createSeries();
    const res = await post(`/events/${events[1]!.id}`, { recurrence: ['RRULE:FREQ=DAILY;COUNT=2'] }).expect(
      400,
    );
    expect(res.body.data.params).toHaveProperty('recurrence');
  });

  it('DELETE of an occurrence is an EXDATE: trashed, and no regeneration brings it back', async () => {
    const { first, events } = await createSeries();
    const fifth = events[4]!;
    const res = await del(`/events/${fifth.id}`).expect(200);
    expect(res.body.status).toBe('trash');
    const lines = (await h.http.get(`${API}/events/${first.id}`).expect(200)).body.recurrence as string[];
    expect(lines).toEqual([
      'RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=TU',
      'EXDATE;TZID=Europe/Paris:20270202T190000',
    ]);
    await post(`/events/${first.id}`, { title: 'Still weekly' }).expect(200);
    const after = await seriesOf(first.id);
    expect(after).toHaveLength(10);
    expect(after.filter((e) => e.status === 'trash').map((e) => e.id)).toEqual([fifth.id]);
    // Every other occurrence shows the new lines.
    const other = await h.http.get(`${API}/events/${events[1]!.id}`).expect(200);
    expect(other.body.recurrence).toEqual(lines);
  });
});

describe('scope following', () => {
  it('ends the series before the occurrence and starts a new one there, exceptions kept', async () => {
    const { first, events } = await createSeries();
    const exception = events[7]!;
    await post(`/events/${exception.id}`, { title: 'Guest teacher' }).expect(200);
    const sixth = events[5]!;
    const res = await post(`/events/${sixth.id}?scope=following`, { title: 'Spring class' }).expect(200);
    expect(res.body).toMatchObject({ title: 'Spring class', post_parent: 0 });
    expect(res.body.recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=5;BYDAY=TU']);

    const old = await seriesOf(first.id);
    expect(old.map((e) => e.id)).toEqual(events.slice(0, 5).map((e) => e.id));
    expect(old[0]!.recurrence).toBe('RRULE:FREQ=WEEKLY;UNTIL=20270209T175959Z;BYDAY=TU');
    const next = await seriesOf(sixth.id);
    // The same rows, their ids kept: the regular ones renamed, the exception as it was.
    expect(next.map((e) => e.id)).toEqual(events.slice(5).map((e) => e.id));
    expect(next.map((e) => e.title)).toEqual([
      'Spring class',
      'Spring class',
      'Guest teacher',
      'Spring class',
      'Spring class',
    ]);
  });

  it('DELETE with scope following removes the occurrence and the later ones', async () => {
    const { first, events } = await createSeries();
    await del(`/events/${events[6]!.id}?scope=following`).expect(200);
    const after = await seriesOf(first.id);
    expect(after.filter((e) => e.status !== 'trash').map((e) => e.id)).toEqual(
      events.slice(0, 6).map((e) => e.id),
    );
    expect(after[0]!.recurrence).toMatch(/UNTIL=20270216T175959Z/);
  });
});

describe('scope all', () => {
  it('from an occurrence, edits the first event and every regular occurrence, moved alike', async () => {
    const { first, events } = await createSeries();
    await post(`/events/${events[3]!.id}`, { title: 'Exception' }).expect(200);
    await post(`/events/${events[2]!.id}?scope=all`, {
      title: 'Later class',
      start_date: '2027-01-19 20:00:00',
      end_date: '2027-01-19 22:00:00',
    }).expect(200);
    const after = await seriesOf(first.id);
    expect(after).toHaveLength(10);
    expect(after[0]).toMatchObject({ id: first.id, title: 'Later class', localStart: '2027-01-05 20:00:00' });
    expect(after.every((e) => e.localStart.endsWith('20:00:00') && e.localEnd.endsWith('22:00:00'))).toBe(
      true,
    );
    // The slots moved: the exception's 19:00 slot no longer exists, so it went with it.
    expect(after.filter((e) => e.title === 'Exception')).toHaveLength(0);
  });

  it('keeps exceptions whose slot still exists; DELETE with scope all trashes the series', async () => {
    const { first, events } = await createSeries();
    await post(`/events/${events[3]!.id}`, { title: 'Exception' }).expect(200);
    await post(`/events/${events[2]!.id}?scope=all`, { title: 'Renamed' }).expect(200);
    let after = await seriesOf(first.id);
    expect(after.map((e) => e.title).filter((t) => t === 'Exception')).toHaveLength(1);
    expect(after.map((e) => e.id)).toEqual(events.map((e) => e.id));
    await del(`/events/${events[5]!.id}?scope=all`).expect(200);
    after = await seriesOf(first.id);
    expect(after.every((e) => e.status === 'trash')).toBe(true);
  });

  it('recurrence [] on the first event ends the series; null does too', async () => {
    const { first } = await createSeries();
    const res = await post(`/events/${first.id}`, { recurrence: [] }).expect(200);
    expect(res.body.recurrence).toEqual([]);
    expect(await seriesOf(first.id)).toHaveLength(1);
    await post(`/events/${first.id}`, { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] }).expect(200);
    expect(await seriesOf(first.id)).toHaveLength(3);
    await post(`/events/${first.id}`, { recurrence: null }).expect(200);
    expect(await seriesOf(first.id)).toHaveLength(1);
  });
});
