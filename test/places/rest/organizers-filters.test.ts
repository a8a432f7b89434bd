import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, API_ROOT, type Harness } from '../../helpers/harness.js';
import { createEvent, createOrganizer } from '../../helpers/fixtures.js';
import { type Users, startWithRoles } from '../../helpers/users.js';

// GET /organizers filters (docs/reference.md §8; D16): OrganizerArchiveSearchCest,
// OrganizerByEventArchiveCest, OrganizerByEmptyArchiveCest and OrganizerByUpcomingArchiveCest.

let h: Harness;
let users: Users;
const ids: Record<string, number> = {};

beforeAll(async () => {
  ({ h, users } = await startWithRoles());
  const organizer = (name: string, fields: Parameters<typeof createOrganizer>[1] = {}) =>
    createOrganizer(h.db, {
      name,
      slug: name.toLowerCase().replace(/\W+/g, '-'),
      phone: '',
      website: '',
      email: '',
      ...fields,
    });
  const upcoming = await organizer('Upcoming Org');
  const past = await organizer('Past Org');
  const draftOnly = await organizer('Draft Org');
  const empty = await organizer('Empty Org');
  const hidden = await organizer('Hidden Org', { status: 'pending' });
  await organizer('Phone Org', { phone: '+33 QUUX' });
  await organizer('Mail Org', { email: 'quux@example.com' });
  await organizer('Web Org', { website: 'https://quux.example' });
  await organizer('Described Org', { description: 'All about Quux' });
  const shared = await createEvent(h.db, { organizerIds: [upcoming.id, hidden.id] });
  await createEvent(h.db, {
    start: DateTime.utc().minus({ days: 3 }).toFormat('yyyy-MM-dd HH:mm:ss'),
    organizerIds: [past.id],
  });
  await createEvent(h.db, { status: 'draft', organizerIds: [draftOnly.id] });
  const lonely = await createEvent(h.db, {});
  Object.assign(ids, { shared: shared.id, lonely: lonely.id, empty: empty.id });
});
afterAll(() => h.close());

async function names(query: string, auth?: { login: string; password: string }): Promise<string[]> {
  const request = h.http.get(`${API}/organizers?per_page=50&${query}`);
  if (auth) request.auth(auth.login, auth.password);
  const res = await request;
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.organizers.map((organizer: { organizer: string }) => organizer.organizer).sort();
}

describe('organizer filters', () => {
  it('search: name, description, phone, e-mail and website, any case; nothing → []', async () => {
    expect(await names('search=quux')).toEqual(['Described Org', 'Mail Org', 'Phone Org', 'Web Org']);
    expect(await names('search=zzz-none')).toEqual([]);
  });

  it('event: the organizers of that event (non-public ones for editors); 400 when unknown', async () => {
    expect(await names(`event=${ids.shared}`)).toEqual(['Upcoming Org']);
    expect(await names(`event=${ids.shared}`, users.editor)).toEqual(['Hidden Org', 'Upcoming Org']);
    expect(await names(`event=${ids.lonely}`)).toEqual([]);
    expect((await h.http.get(`${API}/organizers?event=999999`).expect(400)).body.code).toBe(
      'rest_invalid_param',
    );
  });

  it('has_events: true → linked to a non-draft event; false → the others (drafts-only counts as empty)', async () => {
    expect(await names('has_events=true')).toEqual(['Past Org', 'Upcoming Org']);
    const withoutEvents = await names('has_events=false');
    expect(withoutEvents).toEqual(expect.arrayContaining(['Draft Org', 'Empty Org']));
    expect(withoutEvents).not.toContain('Past Org');
  });

  it('only_with_upcoming: true → an event starting now or later (drafts only for editors); false → no filter', async () => {
    expect(await names('only_with_upcoming=true')).toEqual(['Upcoming Org']);
    expect(await names('only_with_upcoming=true', users.editor)).toEqual([
      'Draft Org',
      'Hidden Org',
      'Upcoming Org',
    ]);
    expect(await names('only_with_upcoming=0')).toEqual(await names(''));
  });

  it('combines filters with AND and echoes them', async () => {
    expect(await names('has_events=true&only_with_upcoming=true')).toEqual(['Upcoming Org']);
    const res = await h.http
      .get(`${API}/organizers?search=org&event=${ids.shared}&only_with_upcoming=1`)
      .expect(200);
    expect(res.body.rest_url).toBe(
      `${API_ROOT}/organizers/?page=1&per_page=10&search=org&event=${ids.shared}&only_with_upcoming=true&status=publish`,
    );
  });
});
