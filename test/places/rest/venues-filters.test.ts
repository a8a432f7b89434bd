import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, API_ROOT, type Harness } from '../../helpers/harness.js';
import { createEvent, createVenue } from '../../helpers/fixtures.js';
import { type Users, startWithRoles } from '../../helpers/users.js';

// GET /venues filters (docs/reference.md §8; D16): VenueArchiveSearchCest, VenueByEventArchiveCest,
// VenueByEmptyArchiveCest and VenueByUpcomingArchiveCest. Filters combine with AND.

let h: Harness;
let users: Users;
const ids: Record<string, number> = {};

const past = DateTime.utc().minus({ days: 30 }).toFormat('yyyy-MM-dd HH:mm:ss');

beforeAll(async () => {
  ({ h, users } = await startWithRoles());
  const blank = {
    address: '',
    city: '',
    country: '',
    state: '',
    stateprovince: '',
    zip: '',
    phone: '',
    website: '',
  };
  const venue = (name: string, fields: Parameters<typeof createVenue>[1] = {}) =>
    createVenue(h.db, { ...blank, name, slug: name.toLowerCase().replace(/\W+/g, '-'), ...fields });
  const upcoming = await venue('Upcoming Hall');
  const pastOnly = await venue('Past Hall');
  const draftOnly = await venue('Draft Hall');
  const pendingOnly = await venue('Pending Hall');
  const trashOnly = await venue('Trash Hall');
  const draftUpcoming = await venue('Draft Upcoming Hall');
  const empty = await venue('Empty Hall');
  const hidden = await venue('Hidden Hall', { status: 'draft' });
  await venue('Described', { description: 'A cosy foobar place' });
  await venue('Excerpted', { excerpt: 'Some foobar notes' });
  await venue('Addressed', { address: '12 Foobar Street' });
  await venue('Citied', { city: 'Foobarville' });
  await venue('Zipped', { zip: 'FB-123' });
  await venue('Phoned', { phone: '+1 555 FOOBAR' });
  await venue('Foobar Arena');
  const shared = await createEvent(h.db, { venueIds: [upcoming.id, hidden.id] });
  await createEvent(h.db, { start: past, venueIds: [pastOnly.id] });
  await createEvent(h.db, { status: 'draft', venueIds: [draftOnly.id] });
  await createEvent(h.db, { status: 'pending', venueIds: [pendingOnly.id] });
  await createEvent(h.db, { status: 'trash', venueIds: [trashOnly.id] });
  await createEvent(h.db, { status: 'draft', venueIds: [draftUpcoming.id] });
  const lonely = await createEvent(h.db, {});
  Object.assign(ids, {
    upcoming: upcoming.id,
    empty: empty.id,
    hidden: hidden.id,
    shared: shared.id,
    lonely: lonely.id,
  });
});
afterAll(() => h.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary response paths
async function names(query: string, auth?: { login: string; password: string }): Promise<any> {
  const request = h.http.get(`${API}/venues?per_page=50&${query}`);
  if (auth) request.auth(auth.login, auth.password);
  const res = await request;
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.venues.map((venue: { venue: string }) => venue.venue).sort();
}

describe('search', () => {
  it('matches the name, description, excerpt and address fields, any case', async () => {
    expect(await names('search=foobar')).toEqual(
      ['Addressed', 'Citied', 'Described', 'Excerpted', 'Foobar Arena', 'Phoned'].sort(),
    );
    expect(await names('search=FB-1')).toEqual(['Zipped']);
  });

  it('returns an empty list when nothing matches, and 400 for a non-string search', async () => {
    expect(await names('search=nothing-like-this')).toEqual([]);
    const res = await h.http.get(`${API}/venues?search[]=a`).expect(400);
    expect(res.body.data.params).toEqual({ search: 'Invalid parameter.' });
  });

  it('echoes the search in rest_url', async () => {
    const res = await h.http.get(`${API}/venues?search=foobar&per_page=2`).expect(200);
    expect(res.body.rest_url).toBe(`${API_ROOT}/venues/?page=1&per_page=2&search=foobar&status=publish`);
    expect(res.body.next_rest_url).toBe(`${API_ROOT}/venues/?per_page=2&search=foobar&status=publish&page=2`);
  });
});

describe('event', () => {
  it('lists the venues of the event, hiding non-public ones from anonymous readers', async () => {
    expect(await names(`event=${ids.shared}`)).toEqual(['Upcoming Hall']);
    expect(await names(`event=${ids.shared}`, users.editor)).toEqual(['Hidden Hall', 'Upcoming Hall']);
  });

  it('answers an event without venues with an empty list', async () => {
    expect(await names(`event=${ids.lonely}`)).toEqual([]);
  });

  it('400s an unknown or non-numeric event', async () => {
    expect((await h.http.get(`${API}/venues?event=999999`).expect(400)).body.data.params).toEqual({
      event: 'Invalid parameter.',
    });
    await h.http.get(`${API}/venues?event=foo`).expect(400);
  });
});

describe('has_events', () => {
  it('true: linked to an event that is not a draft or pending (past and trashed ones count)', async () => {
    expect(await names('has_events=true')).toEqual(['Past Hall', 'Trash Hall', 'Upcoming Hall']);
  });

  it('false: linked to none of those (a venue with only drafts counts as empty)', async () => {
    const empty = await names('has_events=false');
    expect(empty).toContain('Empty Hall');
    expect(empty).toContain('Draft Hall');
    expect(empty).toContain('Pending Hall');
    expect(empty).not.toContain('Upcoming Hall');
    expect(empty).not.toContain('Past Hall');
  });

  it('accepts WordPress booleans and echoes the filter', async () => {
    expect(await names('has_events=1')).toEqual(await names('has_events=true'));
    const res = await h.http.get(`${API}/venues?has_events=1`).expect(200);
    expect(res.body.rest_url).toBe(`${API_ROOT}/venues/?page=1&per_page=10&has_events=true&status=publish`);
    await h.http.get(`${API}/venues?has_events=maybe`).expect(400);
  });
});

describe('only_with_upcoming', () => {
  it('true: linked to an event starting now or later, among the statuses the viewer may list (D16)', async () => {
    expect(await names('only_with_upcoming=true')).toEqual(['Upcoming Hall']);
    expect(await names('only_with_upcoming=true', users.editor)).toEqual([
      'Draft Hall',
      'Draft Upcoming Hall',
      'Hidden Hall',
      'Pending Hall',
      'Upcoming Hall',
    ]);
  });

  it('false is no filter at all', async () => {
    expect(await names('only_with_upcoming=false')).toEqual(await names(''));
  });
});

describe('combined', () => {
  it('applies every filter (AND)', async () => {
    expect(await names('has_events=true&search=past')).toEqual(['Past Hall']);
    expect(await names(`has_events=false&event=${ids.shared}`)).toEqual([]);
    expect(await names(`only_with_upcoming=true&event=${ids.shared}&search=upcoming`)).toEqual([
      'Upcoming Hall',
    ]);
  });

  it('echoes every effective filter, so next_rest_url pages the same query (D2)', async () => {
    const res = await h.http
      .get(`${API}/venues?has_events=false&search=hall&only_with_upcoming=false&per_page=1`)
      .expect(200);
    expect(res.body.rest_url).toBe(
      `${API_ROOT}/venues/?page=1&per_page=1&search=hall&has_events=false&status=publish`,
    );
    const next = await h.http
      .get(new URL(res.body.next_rest_url).pathname + new URL(res.body.next_rest_url).search)
      .expect(200);
    expect(next.body.total).toBe(res.body.total);
  });
});
