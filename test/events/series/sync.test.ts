import { afterAll, beforeAll, expect, it } from 'vitest';
import { API, type Harness } from '../../helpers/harness.js';
import { type Users, startWithRoles } from '../../helpers/users.js';

// Sync tokens across series edits: every occurrence a series write creates, changes or removes is in
// the change stream, so a client resuming from its token sees exactly the series' events.

let h: Harness;
let users: Users;

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

interface Page {
  events: Array<{ id: number; title: string }>;
  deleted: { events: number[] };
  next: string;
  has_more: boolean;
}

async function changes(since: string): Promise<Page> {
  const admin = users.administrator;
  const res = await h.http
    .get(`${API}/changes?since=${since}&per_page=500`)
    .auth(admin.login, admin.password)
    .expect(200);
  return res.body as Page;
}

function write(path: string, body: object) {
  const admin = users.administrator;
  return h.http
    .post(`${API}${path}`)
    .auth(admin.login, admin.password)
    .send(body)
    .expect(path === '/events' ? 201 : 200);
}

it('gives every occurrence a series edit touches, and the removed ones as deleted', async () => {
  const admin = users.administrator;
  let token = (await h.http.get(`${API}/changes`).auth(admin.login, admin.password).expect(200)).body
    .next as string;
  const first = (
    await write('/events', {
      title: 'Yoga',
      start_date: '2027-05-03 08:00:00',
      end_date: '2027-05-03 09:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=20'],
    })
  ).body.id as number;
  const ids = async () =>
    (
      await h.db.event.findMany({
        where: { OR: [{ id: first }, { postParentId: first }] },
        select: { id: true },
      })
    )
      .map((row) => row.id)
      .sort((a, b) => a - b);
  const all = await ids();
  expect(all).toHaveLength(20);

  let page = await changes(token);
  expect(page.events.map((event) => event.id).sort((a, b) => a - b)).toEqual(all);
  token = page.next;

  // An edit of the whole series: every event changed, nothing more.
  await write(`/events/${first}`, { title: 'Morning yoga' });
  page = await changes(token);
  expect(page.events.map((event) => event.id).sort((a, b) => a - b)).toEqual(all);
  expect(page.events.every((event) => (event as unknown as { title: string }).title === 'Morning yoga')).toBe(
    true,
  );
  token = page.next;

  // Shorter: the last ten are deleted, the others changed (they show the new lines).
  await write(`/events/${first}`, { recurrence: ['RRULE:FREQ=DAILY;COUNT=10'] });
  page = await changes(token);
  const kept = await ids();
  expect(kept).toHaveLength(10);
  expect(page.deleted.events.sort((a, b) => a - b)).toEqual(all.filter((id) => !kept.includes(id)));
  expect(page.events.map((event) => event.id).sort((a, b) => a - b)).toEqual(kept);
  token = page.next;

  // Nothing else happened.
  page = await changes(token);
  expect(page.events).toEqual([]);
  expect(page.deleted.events).toEqual([]);
});
