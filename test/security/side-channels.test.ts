import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, startHarness } from '../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../helpers/fixtures.js';
import { createUser } from '../helpers/users.js';

// Side channels (#13): what a list shows of an event's links, and which events a filter on the
// fields a listing blanks can find, over viewers × paths × the event's protection, REST and GraphQL.
// "open" means the viewer sees the event's links; otherwise the answer must be the one a viewer gets
// for an event without links (password-protected) or for an unknown id (unreadable).

const PASSWORD = 'pw-side';
const SECRET = 'Sekrit9x';
const RANGE = 'start_date=2031-06-01&end_date=2031-06-30';

type State = 'public' | 'protected' | 'draft' | 'private';
type ViewerName = 'anonymous' | 'subscriber' | 'contributor' | 'author' | 'editor' | 'password';
const VIEWERS: ViewerName[] = ['anonymous', 'subscriber', 'contributor', 'author', 'editor', 'password'];
const STATES: State[] = ['public', 'protected', 'draft', 'private'];

let h: Harness;
const credentials: Partial<Record<ViewerName, [string, string]>> = {};
const fixture: Record<
  State,
  { event: number; venue: number; organizer: number; category: number; tag: number }
> = {} as never;

beforeAll(async () => {
  h = await startHarness();
  const owner = await createUser(h, 'editor');
  credentials.editor = [owner.login, owner.password];
  for (const role of ['subscriber', 'contributor', 'author'] as const) {
    const user = await createUser(h, role);
    credentials[role] = [user.login, user.password];
  }
  for (const state of STATES) {
    // Each event has links of its own (all published), so a list naming them tells only about it.
    const venue = await createVenue(h.db, { name: `${state} hall`, geoLat: 48.85, geoLng: 2.35 });
    const organizer = await createOrganizer(h.db, { name: `${state} org` });
    const category = await createTerm(h.db, 'tribe_events_cat', `${state} cat`);
    const tag = await createTerm(h.db, 'post_tag', `${state} tag`);
    const event = await createEvent(h.db, {
      title: `${state} event`,
      start: '2031-06-10 10:00:00',
      status: state === 'draft' ? 'draft' : state === 'private' ? 'private' : 'publish',
      venueIds: [venue.id],
      organizerIds: [organizer.id],
      termIds: [category.id, tag.id],
      fields: {
        authorId: owner.id,
        featured: true,
        description: `<p>${SECRET} ${state}</p>`,
        ...(state === 'protected' ? { password: PASSWORD } : {}),
      },
    });
    fixture[state] = {
      event: event.id,
      venue: venue.id,
      organizer: organizer.id,
      category: category.id,
      tag: tag.id,
    };
  }
});

afterAll(async () => {
  await h?.close();
});

/** Whether this viewer may see the event's links (the rule the paths must all follow). */
function opens(viewer: ViewerName, state: State): boolean {
  if (state === 'public') return true;
  if (state === 'protected') return viewer === 'editor' || viewer === 'password';
  return viewer === 'editor';
}

/** Lists of an event's links take no password: only the right to edit opens a protected one. */
const opensLinks = (viewer: ViewerName, state: State) =>
  opens(viewer === 'password' ? 'anonymous' : viewer, state);

/** Whether this viewer may know the event exists (else a list by `event=` answers as for a missing id). */
function knows(viewer: ViewerName, state: State): boolean {
  return state === 'public' || state === 'protected' || viewer === 'editor';
}

function get(path: string, viewer: ViewerName) {
  const request = h.http.get(`${API}${path}`);
  const auth = credentials[viewer];
  if (auth) request.auth(...auth);
  return request;
}

function graphql(query: string, viewer: ViewerName) {
  const request = h.http.post('/graphql').send({ query });
  const auth = credentials[viewer];
  if (auth) request.auth(...auth);
  return request;
}

const ofEvent = (path: string) =>
  [
    ['venues', `/venues?event=`, 'venues', 'venue'] as const,
    ['organizers', `/organizers?event=`, 'organizers', 'organizer'] as const,
    ['categories', `/categories?hide_empty=0&event=`, 'categories', 'category'] as const,
    ['tags', `/tags?hide_empty=0&event=`, 'tags', 'tag'] as const,
  ].filter(([name]) => name === path || path === '*');

describe.each(VIEWERS)('viewer %s', (viewer) => {
  describe.each(STATES)('event %s', (state) => {
    it.each(ofEvent('*'))('REST %s of the event', async (_name, path, key, link) => {
      const res = await get(`${path}${fixture[state].event}`, viewer);
      if (!knows(viewer, state)) {
        // The same answer as an unknown id: nothing says a draft or private event exists.
        const unknown = await get(`${path}987654`, viewer);
        expect(res.status).toBe(400);
        expect({ ...res.body, data: { ...res.body.data, request_id: 0 } }).toEqual({
          ...unknown.body,
          data: { ...unknown.body.data, request_id: 0 },
        });
        return;
      }
      expect(res.status).toBe(200);
      const listed = (res.body[key] as Array<{ id: number }>).map((item) => item.id);
      expect(listed).toEqual(opensLinks(viewer, state) ? [fixture[state][link]] : []);
    });

    it.each(ofEvent('*'))('GraphQL %s of the event', async (name, _path, _key, link) => {
      const res = await graphql(
        `{ ${name}(filter: { event: ${fixture[state].event}${name === 'categories' || name === 'tags' ? ', hideEmpty: false' : ''} }) { items { id: databaseId } } }`,
        viewer,
      );
      if (!knows(viewer, state)) {
        expect(res.body.data).toBeNull();
        expect(res.body.errors[0].extensions).toMatchObject({ code: 'rest_invalid_param' });
        return;
      }
      expect(res.body.errors).toBeUndefined();
      const listed = (res.body.data[name].items as Array<{ id: number }>).map((item) => item.id);
      expect(listed).toEqual(opensLinks(viewer, state) ? [fixture[state][link]] : []);
    });

    const password = viewer === 'password' ? `&password=${PASSWORD}` : '';
    const filters: Array<[string, () => string, () => string]> = [
      ['venue', () => `venue=${fixture[state].venue}`, () => `venues: [${fixture[state].venue}]`],
      [
        'organizer',
        () => `organizer=${fixture[state].organizer}`,
        () => `organizers: [${fixture[state].organizer}]`,
      ],
      [
        'categories',
        () => `categories=${fixture[state].category}`,
        () => `categories: ["${fixture[state].category}"]`,
      ],
      ['tags', () => `tags=${fixture[state].tag}`, () => `tags: ["${fixture[state].tag}"]`],
      ['featured', () => 'featured=1', () => 'featured: true'],
      ['search', () => `search=${SECRET}`, () => `search: "${SECRET}"`],
      ['geoloc', () => 'geoloc=1', () => 'geoloc: true'],
      [
        'near',
        () => 'geoloc_lat=48.85&geoloc_lng=2.35&geoloc_radius=5',
        () => 'near: { lat: 48.85, lng: 2.35, radius: 5 }',
      ],
    ];
    it.each(filters)('REST /events filtered by %s finds it only when open', async (_name, rest) => {
      const res = await get(`/events?${RANGE}&${rest()}${password}`, viewer);
      expect(res.status).toBe(200);
      const found = (res.body.events as Array<{ id: number }>).some((e) => e.id === fixture[state].event);
      // Drafts and private events are listed only for who may read them, and then open.
      expect(found).toBe(opens(viewer, state));
    });

    it.each(filters)('GraphQL events filtered by %s finds it only when open', async (_name, _rest, gql) => {
      const args = viewer === 'password' ? `, password: "${PASSWORD}"` : '';
      const res = await graphql(
        `{ events(filter: { startDate: "2031-06-01", endDate: "2031-06-30", ${gql()} }${args}) { items { id: databaseId } } }`,
        viewer,
      );
      expect(res.body.errors).toBeUndefined();
      const found = (res.body.data.events.items as Array<{ id: number }>).some(
        (e) => e.id === fixture[state].event,
      );
      expect(found).toBe(opens(viewer, state));
    });
  });
});

describe('linking unreadable venues and organizers', () => {
  it('a contributor cannot link a draft venue or organizer by id (as if it did not exist)', async () => {
    const draftVenue = await createVenue(h.db, { status: 'draft', name: 'Hidden draft hall' });
    const draftOrganizer = await createOrganizer(h.db, { status: 'private', name: 'Hidden org' });
    const contributor = credentials.contributor!;
    for (const [param, id] of [
      ['venue', draftVenue.id],
      ['organizer', draftOrganizer.id],
    ] as const) {
      const res = await h.http
        .post(`${API}/events`)
        .auth(...contributor)
        .send({
          title: 'Sneaky',
          start_date: '2031-06-11 10:00:00',
          end_date: '2031-06-11 11:00:00',
          [param]: id,
        });
      expect(res.status, param).toBe(400);
      expect(res.body.data.params).toHaveProperty(param);
    }
    // An editor may read them, so may link them.
    await h.http
      .post(`${API}/events`)
      .auth(...credentials.editor!)
      .send({
        title: 'Linked by an editor',
        start_date: '2031-06-12 10:00:00',
        end_date: '2031-06-12 11:00:00',
        venue: draftVenue.id,
        organizer: draftOrganizer.id,
        status: 'publish',
      })
      .expect(201);
  });

  it('a published event never shows a linked venue or organizer the viewer may not read', async () => {
    const draftVenue = await createVenue(h.db, { status: 'draft', name: 'Unpublished hall' });
    const privateOrganizer = await createOrganizer(h.db, { status: 'private', name: 'Private org' });
    const event = await createEvent(h.db, {
      title: 'Public with hidden links',
      start: '2031-06-13 10:00:00',
      venueIds: [draftVenue.id],
      organizerIds: [privateOrganizer.id],
    });
    for (const path of [`/events/${event.id}`, `/events?include=${event.id}`]) {
      const res = await get(path, 'anonymous').expect(200);
      const text = JSON.stringify(res.body);
      expect(text).not.toContain('Unpublished hall');
      expect(text).not.toContain('Private org');
    }
    const gql = await graphql(
      `{ event(id: ${event.id}) { venues { name } organizers { name } } }`,
      'anonymous',
    );
    expect(gql.body.data.event).toEqual({ venues: [], organizers: [] });
    const asEditor = await get(`/events/${event.id}`, 'editor').expect(200);
    expect(JSON.stringify(asEditor.body)).toContain('Unpublished hall');
  });
});
