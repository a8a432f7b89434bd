import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent, createTerm, createVenue } from '../../helpers/fixtures.js';
import { createUser } from '../../helpers/users.js';

// Contract details a TEC client notices (#14), each against WordPress's or TEC's own rule.

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

describe('terms embedded in an event', () => {
  it('come ordered by name, as wp_get_object_terms returns them, not in link order', async () => {
    const zeta = await createTerm(h.db, 'tribe_events_cat', 'Zeta');
    const alpha = await createTerm(h.db, 'tribe_events_cat', 'alpha');
    const mid = await createTerm(h.db, 'tribe_events_cat', 'Mid');
    const tagB = await createTerm(h.db, 'post_tag', 'b-tag');
    const tagA = await createTerm(h.db, 'post_tag', 'A-tag');
    const event = await createEvent(h.db, { termIds: [zeta.id, alpha.id, tagB.id, mid.id, tagA.id] });
    const { body } = await h.http.get(`${API}/events/${event.id}`).expect(200);
    expect(body.categories.map((t: { name: string }) => t.name)).toEqual(['alpha', 'Mid', 'Zeta']);
    expect(body.tags.map((t: { name: string }) => t.name)).toEqual(['A-tag', 'b-tag']);
  });
});

describe('json_ld (TEC Tribe__JSON_LD__Place / __Event)', () => {
  it('leaves empty address parts out', async () => {
    const venue = await createVenue(h.db, {
      name: 'Sparse',
      address: '',
      zip: '',
      state: '',
      stateprovince: '',
    });
    const { body } = await h.http.get(`${API}/venues/${venue.id}`).expect(200);
    expect(body.json_ld.address).toEqual({
      '@type': 'PostalAddress',
      addressLocality: 'Springfield',
      addressCountry: 'United States',
    });
  });

  it('is absent for a password-protected event, even with the right password', async () => {
    const event = await createEvent(h.db, { title: 'Locked JSON-LD', fields: { password: 'pw' } });
    const { body } = await h.http.get(`${API}/events/${event.id}?password=pw`).expect(200);
    expect(body.title).toBe('Locked JSON-LD');
    expect(body).not.toHaveProperty('json_ld');
    const open = await createEvent(h.db, { title: 'Open JSON-LD' });
    expect((await h.http.get(`${API}/events/${open.id}`).expect(200)).body.json_ld['@type']).toBe('Event');
  });

  it('describes a venue with its rendered description, escaped, and TEC’s trailing \\n', async () => {
    const venue = await createVenue(h.db, { name: 'Acme Hall', description: 'Acme description' });
    const { body } = await h.http.get(`${API}/venues/${venue.id}`).expect(200);
    expect(body.description).toBe('<p>Acme description</p>');
    expect(body.json_ld.description).toBe('&lt;p&gt;Acme description&lt;/p&gt;\\n');
  });
});

describe('typography (wptexturize) on what REST renders', () => {
  it('titles, descriptions and excerpts; GraphQL keeps the raw text', async () => {
    const event = await createEvent(h.db, {
      title: `Bob's "Quoted" Party`,
      fields: { description: '<p>Wait... -- then <code>x--y</code></p>', excerpt: 'Dusk--dawn' },
    });
    const { body } = await h.http.get(`${API}/events/${event.id}`).expect(200);
    expect(body.title).toBe('Bob&#8217;s &#8220;Quoted&#8221; Party');
    expect(body.description).toBe('<p>Wait&#8230; &#8212; then <code>x--y</code></p>');
    expect(body.excerpt).toBe('Dusk&#8211;dawn');
    const gql = await h.http.post('/graphql').send({ query: `{ event(id: ${event.id}) { title } }` });
    expect(gql.body.data.event.title).toBe(`Bob's "Quoted" Party`);
  });
});

describe('slugs as wp_insert_post sets them', () => {
  let editor: { login: string; password: string };
  beforeAll(async () => {
    editor = await createUser(h, 'editor');
  });
  const body = (extra: object) => ({
    title: 'Slug Rules',
    start_date: '2031-02-01 10:00:00',
    end_date: '2031-02-01 11:00:00',
    ...extra,
  });
  const post = (path: string, payload: object) =>
    h.http.post(`${API}${path}`).auth(editor.login, editor.password).send(payload);

  it('a draft or pending event without a slug has "" until it is published', async () => {
    const first = await post('/events', body({ status: 'draft' })).expect(201);
    const second = await post('/events', body({ status: 'pending' })).expect(201);
    expect([first.body.slug, second.body.slug]).toEqual(['', '']);
    const published = await post(`/events/${first.body.id}`, { status: 'publish' }).expect(200);
    expect(published.body.slug).toBe('slug-rules');
    const explicit = await post('/events', body({ status: 'draft', slug: 'kept-slug' })).expect(201);
    expect(explicit.body.slug).toBe('kept-slug');
  });

  it('trashing renames the slug <slug>__trashed, freeing it; leaving the trash gives it back', async () => {
    const event = await post('/events', body({ title: 'Trash Me' })).expect(201);
    expect(event.body.slug).toBe('trash-me');
    const trashed = await h.http
      .delete(`${API}/events/${event.body.id}`)
      .auth(editor.login, editor.password)
      .expect(200);
    expect(trashed.body.slug).toBe('trash-me__trashed');
    const successor = await post('/events', body({ title: 'Trash Me' })).expect(201);
    expect(successor.body.slug).toBe('trash-me');
    const restored = await post(`/events/${event.body.id}`, { status: 'publish' }).expect(200);
    expect(restored.body.slug).toBe('trash-me-2');
    const draft = await post('/events', body({ title: 'Empty Trash', status: 'draft' })).expect(201);
    const emptyTrashed = await h.http
      .delete(`${API}/events/${draft.body.id}`)
      .auth(editor.login, editor.password)
      .expect(200);
    expect(emptyTrashed.body.slug).toBe('__trashed');
  });
});

describe('D20: an update changes only what it sends', () => {
  it('keeps cost and website when omitted, clears a venue description sent as ""', async () => {
    const editor = await createUser(h, 'editor');
    const auth = (request: ReturnType<typeof h.http.post>) => request.auth(editor.login, editor.password);
    const created = await auth(h.http.post(`${API}/events`))
      .send({
        title: 'Keeps',
        start_date: '2031-03-01 10:00:00',
        end_date: '2031-03-01 11:00:00',
        cost: '15',
        website: 'https://example.org/keeps',
      })
      .expect(201);
    const updated = await auth(h.http.post(`${API}/events/${created.body.id}`))
      .send({ title: 'Keeps, renamed' })
      .expect(200);
    expect(updated.body).toMatchObject({ cost: created.body.cost, website: 'https://example.org/keeps' });
    const venue = await createVenue(h.db, { name: 'Described', description: 'Some words', state: 'IL' });
    const cleared = await auth(h.http.post(`${API}/venues/${venue.id}`))
      .send({ description: '' })
      .expect(200);
    expect(cleared.body).not.toHaveProperty('description');
    expect(cleared.body.stateprovince).toBe('IL');
  });
});
