import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness } from '../../helpers/harness.js';
import { type Users, startWithRoles } from '../../helpers/users.js';

// `stateprovince` is filled, when it is not sent, from whichever of `state` and `province` is
// non-empty (as TEC does): standalone venues, updates and inline venues of event writes (#30).

let h: Harness;
let users: Users;

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

const post = (path: string, body: object) =>
  h.http.post(`${API}/${path}`).auth(users.editor.login, users.editor.password).send(body);

describe('stateprovince, when it is not sent', () => {
  it.each([
    [{ state: '', province: 'ON' }, 'ON'],
    [{ state: 'TX', province: '' }, 'TX'],
    [{ state: 'TX', province: 'ON' }, 'TX'],
    [{ province: 'ON' }, 'ON'],
    [{ state: '', province: '' }, ''],
  ])('is filled on create from %j → %j', async (address, expected) => {
    const res = await post('venues', { venue: `Hall ${JSON.stringify(address)}`, ...address }).expect(201);
    // An empty address part is left out of the answer.
    expect(res.body.stateprovince).toBe(expected || undefined);
    const stored = await h.db.venue.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(stored.stateprovince).toBe(expected);
  });

  it('is filled on update from the non-empty one', async () => {
    const created = await post('venues', { venue: 'Moving Hall', state: 'TX' }).expect(201);
    const updated = await post(`venues/${created.body.id}`, { state: '', province: 'ON' }).expect(200);
    expect(updated.body).toMatchObject({ province: 'ON', stateprovince: 'ON' });
    expect(updated.body).not.toHaveProperty('state');
  });

  it('is filled for an inline venue of an event write', async () => {
    const res = await post('events', {
      title: 'Inline venue',
      start_date: '2031-01-15 18:00:00',
      end_date: '2031-01-15 21:00:00',
      venue: { venue: 'Inline Toronto Hall', state: '', province: 'ON' },
    }).expect(201);
    expect(res.body.venue).toMatchObject({ venue: 'Inline Toronto Hall', stateprovince: 'ON' });
  });

  it('is kept as sent when it is sent', async () => {
    const res = await post('venues', {
      venue: 'Explicit Hall',
      state: '',
      province: 'ON',
      stateprovince: 'Ontario',
    }).expect(201);
    expect(res.body.stateprovince).toBe('Ontario');
  });
});
