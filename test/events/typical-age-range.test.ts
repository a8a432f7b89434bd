import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CsvReader } from '../../src/imports/csv.js';
import { runImport } from '../../src/imports/engine.js';
import { TecReader } from '../../src/imports/tec.js';
import { API, type Harness, startHarness } from '../helpers/harness.js';
import { type Users, startWithRoles, withRoles } from '../helpers/users.js';
import { graphqlClient } from '../helpers/graphql.js';
import { importScope, serve } from '../imports/helpers.js';

// `typical_age_range` (schema.org Event.typicalAgeRange), the field that proves an event field is one
// declaration (`events/model/event-fields.ts`): REST key and body, GraphQL field and input, the check with its
// reason on both, JSON-LD, the copies of a series, and the importers: from this service's own export
// (the TEC reader over a second instance) and from a CSV column. The attendance mode travels the same way.

let h: Harness;
let users: Users;
const gql = graphqlClient(() => h);

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

const DAY = '2036-03-10';
const REQUIRED = { title: 'Ages', start_date: `${DAY} 10:00:00`, end_date: `${DAY} 12:00:00` };

const write = (path: string, body: object) =>
  h.http.post(`${API}${path}`).auth(users.editor.login, users.editor.password).send(body);

const stored = (id: number) =>
  h.db.event.findUniqueOrThrow({ where: { id }, select: { typicalAgeRange: true } });

describe('REST', () => {
  it('writes, shows and clears it on both shapes, and in JSON-LD only when set', async () => {
    const created = await write('/events', { ...REQUIRED, typical_age_range: ' 7-12 ' }).expect(201);
    expect(created.body.typical_age_range).toBe('7-12');
    expect(await stored(created.body.id)).toEqual({ typicalAgeRange: '7-12' });
    const single = await h.http.get(`${API}/events/${created.body.id}`).expect(200);
    expect(single.body.typical_age_range).toBe('7-12');
    expect(single.body.json_ld.typicalAgeRange).toBe('7-12');
    const list = await h.http.get(`${API}/events?start_date=${DAY}&end_date=${DAY}`).expect(200);
    expect(list.body.events.find((e: { id: number }) => e.id === created.body.id).typical_age_range).toBe(
      '7-12',
    );

    const open = await write(`/events/${created.body.id}`, { typical_age_range: '18-' }).expect(200);
    expect(open.body.typical_age_range).toBe('18-');
    await write(`/events/${created.body.id}`, { typical_age_range: '' }).expect(200);
    const cleared = await h.http.get(`${API}/events/${created.body.id}`).expect(200);
    expect(cleared.body.typical_age_range).toBe('');
    expect(cleared.body.json_ld).not.toHaveProperty('typicalAgeRange');
  });

  it('refuses what is no age range, by its name, and writes nothing', async () => {
    for (const range of ['12-7', 'teens', '7', '1234-', 18]) {
      const res = await write('/events', { ...REQUIRED, title: 'Refused', typical_age_range: range }).expect(
        400,
      );
      expect(res.body.code).toBe('rest_invalid_param');
      expect(res.body.data.params).toEqual({
        typical_age_range: 'Invalid parameter: an age range such as "7-12" or "18-".',
      });
    }
    expect(await h.db.event.count({ where: { title: 'Refused' } })).toBe(0);
  });

  it("is documented in the route's /doc", async () => {
    const doc = await h.http.get(`${API}/doc`).expect(200);
    expect(JSON.stringify(doc.body)).toContain('typical_age_range');
  });
});

describe('GraphQL', () => {
  const input = { title: 'GraphQL ages', startDate: `${DAY} 09:00:00`, endDate: `${DAY} 10:00:00` };

  it('creates, reads and updates typicalAgeRange', async () => {
    const created = await gql(
      'mutation ($input: CreateEventInput!) { createEvent(input: $input) { databaseId typicalAgeRange } }',
      { input: { ...input, typicalAgeRange: '0-5' } },
      users.editor,
    );
    expect(created.errors).toBeUndefined();
    expect(created.data!.createEvent.typicalAgeRange).toBe('0-5');
    const id = created.data!.createEvent.databaseId;
    const updated = await gql(
      'mutation ($id: Int!) { updateEvent(id: $id, input: { typicalAgeRange: "65-" }) { typicalAgeRange } }',
      { id },
      users.editor,
    );
    expect(updated.data!.updateEvent.typicalAgeRange).toBe('65-');
    const read = await gql('query ($id: Int!) { event(id: $id) { typicalAgeRange } }', { id });
    expect(read.data!.event.typicalAgeRange).toBe('65-');
  });

  it('refuses a reversed range, naming typicalAgeRange', async () => {
    const res = await gql(
      'mutation ($input: CreateEventInput!) { createEvent(input: $input) { databaseId } }',
      { input: { ...input, typicalAgeRange: '9-3' } },
      users.editor,
    );
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'rest_invalid_param' });
    expect(JSON.stringify(res.errors?.[0]?.extensions)).toContain('typicalAgeRange');
  });
});

describe('series', () => {
  it("copies the first event's range to its occurrences, and a series edit to all of them", async () => {
    // Within the horizon (occurrences are made up to a year ahead).
    const first = await write('/events', {
      title: 'Weekly ages',
      start_date: '2027-01-05 10:00:00',
      end_date: '2027-01-05 11:00:00',
      typical_age_range: '10-14',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
    }).expect(201);
    const members = () =>
      h.db.event.findMany({
        where: { OR: [{ id: first.body.id }, { postParentId: first.body.id }] },
        select: { typicalAgeRange: true },
      });
    expect((await members()).map((e) => e.typicalAgeRange)).toEqual(['10-14', '10-14', '10-14']);
    await write(`/events/${first.body.id}?scope=all`, { typical_age_range: '12-16' }).expect(200);
    expect((await members()).map((e) => e.typicalAgeRange)).toEqual(['12-16', '12-16', '12-16']);
  });
});

describe('imports', () => {
  let source: Harness;
  let server: Server;
  let root: string;

  beforeAll(async () => {
    source = await startHarness();
    ({ server, root } = await serve(source));
  });
  afterAll(async () => {
    server.close();
    await source.close();
  });

  it("comes with the attendance mode from this service's own export", async () => {
    const { editor } = await withRoles(source);
    await source.http
      .post(`${API}/events`)
      .auth(editor.login, editor.password)
      .send({
        ...REQUIRED,
        title: 'Exported ages',
        typical_age_range: '16-',
        attendance_mode: 'mixed',
        online_url: 'https://stream.example/ages',
      })
      .expect(201);
    const summary = await runImport(importScope(h), new TecReader(root, {}));
    expect(summary.failed).toBe(0);
    expect(
      await h.db.event.findFirstOrThrow({
        where: { title: 'Exported ages' },
        select: { typicalAgeRange: true, attendanceMode: true, onlineUrl: true },
      }),
    ).toEqual({ typicalAgeRange: '16-', attendanceMode: 'mixed', onlineUrl: 'https://stream.example/ages' });
  });

  it('reads its CSV column (key or label) and refuses a bad range by row', async () => {
    const csv = [
      'Event Name,Event Start Date,Event Start Time,Event End Date,Event End Time,Event Typical Age Range,event_attendance_mode',
      'CSV ages,2036-04-01,10:00,2036-04-01,11:00,4-8,Online',
      'CSV bad ages,2036-04-02,10:00,2036-04-02,11:00,8-4,',
    ].join('\r\n');
    const summary = await runImport(
      importScope(h),
      new CsvReader('ages.csv', csv, 'events', { siteTimezone: 'UTC' }),
    );
    expect(summary).toMatchObject({ created: 1, failed: 1 });
    expect(JSON.stringify(summary.problems)).toContain('typicalAgeRange');
    expect(
      await h.db.event.findFirstOrThrow({
        where: { title: 'CSV ages' },
        select: { typicalAgeRange: true, attendanceMode: true },
      }),
    ).toEqual({ typicalAgeRange: '4-8', attendanceMode: 'online' });
  });
});
