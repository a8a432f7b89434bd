import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ANONYMOUS,
  ROLES,
  type Viewer,
  canEdit,
  canRead,
  editableWhere,
  readableWhere,
} from '../../src/core/rules/permissions.js';
import { contentOpenWhere, passwordWithheld } from '../../src/core/rules/visibility.js';
import type { Prisma } from '../../src/generated/sqlite/client.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { createUser } from '../helpers/users.js';

// The database forms of the visibility rules (used by lists and filters) must select exactly the rows
// their predicates accept (used on single records), for every viewer, status, owner and password.

const STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash'];
const PASSWORDS = [null, '', 'pw'];

let h: Harness;
const viewers: Array<[string, Viewer]> = [['anonymous', ANONYMOUS]];
type Row = { id: number; status: string; authorId: number | null; password: string | null };
let rows: Row[] = [];

beforeAll(async () => {
  h = await startHarness();
  const authors: Array<number | null> = [null];
  for (const role of ROLES) {
    const user = await createUser(h, role);
    viewers.push([role, { userId: user.id, login: user.login, role }]);
    authors.push(user.id);
  }
  let n = 0;
  const data: Prisma.EventCreateManyInput[] = [];
  for (const status of STATUSES)
    for (const authorId of authors)
      for (const password of PASSWORDS) {
        n += 1;
        data.push({
          title: `Rule ${n}`,
          slug: `rule-${n}`,
          status,
          authorId,
          password,
          startsAt: new Date('2031-01-01T10:00:00Z'),
          endsAt: new Date('2031-01-01T12:00:00Z'),
          localStart: '2031-01-01 10:00:00',
          localEnd: '2031-01-01 12:00:00',
          timezone: 'UTC',
        });
      }
  await h.db.event.createMany({ data });
  rows = await h.db.event.findMany({ select: { id: true, status: true, authorId: true, password: true } });
  expect(rows).toHaveLength(STATUSES.length * authors.length * PASSWORDS.length);
});

afterAll(async () => {
  await h?.close();
});

async function selected(where: object): Promise<number[]> {
  const found = await h.db.event.findMany({ where: where as Prisma.EventWhereInput, select: { id: true } });
  return found.map((row) => row.id).sort((a, b) => a - b);
}

const ids = (keep: (row: Row) => boolean) =>
  rows
    .filter(keep)
    .map((row) => row.id)
    .sort((a, b) => a - b);

describe.each(viewers.map(([name]) => name))('%s', (name) => {
  const viewer = () => viewers.find(([n]) => n === name)![1];

  it('readableWhere selects what canRead accepts', async () => {
    expect(await selected(readableWhere(viewer()))).toEqual(ids((row) => canRead(viewer(), row)));
  });

  it('editableWhere selects what canEdit accepts', async () => {
    expect(await selected(editableWhere(viewer()))).toEqual(ids((row) => canEdit(viewer(), row)));
  });

  it.each([undefined, 'pw', 'wrong'])(
    'contentOpenWhere (password %s) selects what is not withheld',
    async (pw) => {
      expect(await selected(contentOpenWhere(viewer(), pw))).toEqual(
        ids((row) => !passwordWithheld(row, viewer(), pw)),
      );
    },
  );
});
