import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, API_ROOT, type Harness } from '../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../helpers/fixtures.js';
import { graphqlClient } from '../helpers/graphql.js';
import { type Credentials, type Users, createUser, startWithRoles } from '../helpers/users.js';

// Event list filters on both APIs: GET /events (docs/reference.md §5, D2/D15) and GraphQL's
// `events(filter: EventFilter, page, perPage, password)` — the same filters (GraphQL's a typed input),
// visibility and error codes, asked each API's way on one set of events in 2035 (one table); then what
// only GraphQL shows (pageInfo, the withheld fields, `event` and `eventBySlug`), and REST's own blocks,
// each in its own month of 2032-2034 so that they do not see each other's events: the reference's
// query forms, links, headers, time zones and the cases only REST's file had.

let h: Harness;
let users: Users;
const ids: Record<string, number> = {};

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
type Body = any;

/** A filter in GraphQL's names; REST's are snake_case, `venue`, `organizer` and `geoloc_*` for `near`. */
interface Filter {
  startDate?: string;
  endDate?: string;
  strictDates?: boolean;
  startsAfter?: string;
  startsBefore?: string;
  endsAfter?: string;
  endsBefore?: string;
  search?: string;
  categories?: string[];
  tags?: string[];
  venues?: number[];
  organizers?: number[];
  featured?: boolean;
  include?: number[];
  postParent?: number;
  geoloc?: boolean;
  near?: { lat: number; lng: number; radius?: number };
  ticketed?: boolean;
  status?: string[];
}

interface Options {
  page?: number;
  perPage?: number;
}

interface Listed {
  /** REST's HTTP status, or the status GraphQL's error names (200 without an error). */
  status: number;
  code?: string;
  message?: string;
  /** The parameters an error names, with their messages. */
  params?: Record<string, string>;
  titles: string[];
  total?: number;
  totalPages?: number;
}

interface EventsApi {
  name: 'REST' | 'GraphQL';
  list(filter: Filter, options?: Options, as?: Credentials): Promise<Listed>;
  /** The name an error gives a filter. */
  param(name: string): string;
}

const snake = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const NEAR: Record<string, string> = { lat: 'geoloc_lat', lng: 'geoloc_lng', radius: 'geoloc_radius' };

const rest: EventsApi = {
  name: 'REST',
  param: (name) =>
    name.startsWith('near.')
      ? NEAR[name.slice(5)]!
      : (({ venues: 'venue', organizers: 'organizer' } as Record<string, string>)[name] ?? snake(name)),
  async list(filter, { page, perPage } = {}, as) {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(filter)) {
      if (key === 'near')
        for (const [part, number] of Object.entries(value as object)) query.set(NEAR[part]!, String(number));
      else query.set(rest.param(key), Array.isArray(value) ? value.join(',') : String(value));
    }
    if (page !== undefined) query.set('page', String(page));
    if (perPage !== undefined) query.set('per_page', String(perPage));
    const request = h.http.get(`${API}/events?${query}`);
    if (as) request.auth(as.login, as.password);
    const { status, body } = await request;
    if (status !== 200)
      return { status, code: body.code, message: body.message, params: body.data?.params, titles: [] };
    return {
      status,
      titles: body.events.map((event: { title: string }) => event.title),
      total: body.total,
      totalPages: body.total_pages,
    };
  },
};

const gql = graphqlClient(() => h, { status: 200 });

const EVENTS = `query($filter: EventFilter, $page: Int, $perPage: Int, $password: String) {
  events(filter: $filter, page: $page, perPage: $perPage, password: $password) {
    pageInfo { page perPage total totalPages }
    items { id: databaseId title status localStartDate contentWithheld description featured venues { name } categories { slug } image { url } }
  }
}`;

const graphql: EventsApi = {
  name: 'GraphQL',
  param: (name) => name,
  async list(filter, options = {}, as) {
    const { data, errors } = await gql(EVENTS, { filter, ...options }, as);
    if (errors) {
      // A failed list is no list, and one error.
      expect(data?.events ?? null).toBeNull();
      expect(errors).toHaveLength(1);
      const [{ message, extensions }] = errors as [{ message: string; extensions: Body }];
      return {
        status: extensions.http.status,
        code: extensions.code,
        message,
        params: extensions.data?.params,
        titles: [],
      };
    }
    const { pageInfo, items } = data!.events;
    return {
      status: 200,
      titles: items.map((item: { title: string }) => item.title),
      total: pageInfo.total,
      totalPages: pageInfo.totalPages,
    };
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */

beforeAll(async () => {
  ({ h, users } = await startWithRoles());
  const paris = await createVenue(h.db, { name: 'Paris', geoLat: 48.8566, geoLng: 2.3522 });
  const versailles = await createVenue(h.db, { name: 'Versailles', geoLat: 48.8049, geoLng: 2.1204 });
  const plain = await createVenue(h.db, { name: 'Plain' });
  const acme = await createOrganizer(h.db, { name: 'Acme' });
  const music = await createTerm(h.db, 'tribe_events_cat', 'Gql Music');
  const kids = await createTerm(h.db, 'post_tag', 'gql-kids');
  const media = await h.db.media.create({ data: { url: 'http://example.com/g.png' } });
  const parent = await createEvent(h.db, {
    title: 'Parent',
    start: '2035-01-02 10:00:00',
    venueIds: [plain.id],
  });
  await createEvent(h.db, {
    title: 'Jazz in Versailles',
    start: '2035-01-03 10:00:00',
    venueIds: [versailles.id],
    termIds: [music.id],
    fields: { featured: true, postParentId: parent.id },
  });
  await createEvent(h.db, {
    title: 'Kids in Paris',
    start: '2035-01-04 10:00:00',
    venueIds: [paris.id],
    organizerIds: [acme.id],
    termIds: [kids.id],
  });
  await createEvent(h.db, {
    title: 'Late jazz in Paris',
    start: '2035-01-05 22:00:00',
    venueIds: [paris.id],
    termIds: [music.id, kids.id],
  });
  await createEvent(h.db, { title: 'Draft', start: '2035-01-06 10:00:00', status: 'draft' });
  await createEvent(h.db, {
    title: 'Contributor draft',
    start: '2035-01-07 10:00:00',
    status: 'draft',
    fields: { authorId: users.contributor.id },
  });
  await createEvent(h.db, {
    title: 'Hidden',
    start: '2035-01-08 10:00:00',
    fields: { hideFromListings: true },
  });
  const locked = await createEvent(h.db, {
    title: 'Locked',
    start: '2035-01-09 10:00:00',
    venueIds: [paris.id],
    termIds: [music.id],
    fields: { slug: 'gql-locked', password: 'pw', featured: true, imageId: media.id },
  });
  const old = await createEvent(h.db, { title: 'Old', start: '2001-05-05 10:00:00' });
  const draftParent = await createEvent(h.db, { title: 'Draft parent', status: 'draft' });
  const orphan = await createEvent(h.db, {
    title: 'Child of a draft',
    fields: { postParentId: draftParent.id },
  });
  const lockedChild = await createEvent(h.db, {
    title: 'Child of a locked one',
    fields: { postParentId: locked.id },
  });
  const trashed = await createEvent(h.db, {
    title: 'Trashed',
    status: 'trash',
    fields: { slug: 'gql-trashed' },
  });
  Object.assign(ids, {
    paris: paris.id,
    versailles: versailles.id,
    acme: acme.id,
    music: music.id,
    kids: kids.id,
    parent: parent.id,
    locked: locked.id,
    old: old.id,
    trashed: trashed.id,
    orphan: orphan.id,
    lockedChild: lockedChild.id,
  });
});
afterAll(() => h.close());

describe.each([rest, graphql])('$name: event list filters', (api) => {
  /** The titles listed in 2035 (or as `filter` says), which must be a list. */
  async function titles(filter: Filter, as?: Credentials) {
    const listed = await api.list({ startDate: '2035-01-01', endDate: '2035-12-31', ...filter }, {}, as);
    expect(listed.status, JSON.stringify(listed)).toBe(200);
    return listed.titles;
  }

  it('lists by start, paged, with totals', async () => {
    const listed = await api.list(
      { startDate: '2035-01-01', endDate: '2035-01-31' },
      { perPage: 2, page: 2 },
    );
    expect(listed).toEqual({
      status: 200,
      titles: ['Kids in Paris', 'Late jazz in Paris'],
      total: 5,
      totalPages: 3,
    });
  });

  it('date filters, strict or whole days, with English phrases', async () => {
    expect(await titles({ startDate: '2035-01-04', endDate: '2035-01-05' })).toEqual(['Kids in Paris']);
    expect(await titles({ startDate: '2035-01-04', endDate: '2035-01-06' })).toEqual([
      'Kids in Paris',
      'Late jazz in Paris',
    ]);
    expect(
      await titles({ startDate: '2035-01-04', endDate: '2035-01-05 12:00:00', strictDates: true }),
    ).toEqual(['Kids in Paris']);
    expect(await titles({ startsAfter: '2035-01-03', startsBefore: '2035-01-05' })).toEqual([
      'Kids in Paris',
      'Late jazz in Paris',
    ]);
    expect(await titles({ endsAfter: '2035-01-08', endsBefore: '2035-01-31' })).toEqual(['Locked']);
    expect((await api.list({ startsAfter: '+5 weeks', endDate: 'next wednesday 4pm' })).status).toBe(200);
    const bad = await api.list({ startDate: 'before my birthday', endsBefore: 'soonish' });
    expect(bad).toMatchObject({
      status: 400,
      code: 'rest_invalid_param',
      params: {
        [api.param('startDate')]: 'Invalid parameter.',
        [api.param('endsBefore')]: 'Invalid parameter.',
      },
    });
  });

  it('search, categories, tags, venues, organizers, featured', async () => {
    expect(await titles({ search: 'JAZZ' })).toEqual(['Jazz in Versailles', 'Late jazz in Paris']);
    // The protected `Locked` matches filters on its blanked fields only for who may open it (#13).
    expect(await titles({ categories: ['gql-music'] })).toEqual(['Jazz in Versailles', 'Late jazz in Paris']);
    expect(await titles({ categories: ['gql-music'] }, users.editor)).toEqual([
      'Jazz in Versailles',
      'Late jazz in Paris',
      'Locked',
    ]);
    expect(await titles({ categories: [String(ids.music)], tags: ['gql-kids'] })).toEqual([
      'Late jazz in Paris',
    ]);
    expect(await titles({ venues: [ids.versailles!, ids.paris!], featured: false })).toEqual([
      'Kids in Paris',
      'Late jazz in Paris',
    ]);
    expect(await titles({ organizers: [ids.acme!] })).toEqual(['Kids in Paris']);
    expect(await titles({ featured: true })).toEqual(['Jazz in Versailles']);
    expect(await titles({ featured: true }, users.editor)).toEqual(['Jazz in Versailles', 'Locked']);
    const bad = await api.list({ categories: ['nope'], venues: [987654], organizers: [987653] });
    expect(bad.params).toEqual({
      categories: 'Invalid parameter.',
      [api.param('venues')]: 'Invalid parameter.',
      [api.param('organizers')]: 'Invalid parameter.',
    });
  });

  it('include ignores the dates; postParent must be an event', async () => {
    expect(await titles({ include: [ids.old!, ids.parent!] })).toEqual(['Parent', 'Old']);
    expect(await titles({ postParent: ids.parent })).toEqual(['Jazz in Versailles']);
    const bad = await api.list({ postParent: 987654 });
    expect(bad).toMatchObject({ status: 400, code: 'rest-invalid-event-id' });
    expect(bad.message).toBe(
      `The specified ID for the "${api.param('postParent')}" parameter is not a valid event.`,
    );
  });

  it('geoloc and near (nearest first)', async () => {
    // The protected `Locked`'s venue is blanked for anonymous readers: no geo filter finds it (#13).
    expect(await titles({ geoloc: true })).toEqual([
      'Jazz in Versailles',
      'Kids in Paris',
      'Late jazz in Paris',
    ]);
    expect(await titles({ geoloc: true }, users.editor)).toEqual([
      'Jazz in Versailles',
      'Kids in Paris',
      'Late jazz in Paris',
      'Locked',
    ]);
    expect(await titles({ near: { lat: 48.8049, lng: 2.1204 } })).toEqual([
      'Jazz in Versailles',
      'Kids in Paris',
      'Late jazz in Paris',
    ]);
    expect(await titles({ near: { lat: 48.8566, lng: 2.3522, radius: 3 } }, users.editor)).toEqual([
      'Kids in Paris',
      'Late jazz in Paris',
      'Locked',
    ]);
    const bad = await api.list({ near: { lat: 95, lng: 2, radius: -1 } });
    expect(bad.params).toEqual({
      [api.param('near.lat')]: 'Invalid parameter.',
      [api.param('near.radius')]: 'Invalid parameter.',
    });
  });

  it('ticketed: false keeps the events without a type on sale, true finds none here', async () => {
    // Of the five, the protected one's listing shows no ticket types: either answer would tell (D21).
    const without = await titles({ ticketed: false });
    expect(without).toHaveLength(4);
    expect(without).not.toContain('Locked');
    expect(await titles({ ticketed: true })).toEqual([]);
  });

  it('hides drafts from anonymous callers and refuses them the status filter', async () => {
    expect(await titles({})).not.toContain('Draft');
    expect(await titles({})).not.toContain('Hidden');
    expect(await api.list({ status: ['draft'] })).toMatchObject({
      status: 400,
      code: 'rest_invalid_param',
      params: { status: 'Invalid parameter.' },
    });
  });

  it('shows editors every status, and contributors their own drafts', async () => {
    expect(await titles({ status: ['draft'] }, users.editor)).toEqual(['Draft', 'Contributor draft']);
    expect(await titles({ status: ['draft'] }, users.contributor)).toEqual(['Contributor draft']);
    expect((await api.list({ status: ['trash'] }, {}, users.editor)).code).toBe('rest_invalid_param');
  });

  it('answers bad paging and a page past the end with the REST codes', async () => {
    expect(await api.list({}, { perPage: 0 })).toMatchObject({ status: 400, code: 'rest_invalid_param' });
    const past = await api.list({ startDate: '2035-01-01', endDate: '2035-01-31' }, { page: 9 });
    expect(past).toMatchObject({ status: 404, code: 'event-archive-page-not-found' });
  });
});

describe('GraphQL only', () => {
  it('echoes the page and page size in pageInfo', async () => {
    const { data } = await gql(EVENTS, {
      filter: { startDate: '2035-01-01', endDate: '2035-01-31' },
      perPage: 2,
      page: 2,
    });
    expect(data!.events.pageInfo).toEqual({ page: 2, perPage: 2, total: 5, totalPages: 3 });
  });

  it('blanks password-protected events unless the password is given', async () => {
    const { data } = await gql(EVENTS, { filter: { include: [ids.locked] } });
    expect(data!.events.items[0]).toMatchObject({
      title: 'Locked',
      contentWithheld: true,
      description: '',
      featured: null,
      venues: [],
      categories: [],
      image: null,
    });
    const open = await gql(EVENTS, { filter: { include: [ids.locked] }, password: 'pw' });
    expect(open.data!.events.items[0]).toMatchObject({
      contentWithheld: false,
      featured: true,
      venues: [{ name: 'Paris' }],
      categories: [{ slug: 'gql-music' }],
      image: { url: 'http://example.com/g.png' },
    });
  });

  describe('event and eventBySlug', () => {
    const ONE =
      'query($id: Int!, $password: String) { event(id: $id, password: $password) { title description } }';
    const BY_SLUG =
      'query($slug: String!, $password: String) { eventBySlug(slug: $slug, password: $password) { id: databaseId } }';

    it('refuse trashed and password-protected events as REST does', async () => {
      const trashed = await gql(ONE, { id: ids.trashed }, users.editor);
      expect(trashed.errors![0]!.extensions).toMatchObject({
        code: 'event-no-longer-available',
        http: { status: 403 },
      });
      const locked = await gql(ONE, { id: ids.locked });
      expect(locked.errors![0]!.extensions).toMatchObject({
        code: 'event-password-protected',
        http: { status: 403 },
      });
      const open = await gql(ONE, { id: ids.locked, password: 'pw' });
      expect(open.data!.event.description).toBe('<p>Locked description</p>');
    });

    it('show a parent event only as far as its own read would (hidden draft, blanked protected one)', async () => {
      const PARENT =
        'query($id: Int!) { event(id: $id) { postParent { title description contentWithheld } } }';
      expect((await gql(PARENT, { id: ids.orphan })).data!.event.postParent).toBeNull();
      expect((await gql(PARENT, { id: ids.orphan }, users.editor)).data!.event.postParent).toMatchObject({
        title: 'Draft parent',
      });
      expect((await gql(PARENT, { id: ids.lockedChild })).data!.event.postParent).toEqual({
        title: 'Locked',
        description: '',
        contentWithheld: true,
      });
    });

    it('by slug: unknown → 404 rest-event-not-found, protected → 403 unless the password is given', async () => {
      const missing = await gql(BY_SLUG, { slug: 'nope' });
      expect(missing.errors![0]!.extensions).toMatchObject({
        code: 'rest-event-not-found',
        http: { status: 404 },
      });
      expect((await gql(BY_SLUG, { slug: 'gql-trashed' })).errors![0]!.extensions.code).toBe(
        'event-no-longer-available',
      );
      expect((await gql(BY_SLUG, { slug: 'gql-locked' })).errors![0]!.extensions.code).toBe(
        'event-password-protected',
      );
      expect((await gql(BY_SLUG, { slug: 'gql-locked', password: 'pw' })).data!.eventBySlug.id).toBe(
        ids.locked,
      );
    });
  });
});

async function restList(query: string, status = 200, auth?: { login: string; password: string }) {
  const request = h.http.get(`${API}/events?${query}`);
  if (auth) request.auth(auth.login, auth.password);
  const res = await request;
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res as typeof res & { body: Body };
}

const restTitles = (body: Body): string[] => body.events.map((event: { title: string }) => event.title);
const month = (m: string) => `start_date=${m}-01&end_date=${m}-28`;

describe('REST: its own blocks, month by month', () => {
  describe('paging', () => {
    beforeAll(async () => {
      for (let i = 1; i <= 55; i++) {
        await createEvent(h.db, {
          title: `Page ${i}`,
          start: `2032-01-${String(1 + (i % 27)).padStart(2, '0')} 10:00:00`,
        });
      }
    });

    it('defaults to 10 per page with totals in the body and headers', async () => {
      const res = await restList(month('2032-01'));
      expect(res.body.events).toHaveLength(10);
      expect(res.body).toMatchObject({ total: 55, total_pages: 6 });
      expect(res.headers['x-tec-total']).toBe('55');
      expect(res.headers['x-tec-totalpages']).toBe('6');
      expect(Object.keys(res.body)).toEqual([
        'events',
        'rest_url',
        'ical_url',
        'next_rest_url',
        'total',
        'total_pages',
      ]);
    });

    it('clamps per_page to 50 silently', async () => {
      const res = await restList(`${month('2032-01')}&per_page=100`);
      expect(res.body.events).toHaveLength(50);
      expect(res.body.total_pages).toBe(2);
      expect(res.body.rest_url).toContain('per_page=50');
    });

    it('orders by start, then id', async () => {
      const res = await restList(`${month('2032-01')}&per_page=50`);
      const starts = res.body.events.map(
        (e: { start_date: string; id: number }) => `${e.start_date}#${String(e.id).padStart(8, '0')}`,
      );
      expect(starts).toEqual([...starts].sort());
    });

    it('links the next and previous pages, echoing the effective query', async () => {
      const first = await restList(`${month('2032-01')}&per_page=20`);
      expect(first.body.rest_url).toBe(
        `${API_ROOT}/events/?page=1&per_page=20&start_date=2032-01-01 00:00:00&end_date=2032-01-28 23:59:59&status=publish`,
      );
      expect(first.body.next_rest_url).toBe(
        `${API_ROOT}/events/?per_page=20&start_date=2032-01-01+00%3A00%3A00&end_date=2032-01-28+23%3A59%3A59&status=publish&page=2`,
      );
      expect(first.body.previous_rest_url).toBeUndefined();
      const second = await h.http
        .get(new URL(first.body.next_rest_url).pathname + new URL(first.body.next_rest_url).search)
        .expect(200);
      expect(second.body.events[0].id).not.toBe(first.body.events[0].id);
      expect(second.body.previous_rest_url).toBe(
        `${API_ROOT}/events/?per_page=20&start_date=2032-01-01+00%3A00%3A00&end_date=2032-01-28+23%3A59%3A59&status=publish`,
      );
      const last = await restList(`${month('2032-01')}&per_page=20&page=3`);
      expect(last.body.events).toHaveLength(15);
      expect(last.body.next_rest_url).toBeUndefined();
      expect(last.body.previous_rest_url).toContain('page=2');
    });

    it('answers a page past the end with 404 event-archive-page-not-found', async () => {
      const res = await restList(`${month('2032-01')}&page=7`, 404);
      expect(res.body).toEqual({
        code: 'event-archive-page-not-found',
        message: 'The requested event archive page does not exist',
        data: { status: 404, request_id: expect.any(String) },
      });
    });

    it('refuses page and per_page that are not positive integers, naming every bad one', async () => {
      for (const bad of ['0', '-1', 'foo', '1.5']) {
        const res = await restList(`page=${bad}`, 400);
        expect(res.body.code).toBe('rest_invalid_param');
        expect(res.body.data.params).toHaveProperty('page');
        const perPage = await restList(`per_page=${bad}`, 400);
        expect(perPage.body.data.params).toHaveProperty('per_page');
      }
      for (const query of ['page=0&per_page=0', 'page=foo&per_page=bar']) {
        const both = await restList(query, 400);
        expect(both.body.message).toBe('Invalid parameter(s): page, per_page');
        expect(Object.keys(both.body.data.params).sort()).toEqual(['page', 'per_page']);
      }
    });

    it('answers an empty result with 200, zero totals and no links', async () => {
      const res = await restList(month('2033-12'));
      expect(res.body).toMatchObject({ events: [], total: 0, total_pages: 0 });
      expect(res.headers['x-tec-total']).toBe('0');
      expect(res.headers['x-tec-totalpages']).toBe('0');
      expect(res.body.next_rest_url).toBeUndefined();
      expect(res.body.previous_rest_url).toBeUndefined();
    });
  });

  describe('date window and date filters', () => {
    const now = DateTime.utc();
    const wall = (d: DateTime) => d.toFormat('yyyy-MM-dd HH:mm:ss');

    beforeAll(async () => {
      await createEvent(h.db, {
        title: 'Window started two days ago',
        start: wall(now.minus({ days: 2 }).startOf('day').plus({ hours: 10 })),
        hours: 24 * 4,
      });
      await createEvent(h.db, {
        title: 'Window yesterday',
        start: wall(now.minus({ days: 1 }).startOf('day').plus({ hours: 1 })),
      });
      await createEvent(h.db, {
        title: 'Window in a year',
        start: wall(now.plus({ years: 1 }).startOf('day').plus({ hours: 9 })),
      });
      await createEvent(h.db, {
        title: 'Window ends after 24 months',
        start: wall(now.plus({ months: 24 }).startOf('day').plus({ hours: 22 })),
        hours: 4,
      });
      // 2033-03: precise times for the bound semantics
      await createEvent(h.db, { title: 'Mar 10 morning', start: '2033-03-10 09:00:00', hours: 2 });
      await createEvent(h.db, { title: 'Mar 10 evening', start: '2033-03-10 20:00:00', hours: 2 });
      await createEvent(h.db, { title: 'Mar 11 noon', start: '2033-03-11 12:00:00', hours: 30 });
      await createEvent(h.db, { title: 'Mar 14 long', start: '2033-03-14 08:00:00', hours: 24 * 5 });
    });

    it('lists, by default, events starting from yesterday 00:00 and ending within 24 months (containment)', async () => {
      const res = await restList('per_page=50');
      const names = restTitles(res.body);
      expect(names).toContain('Window yesterday');
      expect(names).toContain('Window in a year');
      expect(names).not.toContain('Window started two days ago');
      expect(names).not.toContain('Window ends after 24 months');
      const start = now.minus({ days: 1 }).toFormat('yyyy-MM-dd');
      const end = now.plus({ months: 24 }).toFormat('yyyy-MM-dd');
      expect(res.body.rest_url).toBe(
        `${API_ROOT}/events/?page=1&per_page=50&start_date=${start} 00:00:00&end_date=${end} 23:59:59&status=publish`,
      );
    });

    it('ends_after finds what is still running; the default window is then dropped', async () => {
      const res = await restList(`ends_after=${now.toFormat('yyyy-MM-dd')}&strict_dates=true&per_page=50`);
      expect(restTitles(res.body)).toContain('Window started two days ago');
      expect(restTitles(res.body)).toContain('Window ends after 24 months');
      expect(res.body.rest_url).not.toContain('start_date=');
      expect(res.body.rest_url).toContain('strict_dates=1');
    });

    it('start_date keeps events starting on or after the day, end_date those ending on or before the day', async () => {
      expect(restTitles((await restList('start_date=2033-03-10&end_date=2033-03-12')).body)).toEqual([
        'Mar 10 morning',
        'Mar 10 evening',
        'Mar 11 noon',
      ]);
      expect(restTitles((await restList('start_date=2033-03-10 15:00:00&end_date=2033-03-12')).body)).toEqual(
        ['Mar 10 morning', 'Mar 10 evening', 'Mar 11 noon'],
      );
      expect(restTitles((await restList('start_date=2033-03-11&end_date=2033-03-12 10:00')).body)).toEqual([
        'Mar 11 noon',
      ]);
      expect(restTitles((await restList('start_date=2033-03-10&end_date=2033-03-11')).body)).toEqual([
        'Mar 10 morning',
        'Mar 10 evening',
      ]);
    });

    it('strict_dates keeps the exact times', async () => {
      const res = await restList(
        'start_date=2033-03-10 15:00:00&end_date=2033-03-12 23:00:00&strict_dates=1',
      );
      expect(restTitles(res.body)).toEqual(['Mar 10 evening', 'Mar 11 noon']);
      expect(res.body.rest_url).toContain('start_date=2033-03-10 15:00:00&end_date=2033-03-12 23:00:00');
    });

    it('starts_after/starts_before/ends_after/ends_before are strict, rounded to 23:59:59 unless strict_dates', async () => {
      // inclusive mode: starts_after=Mar 10 → starts on Mar 11 or later
      expect(restTitles((await restList('starts_after=2033-03-10&starts_before=2033-03-20')).body)).toEqual([
        'Mar 11 noon',
        'Mar 14 long',
      ]);
      // starts_before=Mar 10 → starts on or before Mar 10
      expect(restTitles((await restList('starts_after=2033-03-01&starts_before=2033-03-10')).body)).toEqual([
        'Mar 10 morning',
        'Mar 10 evening',
      ]);
      expect(
        restTitles(
          (await restList('starts_after=2033-03-10 12:00&starts_before=2033-03-20&strict_dates=true')).body,
        ),
      ).toEqual(['Mar 10 evening', 'Mar 11 noon', 'Mar 14 long']);
      // ends_after=Mar 12 → ends on Mar 13 or later; ends_before=Mar 12 → ends on or before Mar 12
      expect(restTitles((await restList('ends_after=2033-03-12&ends_before=2033-03-31')).body)).toEqual([
        'Mar 14 long',
      ]);
      expect(restTitles((await restList('ends_after=2033-03-01&ends_before=2033-03-12')).body)).toEqual([
        'Mar 10 morning',
        'Mar 10 evening',
        'Mar 11 noon',
      ]);
      const res = await restList('starts_after=2033-03-10&ends_before=2033-03-31');
      expect(res.body.rest_url).toBe(
        `${API_ROOT}/events/?page=1&per_page=10&status=publish&starts_after=2033-03-10 23:59:59&ends_before=2033-03-31 23:59:59`,
      );
    });

    it('keeps an explicit start_date next to starts_*', async () => {
      const res = await restList('start_date=2033-03-11&starts_before=2033-03-31');
      expect(restTitles(res.body)).toEqual(['Mar 11 noon', 'Mar 14 long']);
      expect(res.body.rest_url).toContain(
        'start_date=2033-03-11 00:00:00&status=publish&starts_before=2033-03-31 23:59:59',
      );
    });

    it('accepts ISO 8601, timestamps and English phrases; refuses garbage', async () => {
      const stamp = Math.floor(DateTime.fromISO('2033-03-10T15:00:00Z').toSeconds());
      expect(
        restTitles((await restList(`start_date=${stamp}&end_date=2033-03-12 23:59:59&strict_dates=1`)).body),
      ).toEqual(['Mar 10 evening', 'Mar 11 noon']);
      expect(
        restTitles(
          (
            await restList(
              `start_date=2033-03-10T17:00:00%2B02:00&end_date=2033-03-12T23:00:00Z&strict_dates=1`,
            )
          ).body,
        ),
      ).toEqual(['Mar 10 evening', 'Mar 11 noon']);
      for (const phrase of ['tomorrow', '+5 weeks', 'next wednesday 4pm', 'yesterday 23:59', 'now']) {
        await restList(`start_date=${encodeURIComponent(phrase)}`);
      }
      const bad = await restList(
        `start_date=${encodeURIComponent('before my birthday')}&ends_after=garbage`,
        400,
      );
      expect(bad.body).toMatchObject({
        code: 'rest_invalid_param',
        message: 'Invalid parameter(s): start_date, ends_after',
        data: {
          status: 400,
          request_id: expect.any(String),
          params: { start_date: 'Invalid parameter.', ends_after: 'Invalid parameter.' },
        },
      });
    });

    it('computes relative phrases from today in the site zone', async () => {
      const res = await restList('start_date=tomorrow&end_date=%2B5%20weeks');
      const tomorrow = now.plus({ days: 1 }).toFormat('yyyy-MM-dd');
      const inFiveWeeks = now.plus({ weeks: 5 }).toFormat('yyyy-MM-dd');
      expect(res.body.rest_url).toContain(`start_date=${tomorrow} 00:00:00&end_date=${inFiveWeeks} 23:59:59`);
    });
  });

  describe('time zones', () => {
    beforeAll(async () => {
      // US DST starts on Sunday 2034-03-12 at 02:00 local.
      await createEvent(h.db, {
        title: 'NY before DST',
        start: '2034-03-11 10:00:00',
        timezone: 'America/New_York',
      });
      await createEvent(h.db, {
        title: 'NY across DST',
        start: '2034-03-11 22:00:00',
        timezone: 'America/New_York',
        hours: 8,
      });
      await createEvent(h.db, {
        title: 'NY after DST',
        start: '2034-03-13 10:00:00',
        timezone: 'America/New_York',
      });
      await createEvent(h.db, { title: 'Fixed offset', start: '2034-03-13 10:00:00', timezone: 'UTC+2' });
      await createEvent(h.db, { title: 'Tokyo', start: '2034-03-13 08:00:00', timezone: 'Asia/Tokyo' });
    });

    it('shows each event in its own zone, DST-correct, with UTC copies and the abbreviation at that instant', async () => {
      const res = await restList('start_date=2034-03-01&end_date=2034-03-31');
      const byTitle = Object.fromEntries(res.body.events.map((e: Body) => [e.title, e]));
      expect(byTitle['NY before DST']).toMatchObject({
        start_date: '2034-03-11 10:00:00',
        utc_start_date: '2034-03-11 15:00:00',
        timezone: 'America/New_York',
        timezone_abbr: 'EST',
      });
      expect(byTitle['NY after DST']).toMatchObject({
        utc_start_date: '2034-03-13 14:00:00',
        timezone_abbr: 'EDT',
      });
      // 8 hours from 22:00 EST is 07:00 EDT (one wall-clock hour is skipped)
      expect(byTitle['NY across DST']).toMatchObject({
        start_date: '2034-03-11 22:00:00',
        end_date: '2034-03-12 07:00:00',
        utc_start_date: '2034-03-12 03:00:00',
        utc_end_date: '2034-03-12 11:00:00',
        end_date_details: { year: '2034', month: '03', day: '12', hour: '07', minutes: '00', seconds: '00' },
        timezone_abbr: 'EST',
      });
      expect(byTitle['Fixed offset']).toMatchObject({
        start_date: '2034-03-13 10:00:00',
        utc_start_date: '2034-03-13 08:00:00',
        timezone: 'UTC+2',
        timezone_abbr: 'UTC+2',
      });
    });

    it('compares filters with each event’s local wall-clock and orders by it', async () => {
      // Tokyo 08:00 local is 2034-03-12 23:00 UTC, yet it starts on the 13th where it happens.
      const res = await restList('start_date=2034-03-13&end_date=2034-03-13');
      expect(restTitles(res.body)).toEqual(['Tokyo', 'NY after DST', 'Fixed offset']);
    });

    it('gives json_ld dates with the event’s offset', async () => {
      const res = await restList('start_date=2034-03-13&end_date=2034-03-13');
      const ny = res.body.events.find((e: Body) => e.title === 'NY after DST');
      const single = await h.http.get(`${API}/events/${ny.id}`).expect(200);
      expect(single.body.json_ld.startDate).toBe('2034-03-13T10:00:00-04:00');
      const fixed = res.body.events.find((e: Body) => e.title === 'Fixed offset');
      const fixedSingle = await h.http.get(`${API}/events/${fixed.id}`).expect(200);
      expect(fixedSingle.body.json_ld.endDate).toBe('2034-03-13T12:00:00+02:00');
    });
  });

  describe('search', () => {
    beforeAll(async () => {
      await createEvent(h.db, {
        title: 'Jazz Night',
        start: '2032-02-03 20:00:00',
        fields: { description: '<p>Live music downtown</p>' },
      });
      await createEvent(h.db, {
        title: 'Rock concert',
        start: '2032-02-04 20:00:00',
        fields: { excerpt: 'Loud JAZZ fusion', description: 'A night out' },
      });
      await createEvent(h.db, {
        title: 'Poetry',
        start: '2032-02-05 20:00:00',
        fields: { description: 'Quiet words, 100% free' },
      });
      await createEvent(h.db, {
        title: 'Secret jazz',
        start: '2032-02-06 20:00:00',
        fields: { password: 'open-sesame' },
      });
    });

    it('matches every word in the title, excerpt or description, ignoring case', async () => {
      const jazz = await restList(`${month('2032-02')}&search=jazz`);
      expect(restTitles(jazz.body)).toEqual(['Jazz Night', 'Rock concert']);
      expect(restTitles((await restList(`${month('2032-02')}&search=JAZZ%20night`)).body)).toEqual([
        'Jazz Night',
        'Rock concert',
      ]);
      expect(restTitles((await restList(`${month('2032-02')}&search=jazz%20downtown`)).body)).toEqual([
        'Jazz Night',
      ]);
      expect(restTitles((await restList(`${month('2032-02')}&search=%22night%20out%22`)).body)).toEqual([
        'Rock concert',
      ]);
      expect(restTitles((await restList(`${month('2032-02')}&search=100%25`)).body)).toEqual(['Poetry']);
      // LIKE wildcards are literal on PostgreSQL; SQLite has no LIKE escape character (documented).
      if (h.config.databaseProvider === 'postgresql')
        expect(restTitles((await restList(`${month('2032-02')}&search=_`)).body)).toEqual([]);
      expect(jazz.body.rest_url).toContain('&search=jazz&status=publish');
    });

    it('never reads protected content the caller cannot unlock (D21: logged-in subscribers neither)', async () => {
      expect(restTitles((await restList(`${month('2032-02')}&search=secret`)).body)).toEqual([]);
      const subscriber = await createUser(h, 'subscriber');
      expect(restTitles((await restList(`${month('2032-02')}&search=secret`, 200, subscriber)).body)).toEqual(
        [],
      );
      const editor = await createUser(h, 'editor');
      expect(restTitles((await restList(`${month('2032-02')}&search=secret`, 200, editor)).body)).toEqual([
        'Secret jazz',
      ]);
    });

    it('takes an empty search for none and refuses a non-string one', async () => {
      expect((await restList(`${month('2032-02')}&search=%20`)).body.total).toBe(4);
      expect((await restList('search[]=a', 400)).body.data.params).toEqual({ search: 'Invalid parameter.' });
    });
  });

  describe('categories and tags', () => {
    const ids: Record<string, number> = {};
    beforeAll(async () => {
      const music = await createTerm(h.db, 'tribe_events_cat', 'Filter Music');
      const sport = await createTerm(h.db, 'tribe_events_cat', 'Filter Sport');
      const empty = await createTerm(h.db, 'tribe_events_cat', 'Filter Empty');
      const kids = await createTerm(h.db, 'post_tag', 'filter-kids');
      Object.assign(ids, { music: music.id, sport: sport.id, empty: empty.id, kids: kids.id });
      await createEvent(h.db, { title: 'Concert', start: '2032-03-02 10:00:00', termIds: [music.id] });
      await createEvent(h.db, { title: 'Match', start: '2032-03-03 10:00:00', termIds: [sport.id, kids.id] });
      await createEvent(h.db, {
        title: 'Kids concert',
        start: '2032-03-04 10:00:00',
        termIds: [music.id, kids.id],
      });
      await createEvent(h.db, { title: 'Untagged', start: '2032-03-05 10:00:00' });
    });

    it('filters by slug or id, as an array or a comma list, any of them', async () => {
      expect(restTitles((await restList(`${month('2032-03')}&categories=filter-music`)).body)).toEqual([
        'Concert',
        'Kids concert',
      ]);
      expect(
        restTitles(
          (await restList(`${month('2032-03')}&categories[]=filter-music&categories[]=${ids.sport}`)).body,
        ),
      ).toEqual(['Concert', 'Match', 'Kids concert']);
      expect(
        restTitles((await restList(`${month('2032-03')}&categories=${ids.music},filter-sport`)).body),
      ).toEqual(['Concert', 'Match', 'Kids concert']);
      expect(restTitles((await restList(`${month('2032-03')}&tags=filter-kids`)).body)).toEqual([
        'Match',
        'Kids concert',
      ]);
      expect(
        restTitles((await restList(`${month('2032-03')}&tags=${ids.kids}&categories=filter-music`)).body),
      ).toEqual(['Kids concert']);
    });

    it('answers a known but unused term with an empty list, an unknown one with 400', async () => {
      expect((await restList(`${month('2032-03')}&categories=filter-empty`)).body.events).toEqual([]);
      const bad = await restList(`categories=cat1&tags=${ids.music}`, 400);
      expect(bad.body.code).toBe('rest_invalid_param');
      expect(Object.keys(bad.body.data.params).sort()).toEqual(['categories', 'tags']);
    });

    it('echoes the term filters in the links so that the next page keeps them (D2)', async () => {
      const res = await restList(
        `${month('2032-03')}&categories=filter-music,filter-sport&tags=filter-kids&per_page=1`,
      );
      expect(res.body.rest_url).toContain('&categories=filter-music,filter-sport&tags=filter-kids');
      const next = new URL(res.body.next_rest_url);
      const page2 = await h.http.get(next.pathname + next.search).expect(200);
      expect(restTitles(page2.body)).toEqual(['Kids concert']);
      expect(page2.body.total).toBe(2);
    });
  });

  describe('venue, organizer, featured', () => {
    const ids: Record<string, number> = {};
    beforeAll(async () => {
      const hall = await createVenue(h.db, { name: 'Filter Hall' });
      const park = await createVenue(h.db, { name: 'Filter Park' });
      const unused = await createVenue(h.db, { name: 'Unused' });
      const acme = await createOrganizer(h.db, { name: 'Acme' });
      const zeta = await createOrganizer(h.db, { name: 'Zeta' });
      Object.assign(ids, { hall: hall.id, park: park.id, unused: unused.id, acme: acme.id, zeta: zeta.id });
      await createEvent(h.db, {
        title: 'In hall',
        start: '2032-04-02 10:00:00',
        venueIds: [hall.id],
        organizerIds: [acme.id],
        fields: { featured: true },
      });
      await createEvent(h.db, {
        title: 'In park',
        start: '2032-04-03 10:00:00',
        venueIds: [park.id],
        organizerIds: [zeta.id, acme.id],
      });
      await createEvent(h.db, { title: 'Nowhere', start: '2032-04-04 10:00:00', fields: { featured: true } });
    });

    it('filters by venue ids (array or comma list, any of them)', async () => {
      expect(restTitles((await restList(`${month('2032-04')}&venue=${ids.hall}`)).body)).toEqual(['In hall']);
      expect(restTitles((await restList(`${month('2032-04')}&venue=${ids.hall},${ids.park}`)).body)).toEqual([
        'In hall',
        'In park',
      ]);
      expect(
        restTitles((await restList(`${month('2032-04')}&venue[]=${ids.park}&venue[]=${ids.hall}`)).body),
      ).toEqual(['In hall', 'In park']);
      expect((await restList(`${month('2032-04')}&venue=${ids.unused}`)).body.events).toEqual([]);
    });

    it('filters by organizer ids', async () => {
      expect(restTitles((await restList(`${month('2032-04')}&organizer=${ids.acme}`)).body)).toEqual([
        'In hall',
        'In park',
      ]);
      const res = await restList(`${month('2032-04')}&organizer=${ids.zeta}`);
      expect(restTitles(res.body)).toEqual(['In park']);
      expect(res.body.rest_url).toContain(`&organizer=${ids.zeta}`);
    });

    it('refuses unknown or non-numeric venue and organizer ids', async () => {
      const unknown = await restList('venue=987654&organizer=987653', 400);
      expect(unknown.body.data.params).toEqual({
        venue: 'Invalid parameter.',
        organizer: 'Invalid parameter.',
      });
      expect((await restList('venue=foo', 400)).body.data.params).toEqual({ venue: 'Invalid parameter.' });
      expect((await restList('organizer=1,x', 400)).body.data.params).toEqual({
        organizer: 'Invalid parameter.',
      });
    });

    it('featured=true / false / omitted', async () => {
      expect(restTitles((await restList(`${month('2032-04')}&featured=true`)).body)).toEqual([
        'In hall',
        'Nowhere',
      ]);
      expect(restTitles((await restList(`${month('2032-04')}&featured=1`)).body)).toEqual([
        'In hall',
        'Nowhere',
      ]);
      const off = await restList(`${month('2032-04')}&featured=false`);
      expect(restTitles(off.body)).toEqual(['In park']);
      expect(off.body.rest_url).toContain('&featured=0');
      expect(restTitles((await restList(month('2032-04'))).body)).toHaveLength(3);
      expect((await restList('featured=maybe', 400)).body.data.params).toEqual({
        featured: 'Invalid parameter.',
      });
    });
  });

  describe('status', () => {
    let contributor: Credentials;
    let editor: Credentials;
    beforeAll(async () => {
      contributor = await createUser(h, 'contributor');
      editor = await createUser(h, 'editor');
      await createEvent(h.db, { title: 'Published', start: '2032-05-02 10:00:00' });
      await createEvent(h.db, { title: 'Someone’s draft', start: '2032-05-03 10:00:00', status: 'draft' });
      await createEvent(h.db, {
        title: 'My draft',
        start: '2032-05-04 10:00:00',
        status: 'draft',
        fields: { authorId: contributor.id },
      });
      await createEvent(h.db, { title: 'Pending', start: '2032-05-05 10:00:00', status: 'pending' });
      await createEvent(h.db, { title: 'Trashed', start: '2032-05-06 10:00:00', status: 'trash' });
    });

    it('shows anonymous callers published events only; status=publish is allowed', async () => {
      expect(restTitles((await restList(month('2032-05'))).body)).toEqual(['Published']);
      expect(restTitles((await restList(`${month('2032-05')}&status=publish`)).body)).toEqual(['Published']);
    });

    it('refuses anything but publish to callers who may not edit events', async () => {
      for (const status of ['draft', 'publish,draft', 'foo']) {
        const res = await restList(`status=${status}`, 400);
        expect(res.body.data.params).toEqual({ status: 'Invalid parameter.' });
      }
      const subscriber = await createUser(h, 'subscriber');
      await restList('status=draft', 400, subscriber);
    });

    it('shows editors every status but trash, and lets them pick', async () => {
      const all = await restList(month('2032-05'), 200, editor);
      expect(restTitles(all.body)).toEqual(['Published', 'Someone’s draft', 'My draft', 'Pending']);
      // Echoed as asked (WordPress's `any`), not expanded (#14).
      expect(all.body.rest_url).toContain('&status=any');
      const any = await restList(`${month('2032-05')}&status=any`, 200, editor);
      expect(restTitles(any.body)).toEqual(restTitles(all.body));
      expect(any.body.rest_url).toContain('&status=any');
      await restList('status=any', 400);
      const some = await restList(`${month('2032-05')}&status=publish,%20draft`, 200, editor);
      expect(restTitles(some.body)).toEqual(['Published', 'Someone’s draft', 'My draft']);
      expect((await restList('status=foo', 400, editor)).body.data.params).toEqual({
        status: 'Invalid parameter.',
      });
      expect((await restList('status=trash', 400, editor)).body.code).toBe('rest_invalid_param');
    });

    it('shows contributors the published events and their own', async () => {
      expect(restTitles((await restList(month('2032-05'), 200, contributor)).body)).toEqual([
        'Published',
        'My draft',
      ]);
      expect(restTitles((await restList(`${month('2032-05')}&status=draft`, 200, contributor)).body)).toEqual(
        ['My draft'],
      );
    });
  });

  describe('include, post_parent, hide_from_listings, ticketed', () => {
    const ids: Record<string, number> = {};
    beforeAll(async () => {
      const old = await createEvent(h.db, {
        title: 'Long ago',
        start: '2001-01-01 10:00:00',
        fields: { publishedAt: new Date('2026-01-03T00:00:00Z') },
      });
      const later = await createEvent(h.db, {
        title: 'Later',
        start: '2032-06-20 10:00:00',
        fields: { publishedAt: new Date('2026-01-01T00:00:00Z') },
      });
      const hidden = await createEvent(h.db, {
        title: 'Hidden',
        start: '2032-06-10 10:00:00',
        fields: { hideFromListings: true },
      });
      const parent = await createEvent(h.db, { title: 'Series', start: '2032-06-01 10:00:00' });
      const child1 = await createEvent(h.db, {
        title: 'Series #1',
        start: '2032-06-08 10:00:00',
        fields: { postParentId: parent.id },
      });
      await createEvent(h.db, {
        title: 'Series #2',
        start: '2032-06-15 10:00:00',
        fields: { postParentId: parent.id },
      });
      Object.assign(ids, {
        old: old.id,
        later: later.id,
        hidden: hidden.id,
        parent: parent.id,
        child1: child1.id,
      });
    });

    it('include lists only those ids, ignoring every date filter, by publication date then id (D15)', async () => {
      const res = await restList(
        `include=${ids.later},${ids.old},${ids.child1}&start_date=2032-06-01&starts_after=2032-06-01`,
      );
      expect(restTitles(res.body)).toEqual(['Later', 'Long ago', 'Series #1']);
      expect(res.body.rest_url).toBe(
        `${API_ROOT}/events/?page=1&per_page=10&status=publish&include=${ids.later},${ids.old},${ids.child1}`,
      );
      expect(restTitles((await restList(`include[]=${ids.old}&include[]=987654`)).body)).toEqual([
        'Long ago',
      ]);
      expect((await restList('include=foo-bar,23', 400)).body.data.params).toEqual({
        include: 'Invalid parameter.',
      });
    });

    it('never lists hide_from_listings events, even by include, but they stay readable by id', async () => {
      expect(restTitles((await restList(month('2032-06'))).body)).not.toContain('Hidden');
      expect((await restList(`include=${ids.hidden}`)).body.events).toEqual([]);
      const single = await h.http.get(`${API}/events/${ids.hidden}`).expect(200);
      expect(single.body.hide_from_listings).toBe(true);
    });

    it('post_parent lists the children of an existing event', async () => {
      const res = await restList(`post_parent=${ids.parent}&${month('2032-06')}`);
      expect(restTitles(res.body)).toEqual(['Series #1', 'Series #2']);
      expect(res.body.rest_url).toContain(`&status=publish&post_parent=${ids.parent}`);
      const unknown = await restList('post_parent=987654', 400);
      expect(unknown.body).toEqual({
        code: 'rest-invalid-event-id',
        message: 'The specified ID for the "post_parent" parameter is not a valid event.',
        data: { status: 400, request_id: expect.any(String) },
      });
      expect((await restList('post_parent=foo-bar', 400)).body.code).toBe('rest_invalid_param');
    });

    it('ticketed=false keeps the events without a type on sale; ticketed=true finds none here', async () => {
      // No event of this file has a ticket type (test/tickets/types/ticketed-filter.test.ts sells some).
      const off = await restList(`ticketed=false&${month('2032-06')}`);
      expect(off.body.total).toBe(4);
      expect(off.body.rest_url).toContain('&ticketed=0');
      const on = await restList(`ticketed=true&${month('2032-06')}`);
      expect(on.body).toMatchObject({ events: [], total: 0 });
      expect(on.body.rest_url).toContain('&ticketed=1');
    });
  });

  describe('geolocation', () => {
    beforeAll(async () => {
      const paris = await createVenue(h.db, { name: 'Paris', geoLat: 48.8566, geoLng: 2.3522 });
      const versailles = await createVenue(h.db, { name: 'Versailles', geoLat: 48.8049, geoLng: 2.1204 });
      const lyon = await createVenue(h.db, { name: 'Lyon', geoLat: 45.764, geoLng: 4.8357 });
      const nowhere = await createVenue(h.db, { name: 'No coordinates' });
      const fiji = await createVenue(h.db, { name: 'Fiji east', geoLat: -17.0, geoLng: -179.9 });
      await createEvent(h.db, {
        title: 'Early in Versailles',
        start: '2032-07-01 10:00:00',
        venueIds: [versailles.id],
      });
      await createEvent(h.db, { title: 'Late in Paris', start: '2032-07-20 10:00:00', venueIds: [paris.id] });
      await createEvent(h.db, { title: 'Mid in Paris', start: '2032-07-10 10:00:00', venueIds: [paris.id] });
      await createEvent(h.db, { title: 'In Lyon', start: '2032-07-05 10:00:00', venueIds: [lyon.id] });
      await createEvent(h.db, {
        title: 'No coordinates',
        start: '2032-07-06 10:00:00',
        venueIds: [nowhere.id],
      });
      await createEvent(h.db, { title: 'No venue', start: '2032-07-07 10:00:00' });
      await createEvent(h.db, {
        title: 'Two venues',
        start: '2032-07-08 10:00:00',
        venueIds: [lyon.id, versailles.id],
      });
      await createEvent(h.db, {
        title: 'Across the date line',
        start: '2032-07-09 10:00:00',
        venueIds: [fiji.id],
      });
    });

    it('geoloc=true keeps events whose venue has coordinates', async () => {
      const res = await restList(`${month('2032-07')}&geoloc=1`);
      expect(restTitles(res.body)).toEqual([
        'Early in Versailles',
        'In Lyon',
        'Two venues',
        'Across the date line',
        'Mid in Paris',
        'Late in Paris',
      ]);
      expect(res.body.rest_url).toContain('&geoloc=1');
      expect(restTitles((await restList(`${month('2032-07')}&geoloc=0`)).body)).toHaveLength(8);
    });

    it('geoloc_lat/lng keep events within the radius (default 50 km), nearest first, then by start', async () => {
      const res = await restList(`${month('2032-07')}&geoloc_lat=48.8566&geoloc_lng=2.3522`);
      expect(restTitles(res.body)).toEqual([
        'Mid in Paris',
        'Late in Paris',
        'Early in Versailles',
        'Two venues',
      ]);
      expect(res.body.total).toBe(4);
      expect(res.body.rest_url).toContain('&geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=50');
      const near = await restList(`${month('2032-07')}&geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=5`);
      expect(restTitles(near.body)).toEqual(['Mid in Paris', 'Late in Paris']);
      const far = await restList(
        `${month('2032-07')}&geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=500&per_page=3&page=2`,
      );
      expect(restTitles(far.body)).toEqual(['Two venues', 'In Lyon']);
      expect(far.body.total).toBe(5);
    });

    it('wraps longitudes across the date line', async () => {
      const res = await restList(`${month('2032-07')}&geoloc_lat=-17&geoloc_lng=179.9&geoloc_radius=100`);
      expect(restTitles(res.body)).toEqual(['Across the date line']);
    });

    it('needs both coordinates, valid ones, and a positive radius', async () => {
      expect((await restList('geoloc_lat=48.8', 400)).body.data.params).toEqual({
        geoloc_lng: 'geoloc_lat and geoloc_lng go together.',
      });
      expect((await restList('geoloc_lng=2.3', 400)).body.data.params).toHaveProperty('geoloc_lat');
      expect((await restList('geoloc_lat=91&geoloc_lng=2', 400)).body.data.params).toHaveProperty(
        'geoloc_lat',
      );
      expect((await restList('geoloc_lat=north&geoloc_lng=2', 400)).body.data.params).toHaveProperty(
        'geoloc_lat',
      );
      expect(
        (await restList('geoloc_lat=48&geoloc_lng=2&geoloc_radius=0', 400)).body.data.params,
      ).toHaveProperty('geoloc_radius');
    });
  });

  describe('password-protected events in lists', () => {
    let author: Credentials;
    beforeAll(async () => {
      author = await createUser(h, 'author');
      const venue = await createVenue(h.db);
      const organizer = await createOrganizer(h.db);
      const term = await createTerm(h.db, 'post_tag', 'protected-tag');
      const media = await h.db.media.create({ data: { url: 'http://example.com/p.jpg' } });
      await createEvent(h.db, {
        title: 'Protected',
        start: '2032-08-02 10:00:00',
        venueIds: [venue.id],
        organizerIds: [organizer.id],
        termIds: [term.id],
        fields: { password: 'pw', excerpt: 'secret', featured: true, imageId: media.id, authorId: author.id },
      });
    });

    it('are listed with their content blanked (docs/reference.md §4.3)', async () => {
      const res = await restList(month('2032-08'));
      expect(res.body.events[0]).toMatchObject({
        title: 'Protected',
        start_date: '2032-08-02 10:00:00',
        description: '',
        excerpt: '',
        image: false,
        all_day: null,
        cost: '',
        cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] },
        website: '',
        show_map: null,
        show_map_link: null,
        hide_from_listings: null,
        sticky: null,
        featured: null,
        categories: [],
        tags: [],
        venue: [],
        organizer: [],
        custom_fields: [],
      });
    });

    it('show their content with the right password, and to whoever may edit them', async () => {
      const withPassword = await restList(`${month('2032-08')}&password=pw`);
      expect(withPassword.body.events[0]).toMatchObject({
        excerpt: 'secret',
        featured: true,
        tags: [{ name: 'protected-tag' }],
      });
      expect(withPassword.body.rest_url).not.toContain('password');
      expect((await restList(`${month('2032-08')}&password=nope`)).body.events[0].excerpt).toBe('');
      expect((await restList(month('2032-08'), 200, author)).body.events[0].image).toMatchObject({
        url: 'http://example.com/p.jpg',
      });
    });
  });
});
