import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness } from '../../helpers/harness.js';
import { type Users, startWithRoles } from '../../helpers/users.js';

// Event write dates on a site whose zone is not UTC (docs/reference/filters.md, docs/reference.md §6.2,
// D10–D14): no `timezone` → the site zone; phrases count from "now" in the zone they are read in; updates
// keep the event's own zone (D11).

const SITE_ZONE = 'America/New_York';
let h: Harness;
let users: Users;

beforeAll(async () => ({ h, users } = await startWithRoles({ CALENDAR_TIMEZONE: SITE_ZONE })));
afterAll(() => h.close());

const create = (body: object) =>
  h.http.post(`${API}/events`).auth(users.administrator.login, users.administrator.password).send(body);
const update = (id: number, body: object) =>
  h.http
    .patch(`${API}/events/${id}`)
    .auth(users.administrator.login, users.administrator.password)
    .send(body);
const wall = (date: DateTime) => date.toFormat('yyyy-MM-dd HH:mm:ss');

describe('dates on a New York site', () => {
  it('reads dates without a timezone in the site zone, with the right UTC copies (item 10)', async () => {
    const res = await create({
      title: 'Site zone',
      start_date: '2031-01-15 09:00:00',
      end_date: '2031-07-15 09:00:00',
    }).expect(201);
    expect(res.body).toMatchObject({
      timezone: SITE_ZONE,
      timezone_abbr: 'EST',
      start_date: '2031-01-15 09:00:00',
      utc_start_date: '2031-01-15 14:00:00',
      end_date: '2031-07-15 09:00:00',
      utc_end_date: '2031-07-15 13:00:00',
    });
  });

  it.each([
    [undefined, 'tomorrow 9am', 'tomorrow 11am'],
    ['Europe/Paris', 'tomorrow 9am', 'tomorrow 11am'],
    ['Asia/Tokyo', 'tomorrow 11am', 'tomorrow 1pm'],
    ['UTC+5:30', 'next wednesday 4pm', 'next wednesday 5pm'],
  ])('reads natural-language dates in the event zone (%s)', async (timezone, start, end) => {
    const zone = timezone ?? SITE_ZONE;
    const res = await create({
      title: 'Phrase',
      start_date: start,
      end_date: end,
      ...(timezone ? { timezone } : {}),
    }).expect(201);
    const now = DateTime.now().setZone(zone);
    const expectedDay = start.startsWith('tomorrow')
      ? now.plus({ days: 1 })
      : now.plus({ days: (3 - now.weekday + 7) % 7 || 7 });
    const hour = start.includes('9am') ? 9 : start.includes('11am') ? 11 : 16;
    const expected = expectedDay.set({ hour, minute: 0, second: 0, millisecond: 0 });
    expect(res.body.timezone).toBe(zone);
    expect(res.body.start_date).toBe(wall(expected));
    expect(res.body.utc_start_date).toBe(wall(expected.toUTC()));
  });

  it('reads `date` in the event zone and `date_utc` in UTC', async () => {
    const res = await create({
      title: 'Dated',
      start_date: '2031-01-15 09:00:00',
      end_date: '2031-01-15 10:00:00',
      date: '2026-01-01 10:00:00',
    }).expect(201);
    expect(res.body).toMatchObject({ date: '2026-01-01 10:00:00', date_utc: '2026-01-01 15:00:00' });
  });

  it('keeps the event zone on updates that send dates only (D11); "" is the site zone', async () => {
    const event = await create({
      title: 'Paris',
      timezone: 'Europe/Paris',
      start_date: '2031-01-15 09:00:00',
      end_date: '2031-01-15 10:00:00',
    }).expect(201);
    const moved = await update(event.body.id, {
      start_date: '2031-02-01 20:00:00',
      end_date: '2031-02-01 22:00:00',
    }).expect(200);
    expect(moved.body).toMatchObject({
      timezone: 'Europe/Paris',
      start_date: '2031-02-01 20:00:00',
      utc_start_date: '2031-02-01 19:00:00',
    });
    const site = await update(event.body.id, { timezone: '' }).expect(200);
    expect(site.body).toMatchObject({
      timezone: SITE_ZONE,
      start_date: '2031-02-01 20:00:00',
      utc_start_date: '2031-02-02 01:00:00',
    });
  });

  it('gets a daylight-saving change inside an event right', async () => {
    const res = await create({
      title: 'Across DST',
      start_date: '2031-03-08 12:00:00',
      end_date: '2031-03-09 12:00:00',
    }).expect(201);
    expect(res.body).toMatchObject({
      utc_start_date: '2031-03-08 17:00:00',
      utc_end_date: '2031-03-09 16:00:00',
      timezone_abbr: 'EST',
    });
  });
});
