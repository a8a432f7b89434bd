import { afterAll, beforeAll, expect, it } from 'vitest';
import { API, type Harness } from '../../helpers/harness.js';
import { type Users, startWithRoles } from '../../helpers/users.js';

// Issue #25 item 7: series writes are batched statements, not one per occurrence. Asserted by the
// statements a write runs (about the same for 130 and 260 occurrences, create and edit of the series);
// the times (260 events created, and edited as a whole, in under 200 ms each; a 10,000-event
// daily series in under 3 s, on SQLite) are printed, and bounded loosely so that a machine shared with
// other work does not fail them.

let h: Harness;
let users: Users;

beforeAll(async () => {
  ({ h, users } = await startWithRoles({ CALENDAR_SERIES_HORIZON_MONTHS: '600' }));
  await weekly(2); // compiles the statements a series write runs
});
afterAll(() => h.close());

function send(path: string, body: object) {
  const admin = users.administrator;
  return h.http.post(`${API}${path}`).auth(admin.login, admin.password).send(body);
}

function weekly(count: number) {
  return send('/events', {
    title: `Weekly ${count}`,
    start_date: '2027-01-05 19:00:00',
    end_date: '2027-01-05 21:00:00',
    timezone: 'Europe/Paris',
    categories: ['Classes'],
    recurrence: [`RRULE:FREQ=WEEKLY;COUNT=${count}`],
  });
}

/** The statements and milliseconds a write takes, and its answer. */
async function measured(run: () => Promise<{ status: number; body: { id: number } }>) {
  h.queries.length = 0;
  const started = performance.now();
  const res = await run();
  return { ms: performance.now() - started, statements: h.queries.length, res };
}

const sqlite = () => h.config.databaseProvider === 'sqlite';

it('a weekly series: create and edit-all cost the same statements for 130 and 260 occurrences', async () => {
  const costs = [];
  for (const count of [130, 260]) {
    const create = await measured(() => weekly(count));
    expect(create.res.status).toBe(201);
    const id = create.res.body.id;
    expect(await h.db.event.count({ where: { postParentId: id } })).toBe(count - 1);
    const edit = await measured(() =>
      send(`/events/${id}`, { title: 'Renamed', end_date: '2027-01-05 21:30:00' }),
    );
    expect(edit.res.status).toBe(200);
    expect(
      await h.db.event.count({
        where: { postParentId: id, title: 'Renamed', localEnd: { endsWith: '21:30:00' } },
      }),
    ).toBe(count - 1);
    costs.push({ count, create, edit });
  }
  const [half, full] = costs;
  // Batches of rows (the change log's inserts hold a few hundred rows each) add a statement or two.
  expect(full!.create.statements).toBeLessThanOrEqual(half!.create.statements + 2);
  expect(full!.edit.statements).toBeLessThanOrEqual(half!.edit.statements + 2);
  expect(full!.create.statements).toBeLessThan(60);
  console.log(
    `260 occurrences (${h.config.databaseProvider}): create ${full!.create.ms.toFixed(0)} ms (${full!.create.statements} statements), edit all ${full!.edit.ms.toFixed(0)} ms (${full!.edit.statements})`,
  );
  if (sqlite()) {
    expect(full!.create.ms).toBeLessThan(5000);
    expect(full!.edit.ms).toBeLessThan(5000);
  }
});

it('a 10,000-occurrence daily series', { timeout: 120_000 }, async () => {
  const create = await measured(() =>
    send('/events', {
      title: 'Daily',
      start_date: '2027-01-01 08:00:00',
      end_date: '2027-01-01 09:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=10000'],
    }),
  );
  expect(create.res.status).toBe(201);
  expect(await h.db.event.count({ where: { postParentId: create.res.body.id } })).toBe(9999);
  console.log(
    `10,000 occurrences (${h.config.databaseProvider}): create ${create.ms.toFixed(0)} ms (${create.statements} statements)`,
  );
  if (sqlite()) expect(create.ms).toBeLessThan(60_000);
});
