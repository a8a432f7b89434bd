import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness } from '../helpers/harness.js';
import { createEvent } from '../helpers/fixtures.js';
import { type Users, startWithRoles } from '../helpers/users.js';

// The event status of The Events Calendar 5.11+ (`event_status`, `event_status_reason`): written by
// every event write route, shown on both representations, reflected in `json_ld.eventStatus`, and a
// list filter (`event_status=`).

let h: Harness;
let users: Users;

const REQUIRED = { title: 'Status', start_date: '2034-02-10 18:00:00', end_date: '2034-02-10 20:00:00' };

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

const write = (path: string, body: object) =>
  h.http.post(`${API}${path}`).auth(users.editor.login, users.editor.password).send(body);

const stored = (id: number) =>
  h.db.event.findUniqueOrThrow({
    where: { id },
    select: { eventStatus: true, eventStatusReason: true },
  });

describe('event_status on writes', () => {
  it('defaults to scheduled with no reason, and is shown after custom_fields on both shapes', async () => {
    const res = await write('/events', REQUIRED).expect(201);
    expect(res.body).toMatchObject({ event_status: 'scheduled', event_status_reason: '' });
    const keys = Object.keys(res.body);
    expect(keys.slice(keys.indexOf('custom_fields'))).toEqual([
      'custom_fields',
      'event_status',
      'event_status_reason',
      'attendance_mode',
      'online_url',
      'post_parent',
      'recurrence',
    ]);
    const single = await h.http.get(`${API}/events/${res.body.id}`).expect(200);
    expect(Object.keys(single.body).slice(-7)).toEqual([
      'event_status',
      'event_status_reason',
      'attendance_mode',
      'online_url',
      'post_parent',
      'recurrence',
      'json_ld',
    ]);
    expect(single.body.json_ld.eventStatus).toBe('https://schema.org/EventScheduled');
  });

  it('stores canceled and postponed with their reason, and json_ld follows', async () => {
    const res = await write('/events', {
      ...REQUIRED,
      event_status: 'canceled',
      event_status_reason: ' Storm warning ',
    }).expect(201);
    expect(res.body).toMatchObject({ event_status: 'canceled', event_status_reason: 'Storm warning' });
    expect(await stored(res.body.id)).toEqual({
      eventStatus: 'canceled',
      eventStatusReason: 'Storm warning',
    });
    const single = await h.http.get(`${API}/events/${res.body.id}`).expect(200);
    expect(single.body.json_ld.eventStatus).toBe('https://schema.org/EventCancelled');

    const moved = await write(`/events/${res.body.id}`, { event_status: 'postponed' }).expect(200);
    // A status change without a reason keeps the stored one.
    expect(moved.body).toMatchObject({ event_status: 'postponed', event_status_reason: 'Storm warning' });
    const again = await h.http.get(`${API}/events/${res.body.id}`).expect(200);
    expect(again.body.json_ld.eventStatus).toBe('https://schema.org/EventPostponed');
  });

  it('keeps the reason only for canceled or postponed events', async () => {
    const scheduled = await write('/events', {
      ...REQUIRED,
      event_status: 'scheduled',
      event_status_reason: 'ignored',
    }).expect(201);
    expect(scheduled.body.event_status_reason).toBe('');
    expect(await stored(scheduled.body.id)).toEqual({ eventStatus: 'scheduled', eventStatusReason: '' });

    const canceled = await write('/events', {
      ...REQUIRED,
      event_status: 'canceled',
      event_status_reason: 'Flood',
    }).expect(201);
    const back = await write(`/events/${canceled.body.id}`, { event_status: 'scheduled' }).expect(200);
    expect(back.body).toMatchObject({ event_status: 'scheduled', event_status_reason: '' });
    expect(await stored(canceled.body.id)).toEqual({ eventStatus: 'scheduled', eventStatusReason: '' });
  });

  it('resets to scheduled on an empty value, and leaves the status alone when neither key is sent', async () => {
    const event = await write('/events', {
      ...REQUIRED,
      event_status: 'postponed',
      event_status_reason: 'Why',
    });
    const untouched = await write(`/events/${event.body.id}`, { title: 'Renamed' }).expect(200);
    expect(untouched.body).toMatchObject({ event_status: 'postponed', event_status_reason: 'Why' });
    const reason = await write(`/events/${event.body.id}`, { event_status_reason: 'New date soon' }).expect(
      200,
    );
    expect(reason.body).toMatchObject({ event_status: 'postponed', event_status_reason: 'New date soon' });
    const reset = await write(`/events/${event.body.id}`, { event_status: '' }).expect(200);
    expect(reset.body).toMatchObject({ event_status: 'scheduled', event_status_reason: '' });
  });

  it('is written through the by-slug route and PUT/PATCH too, case-insensitively', async () => {
    const event = await write('/events', { ...REQUIRED, slug: 'status-by-slug' }).expect(201);
    const bySlug = await write('/events/by-slug/status-by-slug', {
      event_status: 'Canceled',
      event_status_reason: 'Venue closed',
    }).expect(200);
    expect(bySlug.body).toMatchObject({ event_status: 'canceled', event_status_reason: 'Venue closed' });
    const put = await h.http
      .put(`${API}/events/${event.body.id}`)
      .auth(users.editor.login, users.editor.password)
      .send({ event_status: 'postponed' })
      .expect(200);
    expect(put.body.event_status).toBe('postponed');
    const patch = await h.http
      .patch(`${API}/events/${event.body.id}`)
      .auth(users.editor.login, users.editor.password)
      .type('form')
      .send({ event_status: 'scheduled' })
      .expect(200);
    expect(patch.body).toMatchObject({ event_status: 'scheduled', event_status_reason: '' });
  });

  it('refuses unknown values with 400 rest_invalid_param, writing nothing', async () => {
    const event = await write('/events', REQUIRED).expect(201);
    for (const value of ['cancelled', 'rescheduled', 'publish', 5, ['canceled']]) {
      const res = await write(`/events/${event.body.id}`, { event_status: value, title: 'Changed' });
      expect(res.status, String(value)).toBe(400);
      expect(res.body.code).toBe('rest_invalid_param');
      expect(Object.keys(res.body.data.params)).toEqual(['event_status']);
    }
    const created = await write('/events', { ...REQUIRED, event_status: 'over' });
    expect(created.status).toBe(400);
    expect(created.body.data.params).toHaveProperty('event_status');
    expect((await h.http.get(`${API}/events/${event.body.id}`)).body.title).toBe('Status');
  });

  it('is documented on the write routes', async () => {
    const { body } = await h.http.get(API).expect(200);
    const args = body.routes[`${API}/events`].endpoints.find((e: { methods: string[] }) =>
      e.methods.includes('POST'),
    ).args;
    expect(args.event_status).toMatchObject({ type: 'string', required: false });
    expect(args.event_status.enum).toEqual(expect.arrayContaining(['scheduled', 'canceled', 'postponed']));
    expect(args.event_status_reason).toMatchObject({ type: 'string', required: false });
  });
});

describe('event_status on reads', () => {
  const WINDOW = 'start_date=2035-06-01&end_date=2035-06-30';
  let ids: Record<'scheduled' | 'canceled' | 'postponed' | 'locked', number>;

  beforeAll(async () => {
    const at = (day: number) => `2035-06-${String(day).padStart(2, '0')} 10:00:00`;
    ids = {
      scheduled: (await createEvent(h.db, { title: 'On', start: at(2) })).id,
      canceled: (
        await createEvent(h.db, {
          title: 'Off',
          start: at(3),
          fields: { eventStatus: 'canceled', eventStatusReason: 'Rain' },
        })
      ).id,
      postponed: (
        await createEvent(h.db, {
          title: 'Later',
          start: at(4),
          fields: { eventStatus: 'postponed', eventStatusReason: 'Illness' },
        })
      ).id,
      locked: (
        await createEvent(h.db, {
          title: 'Locked',
          start: at(5),
          fields: { eventStatus: 'canceled', eventStatusReason: 'Private reason', password: 'pw' },
        })
      ).id,
    };
  });

  it('shows the status on the list; a withheld event shows its status but not its reason', async () => {
    const { body } = await h.http.get(`${API}/events?${WINDOW}`).expect(200);
    const byId = new Map(body.events.map((e: { id: number }) => [e.id, e]));
    expect(byId.get(ids.canceled)).toMatchObject({ event_status: 'canceled', event_status_reason: 'Rain' });
    expect(byId.get(ids.scheduled)).toMatchObject({ event_status: 'scheduled', event_status_reason: '' });
    expect(byId.get(ids.locked)).toMatchObject({ event_status: 'canceled', event_status_reason: '' });
    const unlocked = await h.http.get(`${API}/events/${ids.locked}?password=pw`).expect(200);
    expect(unlocked.body.event_status_reason).toBe('Private reason');
  });

  it('filters the list by event_status (any of them) and echoes the filter in rest_url', async () => {
    const one = await h.http.get(`${API}/events?${WINDOW}&event_status=canceled`).expect(200);
    expect(one.body.events.map((e: { id: number }) => e.id)).toEqual([ids.canceled, ids.locked]);
    expect(new URL(one.body.rest_url).searchParams.get('event_status')).toBe('canceled');
    expect(one.body.ical_url).toContain('event_status=canceled');
    const two = await h.http.get(`${API}/events?${WINDOW}&event_status[]=postponed&event_status[]=scheduled`);
    expect(two.body.events.map((e: { id: number }) => e.id)).toEqual([ids.scheduled, ids.postponed]);
    const bad = await h.http.get(`${API}/events?${WINDOW}&event_status=canceled,gone`).expect(400);
    expect(bad.body.code).toBe('rest_invalid_param');
    expect(Object.keys(bad.body.data.params)).toEqual(['event_status']);
  });
});
