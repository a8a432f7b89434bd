import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Db, createDb } from '../../../src/core/db/client.js';
import { extendSeries } from '../../../src/events/series/series-horizon.js';
import { recordChanges } from '../../../src/sync/change-log.js';
import { WritePipeline } from '../../../src/core/db/transactions.js';
import { API, type Harness } from '../../helpers/harness.js';
import { type Users, startWithRoles } from '../../helpers/users.js';

// The moving horizon: a series is materialised a horizon ahead (1 month here), and the periodic job
// extends it as time passes. Two instances (two clients of one database, each with its own write
// pipeline and change log listener) extend at the same moment: every slot is created once, and the
// change stream holds one creation per new occurrence.

let h: Harness;
let users: Users;
let other: Db;

beforeAll(async () => {
  ({ h, users } = await startWithRoles({ CALENDAR_SERIES_HORIZON_MONTHS: '1' }));
  other = await createDb(h.config.databaseUrl);
});
afterAll(async () => {
  await other.$disconnect();
  await h.close();
});

it('extends a running series once, with two instances extending at the same time', async () => {
  const now = Date.now();
  const day = (offset: number) => new Date(now + offset * 86_400_000).toISOString().slice(0, 10);
  const admin = users.administrator;
  const res = await h.http
    .post(`${API}/events`)
    .auth(admin.login, admin.password)
    .send({
      title: 'Daily stand-up',
      start_date: `${day(1)} 09:00:00`,
      end_date: `${day(1)} 09:15:00`,
      recurrence: ['RRULE:FREQ=DAILY'],
    })
    .expect(201);
  const firstId: number = res.body.id;
  const before = await h.db.event.count({ where: { postParentId: firstId } });
  // About a month ahead: no more.
  expect(before).toBeGreaterThan(25);
  expect(before).toBeLessThan(32);
  const logged = await h.db.changeLog.count();

  const secondWrites = new WritePipeline();
  recordChanges(secondWrites, h.config);
  const later = new Date(now + 61 * 86_400_000);
  const [mine, theirs] = await Promise.all([
    extendSeries({ db: h.db, config: h.config, writes: h.writes }, later),
    extendSeries({ db: other, config: h.config, writes: secondWrites }, later),
  ]);

  const rows = await h.db.event.findMany({
    where: { postParentId: firstId },
    select: { originalStart: true },
  });
  const slots = new Set(rows.map((row) => row.originalStart!.getTime()));
  expect(slots.size).toBe(rows.length);
  expect(mine + theirs).toBe(rows.length - before);
  expect(rows.length - before).toBeGreaterThan(55);
  const created = await h.db.changeLog.count({
    where: { operation: 'created', kind: 'event' },
  });
  expect(created - (before + 1)).toBe(rows.length - before);
  expect(await h.db.changeLog.count()).toBeGreaterThanOrEqual(logged + rows.length - before);

  // Nothing left to do at the same moment.
  expect(await extendSeries({ db: h.db, config: h.config, writes: h.writes }, later)).toBe(0);
});
