import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../../src/core/context/context.js';
import { markExcludedStarts } from '../../../src/events/series/excluded-starts.js';
import { eventChangeView } from '../../../src/sync/change-views.js';
import { cachedAndFresh } from '../../helpers/cached-app.js';
import { dataOf, graphqlClient } from '../../helpers/graphql.js';
import { API, type Harness } from '../../helpers/harness.js';
import { type Users, startWithRoles } from '../../helpers/users.js';

// A series whose set excludes its own first start (RFC 5545 §3.8.5.3, "every Friday the 13th,
// forever", DTSTART on a Tuesday that its EXDATE removes): the first event holds the series (its id,
// values, lines, read by id, edited) but no list, feed, JSON-LD or subscription shows it happening
// then; an edit of the set or of the start moves it back in, the response cache following.

let h: Harness;
let users: Users;
let first: number;
let occurrences: number[];
const gql = graphqlClient(() => h, { status: 200 });

const ZONE = 'America/New_York';
const EXDATE = `EXDATE;TZID=${ZONE}:19970902T090000`;
const RRULE = 'RRULE:FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13';
const WINDOW = { startDate: '1997-09-01 00:00:00', endDate: '1998-12-31 23:59:59' };
const REST_WINDOW = `start_date=${WINDOW.startDate}&end_date=${WINDOW.endDate}`;
/** The set's instances in the window (RFC 5545's own list), the first start not among them. */
const FRIDAYS = ['1998-02-13 09:00:00', '1998-03-13 09:00:00', '1998-11-13 09:00:00'];
const FIRST_START = '1997-09-02 09:00:00';

beforeAll(async () => {
  ({ h, users } = await startWithRoles());
  const admin = users.administrator;
  const res = await h.http
    .post(`${API}/events`)
    .auth(admin.login, admin.password)
    .send({
      title: 'Friday the 13th',
      start_date: FIRST_START,
      end_date: '1997-09-02 10:00:00',
      timezone: ZONE,
      recurrence: [EXDATE, RRULE],
    })
    .expect(201);
  first = res.body.id;
  occurrences = (
    await h.db.event.findMany({
      where: { postParentId: first },
      orderBy: { startsAt: 'asc' },
      select: { id: true },
    })
  ).map((row) => row.id);
});
afterAll(() => h.close());

interface ListPage {
  ids: number[];
  starts: string[];
  total: number;
  totalPages: number;
}

type Http = Harness['http'];

interface Connection {
  totalCount: number;
  pageInfo: { endCursor: string | null };
  edges: Array<{ node: { databaseId: number; localStartDate: string } }>;
}

/** The window's events as each API lists them: one page, with the list's total. */
const LISTS: Array<{ name: string; page(http: Http, page: number, perPage: number): Promise<ListPage> }> = [
  {
    name: 'REST /events',
    async page(http, page, perPage) {
      const res = await http.get(`${API}/events?${REST_WINDOW}&page=${page}&per_page=${perPage}`).expect(200);
      expect(res.headers['x-tec-total']).toBe(String(res.body.total));
      const events = res.body.events as Array<{ id: number; start_date: string }>;
      return {
        ids: events.map((event) => event.id),
        starts: events.map((event) => event.start_date),
        total: res.body.total,
        totalPages: res.body.total_pages,
      };
    },
  },
  {
    name: 'GraphQL events',
    async page(http, page, perPage) {
      const { events } = dataOf(
        await graphqlClient({ http })(
          `query($filter: EventFilter, $page: Int, $perPage: Int) {
            events(filter: $filter, page: $page, perPage: $perPage) {
              pageInfo { total totalPages } items { databaseId localStartDate } } }`,
          { filter: WINDOW, page, perPage },
        ),
      );
      const items = events.items as Array<{ databaseId: number; localStartDate: string }>;
      return {
        ids: items.map((item) => item.databaseId),
        starts: items.map((item) => item.localStartDate),
        total: events.pageInfo.total,
        totalPages: events.pageInfo.totalPages,
      };
    },
  },
  {
    name: 'GraphQL eventsConnection',
    async page(http, page, perPage) {
      let after: string | null = null;
      let connection: Connection | null = null;
      for (let n = 1; n <= page; n++) {
        connection = dataOf(
          await graphqlClient({ http })(
            `query($filter: EventFilter, $first: Int, $after: String) {
              eventsConnection(filter: $filter, first: $first, after: $after) {
                totalCount pageInfo { endCursor } edges { node { databaseId localStartDate } } } }`,
            { filter: WINDOW, first: perPage, after },
          ),
        ).eventsConnection as Connection;
        after = connection.pageInfo.endCursor;
      }
      const nodes = connection!.edges.map((edge) => edge.node);
      return {
        ids: nodes.map((node) => node.databaseId),
        starts: nodes.map((node) => node.localStartDate),
        total: connection!.totalCount,
        totalPages: Math.ceil(connection!.totalCount / perPage),
      };
    },
  },
];

describe.each(LISTS)('$name', (list) => {
  it('lists the set as it is: the occurrences, not the first event at its excluded start', async () => {
    const all = await list.page(h.http, 1, 50);
    expect(all.starts).toEqual(FRIDAYS);
    expect(all.ids).toEqual(occurrences.slice(0, 3));
    expect(all.total).toBe(3);
  });

  it('counts and pages without it', async () => {
    const [one, two] = [await list.page(h.http, 1, 2), await list.page(h.http, 2, 2)];
    expect([one.starts, two.starts]).toEqual([FRIDAYS.slice(0, 2), FRIDAYS.slice(2)]);
    expect([one.total, one.totalPages, two.total]).toEqual([3, 2, 3]);
  });
});

describe('the first event itself', () => {
  it('is read by id as the series it holds, without JSON-LD saying it happens at its start', async () => {
    const res = await h.http.get(`${API}/events/${first}`).expect(200);
    expect(res.body).toMatchObject({
      id: first,
      title: 'Friday the 13th',
      start_date: FIRST_START,
      post_parent: 0,
      recurrence: [RRULE, EXDATE],
    });
    expect(res.body).not.toHaveProperty('json_ld');
    const occurrence = await h.http.get(`${API}/events/${occurrences[0]}`).expect(200);
    expect(occurrence.body.json_ld).toMatchObject({
      '@type': 'Event',
      startDate: '1998-02-13T09:00:00-05:00',
    });
  });

  it('tells it on GraphQL, and the series never counts it among its occurrences', async () => {
    const read = async (id: number) =>
      dataOf(
        await gql(
          `query($id: Int!) { event(id: $id) { databaseId localStartDate startExcluded recurrence
            series { first { databaseId } occurrences(first: 3) { totalCount
              edges { node { databaseId localStartDate startExcluded } } } } } }`,
          { id },
        ),
      ).event;
    const event = await read(first);
    expect(event).toMatchObject({
      databaseId: first,
      localStartDate: FIRST_START,
      startExcluded: true,
      recurrence: [RRULE, EXDATE],
      series: { first: { databaseId: first } },
    });
    const nodes = event.series.occurrences.edges.map((edge: { node: unknown }) => edge.node);
    expect(nodes).toEqual(
      FRIDAYS.map((start, i) => ({
        databaseId: occurrences[i],
        localStartDate: start,
        startExcluded: false,
      })),
    );
    expect((await read(occurrences[0]!)).startExcluded).toBe(false);
  });

  it('is the series in the feed (its VEVENT with the EXDATE), and not one of the expanded instances', async () => {
    const feed = (await h.http.get(`${API}/events.ics?${REST_WINDOW}`).expect(200)).text;
    expect(feed.split('BEGIN:VEVENT')).toHaveLength(2);
    expect(feed).toContain(`DTSTART;TZID=${ZONE}:19970902T090000`);
    expect(feed).toContain(EXDATE);
    // A calendar client expanding it finds the set's instances, the first start excluded.
    const root = new ICAL.Component(ICAL.parse(feed) as unknown[]);
    for (const zone of root.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
    const iterator = new ICAL.Event(root.getFirstSubcomponent('vevent')!).iterator();
    const instances = [iterator.next(), iterator.next(), iterator.next()].map((time) => time!.toString());
    expect(instances).toEqual(FRIDAYS.map((start) => start.replace(' ', 'T')));

    const expanded = (await h.http.get(`${API}/events.ics?${REST_WINDOW}&expand=1`).expect(200)).text;
    const starts = [...expanded.matchAll(/^DTSTART;TZID=America\/New_York:(\d{8}T\d{6})/gm)].map((m) => m[1]);
    expect(starts).toEqual(['19980213T090000', '19980313T090000', '19981113T090000']);
  });

  it("is in an event subscription's view only when the subscription names it", async () => {
    const ctx = createContext({ db: h.db, config: h.config, writes: h.writes });
    const wanted = [first, occurrences[0]!];
    expect(await (await eventChangeView(ctx, {}, null)).visibleIds(wanted)).toEqual([occurrences[0]]);
    const named = await eventChangeView(ctx, { ids: wanted }, null);
    expect((await named.visibleIds(wanted)).sort((a, b) => a - b)).toEqual(wanted);
  });
});

describe('a series written before the flag existed', () => {
  it('is marked at start from its lines, once, and leaves the lists', async () => {
    // As the migration left such rows: the column at its default.
    await h.db.event.update({ where: { id: first }, data: { startExcluded: false } });
    expect((await LISTS[0]!.page(h.http, 1, 50)).ids).toContain(first);
    expect(await markExcludedStarts(h.db)).toBe(1);
    expect((await h.db.event.findUniqueOrThrow({ where: { id: first } })).startExcluded).toBe(true);
    for (const list of LISTS)
      expect((await list.page(h.http, 1, 50)).ids, list.name).toEqual(occurrences.slice(0, 3));
    // Nothing left to mark; the occurrences (which carry the same lines) are never marked.
    expect(await markExcludedStarts(h.db)).toBe(0);
    expect(await h.db.event.count({ where: { startExcluded: true } })).toBe(1);
  });
});

describe('edits of the series, with the response cache on', () => {
  let app: ReturnType<typeof cachedAndFresh>;
  beforeAll(() => {
    app = cachedAndFresh(h);
  });

  const edit = (body: object) => {
    const admin = users.administrator;
    return app.cached.post(`${API}/events/${first}`).auth(admin.login, admin.password).send(body).expect(200);
  };
  /** The window's starts on both APIs through the cached app, the REST answer checked against a fresh app. */
  const starts = async () => {
    const rest = (await app.readBoth(`${API}/events?${REST_WINDOW}&per_page=50`)).body;
    const graphql = await LISTS[1]!.page(app.cached, 1, 50);
    expect(graphql.starts).toEqual(rest.events.map((event: { start_date: string }) => event.start_date));
    expect(graphql.total).toBe(rest.total);
    return graphql.starts;
  };

  it('an edit of its values reaches the occurrences and leaves the first event out of lists', async () => {
    expect(await starts()).toEqual(FRIDAYS);
    const hits = app.events.filter((event) => event === 'hit').length;
    expect(await starts()).toEqual(FRIDAYS);
    expect(app.events.filter((event) => event === 'hit').length).toBeGreaterThan(hits);
    const res = await edit({ title: 'Unlucky day' });
    expect(res.body).toMatchObject({ id: first, title: 'Unlucky day', recurrence: [RRULE, EXDATE] });
    expect(await starts()).toEqual(FRIDAYS);
    const titles = (await h.http.get(`${API}/events?${REST_WINDOW}`).expect(200)).body.events.map(
      (event: { title: string }) => event.title,
    );
    expect(titles).toEqual(FRIDAYS.map(() => 'Unlucky day'));
  });

  it('removing the EXDATE brings it back into the lists; adding it again takes it out', async () => {
    // A window the first event alone may be in: no occurrence's write drops its answer.
    const autumn = async () =>
      (await app.readBoth(`${API}/events?start_date=1997-09-01&end_date=1997-12-31`)).body.total;
    expect([await autumn(), await autumn()]).toEqual([0, 0]);
    await edit({ recurrence: [RRULE] });
    expect(await starts()).toEqual([FIRST_START, ...FRIDAYS]);
    expect(await autumn()).toBe(1);
    const read = async () =>
      dataOf(await graphqlClient({ http: app.cached })(`{ event(id: ${first}) { startExcluded } }`)).event;
    expect(await read()).toEqual({ startExcluded: false });
    expect((await app.cached.get(`${API}/events/${first}`).expect(200)).body.json_ld).toMatchObject({
      startDate: '1997-09-02T09:00:00-04:00',
    });

    await edit({ recurrence: [RRULE, EXDATE] });
    expect(await starts()).toEqual(FRIDAYS);
    expect(await autumn()).toBe(0);
    expect(await read()).toEqual({ startExcluded: true });
  });

  it('moving the first start off the excluded one brings it back too', async () => {
    await edit({ start_date: '1997-09-03 09:00:00', end_date: '1997-09-03 10:00:00' });
    expect(await starts()).toEqual(['1997-09-03 09:00:00', ...FRIDAYS]);
    await edit({ start_date: FIRST_START, end_date: '1997-09-02 10:00:00' });
    expect(await starts()).toEqual(FRIDAYS);
  });
});
