import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness } from './helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from './helpers/fixtures.js';
import { type Credentials, type Users, startWithRoles } from './helpers/users.js';

// What an editor's text edit costs in SQL statements (#51, "Cheaper writes"), counted as the harness
// sees them (`h.queries`: every statement the database client sends, COMMIT included; neither driver
// adapter reports its BEGIN). Authentication (one statement once the password is remembered), the
// REST `Allow` check, the event with its links and the records its answer shows, the update, the
// change log, COMMIT and (REST) the event's ticket types its answer sums: at most 8 on SQLite and
// PostgreSQL. The answer is made from what the write
// read and the row it returned, so each test also checks that it is what a fresh read shows.

let h: Harness;
let users: Users;
let editor: Credentials;
let eventId: number;
let venueId: number;

beforeAll(async () => {
  ({ h, users } = await startWithRoles());
  editor = users.editor;
  const image = await h.db.media.create({ data: { url: 'http://example.com/a.jpg', width: 10, height: 10 } });
  const venue = await createVenue(h.db, { imageId: image.id });
  venueId = venue.id;
  const organizers = [await createOrganizer(h.db), await createOrganizer(h.db, { imageId: image.id })];
  const terms = [
    await createTerm(h.db, 'tribe_events_cat'),
    await createTerm(h.db, 'tribe_events_cat'),
    await createTerm(h.db, 'post_tag'),
  ];
  eventId = (
    await createEvent(h.db, {
      venueIds: [venue.id],
      organizerIds: organizers.map((organizer) => organizer.id),
      termIds: terms.map((term) => term.id),
      fields: { imageId: image.id, description: 'About it', excerpt: 'In short' },
    })
  ).id;
  // Signed in once before counting: the first check of a password (argon2) reads its candidates and
  // records its use in the background; afterwards it is remembered.
  await h.http.get(`${API}/events/${eventId}`).auth(editor.login, editor.password).expect(200);
  const used = { userId: editor.id, lastUsedAt: { not: null } };
  for (let wait = 0; !(await h.db.applicationPassword.findFirst({ where: used })); wait++) {
    if (wait > 100) throw new Error('the password’s use was never recorded');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
});
afterAll(() => h.close());

async function statementsOf<T>(run: () => Promise<T>): Promise<{ value: T; statements: string[] }> {
  h.queries.length = 0;
  const value = await run();
  return { value, statements: [...h.queries] };
}

const restEdit = (title: string) =>
  h.http.post(`${API}/events/${eventId}`).auth(editor.login, editor.password).send({ title }).expect(200);

/**
 * The event as a fresh GET shows it in the representation writes answer in: the list's (a single
 * event adds JSON-LD to it and to its venues and organizers).
 */
async function restRead(): Promise<unknown> {
  const res = await h.http
    .get(`${API}/events?include=${eventId}`)
    .auth(editor.login, editor.password)
    .expect(200);
  expect(res.body.events).toHaveLength(1);
  return res.body.events[0];
}

describe('an editor’s REST text edit (POST /events/{id} with a title)', () => {
  it('sends at most 8 statements, and answers as a fresh GET shows the event', async () => {
    const { value: res, statements } = await statementsOf(() => restEdit('Edited over REST'));
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(8);
    expect(res.body.title).toBe('Edited over REST');
    expect(res.body).toEqual(await restRead());
    // The answer shows the event's links with their records, as read in the write.
    expect(res.body.venue).toMatchObject({ id: venueId, image: expect.any(Object) });
    expect(res.body.organizer).toHaveLength(2);
    expect(res.body.categories).toHaveLength(2);
    expect(res.body.tags).toHaveLength(1);
  });

  it('shows the linked records as they are at the write, not as an earlier write read them', async () => {
    await restEdit('Before the venue moved');
    await h.db.venue.update({ where: { id: venueId }, data: { name: 'Renamed venue', city: 'Elsewhere' } });
    const { value: res, statements } = await statementsOf(() => restEdit('After the venue moved'));
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(8);
    expect(res.body.venue).toMatchObject({ venue: 'Renamed venue', city: 'Elsewhere' });
    expect(res.body).toEqual(await restRead());
  });

  it('still reads the answer again when the edit changes more than the event’s own columns', async () => {
    const res = await h.http
      .post(`${API}/events/${eventId}`)
      .auth(editor.login, editor.password)
      .send({ title: 'Without its tags', tags: [] })
      .expect(200);
    expect(res.body.tags).toEqual([]);
    expect(res.body).toEqual(await restRead());
  });
});

const FIELDS = `databaseId title description excerpt slug status modifiedAt startDate endDate
  image { url } venues { databaseId name city image { url } } organizers { databaseId name }
  categories { databaseId name count } tags { databaseId name count }`;

async function graphql(query: string, variables: Record<string, unknown> = {}) {
  const res = await h.http
    .post('/graphql')
    .auth(editor.login, editor.password)
    .send({ query, variables })
    .expect(200);
  expect(res.body.errors).toBeUndefined();
  return res.body.data as Record<string, Record<string, unknown>>;
}

describe('an editor’s GraphQL title edit (updateEvent)', () => {
  const UPDATE = `mutation($id: Int!, $title: String!) { updateEvent(id: $id, input: { title: $title }) { ${FIELDS} } }`;
  const READ = `query($id: Int!) { event(id: $id) { ${FIELDS} } }`;

  it('sends at most 8 statements, and answers as a fresh read shows the event', async () => {
    const { value: data, statements } = await statementsOf(() =>
      graphql(UPDATE, { id: eventId, title: 'Edited over GraphQL' }),
    );
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(8);
    expect(data.updateEvent!.title).toBe('Edited over GraphQL');
    expect(data.updateEvent).toEqual((await graphql(READ, { id: eventId })).event);
  });

  it('selecting only its id, sends at most 8 statements too', async () => {
    const { value: data, statements } = await statementsOf(() =>
      graphql(
        `
          mutation ($id: Int!) {
            updateEvent(id: $id, input: { title: "Only the id" }) {
              databaseId
              title
              modifiedAt
            }
          }
        `,
        { id: eventId },
      ),
    );
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(8);
    const { event } = await graphql(
      `
        query ($id: Int!) {
          event(id: $id) {
            databaseId
            title
            modifiedAt
          }
        }
      `,
      {
        id: eventId,
      },
    );
    expect(data.updateEvent).toEqual(event);
    expect(event!.title).toBe('Only the id');
  });
});
