import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness } from '../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../helpers/fixtures.js';
import { type Credentials, type Users, startWithRoles } from '../../helpers/users.js';
import { graphqlClient } from '../../helpers/graphql.js';

// GraphQL `events(filter: EventFilter, page, perPage, password)`, `event`, `eventBySlug`: the REST
// filters as a typed input, the same visibility, the same error codes in `extensions`.

let h: Harness;
const ids: Record<string, number> = {};
let users: Users;

const gql = graphqlClient(() => h, { status: 200 });

const EVENTS = `query($filter: EventFilter, $page: Int, $perPage: Int, $password: String) {
  events(filter: $filter, page: $page, perPage: $perPage, password: $password) {
    pageInfo { page perPage total totalPages }
    items { id: databaseId title status localStartDate contentWithheld description featured venues { name } categories { slug } image { url } }
  }
}`;

async function titles(filter: Record<string, unknown>, as?: Credentials) {
  const { data, errors } = await gql(
    EVENTS,
    { filter: { startDate: '2032-01-01', endDate: '2032-12-31', ...filter } },
    as,
  );
  expect(errors).toBeUndefined();
  return data!.events.items.map((item: { title: string }) => item.title) as string[];
}

async function failure(
  filter: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  as?: Credentials,
) {
  const { data, errors } = await gql(EVENTS, { filter, ...extra }, as);
  expect(data?.events ?? null).toBeNull();
  expect(errors).toHaveLength(1);
  return errors![0]!;
}

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
    start: '2032-01-02 10:00:00',
    venueIds: [plain.id],
  });
  await createEvent(h.db, {
    title: 'Jazz in Versailles',
    start: '2032-01-03 10:00:00',
    venueIds: [versailles.id],
    termIds: [music.id],
    fields: { featured: true, postParentId: parent.id },
  });
  await createEvent(h.db, {
    title: 'Kids in Paris',
    start: '2032-01-04 10:00:00',
    venueIds: [paris.id],
    organizerIds: [acme.id],
    termIds: [kids.id],
  });
  await createEvent(h.db, {
    title: 'Late jazz in Paris',
    start: '2032-01-05 22:00:00',
    venueIds: [paris.id],
    termIds: [music.id, kids.id],
  });
  await createEvent(h.db, { title: 'Draft', start: '2032-01-06 10:00:00', status: 'draft' });
  await createEvent(h.db, {
    title: 'Contributor draft',
    start: '2032-01-07 10:00:00',
    status: 'draft',
    fields: { authorId: users.contributor.id },
  });
  await createEvent(h.db, {
    title: 'Hidden',
    start: '2032-01-08 10:00:00',
    fields: { hideFromListings: true },
  });
  const locked = await createEvent(h.db, {
    title: 'Locked',
    start: '2032-01-09 10:00:00',
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

describe('events(filter)', () => {
  it('lists by start with pageInfo', async () => {
    const { data } = await gql(EVENTS, {
      filter: { startDate: '2032-01-01', endDate: '2032-01-31' },
      perPage: 2,
      page: 2,
    });
    expect(data!.events.pageInfo).toEqual({ page: 2, perPage: 2, total: 5, totalPages: 3 });
    expect(data!.events.items.map((i: { title: string }) => i.title)).toEqual([
      'Kids in Paris',
      'Late jazz in Paris',
    ]);
  });

  it('date filters, strict or whole days, with English phrases', async () => {
    expect(await titles({ startDate: '2032-01-04', endDate: '2032-01-05' })).toEqual(['Kids in Paris']);
    expect(await titles({ startDate: '2032-01-04', endDate: '2032-01-06' })).toEqual([
      'Kids in Paris',
      'Late jazz in Paris',
    ]);
    expect(
      await titles({ startDate: '2032-01-04', endDate: '2032-01-05 12:00:00', strictDates: true }),
    ).toEqual(['Kids in Paris']);
    expect(await titles({ startsAfter: '2032-01-03', startsBefore: '2032-01-05' })).toEqual([
      'Kids in Paris',
      'Late jazz in Paris',
    ]);
    expect(await titles({ endsAfter: '2032-01-08', endsBefore: '2032-01-31' })).toEqual(['Locked']);
    const { errors } = await gql(EVENTS, {
      filter: { startsAfter: '+5 weeks', endDate: 'next wednesday 4pm' },
    });
    expect(errors).toBeUndefined();
    const bad = await failure({ startDate: 'before my birthday', endsBefore: 'soonish' });
    expect(bad.extensions).toMatchObject({
      code: 'rest_invalid_param',
      http: { status: 400 },
      data: { params: { startDate: 'Invalid parameter.', endsBefore: 'Invalid parameter.' } },
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
    expect(await titles({ venues: [ids.versailles, ids.paris], featured: false })).toEqual([
      'Kids in Paris',
      'Late jazz in Paris',
    ]);
    expect(await titles({ organizers: [ids.acme] })).toEqual(['Kids in Paris']);
    expect(await titles({ featured: true })).toEqual(['Jazz in Versailles']);
    expect(await titles({ featured: true }, users.editor)).toEqual(['Jazz in Versailles', 'Locked']);
    const bad = await failure({ categories: ['nope'], venues: [987654], organizers: [987653] });
    expect(bad.extensions.data!.params).toEqual({
      categories: 'Invalid parameter.',
      venues: 'Invalid parameter.',
      organizers: 'Invalid parameter.',
    });
  });

  it('include ignores the dates; postParent must be an event', async () => {
    expect(await titles({ include: [ids.old, ids.parent] })).toEqual(['Parent', 'Old']);
    expect(await titles({ postParent: ids.parent })).toEqual(['Jazz in Versailles']);
    const bad = await failure({ postParent: 987654 });
    expect(bad.extensions).toMatchObject({ code: 'rest-invalid-event-id', http: { status: 400 } });
    expect(bad.message).toBe('The specified ID for the "postParent" parameter is not a valid event.');
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
    const bad = await failure({ near: { lat: 95, lng: 2, radius: -1 } });
    expect(bad.extensions.data!.params).toEqual({
      'near.lat': 'Invalid parameter.',
      'near.radius': 'Invalid parameter.',
    });
  });

  it('ticketed: false keeps the events without a type on sale, true finds none here', async () => {
    expect(await titles({ ticketed: false })).toHaveLength(5);
    expect(await titles({ ticketed: true })).toEqual([]);
  });

  it('hides drafts from anonymous callers and refuses them the status filter', async () => {
    expect(await titles({})).not.toContain('Draft');
    expect(await titles({})).not.toContain('Hidden');
    const bad = await failure({ status: ['draft'] });
    expect(bad.extensions).toMatchObject({
      code: 'rest_invalid_param',
      http: { status: 400 },
      data: { params: { status: 'Invalid parameter.' } },
    });
  });

  it('shows editors every status, and contributors their own drafts', async () => {
    expect(await titles({ status: ['draft'] }, users.editor)).toEqual(['Draft', 'Contributor draft']);
    expect(await titles({ status: ['draft'] }, users.contributor)).toEqual(['Contributor draft']);
    const trash = await failure({ status: ['trash'] }, {}, users.editor);
    expect(trash.extensions.code).toBe('rest_invalid_param');
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

  it('answers bad paging and a page past the end with the REST codes', async () => {
    const perPage = await failure({}, { perPage: 0 });
    expect(perPage.extensions).toMatchObject({ code: 'rest_invalid_param', http: { status: 400 } });
    const past = await failure({ startDate: '2032-01-01', endDate: '2032-01-31' }, { page: 9 });
    expect(past.extensions).toMatchObject({ code: 'event-archive-page-not-found', http: { status: 404 } });
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
    const PARENT = 'query($id: Int!) { event(id: $id) { postParent { title description contentWithheld } } }';
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
