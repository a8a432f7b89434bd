import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, SITE_URL } from '../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../helpers/fixtures.js';
import { type Credentials, type Users, createUser, startWithRoles } from '../../helpers/users.js';
import { graphqlClient } from '../../helpers/graphql.js';

// The event mutations (createEvent, updateEvent, updateEventBySlug, deleteEvent, deleteEventBySlug):
// typed camelCase inputs over the same service as REST — same validation (parameters named in
// camelCase), permissions, transactions, with the REST codes in `extensions`.

let h: Harness;
let users: Users;

const gql = graphqlClient(() => h);

beforeAll(async () => ({ h, users } = await startWithRoles()));
afterAll(() => h.close());

const FIELDS = `id: databaseId title slug status description excerpt url startDate endDate localStartDate localEndDate timezone timezoneAbbr allDay
  cost { formatted values currencySymbol currencyPosition } website showMap showMapLink hideFromListings sticky featured
  author { id: databaseId } image { id: databaseId url } postParent { id: databaseId }
  venues { id: databaseId name city } organizers { id: databaseId name } categories { id: databaseId name count } tags { id: databaseId name count }`;
const CREATE = `mutation($input: CreateEventInput!) { createEvent(input: $input) { ${FIELDS} } }`;
const UPDATE = `mutation($id: Int!, $input: UpdateEventInput!) { updateEvent(id: $id, input: $input) { ${FIELDS} } }`;
const UPDATE_BY_SLUG = `mutation($slug: String!, $input: UpdateEventBySlugInput!) { updateEventBySlug(slug: $slug, input: $input) { ${FIELDS} } }`;
const DELETE = `mutation($id: Int!, $force: Boolean) { deleteEvent(id: $id, force: $force) { id: databaseId status } }`;
const DELETE_BY_SLUG = `mutation($slug: String!, $force: Boolean) { deleteEventBySlug(slug: $slug, force: $force) { id: databaseId status } }`;

const REQUIRED = { title: 'Graph Event', startDate: '2031-01-15 18:00:00', endDate: '2031-01-15 21:00:00' };

async function created(input: Record<string, unknown>, as: Credentials = users.administrator) {
  const { data, errors } = await gql(CREATE, { input: { ...REQUIRED, ...input } }, as);
  expect(errors).toBeUndefined();
  return data!.createEvent;
}

describe('createEvent', () => {
  it('refuses anonymous callers (401) and subscribers (403)', async () => {
    const anonymous = await gql(CREATE, { input: REQUIRED });
    expect(anonymous.errors![0]!.extensions).toMatchObject({ code: 'rest_forbidden', http: { status: 401 } });
    const subscriber = await createUser(h, 'subscriber');
    const refused = await gql(CREATE, { input: REQUIRED }, subscriber);
    expect(refused.errors![0]!.extensions).toMatchObject({ code: 'rest_forbidden', http: { status: 403 } });
  });

  it('creates an event with linked records from typed inputs', async () => {
    const venue = await createVenue(h.db, { name: 'Typed Hall' });
    const organizer = await createOrganizer(h.db, { name: 'Typed Org' });
    const jazz = await createTerm(h.db, 'tribe_events_cat', 'Typed Jazz');
    const media = await h.db.media.create({
      data: { url: 'https://cdn.example/typed.jpg', mimeType: 'image/jpeg' },
    });
    const event = await created({
      title: 'Typed Concert',
      description: 'Plain words',
      timezone: 'Europe/Paris',
      cost: ['10 €', '25 €'],
      website: 'https://typed.example',
      featured: true,
      showMap: true,
      image: String(media.id),
      venues: [{ id: venue.id }],
      organizers: [{ create: { name: 'New Typed Org', email: 'new@example.com' } }, { id: organizer.id }],
      categories: [{ id: jazz.id }, { name: 'Typed Blues' }],
      tags: [{ name: 'typed-tag' }],
    });
    expect(event).toMatchObject({
      title: 'Typed Concert',
      slug: 'typed-concert',
      status: 'publish',
      description: '<p>Plain words</p>',
      url: `${SITE_URL}/event/typed-concert/`,
      startDate: '2031-01-15T17:00:00.000Z',
      localStartDate: '2031-01-15 18:00:00',
      timezone: 'Europe/Paris',
      timezoneAbbr: 'CET',
      allDay: false,
      cost: { formatted: '10€ – 25€', values: [10, 25], currencySymbol: '€', currencyPosition: 'postfix' },
      website: 'https://typed.example',
      featured: true,
      showMap: true,
      author: { id: users.administrator.id },
      image: { id: media.id },
      venues: [{ id: venue.id, name: 'Typed Hall' }],
      organizers: [{ name: 'New Typed Org' }, { id: organizer.id }],
      categories: [
        { id: jazz.id, name: 'Typed Jazz', count: 1 },
        { name: 'Typed Blues', count: 1 },
      ],
      tags: [{ name: 'typed-tag', count: 1 }],
    });
  });

  it('creates an inline venue, reusing one with the same name', async () => {
    const first = await created({ venues: [{ create: { name: 'Inline Graph Hall', city: 'Lyon' } }] });
    expect(first.venues).toMatchObject([{ name: 'Inline Graph Hall', city: 'Lyon' }]);
    const second = await created({ venues: [{ create: { name: 'inline graph hall' } }] });
    expect(second.venues[0].id).toBe(first.venues[0].id);
  });

  it('names invalid fields in camelCase with the REST code', async () => {
    const { errors } = await gql(
      CREATE,
      {
        input: {
          ...REQUIRED,
          title: ' ',
          startDate: 'before my birthday',
          timezone: 'Nowhere',
          website: 'foo',
          authorId: 99_999,
          postParentId: 99_999,
          cost: ['Donation'],
        },
      },
      users.administrator,
    );
    expect(errors![0]!.extensions).toMatchObject({
      code: 'rest_invalid_param',
      http: { status: 400 },
      data: {
        params: {
          title: 'Invalid parameter.',
          timezone: expect.any(String),
          website: 'Invalid parameter.',
          authorId: 'Invalid parameter.',
          postParentId: 'Invalid parameter.',
          cost: expect.any(String),
        },
      },
    });
    expect(errors![0]!.message).toMatch(/^Invalid parameter\(s\): /);
    const dates = await gql(
      CREATE,
      { input: { ...REQUIRED, startDate: '', endDate: 'soonish' } },
      users.administrator,
    );
    expect(Object.keys(dates.errors![0]!.extensions.data.params)).toEqual(['startDate', 'endDate']);
  });

  it('names bad dates, links and terms by their input fields, never by the REST parameters', async () => {
    const { errors } = await gql(
      CREATE,
      {
        input: {
          ...REQUIRED,
          endDate: 'soonish',
          date: 'whenever',
          dateUtc: 'never',
          allDay: true,
          eventStatusReason: 'x',
          organizers: Array.from({ length: 21 }, (_, i) => ({ id: i + 1 })),
          categories: [{ id: 99_999 }],
          tags: [{}],
        },
      },
      users.administrator,
    );
    expect(errors![0]!.extensions.code).toBe('rest_invalid_param');
    expect(Object.keys(errors![0]!.extensions.data.params)).toEqual([
      'endDate',
      'date',
      'dateUtc',
      'organizers',
      'tags',
      'categories',
    ]);
    expect(errors![0]!.message).toBe(
      'Invalid parameter(s): endDate, date, dateUtc, organizers, tags, categories',
    );
    const event = await created({});
    const venues = await gql(
      UPDATE,
      { id: event.id, input: { venues: [{ id: 99_999 }] } },
      users.administrator,
    );
    expect(venues.errors![0]!.extensions.data.params).toEqual({ venues: 'Invalid parameter.' });
    const inline = await gql(
      UPDATE,
      { id: event.id, input: { organizers: [{ create: { name: 'Bad Site', website: 'nope' } }] } },
      users.administrator,
    );
    expect(Object.keys(inline.errors![0]!.extensions.data.params)).toEqual(['organizers']);
    expect(Object.keys(inline.errors![0]!.extensions.data.details)).toEqual(['organizers']);
    // The reason names the inline venue's own GraphQL input fields.
    const inlineVenue = await gql(
      UPDATE,
      { id: event.id, input: { venues: [{ create: { name: 'Far Hall', geoLat: 123 } }] } },
      users.administrator,
    );
    expect(inlineVenue.errors![0]!.extensions.data.details.venues.data.cause).toMatchObject({
      message: 'Invalid parameter(s): geoLat',
      params: { geoLat: 'Invalid parameter.' },
    });
    const status = await gql(
      UPDATE,
      { id: event.id, input: { status: 'trash', authorId: 0 } },
      users.administrator,
    );
    expect(Object.keys(status.errors![0]!.extensions.data.params)).toEqual(['status', 'authorId']);
  });

  it('refuses a venue entry that gives neither id nor create, and an unknown {id}', async () => {
    const neither = await gql(CREATE, { input: { ...REQUIRED, venues: [{}] } }, users.administrator);
    expect(neither.errors![0]!.extensions).toMatchObject({
      code: 'rest_invalid_param',
      data: { params: { venues: expect.any(String) } },
    });
    const unknown = await gql(
      CREATE,
      { input: { ...REQUIRED, organizers: [{ id: 99_999 }] } },
      users.administrator,
    );
    expect(unknown.errors![0]!.extensions).toMatchObject({
      code: 'rest_invalid_param',
      http: { status: 400 },
      data: { params: { organizers: 'Invalid parameter.' } },
    });
  });

  it('changes nothing when the third inline organizer is invalid', async () => {
    const before = await h.db.organizer.count();
    const { errors } = await gql(
      CREATE,
      {
        input: {
          ...REQUIRED,
          title: 'Graph Atomic',
          organizers: [
            { create: { name: 'GA' } },
            { create: { name: 'GB' } },
            { create: { name: 'GC', website: 'bad' } },
          ],
        },
      },
      users.administrator,
    );
    expect(errors![0]!.extensions).toMatchObject({
      code: 'rest_invalid_param',
      data: { params: { organizers: 'Invalid parameter.' } },
    });
    expect(await h.db.organizer.count()).toBe(before);
    expect(await h.db.event.count({ where: { title: 'Graph Atomic' } })).toBe(0);
  });

  it('scales the status for contributors and stretches all-day events', async () => {
    const event = await created({ status: 'publish', allDay: true }, users.contributor);
    expect(event).toMatchObject({
      status: 'pending',
      allDay: true,
      localStartDate: '2031-01-15 00:00:00',
      localEndDate: '2031-01-15 23:59:59',
    });
    const denied = await gql(
      CREATE,
      { input: { ...REQUIRED, tags: [{ name: 'Contributor Invention' }] } },
      users.contributor,
    );
    expect(denied.errors![0]!.extensions).toMatchObject({
      code: 'rest_cannot_create_term',
      http: { status: 403 },
    });
  });
});

describe('updateEvent and updateEventBySlug', () => {
  it('writes only the fields given', async () => {
    const event = await created({ title: 'Graph Keep', cost: ['$5'], featured: true, excerpt: 'Kept' });
    const { data, errors } = await gql(
      UPDATE,
      { id: event.id, input: { title: 'Graph Kept', timezone: 'Asia/Tokyo' } },
      users.editor,
    );
    expect(errors).toBeUndefined();
    expect(data!.updateEvent).toMatchObject({
      title: 'Graph Kept',
      slug: 'graph-keep',
      cost: { formatted: '$5' },
      featured: true,
      excerpt: '<p>Kept</p>',
      timezone: 'Asia/Tokyo',
      localStartDate: '2031-01-15 18:00:00',
      startDate: '2031-01-15T09:00:00.000Z',
    });
  });

  it('renames by slug, and removes links with empty lists', async () => {
    const venue = await createVenue(h.db);
    const event = await created({
      title: 'Graph Slug',
      venues: [{ id: venue.id }],
      categories: [{ name: 'Graph Slug Cat' }],
    });
    const { data, errors } = await gql(
      UPDATE_BY_SLUG,
      { slug: 'graph-slug', input: { slug: 'graph-renamed', venues: [], categories: [] } },
      users.editor,
    );
    expect(errors).toBeUndefined();
    expect(data!.updateEventBySlug).toMatchObject({
      id: event.id,
      slug: 'graph-renamed',
      venues: [],
      categories: [],
    });
  });

  it('has no password on the by-slug input; sets one by id', async () => {
    const event = await created({ title: 'Graph Secret' });
    const bySlug = await gql(
      UPDATE_BY_SLUG,
      { slug: 'graph-secret', input: { password: 'x' } },
      users.editor,
    );
    expect(bySlug.errors![0]!.message).toMatch(/password/);
    const { errors } = await gql(UPDATE, { id: event.id, input: { password: 'secret' } }, users.editor);
    expect(errors).toBeUndefined();
    expect((await h.db.event.findUniqueOrThrow({ where: { id: event.id } })).password).toBe('secret');
  });

  it('answers 404 rest-event-not-found for an unknown id or slug', async () => {
    const byId = await gql(UPDATE, { id: 99_999, input: { title: 'x' } }, users.editor);
    expect(byId.errors![0]!.extensions).toMatchObject({
      code: 'rest-event-not-found',
      http: { status: 404 },
    });
    const bySlug = await gql(UPDATE_BY_SLUG, { slug: 'nope', input: { title: 'x' } }, users.editor);
    expect(bySlug.errors![0]!.extensions).toMatchObject({
      code: 'rest-event-not-found',
      http: { status: 404 },
    });
  });

  it('applies the capability rules: contributors only edit their own drafts', async () => {
    const own = await createEvent(h.db, { status: 'draft', fields: { authorId: users.contributor.id } });
    const ok = await gql(
      UPDATE,
      { id: own.id, input: { title: 'Mine', status: 'publish' } },
      users.contributor,
    );
    expect(ok.errors).toBeUndefined();
    expect(ok.data!.updateEvent).toMatchObject({ title: 'Mine', status: 'pending' });
    const published = await createEvent(h.db, { fields: { authorId: users.contributor.id } });
    const refused = await gql(UPDATE, { id: published.id, input: { title: 'x' } }, users.contributor);
    expect(refused.errors![0]!.extensions).toMatchObject({ code: 'rest_forbidden', http: { status: 403 } });
    const anonymous = await gql(UPDATE, { id: published.id, input: { title: 'x' } });
    expect(anonymous.errors![0]!.extensions).toMatchObject({ code: 'rest_forbidden', http: { status: 401 } });
  });

  it('never loses a field to concurrent mutations', async () => {
    const event = await created({ title: 'Graph Parallel' });
    const inputs = [
      { title: 'Graph Parallel, renamed' },
      { cost: ['9$'] },
      { website: 'https://graph-parallel.example' },
      { sticky: true },
      { hideFromListings: true },
      { tags: [{ name: 'Graph Parallel Tag' }] },
      { endDate: '2031-01-15 23:00:00' },
      { postParentId: 0 },
    ];
    const results = await Promise.all(
      inputs.map((input) => gql(UPDATE, { id: event.id, input }, users.editor)),
    );
    expect(results.map((result) => result.errors)).toEqual(inputs.map(() => undefined));
    const { data } = await gql(
      `query($id: Int!) { event(id: $id) { ${FIELDS} } }`,
      { id: event.id },
      users.editor,
    );
    expect(data!.event).toMatchObject({
      title: 'Graph Parallel, renamed',
      cost: { formatted: '9$' },
      website: 'https://graph-parallel.example',
      sticky: true,
      hideFromListings: true,
      tags: [{ name: 'Graph Parallel Tag', count: 1 }],
      localEndDate: '2031-01-15 23:00:00',
    });
  });

  it('sets and removes the parent event', async () => {
    const parent = await created({ title: 'Graph Parent' });
    const child = await created({ title: 'Graph Child', postParentId: parent.id });
    expect(child.postParent).toEqual({ id: parent.id });
    const loop = await gql(UPDATE, { id: parent.id, input: { postParentId: child.id } }, users.editor);
    expect(loop.errors![0]!.extensions).toMatchObject({
      code: 'rest_invalid_param',
      data: { params: { postParentId: 'Invalid parameter.' } },
    });
    const { data } = await gql(UPDATE, { id: child.id, input: { postParentId: 0 } }, users.editor);
    expect(data!.updateEvent.postParent).toBeNull();
  });
});

describe('deleteEvent and deleteEventBySlug', () => {
  it('trashes, then 410; force deletes for good (editors only)', async () => {
    const event = await created({ title: 'Graph Trash', categories: [{ name: 'Graph Trash Cat' }] });
    const trashed = await gql(DELETE, { id: event.id }, users.editor);
    expect(trashed.data!.deleteEvent).toEqual({ id: event.id, status: 'trash' });
    expect((await h.db.term.findFirstOrThrow({ where: { name: 'Graph Trash Cat' } })).eventCount).toBe(0);
    const again = await gql(DELETE, { id: event.id }, users.editor);
    expect(again.errors![0]!.extensions).toMatchObject({ code: 'event-is-in-trash', http: { status: 410 } });
    const notAllowed = await gql(DELETE, { id: event.id, force: true }, users.author);
    expect(notAllowed.errors![0]!.extensions).toMatchObject({
      code: 'rest_forbidden',
      http: { status: 403 },
    });
    const gone = await gql(DELETE, { id: event.id, force: true }, users.editor);
    expect(gone.data!.deleteEvent).toEqual({ id: event.id, status: 'trash' });
    expect(await h.db.event.findUnique({ where: { id: event.id } })).toBeNull();
  });

  it('deletes by slug, and 404s for unknown ones', async () => {
    const event = await created({ title: 'Graph Slug Trash' });
    const { data } = await gql(DELETE_BY_SLUG, { slug: 'graph-slug-trash' }, users.editor);
    expect(data!.deleteEventBySlug).toEqual({ id: event.id, status: 'trash' });
    const unknown = await gql(DELETE_BY_SLUG, { slug: 'never-was' }, users.editor);
    expect(unknown.errors![0]!.extensions).toMatchObject({
      code: 'rest-event-not-found',
      http: { status: 404 },
    });
    const anonymous = await gql(DELETE, { id: event.id });
    expect(anonymous.errors![0]!.extensions).toMatchObject({ code: 'rest_forbidden', http: { status: 401 } });
  });
});
