import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness } from '../helpers/harness.js';
import { graphqlClient } from '../helpers/graphql.js';
import { type Users, startWithRoles } from '../helpers/users.js';

// A series' RRULE on both APIs (docs/reference/recurrence.md): a floating UNTIL (no `Z`), which feeds
// write beside a zoned start, is a wall clock in the event's zone and is shown as that instant in UTC;
// MINUTELY stays a 400 naming `recurrence`, with nothing written. One table asks each API its way.

let h: Harness;
let users: Users;

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

const gql = graphqlClient(() => h);

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
interface Created {
  status: number;
  /** The new first event's id and the lines it shows, when written. */
  id?: number;
  recurrence?: string[];
  /** The refusal's code and the parameters it names (REST's `data.params`, GraphQL's extensions). */
  error?: string;
  params?: Record<string, string>;
}

interface SeriesApi {
  name: 'REST' | 'GraphQL';
  create(title: string, recurrence: string[]): Promise<Created>;
}

const EVENT = { start: '2027-03-01 19:00:00', end: '2027-03-01 21:00:00', timezone: 'America/New_York' };

const rest: SeriesApi = {
  name: 'REST',
  async create(title, recurrence) {
    const { status, body } = await h.http
      .post(`${API}/events`)
      .auth(users.administrator.login, users.administrator.password)
      .send({ title, start_date: EVENT.start, end_date: EVENT.end, timezone: EVENT.timezone, recurrence });
    return status >= 400
      ? { status, error: body.code, params: body.data?.params }
      : { status, id: body.id, recurrence: body.recurrence };
  },
};

const graphql: SeriesApi = {
  name: 'GraphQL',
  async create(title, recurrence) {
    const answer = await gql(
      `mutation($input: CreateEventInput!) { createEvent(input: $input) { databaseId recurrence } }`,
      {
        input: { title, startDate: EVENT.start, endDate: EVENT.end, timezone: EVENT.timezone, recurrence },
      },
      users.administrator,
    );
    const error = answer.errors?.[0];
    if (error)
      return {
        status: error.extensions.http?.status ?? 400,
        error: error.extensions.code,
        params: error.extensions.data?.params,
      };
    const created: any = answer.data!.createEvent;
    return { status: 200, id: created.databaseId, recurrence: created.recurrence };
  },
};

async function startsOf(firstId: number): Promise<string[]> {
  const events = await h.db.event.findMany({
    where: { OR: [{ id: firstId }, { postParentId: firstId }] },
    orderBy: { startsAt: 'asc' },
    select: { localStart: true },
  });
  return events.map((event) => event.localStart);
}

describe.each([rest, graphql])('$name', (api) => {
  it('reads a floating UNTIL on the event’s wall clock and shows it in UTC', async () => {
    // 19:00 on 4 March in New York is 00:00Z on the 5th; read as UTC it would end a day earlier.
    const created = await api.create(`Until ${api.name}`, ['RRULE:FREQ=DAILY;UNTIL=20270304T190000']);
    expect(created).toMatchObject({ recurrence: ['RRULE:FREQ=DAILY;UNTIL=20270305T000000Z'] });
    expect(await startsOf(created.id!)).toEqual(
      ['01', '02', '03', '04'].map((day) => `2027-03-${day} 19:00:00`),
    );
  });

  it('refuses FREQ=MINUTELY with a 400 naming recurrence, writing nothing', async () => {
    const before = await h.db.event.count();
    const refused = await api.create(`Minutely ${api.name}`, ['RRULE:FREQ=MINUTELY;INTERVAL=15;COUNT=6']);
    expect(refused).toMatchObject({ status: 400, error: 'rest_invalid_param' });
    expect(refused.params?.recurrence).toMatch(/MINUTELY is not accepted/);
    expect(await h.db.event.count()).toBe(before);
  });
});
