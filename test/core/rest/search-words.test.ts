import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness } from '../../helpers/harness.js';
import { createEvent, createOrganizer, createVenue } from '../../helpers/fixtures.js';
import { type Credentials, type Users, basicAuth, startWithRoles } from '../../helpers/users.js';

// `search` on events, venues and organizers, REST and GraphQL alike, as WordPress reads it (#30): every
// word (or "quoted phrase") must match one of the searched fields, in any order; `-word` excludes; a
// protected record the caller cannot unlock is never matched, whichever word would match it (D21).

let h: Harness;
let users: Users;

const blankVenue = { address: '', city: '', country: '', state: '', stateprovince: '', zip: '', phone: '' };

beforeAll(async () => {
  ({ h, users } = await startWithRoles());
  await createVenue(h.db, { ...blankVenue, name: 'Le Marais Hall', address: '100, Avenue du Temple' });
  await createVenue(h.db, { ...blankVenue, name: 'Temple Bar', city: 'Dublin' });
  await createVenue(h.db, { ...blankVenue, name: 'Avenue Club', description: 'Near the old temple gate' });
  await createVenue(h.db, { ...blankVenue, name: 'Avenue Studio' });
  await createVenue(h.db, {
    ...blankVenue,
    name: 'Hidden Avenue',
    address: 'Temple Square',
    password: 'sesame',
  });
  await createOrganizer(h.db, { name: 'Rive Gauche Ensemble', email: 'hello@rive.example', phone: '' });
  await createOrganizer(h.db, { name: 'Ensemble Nord', email: 'nord@example.com', phone: '' });
  await createOrganizer(h.db, { name: 'Gauche Only', email: 'gauche@example.com', phone: '' });
  await createEvent(h.db, {
    title: 'Night Market',
    start: '2033-05-02 18:00:00',
    fields: { description: 'Street food under the avenue lights' },
  });
  await createEvent(h.db, {
    title: 'Avenue Parade',
    start: '2033-05-03 18:00:00',
    fields: { description: 'A parade by night' },
  });
  await createEvent(h.db, { title: 'Morning Run', start: '2033-05-04 08:00:00' });
  await createEvent(h.db, {
    title: 'Secret Night Avenue',
    start: '2033-05-05 18:00:00',
    fields: { password: 'sesame' },
  });
});
afterAll(() => h.close());

const NAME_KEY = { venues: 'venue', organizers: 'organizer', events: 'title' } as const;

const names = async (path: string, as?: Credentials) => {
  const request = h.http.get(`${API}/${path}`);
  if (as) request.auth(as.login, as.password);
  const res = await request.expect(200);
  const list = path.split('?')[0] as keyof typeof NAME_KEY;
  return (res.body[list] as Array<Record<string, string>>).map((item) => item[NAME_KEY[list]]).sort();
};

const venues = (search: string, as?: Credentials) => names(`venues?search=${encodeURIComponent(search)}`, as);
const organizers = (search: string) => names(`organizers?search=${encodeURIComponent(search)}`);
const events = (search: string, as?: Credentials) =>
  names(`events?start_date=2033-05-01&end_date=2033-05-31&search=${encodeURIComponent(search)}`, as);

describe('venues', () => {
  it('matches every word, in any order, each in any searched field', async () => {
    expect(await venues('temple avenue')).toEqual(['Avenue Club', 'Le Marais Hall']);
    expect(await venues('Avenue Temple')).toEqual(['Avenue Club', 'Le Marais Hall']);
    expect(await venues('temple')).toEqual(['Avenue Club', 'Le Marais Hall', 'Temple Bar']);
  });

  it('keeps a quoted phrase together', async () => {
    expect(await venues('"avenue du temple"')).toEqual(['Le Marais Hall']);
    expect(await venues('"temple avenue"')).toEqual([]);
  });

  it('excludes a word with a leading dash, and ignores stopwords', async () => {
    expect(await venues('temple -avenue')).toEqual(['Temple Bar']);
    expect(await venues('avenue -temple')).toEqual(['Avenue Studio']);
    expect(await venues('the temple of avenue')).toEqual(['Avenue Club', 'Le Marais Hall']);
  });

  it('never matches a protected venue for those who may not edit it, by any word (D21)', async () => {
    expect(await venues('temple square')).toEqual([]);
    expect(await venues('temple square', users.subscriber)).toEqual([]);
    expect(await venues('temple square', users.editor)).toEqual(['Hidden Avenue']);
  });
});

describe('organizers', () => {
  it('matches every word in any field and order; a dash excludes', async () => {
    expect(await organizers('ensemble gauche')).toEqual(['Rive Gauche Ensemble']);
    expect(await organizers('gauche rive.example')).toEqual(['Rive Gauche Ensemble']);
    expect(await organizers('gauche -ensemble')).toEqual(['Gauche Only']);
  });
});

describe('events', () => {
  it('matches every word in the title, excerpt or description; a dash excludes', async () => {
    expect(await events('avenue night')).toEqual(['Avenue Parade', 'Night Market']);
    expect(await events('night -parade')).toEqual(['Night Market']);
    expect(await events('-avenue')).toEqual(['Morning Run']);
  });

  it('never matches a protected event the caller cannot unlock, by any word (D21)', async () => {
    expect(await events('secret')).toEqual([]);
    expect(await events('night secret', users.subscriber)).toEqual([]);
    expect(await events('night secret', users.editor)).toEqual(['Secret Night Avenue']);
  });

  it('searches more than nine terms as one phrase, so the query stays bounded', async () => {
    h.queries.length = 0;
    expect(await events('avenue night a1 b2 c3 d4 e5 f6 g7 h8')).toEqual([]);
    const searches = h.queries.filter((sql) => /\b(I?LIKE|MATCH)\b/.test(sql));
    expect(searches.length).toBeGreaterThan(0);
    // One term: over three columns, three comparisons per statement, not thirty; or one phrase
    // asked of SQLite's trigram index.
    const count = (sql: string, pattern: RegExp) => sql.match(pattern)?.length ?? 0;
    for (const sql of searches)
      expect([
        [3, 0],
        [0, 1],
      ]).toContainEqual([count(sql, /\bI?LIKE\b/g), count(sql, /\bMATCH\b/g)]);
  });
});

describe('GraphQL shares the same search', () => {
  it('venues, organizers and events', async () => {
    const res = await h.http
      .post('/graphql')
      .set('Authorization', basicAuth(users.subscriber))
      .send({
        query: `{
          venues(filter: { search: "temple avenue" }) { items { name } }
          organizers(filter: { search: "gauche -ensemble" }) { items { name } }
          events(filter: { search: "avenue night", startDate: "2033-05-01", endDate: "2033-05-31" }) { items { title } }
        }`,
      })
      .expect(200);
    expect(res.body.errors).toBeUndefined();
    const sorted = (items: Array<{ name?: string; title?: string }>) =>
      items.map((item) => item.name ?? item.title).sort();
    expect(sorted(res.body.data.venues.items)).toEqual(['Avenue Club', 'Le Marais Hall']);
    expect(sorted(res.body.data.organizers.items)).toEqual(['Gauche Only']);
    expect(sorted(res.body.data.events.items)).toEqual(['Avenue Parade', 'Night Market']);
  });
});
