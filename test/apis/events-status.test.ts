import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness } from '../helpers/harness.js';
import { createEvent } from '../helpers/fixtures.js';
import { graphqlClient } from '../helpers/graphql.js';
import { type Credentials, type Users, startWithRoles } from '../helpers/users.js';

// The event status of The Events Calendar 5.11+ on both APIs: REST `event_status` /
// `event_status_reason`, GraphQL's `EventStatus` enum with `eventStatus` / `eventStatusReason` — written
// by every event write (by id and by slug), a reason kept only while canceled or postponed, a value
// outside the set refused with nothing written, shown on the list (a withheld event's reason blanked)
// and a list filter (any of the given statuses). One table asks each API its way; then what only
// REST shows (the shapes' key order, JSON-LD, PUT/PATCH and forms, `/doc`, the echo in `rest_url`).

let h: Harness;
let users: Users;

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

const gql = graphqlClient(() => h);

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
interface Written {
  status: number;
  /** The error code (REST's body code, GraphQL's extensions code) and message. */
  error?: string;
  message?: string;
  event?: { id: number; eventStatus: string; eventStatusReason: string | null };
}

interface Listed {
  items: Array<{ id: number; eventStatus: string; eventStatusReason: string | null }>;
  total: number;
}

interface StatusApi {
  name: 'REST' | 'GraphQL';
  /** How the API shows an event without a reason. */
  noReason: '' | null;
  create(input: Record<string, unknown>, as: Credentials): Promise<Written>;
  update(
    key: { id: number } | { slug: string },
    input: Record<string, unknown>,
    as: Credentials,
  ): Promise<Written>;
  /** The events of January 2036, only of these statuses when given. */
  list(statuses?: string[]): Promise<Listed>;
  /** Asserts the answer refusing an event status outside the set. */
  expectRefused(answer: Written): void;
}

const REST_FIELDS = { eventStatus: 'event_status', eventStatusReason: 'event_status_reason' } as const;
const restBody = (input: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(input).map(([key, value]) => [
      { startDate: 'start_date', endDate: 'end_date', ...REST_FIELDS }[key] ?? key,
      value,
    ]),
  );
const fromRest = (status: number, body: any): Written =>
  status >= 400
    ? { status, error: body.code, message: body.message }
    : {
        status,
        event: { id: body.id, eventStatus: body.event_status, eventStatusReason: body.event_status_reason },
      };

const rest: StatusApi = {
  name: 'REST',
  noReason: '',
  async create(input, as) {
    const res = await h.http.post(`${API}/events`).auth(as.login, as.password).send(restBody(input));
    return fromRest(res.status, res.body);
  },
  async update(key, input, as) {
    const path = 'id' in key ? `${key.id}` : `by-slug/${key.slug}`;
    const res = await h.http.post(`${API}/events/${path}`).auth(as.login, as.password).send(restBody(input));
    return fromRest(res.status, res.body);
  },
  async list(statuses) {
    const query = new URLSearchParams({ start_date: '2036-01-01', end_date: '2036-01-31' });
    for (const status of statuses ?? []) query.append('event_status[]', status);
    const { body } = await h.http.get(`${API}/events?${query}`).expect(200);
    return {
      items: body.events.map((e: any) => ({
        id: e.id,
        eventStatus: e.event_status,
        eventStatusReason: e.event_status_reason,
      })),
      total: body.total,
    };
  },
  expectRefused(answer) {
    expect(answer).toMatchObject({ status: 400, error: 'rest_invalid_param' });
  },
};

const FIELDS = 'id: databaseId slug eventStatus eventStatusReason';
/** Enum values are written as words, not strings (`eventStatus: canceled`). */
const inline = (input: Record<string, unknown>) =>
  `{ ${Object.entries(input)
    .map(([key, value]) => `${key}: ${key === 'eventStatus' ? value : JSON.stringify(value)}`)
    .join(', ')} }`;
const fromGraphql = (answer: Awaited<ReturnType<typeof gql>>, field: string): Written => {
  const error = answer.errors?.[0];
  if (error)
    return {
      status: error.extensions.http?.status ?? 400,
      error: error.extensions.code,
      message: error.message,
    };
  return { status: 200, event: answer.data![field] };
};

const graphql: StatusApi = {
  name: 'GraphQL',
  noReason: null,
  async create(input, as) {
    return fromGraphql(
      await gql(`mutation { one: createEvent(input: ${inline(input)}) { ${FIELDS} } }`, {}, as),
      'one',
    );
  },
  async update(key, input, as) {
    const mutation =
      'id' in key
        ? `updateEvent(id: ${key.id}, input: ${inline(input)})`
        : `updateEventBySlug(slug: "${key.slug}", input: ${inline(input)})`;
    return fromGraphql(await gql(`mutation { one: ${mutation} { ${FIELDS} } }`, {}, as), 'one');
  },
  async list(statuses) {
    const filter = `startDate: "2036-01-01", endDate: "2036-01-31"${statuses ? `, eventStatus: [${statuses.join(', ')}]` : ''}`;
    const res = await gql(
      `{ events(filter: { ${filter} }) { pageInfo { total } items { id: databaseId eventStatus eventStatusReason } } }`,
    );
    expect(res.errors).toBeUndefined();
    return { items: res.data!.events.items, total: res.data!.events.pageInfo.total };
  },
  expectRefused(answer) {
    // Outside the enum: refused before running.
    expect(answer.message).toMatch(/EventStatus/);
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */

const stored = (id: number) =>
  h.db.event.findUniqueOrThrow({ where: { id }, select: { eventStatus: true, eventStatusReason: true } });

describe('the event status on both APIs', () => {
  let ids: Record<'scheduled' | 'canceled' | 'postponed' | 'locked', number>;

  beforeAll(async () => {
    const at = (day: number) => `2036-01-${String(day).padStart(2, '0')} 10:00:00`;
    ids = {
      scheduled: (await createEvent(h.db, { title: 'Runs', start: at(5) })).id,
      canceled: (
        await createEvent(h.db, {
          title: 'Stopped',
          start: at(6),
          fields: { eventStatus: 'canceled', eventStatusReason: 'Snow' },
        })
      ).id,
      postponed: (
        await createEvent(h.db, { title: 'Moved', start: at(7), fields: { eventStatus: 'postponed' } })
      ).id,
      locked: (
        await createEvent(h.db, {
          title: 'Locked',
          start: at(8),
          fields: { eventStatus: 'canceled', eventStatusReason: 'Private reason', password: 'pw' },
        })
      ).id,
    };
  });

  describe.each([rest, graphql])('$name', (api) => {
    const required = (title: string) => ({
      title,
      startDate: '2034-03-01 10:00:00',
      endDate: '2034-03-01 11:00:00',
    });

    it('creates, updates by id and by slug, and clears the reason when scheduled', async () => {
      const slug = `status-${api.name.toLowerCase()}`;
      const created = await api.create(
        { ...required(`${api.name} status`), slug, eventStatus: 'canceled', eventStatusReason: ' Strike ' },
        users.editor,
      );
      expect(created.status).toBe(api.name === 'REST' ? 201 : 200);
      expect(created.event).toMatchObject({ eventStatus: 'canceled', eventStatusReason: 'Strike' });
      const id = created.event!.id;
      expect(await stored(id)).toEqual({ eventStatus: 'canceled', eventStatusReason: 'Strike' });

      const updated = await api.update(
        { id },
        { eventStatus: 'postponed', eventStatusReason: 'Next spring' },
        users.editor,
      );
      expect(updated.event).toMatchObject({ eventStatus: 'postponed', eventStatusReason: 'Next spring' });
      // A status change without a reason keeps the stored one.
      const kept = await api.update({ id }, { eventStatus: 'canceled' }, users.editor);
      expect(kept.event).toMatchObject({ eventStatus: 'canceled', eventStatusReason: 'Next spring' });

      const bySlug = await api.update({ slug }, { eventStatus: 'scheduled' }, users.editor);
      expect(bySlug.event).toMatchObject({ eventStatus: 'scheduled', eventStatusReason: api.noReason });
      expect(await stored(id)).toEqual({ eventStatus: 'scheduled', eventStatusReason: '' });
    });

    it('refuses a value outside the set, writing nothing', async () => {
      const title = `${api.name} refused`;
      api.expectRefused(await api.create({ ...required(title), eventStatus: 'cancelled' }, users.editor));
      expect(await h.db.event.count({ where: { title } })).toBe(0);
    });

    it('shows the status on the list; a withheld event shows its status but not its reason', async () => {
      expect((await api.list()).items).toEqual([
        { id: ids.scheduled, eventStatus: 'scheduled', eventStatusReason: api.noReason },
        { id: ids.canceled, eventStatus: 'canceled', eventStatusReason: 'Snow' },
        { id: ids.postponed, eventStatus: 'postponed', eventStatusReason: api.noReason },
        { id: ids.locked, eventStatus: 'canceled', eventStatusReason: api.noReason },
      ]);
    });

    it('filters the list by any of the given statuses', async () => {
      const one = await api.list(['canceled']);
      expect(one.items.map((e) => e.id)).toEqual([ids.canceled, ids.locked]);
      const two = await api.list(['scheduled', 'postponed']);
      expect(two.items.map((e) => e.id)).toEqual([ids.scheduled, ids.postponed]);
      expect(two.total).toBe(2);
    });
  });

  it('REST: an unlocked event shows its reason; the filter is echoed in rest_url and ical_url, a word outside the set is refused', async () => {
    const unlocked = await h.http.get(`${API}/events/${ids.locked}?password=pw`).expect(200);
    expect(unlocked.body.event_status_reason).toBe('Private reason');
    const WINDOW = 'start_date=2036-01-01&end_date=2036-01-31';
    const one = await h.http.get(`${API}/events?${WINDOW}&event_status=canceled`).expect(200);
    expect(one.body.events.map((e: { id: number }) => e.id)).toEqual([ids.canceled, ids.locked]);
    expect(new URL(one.body.rest_url).searchParams.get('event_status')).toBe('canceled');
    expect(one.body.ical_url).toContain('event_status=canceled');
    const bad = await h.http.get(`${API}/events?${WINDOW}&event_status=canceled,gone`).expect(400);
    expect(bad.body.code).toBe('rest_invalid_param');
    expect(Object.keys(bad.body.data.params)).toEqual(['event_status']);
  });
});

describe('what only REST shows', () => {
  const REQUIRED = { title: 'Status', start_date: '2034-02-10 18:00:00', end_date: '2034-02-10 20:00:00' };

  const write = (path: string, body: object) =>
    h.http.post(`${API}${path}`).auth(users.editor.login, users.editor.password).send(body);

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
      'typical_age_range',
      'post_parent',
      'recurrence',
      'ticketed',
      'tickets',
    ]);
    const single = await h.http.get(`${API}/events/${res.body.id}`).expect(200);
    expect(Object.keys(single.body).slice(-10)).toEqual([
      'event_status',
      'event_status_reason',
      'attendance_mode',
      'online_url',
      'typical_age_range',
      'post_parent',
      'recurrence',
      'ticketed',
      'tickets',
      'json_ld',
    ]);
    expect(single.body.json_ld.eventStatus).toBe('https://schema.org/EventScheduled');
  });

  it('json_ld follows canceled and postponed', async () => {
    const res = await write('/events', {
      ...REQUIRED,
      event_status: 'canceled',
      event_status_reason: 'Storm warning',
    }).expect(201);
    const single = await h.http.get(`${API}/events/${res.body.id}`).expect(200);
    expect(single.body.json_ld.eventStatus).toBe('https://schema.org/EventCancelled');
    await write(`/events/${res.body.id}`, { event_status: 'postponed' }).expect(200);
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

  it('is written through PUT/PATCH too, case-insensitively and from a form', async () => {
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

  it('refuses unknown values of any type with 400 rest_invalid_param naming event_status, writing nothing', async () => {
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
