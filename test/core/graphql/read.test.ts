import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, SITE_URL, startHarness } from '../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../helpers/fixtures.js';
import { graphqlClient } from '../../helpers/graphql.js';

let h: Harness;
const ids: Record<string, number> = {};

const gql = graphqlClient(() => h, { status: 200 });

beforeAll(async () => {
  h = await startHarness();
  const venue = await createVenue(h.db, { name: 'Opera', slug: 'opera', geoLat: 48.87, geoLng: 2.33 });
  const organizer = await createOrganizer(h.db, { name: 'Org', slug: 'org' });
  const parent = await createTerm(h.db, 'tribe_events_cat', 'Arts');
  const child = await h.db.term.create({
    data: { taxonomy: 'tribe_events_cat', name: 'Opera', slug: 'opera', parentId: parent.id },
  });
  const tag = await createTerm(h.db, 'post_tag', 'Outdoor');
  const event = await createEvent(h.db, {
    title: 'Carmen',
    start: '2031-07-01 20:00:00',
    timezone: 'Europe/Paris',
    venueIds: [venue.id],
    organizerIds: [organizer.id],
    termIds: [child.id, tag.id],
    fields: { slug: 'carmen', cost: '0,20,30', currencySymbol: '€', currencyPosition: 'postfix' },
  });
  const draft = await createEvent(h.db, { status: 'draft' });
  for (let i = 0; i < 12; i++) await createEvent(h.db, { title: `Upcoming ${i}` });
  Object.assign(ids, {
    venue: venue.id,
    organizer: organizer.id,
    event: event.id,
    draft: draft.id,
    child: child.id,
    tag: tag.id,
    parent: parent.id,
  });
});
afterAll(() => h.close());

describe('GraphQL reads', () => {
  it('reads an event by id with its relations, in UTC instants and local wall-clock', async () => {
    const { data, errors } = await gql(
      `query($id: Int!) { event(id: $id) { title url startDate localStartDate timezone timezoneAbbr
        cost { formatted values currencySymbol currencyPosition }
        venues { name geoLat } organizers { name } categories { name parent { name } count } tags { name } } }`,
      { id: ids.event },
    );
    expect(errors).toBeUndefined();
    expect(data!.event).toEqual({
      title: 'Carmen',
      url: `${SITE_URL}/event/carmen/`,
      startDate: '2031-07-01T18:00:00.000Z',
      localStartDate: '2031-07-01 20:00:00',
      timezone: 'Europe/Paris',
      timezoneAbbr: 'CEST',
      cost: {
        formatted: 'Free – 30€',
        values: [0, 20, 30],
        currencySymbol: '€',
        currencyPosition: 'postfix',
      },
      venues: [{ name: 'Opera', geoLat: 48.87 }],
      organizers: [{ name: 'Org' }],
      categories: [{ name: 'Opera', parent: { name: 'Arts' }, count: 1 }],
      tags: [{ name: 'Outdoor' }],
    });
  });

  it('reads an event by slug', async () => {
    const { data } = await gql('{ eventBySlug(slug: "carmen") { id: databaseId } }');
    expect(data!.eventBySlug.id).toBe(ids.event);
  });

  it('refuses drafts and unknown ids with the REST codes in extensions', async () => {
    const draft = await gql('query($id: Int!) { event(id: $id) { id: databaseId } }', { id: ids.draft });
    expect(draft.errors![0]!.extensions).toMatchObject({
      code: 'event-not-accessible',
      http: { status: 403 },
    });
    const missing = await gql('{ event(id: 987654) { id: databaseId } }');
    expect(missing.errors![0]!.extensions).toMatchObject({
      code: 'rest-event-not-found',
      http: { status: 404 },
    });
  });

  it('pages the upcoming events with totals', async () => {
    const { data } = await gql(
      '{ events(page: 2, perPage: 5) { pageInfo { page perPage total totalPages } items { title } } }',
    );
    expect(data!.events.pageInfo).toEqual({ page: 2, perPage: 5, total: 12, totalPages: 3 });
    expect(data!.events.items).toHaveLength(5);
  });

  it('rejects bad paging with rest_invalid_param', async () => {
    const { errors } = await gql('{ events(perPage: 0) { pageInfo { total } } }');
    expect(errors![0]!.extensions).toMatchObject({ code: 'rest_invalid_param', http: { status: 400 } });
  });

  it('reads venues, organizers, categories and tags', async () => {
    const { data, errors } = await gql(
      `query($v: Int!, $o: Int!, $c: Int!, $t: Int!) {
      venue(id: $v) { name } venueBySlug(slug: "opera") { id: databaseId } venues { pageInfo { total } items { name } }
      organizer(id: $o) { name } organizerBySlug(slug: "org") { id: databaseId } organizers { pageInfo { total } }
      category(id: $c) { name parent { id: databaseId } url } categories { pageInfo { total } items { name } }
      tag(id: $t) { name count } tags { items { name } } }`,
      { v: ids.venue, o: ids.organizer, c: ids.child, t: ids.tag },
    );
    expect(errors).toBeUndefined();
    expect(data).toMatchObject({
      venue: { name: 'Opera' },
      venueBySlug: { id: ids.venue },
      venues: { pageInfo: { total: 1 }, items: [{ name: 'Opera' }] },
      organizer: { name: 'Org' },
      organizerBySlug: { id: ids.organizer },
      category: { name: 'Opera', parent: { id: ids.parent }, url: `${SITE_URL}/events/category/arts/opera/` },
      categories: { pageInfo: { total: 2 }, items: [{ name: 'Arts' }, { name: 'Opera' }] },
      tag: { name: 'Outdoor', count: 1 },
    });
  });

  it('answers a tag id asked as a category with term-not-found', async () => {
    const { errors } = await gql('query($id: Int!) { category(id: $id) { id: databaseId } }', {
      id: ids.tag,
    });
    expect(errors![0]!.extensions).toMatchObject({ code: 'term-not-found', http: { status: 404 } });
  });

  it('refuses queries deeper than the limit, as a request error (400, no data)', async () => {
    const res = await h.http.post('/graphql').send({
      query:
        '{ events { items { postParent { postParent { postParent { postParent { postParent { postParent { postParent { postParent { id: databaseId } } } } } } } } } } }',
    });
    expect(res.status).toBe(400);
    const { data, errors } = res.body as {
      data?: unknown;
      errors?: Array<{ message: string; extensions: unknown }>;
    };
    expect(data).toBeUndefined();
    expect(errors?.[0]?.extensions).toEqual({ code: 'query_too_deep', http: { status: 400 } });
    expect(errors?.[0]?.message).toBe('The query is nested deeper than 10 levels.');
  });

  it('serves GraphiQL to a browser', async () => {
    const res = await h.http.get('/graphql').set('accept', 'text/html').expect(200);
    expect(res.text).toMatch(/graphiql/i);
    expect(res.text).not.toMatch(/unpkg\.com|cdn\.jsdelivr/);
  });
});
