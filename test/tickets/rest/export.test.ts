import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvCell, csvDocument } from '../../../src/tickets/rest/csv.js';
import { createEvent } from '../../helpers/fixtures.js';
import { graphqlClient } from '../../helpers/graphql.js';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { type Credentials, type Users, basicAuth, withRoles } from '../../helpers/users.js';
import { createType } from '../tickets-setup.js';

// The attendee list as CSV (`GET /calendar/tickets/v1/attendees.csv?post_id=`): editors and
// administrators only, the list's own refusal for everyone else; one row per attendee in arrival
// order, formulas defused, an erased attendee without name or e-mail.

const TICKETS = '/calendar/tickets/v1';
let h: Harness;
let users: Users;
let eventId: number;
let typeId: number;
const gql = graphqlClient(() => h);

const exportCsv = (query: string, as?: Credentials) => {
  const request = h.http.get(`${TICKETS}/attendees.csv${query}`);
  return as ? request.set('Authorization', basicAuth(as)) : request;
};
const reserve = (full_name: string, email: string, quantity = 1) =>
  h.http
    .post(`${TICKETS}/attendees`)
    .send({ ticket_id: typeId, full_name, email, quantity })
    .expect(201)
    .then((res) => res.body as { id: number; token: string; security_code: string });
const rowsOf = (text: string) => parse(text, { columns: true }) as Array<Record<string, string>>;

beforeAll(async () => {
  h = await startHarness();
  users = await withRoles(h);
  eventId = (await createEvent(h.db)).id;
  // A type name a spreadsheet would read as a formula (a leading `+`), with a comma and quotes.
  typeId = await createType(h, users.editor, eventId, { name: '+VIP, "front" rows', capacity: 100 });
});
afterAll(() => h?.close());

describe('csvCell', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['+33 1 23', "'+33 1 23"],
    ['-2', "'-2"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', `"'\rx"`],
    ['a "b", c', '"a ""b"", c"'],
    ['two\nlines', '"two\nlines"'],
    ['plain', 'plain'],
    ['', ''],
  ])('writes %j as %j', (value, written) => {
    expect(csvCell(value)).toBe(written);
  });

  it('writes numbers as they are (a negative number is no formula)', () => {
    expect(csvCell(-3)).toBe('-3');
    expect(csvDocument(['a', 'b'], [[1, '=x']])).toBe("a,b\r\n1,'=x\r\n");
  });
});

describe('GET /attendees.csv', () => {
  let ada: { id: number; security_code: string };
  let erased: { id: number; token: string };

  beforeAll(async () => {
    ada = await reserve('Ada', 'ada@example.org', 2);
    await reserve('=HYPERLINK("http://evil.example","x")', '=cmd@example.org');
    await reserve('-Minus, "quoted"', '+at@example.org');
    erased = await reserve('Gone Person', 'gone@example.org');
    const answer = await gql(`mutation ($token: String!) { eraseAttendee(token: $token) { erased } }`, {
      token: erased.token,
    });
    expect(answer.data!.eraseAttendee.erased).toBe(true);
  });

  it('answers editors a CSV download of the event’s attendees in arrival order', async () => {
    const res = await exportCsv(`?post_id=${eventId}`, users.editor).expect(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="attendees-${eventId}.csv"`);
    const text = res.text;
    expect(text.split('\r\n')[0]).toBe('id,ticket_type,name,email,guests,status,check_in_code,created');
    const rows = rowsOf(text);
    expect(rows.map((row) => row.name)).toEqual([
      'Ada',
      `'=HYPERLINK("http://evil.example","x")`,
      `'-Minus, "quoted"`,
      '',
    ]);
    const attendee = await h.db.attendee.findUniqueOrThrow({ where: { id: ada.id } });
    expect(rows[0]).toEqual({
      id: String(ada.id),
      ticket_type: `'+VIP, "front" rows`,
      name: 'Ada',
      email: 'ada@example.org',
      guests: '2',
      status: 'going',
      check_in_code: ada.security_code,
      created: attendee.createdAt.toISOString(),
    });
    // No cell a spreadsheet would run: every text cell starting with a formula character is defused.
    for (const row of rows)
      for (const [column, cell] of Object.entries(row))
        if (column !== 'id' && column !== 'guests') expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    expect(rows[1]!.email).toBe("'=cmd@example.org");
    expect(rows[2]!.email).toBe("'+at@example.org");
  });

  it('exports an erased attendee without name or e-mail, keeping the row', async () => {
    const rows = rowsOf((await exportCsv(`?post_id=${eventId}`, users.administrator).expect(200)).text);
    const row = rows.find((candidate) => candidate.id === String(erased.id))!;
    expect(row).toMatchObject({ name: '', email: '', guests: '1', status: 'going' });
    expect(rows.map((candidate) => candidate.id)).toContain(String(erased.id));
    expect(JSON.stringify(rows)).not.toContain('gone@example.org');
    expect(JSON.stringify(rows)).not.toContain('Gone Person');
  });

  it('filters by ticket and status as the list does', async () => {
    const other = await createType(h, users.editor, eventId, { name: 'Other' });
    await h.http
      .post(`${TICKETS}/attendees`)
      .send({ ticket_id: other, full_name: 'Otto', email: 'otto@example.org' })
      .expect(201);
    const ofOther = rowsOf((await exportCsv(`?post_id=${eventId}&ticket_id=${other}`, users.editor)).text);
    expect(ofOther.map((row) => row.name)).toEqual(['Otto']);
    const cancelled = rowsOf(
      (await exportCsv(`?post_id=${eventId}&attendee_status=CANCELLED`, users.editor).expect(200)).text,
    );
    expect(cancelled).toEqual([]);
    const bad = await exportCsv(`?post_id=${eventId}&attendee_status=maybe`, users.editor).expect(400);
    expect(bad.body.data.params).toHaveProperty('attendee_status');
  });

  it('refuses everyone else as the attendee list does, with nothing of the list', async () => {
    for (const [viewer, status] of [
      [undefined, 401],
      [users.subscriber, 403],
      [users.contributor, 403],
      [users.author, 403],
    ] as const) {
      const csv = await exportCsv(`?post_id=${eventId}`, viewer);
      const list = await h.http
        .get(`${TICKETS}/attendees?post_id=${eventId}`)
        .set(viewer ? { Authorization: basicAuth(viewer) } : {});
      expect(csv.status).toBe(status);
      expect(csv.headers['content-type']).toMatch(/^application\/json/);
      expect(csv.headers['content-disposition']).toBeUndefined();
      const { request_id: _csvId, ...csvData } = csv.body.data;
      const { request_id: _listId, ...listData } = list.body.data;
      expect({ code: csv.body.code, message: csv.body.message, data: csvData }).toEqual({
        code: list.body.code,
        message: list.body.message,
        data: listData,
      });
      expect(csv.body.code).toBe('rest_forbidden');
      expect(csv.text).not.toContain('example.org');
    }
  });

  it('needs the event: without post_id it is a 400 naming it', async () => {
    const res = await exportCsv('', users.editor).expect(400);
    expect(res.body).toMatchObject({ code: 'rest_missing_callback_param', data: { params: ['post_id'] } });
  });

  it('reads a large list in batches, every attendee once', async () => {
    const big = await createEvent(h.db);
    const bigType = await h.db.ticketType.create({ data: { eventId: big.id, name: 'Hall' } });
    const count = 2_345;
    await h.db.attendee.createMany({
      data: Array.from({ length: count }, (_, i) => ({
        ticketTypeId: bigType.id,
        eventId: big.id,
        name: `Guest ${i}`,
        email: `guest${i}@example.org`,
        status: 'GOING',
        checkInCode: `code${String(i).padStart(12, '0')}`,
        tokenHash: `hash-${big.id}-${i}`,
      })),
    });
    const rows = rowsOf((await exportCsv(`?post_id=${big.id}`, users.editor).expect(200)).text);
    expect(rows).toHaveLength(count);
    expect(new Set(rows.map((row) => row.id)).size).toBe(count);
    expect(rows.map((row) => Number(row.id))).toEqual(
      [...rows.map((row) => Number(row.id))].sort((a, b) => a - b),
    );
    expect(rows[count - 1]!.name).toBe(`Guest ${count - 1}`);
  });

  it('is described at /doc as a text/csv download', async () => {
    const doc = await h.http.get(`${TICKETS}/doc`).expect(200);
    const get = doc.body.paths['/attendees.csv'].get;
    expect(Object.keys(get.responses['200'].content)).toEqual(['text/csv']);
    expect(get.responses['200'].headers['Content-Disposition'].description).toMatch(/^`attachment`/);
    expect(get.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(
      expect.arrayContaining(['post_id', 'ticket_id', 'attendee_status']),
    );
  });
});
