import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness } from '../../helpers/harness.js';
import { type Users, basicAuth, startWithRoles } from '../../helpers/users.js';

// `date` and `date_utc` sent together are each kept as given, as WordPress keeps `post_date` and
// `post_date_gmt` (#30); one alone gives the other. Visible only on a site whose zone is not UTC.

let h: Harness;
let users: Users;

beforeAll(async () => ({ h, users } = await startWithRoles({ CALENDAR_TIMEZONE: 'Europe/Paris' })));
afterAll(() => h.close());

const send = (method: 'post' | 'put', path: string, body: object) =>
  h.http[method](`${API}/${path}`).auth(users.editor.login, users.editor.password).send(body);

// Paris is UTC+1 in January: 10:00 there is 09:00 UTC, not the 15:00 UTC sent beside it.
const BOTH = { date: '2020-01-10 10:00:00', date_utc: '2020-01-10 15:00:00' };
const dates = (body: { date: string; date_utc: string }) => ({ date: body.date, date_utc: body.date_utc });

// Venues and organizers of the same name would be matched as duplicates (D18): each test names its own.
let n = 0;
const CREATES = [
  ['venues', () => ({ venue: `Dated Hall ${++n}` })],
  ['organizers', () => ({ organizer: `Dated Org ${++n}` })],
  [
    'events',
    () => ({ title: 'Dated event', start_date: '2031-01-15 18:00:00', end_date: '2031-01-15 21:00:00' }),
  ],
] as const;

describe.each(CREATES)('%s', (path, required) => {
  it('keeps date and date_utc as sent together, on create and on read', async () => {
    const created = await send('post', path, { ...required(), ...BOTH }).expect(201);
    expect(dates(created.body)).toEqual(BOTH);
    const read = await h.http.get(`${API}/${path}/${created.body.id}`).expect(200);
    expect(dates(read.body)).toEqual(BOTH);
  });

  it('derives one from the other when one is sent, and keeps both again on update', async () => {
    const created = await send('post', path, { ...required(), date: '2020-01-10 10:00:00' }).expect(201);
    expect(dates(created.body)).toEqual({ date: '2020-01-10 10:00:00', date_utc: '2020-01-10 09:00:00' });
    const both = await send('put', `${path}/${created.body.id}`, BOTH).expect(200);
    expect(dates(both.body)).toEqual(BOTH);
    // A later date_utc alone moves the instant; the date follows it again.
    const utc = await send('put', `${path}/${created.body.id}`, { date_utc: '2020-02-01 12:00:00' }).expect(
      200,
    );
    expect(dates(utc.body)).toEqual({ date: '2020-02-01 13:00:00', date_utc: '2020-02-01 12:00:00' });
  });

  it('keeps both when the other fields change', async () => {
    const created = await send('post', path, { ...required(), ...BOTH }).expect(201);
    const updated = await send('put', `${path}/${created.body.id}`, { description: 'Changed' }).expect(200);
    expect(dates(updated.body)).toEqual(BOTH);
  });
});

describe('GraphQL writes', () => {
  it('keep date and dateUtc as sent together', async () => {
    const res = await h.http
      .post('/graphql')
      .set('Authorization', basicAuth(users.editor))
      .send({
        query: `mutation($input: CreateVenueInput!) { createVenue(input: $input) { id: databaseId publishedAt } }`,
        variables: { input: { name: 'Graph Dated Hall', date: BOTH.date, dateUtc: BOTH.date_utc } },
      })
      .expect(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.createVenue.publishedAt).toBe('2020-01-10T15:00:00.000Z');
    const read = await h.http.get(`${API}/venues/${res.body.data.createVenue.id}`).expect(200);
    expect(dates(read.body)).toEqual(BOTH);
  });
});
