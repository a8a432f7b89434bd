import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/core/rules/permissions.js';
import { API, type Harness, startHarness } from '../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../helpers/fixtures.js';
import { type Credentials, createUser, withRoles } from '../helpers/users.js';

// Who may write what, through the REST routes, for every role (and anonymous callers).
// Expected statuses follow the reference's capability mapping (docs/reference.md §4) and D8.

type Caller = Role | 'anonymous';
const CALLERS: Caller[] = ['anonymous', 'subscriber', 'contributor', 'author', 'editor', 'administrator'];
type PostType = 'event' | 'venue' | 'organizer';

let h: Harness;
const accounts = new Map<Caller, Credentials | null>();
let other: { id: number };
let n = 0;

beforeAll(async () => {
  h = await startHarness();
  const users = await withRoles(h);
  accounts.set('anonymous', null);
  for (const role of CALLERS.slice(1) as Role[]) accounts.set(role, users[role]);
  other = await createUser(h, 'editor');
}, 60_000);
afterAll(() => h.close());

function request(caller: Caller, method: 'post' | 'delete', path: string, body?: object) {
  const account = accounts.get(caller);
  let req = h.http[method](`${API}${path}`);
  if (account) req = req.auth(account.login, account.password);
  return body ? req.send(body) : req;
}

async function createPost(type: PostType, authorId: number, status: string): Promise<number> {
  const fields = { authorId, status };
  if (type === 'event') return (await createEvent(h.db, { status, fields: { authorId } })).id;
  if (type === 'venue') return (await createVenue(h.db, fields)).id;
  return (await createOrganizer(h.db, fields)).id;
}

const createBody: Record<PostType, () => object> = {
  event: () => ({
    title: `Matrix ${++n}`,
    start_date: '2031-01-01 10:00:00',
    end_date: '2031-01-01 12:00:00',
  }),
  venue: () => ({ venue: `Matrix venue ${++n}` }),
  organizer: () => ({ organizer: `Matrix organizer ${++n}` }),
};
const updateBody: Record<PostType, () => object> = {
  event: () => ({ title: `Renamed ${++n}` }),
  venue: () => ({ venue: `Renamed venue ${++n}` }),
  organizer: () => ({ organizer: `Renamed organizer ${++n}` }),
};

const CAN_CREATE: Caller[] = ['contributor', 'author', 'editor', 'administrator'];

/** Update and trash follow WordPress' edit_post / delete_post meta capabilities. */
function expectedWrite(caller: Caller, own: boolean, status: 'publish' | 'draft', success: number): number {
  if (caller === 'anonymous') return 401;
  if (caller === 'editor' || caller === 'administrator') return success;
  if (!own || caller === 'subscriber') return 403;
  if (caller === 'contributor') return status === 'draft' ? success : 403;
  return success; // author, own
}

describe.each(['event', 'venue', 'organizer'] as PostType[])('%s writes', (type) => {
  const collection = `/${type}s`;

  it.each(CALLERS)('create as %s', async (caller) => {
    const res = await request(caller, 'post', collection, createBody[type]());
    expect(res.status).toBe(CAN_CREATE.includes(caller) ? 201 : caller === 'anonymous' ? 401 : 403);
    if (res.status >= 400) expect(res.body.code).toBe('rest_forbidden');
  });

  const cases = CALLERS.flatMap((caller) =>
    [true, false].flatMap((own) =>
      (['publish', 'draft'] as const).map((status) => ({ caller, own, status })),
    ),
  );

  it.each(cases)('update as $caller (own: $own, $status)', async ({ caller, own, status }) => {
    const owner = own && accounts.get(caller) ? accounts.get(caller)!.id : other.id;
    const id = await createPost(type, owner, status);
    const res = await request(caller, 'post', `${collection}/${id}`, updateBody[type]());
    expect(res.status).toBe(expectedWrite(caller, own, status, 200));
  });

  it.each(cases)('trash as $caller (own: $own, $status)', async ({ caller, own, status }) => {
    const owner = own && accounts.get(caller) ? accounts.get(caller)!.id : other.id;
    const id = await createPost(type, owner, status);
    const res = await request(caller, 'delete', `${collection}/${id}`);
    expect(res.status).toBe(expectedWrite(caller, own, status, 200));
  });
});

describe.each([
  ['categories', 'tribe_events_cat'],
  ['tags', 'post_tag'],
] as const)('%s writes (D8: editors and administrators only)', (collection, taxonomy) => {
  const allowed = (caller: Caller, success: number) =>
    caller === 'editor' || caller === 'administrator' ? success : caller === 'anonymous' ? 401 : 403;

  it.each(CALLERS)('create as %s', async (caller) => {
    const res = await request(caller, 'post', `/${collection}`, { name: `Matrix term ${++n}` });
    expect(res.status).toBe(allowed(caller, 201));
  });

  it.each(CALLERS)('update as %s', async (caller) => {
    const term = await createTerm(h.db, taxonomy);
    const res = await request(caller, 'post', `/${collection}/${term.id}`, { description: 'changed' });
    expect(res.status).toBe(allowed(caller, 200));
  });

  it.each(CALLERS)('delete as %s', async (caller) => {
    const term = await createTerm(h.db, taxonomy);
    const res = await request(caller, 'delete', `/${collection}/${term.id}`);
    expect(res.status).toBe(allowed(caller, 200));
  });
});
