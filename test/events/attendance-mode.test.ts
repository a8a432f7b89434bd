import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness } from '../helpers/harness.js';
import { createVenue } from '../helpers/fixtures.js';
import { type Users, startWithRoles } from '../helpers/users.js';
import { graphqlClient } from '../helpers/graphql.js';
import { runImport } from '../../src/imports/engine.js';
import { IcsReader } from '../../src/imports/ics.js';
import { importScope } from '../imports/helpers.js';
import type { ColumnsMatch, FlagField, Unlisted, UrlField } from '../../src/events/model/event-fields.js';

// The attendance mode of an event (TEC's virtual events), the field added through the one declaration
// of `events/model/event-fields.ts` and the one filter declaration of `events/model/event-filters.ts`: REST
// `attendance_mode` / `online_url`, GraphQL `attendanceMode` / `onlineUrl`, the list filter on both
// APIs, JSON-LD, withholding on a protected event, and the iCalendar entry.

let h: Harness;
let users: Users;
const gql = graphqlClient(() => h);

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

const DAY = '2035-06-14';
const REQUIRED = { title: 'Attendance', start_date: `${DAY} 18:00:00`, end_date: `${DAY} 20:00:00` };
const WINDOW = `start_date=${DAY}&end_date=${DAY}`;
const URL_ONLINE = 'https://meet.example/room?id=42';

const write = (path: string, body: object) =>
  h.http.post(`${API}${path}`).auth(users.editor.login, users.editor.password).send(body);

const stored = (id: number) =>
  h.db.event.findUniqueOrThrow({ where: { id }, select: { attendanceMode: true, onlineUrl: true } });

describe('REST writes', () => {
  it('defaults to offline without a URL, shown on both shapes', async () => {
    const res = await write('/events', REQUIRED).expect(201);
    expect(res.body).toMatchObject({ attendance_mode: 'offline', online_url: '' });
    const single = await h.http.get(`${API}/events/${res.body.id}`).expect(200);
    expect(single.body).toMatchObject({ attendance_mode: 'offline', online_url: '' });
    expect(single.body.json_ld.eventAttendanceMode).toBe('https://schema.org/OfflineEventAttendanceMode');
    expect(single.body.json_ld).not.toHaveProperty('location');
  });

  it('creates and updates by id and by slug; "" resets the mode and clears the URL', async () => {
    const res = await write('/events', {
      ...REQUIRED,
      slug: 'attendance-written',
      attendance_mode: 'online',
      online_url: ` ${URL_ONLINE} `,
    }).expect(201);
    expect(res.body).toMatchObject({ attendance_mode: 'online', online_url: URL_ONLINE });
    expect(await stored(res.body.id)).toEqual({ attendanceMode: 'online', onlineUrl: URL_ONLINE });

    const mixed = await write(`/events/${res.body.id}`, { attendance_mode: 'MIXED' }).expect(200);
    expect(mixed.body).toMatchObject({ attendance_mode: 'mixed', online_url: URL_ONLINE });
    const bySlug = await write('/events/by-slug/attendance-written', { attendance_mode: '' }).expect(200);
    expect(bySlug.body).toMatchObject({ attendance_mode: 'offline', online_url: URL_ONLINE });
    await write(`/events/${res.body.id}`, { online_url: '' }).expect(200);
    expect(await stored(res.body.id)).toEqual({ attendanceMode: 'offline', onlineUrl: '' });
  });

  it('refuses another mode and a URL that is not one, each by its name', async () => {
    const res = await write('/events', {
      ...REQUIRED,
      attendance_mode: 'hybrid',
      online_url: 'javascript:alert(1)',
    }).expect(400);
    expect(res.body.code).toBe('rest_invalid_param');
    expect(res.body.data.params).toEqual({
      attendance_mode: 'Invalid parameter: one of offline, online, mixed.',
      online_url: 'Invalid parameter.',
    });
    const numeric = await write('/events', { ...REQUIRED, attendance_mode: 3 }).expect(400);
    expect(Object.keys(numeric.body.data.params)).toEqual(['attendance_mode']);
  });
});

describe('JSON-LD', () => {
  it('online: OnlineEventAttendanceMode and a VirtualLocation with the URL', async () => {
    const res = await write('/events', { ...REQUIRED, attendance_mode: 'online', online_url: URL_ONLINE });
    const single = await h.http.get(`${API}/events/${res.body.id}`).expect(200);
    expect(single.body.json_ld.eventAttendanceMode).toBe('https://schema.org/OnlineEventAttendanceMode');
    expect(single.body.json_ld.location).toEqual({ '@type': 'VirtualLocation', url: URL_ONLINE });
  });

  it('mixed with a venue: MixedEventAttendanceMode, the venue and the VirtualLocation', async () => {
    const venue = await createVenue(h.db, { name: 'Hall of Mixed' });
    const res = await write('/events', {
      ...REQUIRED,
      venue: venue.id,
      attendance_mode: 'mixed',
      online_url: URL_ONLINE,
    }).expect(201);
    const { json_ld } = (await h.http.get(`${API}/events/${res.body.id}`).expect(200)).body;
    expect(json_ld.eventAttendanceMode).toBe('https://schema.org/MixedEventAttendanceMode');
    expect(json_ld.location).toEqual([
      expect.objectContaining({ '@type': 'Place', name: 'Hall of Mixed' }),
      { '@type': 'VirtualLocation', url: URL_ONLINE },
    ]);
  });

  it('a URL kept on an offline event is no VirtualLocation', async () => {
    const res = await write('/events', { ...REQUIRED, online_url: URL_ONLINE }).expect(201);
    const { json_ld } = (await h.http.get(`${API}/events/${res.body.id}`).expect(200)).body;
    expect(json_ld.eventAttendanceMode).toBe('https://schema.org/OfflineEventAttendanceMode');
    expect(json_ld).not.toHaveProperty('location');
  });
});

describe('the list filter and withholding', () => {
  const day = '2035-07-02';
  const dated = { start_date: `${day} 10:00:00`, end_date: `${day} 11:00:00` };
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    for (const mode of ['offline', 'online', 'mixed'] as const) {
      const res = await write('/events', { ...dated, title: `Filter ${mode}`, attendance_mode: mode });
      ids[mode] = res.body.id;
    }
    const locked = await write('/events', {
      ...dated,
      title: 'Filter locked',
      attendance_mode: 'online',
      online_url: URL_ONLINE,
      password: 'sesame',
    }).expect(201);
    ids.locked = locked.body.id;
  });

  it('REST: any of the modes, echoed in rest_url; another word is a 400 naming it', async () => {
    const res = await h.http
      .get(`${API}/events?start_date=${day}&end_date=${day}&attendance_mode=online,mixed`)
      .expect(200);
    expect(res.body.events.map((event: { id: number }) => event.id).sort()).toEqual(
      [ids.online, ids.mixed, ids.locked].sort(),
    );
    expect(new URL(res.body.rest_url).searchParams.get('attendance_mode')).toBe('online,mixed');
    const bad = await h.http.get(`${API}/events?attendance_mode=online,remote`).expect(400);
    expect(bad.body.data.params).toEqual({
      attendance_mode: 'Invalid parameter: one of offline, online, mixed.',
    });
  });

  it('REST: a protected event shows its mode, withholds its URL, and shows it with the password', async () => {
    const list = await h.http.get(`${API}/events?start_date=${day}&end_date=${day}`).expect(200);
    const locked = list.body.events.find((event: { id: number }) => event.id === ids.locked);
    expect(locked).toMatchObject({ attendance_mode: 'online', online_url: '', description: '' });
    const opened = await h.http.get(`${API}/events/${ids.locked}?password=sesame`).expect(200);
    expect(opened.body.online_url).toBe(URL_ONLINE);
    // A protected event has no JSON-LD at all, so no VirtualLocation either.
    expect(opened.body.json_ld ?? null).toBeNull();
  });

  it('GraphQL: the filter, the enum, and onlineUrl withheld like the description', async () => {
    const query = `query ($modes: [AttendanceMode!]) {
      events(filter: { startDate: "${day}", endDate: "${day}", attendanceMode: $modes }) {
        items { databaseId attendanceMode content { withheld onlineUrl } }
      }
    }`;
    const online = await gql(query, { modes: ['online'] });
    expect(online.errors).toBeUndefined();
    expect(online.data!.events.items).toEqual([
      { databaseId: ids.online, attendanceMode: 'online', content: { withheld: false, onlineUrl: null } },
      { databaseId: ids.locked, attendanceMode: 'online', content: { withheld: true, onlineUrl: null } },
    ]);
    const bad = await gql(query, { modes: ['remote'] });
    expect(bad.errors?.[0]?.message).toMatch(/AttendanceMode/);
    const opened = await gql(
      `query ($id: Int!) { event(id: $id, password: "sesame") { content(password: "sesame") { withheld onlineUrl } } }`,
      { id: ids.locked },
    );
    expect(opened.data!.event.content).toEqual({ withheld: false, onlineUrl: URL_ONLINE });
  });

  it('REST and GraphQL filters agree on every mode', async () => {
    for (const mode of ['offline', 'online', 'mixed']) {
      const rest = await h.http
        .get(`${API}/events?start_date=${day}&end_date=${day}&attendance_mode=${mode}`)
        .expect(200);
      const graphql = await gql(
        `{ events(filter: { startDate: "${day}", endDate: "${day}", attendanceMode: [${mode}] }) { items { databaseId } } }`,
      );
      expect(graphql.data!.events.items.map((event: { databaseId: number }) => event.databaseId)).toEqual(
        rest.body.events.map((event: { id: number }) => event.id),
      );
    }
  });
});

describe('GraphQL writes', () => {
  const FIELDS = 'databaseId attendanceMode content { onlineUrl }';
  const input = { title: 'GraphQL attendance', startDate: `${DAY} 09:00:00`, endDate: `${DAY} 10:00:00` };

  it('creates and updates with the enum and the URL', async () => {
    const created = await gql(
      `mutation ($input: CreateEventInput!) { createEvent(input: $input) { ${FIELDS} } }`,
      { input: { ...input, attendanceMode: 'mixed', onlineUrl: URL_ONLINE } },
      users.editor,
    );
    expect(created.errors).toBeUndefined();
    expect(created.data!.createEvent).toMatchObject({
      attendanceMode: 'mixed',
      content: { onlineUrl: URL_ONLINE },
    });
    const id = created.data!.createEvent.databaseId;
    const updated = await gql(
      `mutation ($id: Int!) { updateEvent(id: $id, input: { attendanceMode: online, onlineUrl: "" }) { ${FIELDS} } }`,
      { id },
      users.editor,
    );
    expect(updated.data!.updateEvent).toEqual({
      databaseId: id,
      attendanceMode: 'online',
      content: { onlineUrl: null },
    });
  });

  it('refuses a URL that is not one, naming onlineUrl', async () => {
    const res = await gql(
      `mutation ($input: CreateEventInput!) { createEvent(input: $input) { databaseId } }`,
      { input: { ...input, onlineUrl: 'not a url' } },
      users.editor,
    );
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'rest_invalid_param' });
    expect(JSON.stringify(res.errors?.[0]?.extensions)).toContain('onlineUrl');
  });
});

describe('iCalendar', () => {
  it("puts an online event's URL in its entry, and withholds it on a protected one", async () => {
    const res = await write('/events', {
      ...REQUIRED,
      title: 'Feed online',
      attendance_mode: 'online',
      online_url: URL_ONLINE,
    }).expect(201);
    const feed = await h.http.get(`${API}/events/${res.body.id}.ics`).expect(200);
    const text = feed.text.replace(/\r\n /g, '');
    expect(text).toContain(`CONFERENCE;VALUE=URI;FEATURE=VIDEO:${URL_ONLINE}`);
    expect(text).toContain(`LOCATION:${URL_ONLINE}`);

    await write(`/events/${res.body.id}`, { password: 'sesame' }).expect(200);
    const calendar = (await h.http.get(`${API}/events.ics?${WINDOW}`).expect(200)).text.replace(/\r\n /g, '');
    const entry = calendar.split('BEGIN:VEVENT').find((part) => part.includes('SUMMARY:Feed online'));
    expect(entry).toBeDefined();
    expect(entry).not.toContain('meet.example');
    expect(calendar).toContain(`CONFERENCE;VALUE=URI;FEATURE=VIDEO:${URL_ONLINE}`); // the unprotected ones
  });
});

describe('iCalendar round trip', () => {
  /** The event an import of this service's own feed of `id` wrote (a new record under the feed's source). */
  async function reimported(id: number) {
    const feed = (await h.http.get(`${API}/events/${id}.ics`).expect(200)).text;
    const summary = await runImport(
      importScope(h),
      new IcsReader(`own-${id}.ics`, feed, { siteTimezone: 'UTC' }),
    );
    expect(summary).toMatchObject({ created: 1, failed: 0 });
    const mapping = await h.db.importRecord.findFirstOrThrow({
      where: { source: `ics:own-${id}.ics`, kind: 'event' },
    });
    return h.db.event.findUniqueOrThrow({
      where: { id: mapping.localId },
      include: { venues: { include: { venue: true } } },
    });
  }

  it('imports its own feed: CONFERENCE is the URL; online without a place, mixed with one', async () => {
    const online = await write('/events', {
      ...REQUIRED,
      title: 'Round trip online',
      attendance_mode: 'online',
      online_url: URL_ONLINE,
    }).expect(201);
    const back = await reimported(online.body.id);
    expect(back).toMatchObject({
      attendanceMode: 'online',
      onlineUrl: URL_ONLINE,
      title: 'Round trip online',
    });
    expect(back.venues).toEqual([]); // the LOCATION spelling the URL names no place

    const venue = await createVenue(h.db, { name: 'Hall A' });
    const mixed = await write('/events', {
      ...REQUIRED,
      title: 'Round trip mixed',
      attendance_mode: 'mixed',
      online_url: URL_ONLINE,
      venue: venue.id,
    }).expect(201);
    const mixedBack = await reimported(mixed.body.id);
    expect(mixedBack).toMatchObject({ attendanceMode: 'mixed', onlineUrl: URL_ONLINE });
    // The place is a venue (its entry's LOCATION: the name, then the address on a line of its own).
    expect(mixedBack.venues.map((link) => link.venue.name.split('\n')[0])).toEqual(['Hall A']);

    // An offline event's stored URL is not in its entry, so not imported either.
    const offline = await write('/events', {
      ...REQUIRED,
      title: 'Round trip offline',
      online_url: URL_ONLINE,
    });
    expect((await reimported(offline.body.id)).onlineUrl).toBe('');
  });
});

// The declarations are checked by the compiler (`npm run typecheck`): a declared field needs its column,
// of its type, and a hand-written list that leaves a field out does not compile.
type Url = Omit<UrlField, 'rest' | 'description' | 'withheld'> & {
  rest: 'x';
  description: 'x';
  withheld: false;
};
type Flag = Omit<FlagField, 'rest' | 'description' | 'withheld'> & {
  rest: 'x';
  description: 'x';
  withheld: false;
};
const columnsOk: ColumnsMatch<{ website: Url; featured: Flag }> = true;
// @ts-expect-error no `subtitle` column in schema.prisma
const noColumn: ColumnsMatch<{ subtitle: Url }> = true;
// @ts-expect-error `featured` is a Boolean column, not a URL's string
const wrongType: ColumnsMatch<{ featured: Url }> = true;
// @ts-expect-error a list that forgets `b`
const forgotten: Unlisted<'a' | 'b', 'a'> = true;
void [columnsOk, noColumn, wrongType, forgotten];
