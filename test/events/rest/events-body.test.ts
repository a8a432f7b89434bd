import type { OpenAPIV3 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FieldDeclaration, declaredEntries } from '../../../src/events/model/event-fields.js';
import { API, type Harness } from '../../helpers/harness.js';
import { createOrganizer, createTerm, createVenue } from '../../helpers/fixtures.js';
import { type Users, startWithRoles } from '../../helpers/users.js';

// The event body `/doc` and the namespace index document is the body the routes read: every
// documented field is written by a valid value and refused, by its name, for a bad one; the required
// ones are those a create misses; an undocumented field is ignored.

let h: Harness;
let users: Users;
let doc: OpenAPIV3.Document;

const REQUIRED = { title: 'Body event', start_date: '2031-01-15 18:00:00', end_date: '2031-01-15 21:00:00' };

beforeAll(async () => {
  ({ h, users } = await startWithRoles());
  doc = (await h.http.get(`${API}/doc`).expect(200)).body as OpenAPIV3.Document;
});
afterAll(() => h.close());

const send = (method: 'post' | 'put', path: string, body: object) =>
  h.http[method](`${API}${path}`).auth(users.administrator.login, users.administrator.password).send(body);

/** The JSON body schema `/doc` gives an operation. */
function documentedBody(path: string, method: 'post' | 'put'): OpenAPIV3.SchemaObject {
  const operation = doc.paths[path]![method]!;
  const body = operation.requestBody as OpenAPIV3.RequestBodyObject;
  return body.content['application/json']!.schema as OpenAPIV3.SchemaObject;
}

/** Bad values, one per body field (each refused on its own). */
const BAD: Record<string, unknown> = {
  author: 'x',
  date: 'whenever',
  date_utc: 'never',
  title: ' ',
  description: {},
  slug: '!!!',
  excerpt: [],
  status: 'kinda_thinking_about_it',
  timezone: 'Mars/Olympus',
  all_day: 'maybe',
  start_date: 'before my birthday',
  end_date: 'soonish',
  image: 2_147_483_648,
  cost: 'Donation',
  website: 'foo',
  show_map: 'maybe',
  show_map_link: 'perhaps',
  hide_from_listings: 'sometimes',
  sticky: 'glue',
  featured: 'maybe',
  event_status: 'rescheduled',
  event_status_reason: {},
  attendance_mode: 'hybrid',
  online_url: 'javascript:alert(1)',
  categories: [{ slug: 'x' }],
  tags: [true],
  venue: 'Main Hall',
  organizer: '1,x',
  post_parent: -1,
  recurrence: ['RRULE:FREQ=MINUTELY'],
  recurrence_pattern: { frequency: 'MINUTELY' },
  scope: 'sometimes',
  password: {},
};

const goodValue = (field: FieldDeclaration): unknown =>
  field.kind === 'flag'
    ? 'yes'
    : field.kind === 'url'
      ? 'https://declared.example'
      : field.kind === 'choice'
        ? field.values.at(-1)
        : field.example;
const badValue = (field: FieldDeclaration): unknown =>
  field.kind === 'text' ? 'x'.repeat(field.maxLength + 1) : field.kind === 'url' ? 'no url' : 'never-this';

describe('the event body: documented as read', () => {
  it('documents the required fields a create misses', async () => {
    const schema = documentedBody('/events', 'post');
    const res = await send('post', '/events', {}).expect(400);
    expect(res.body.code).toBe('rest_missing_callback_param');
    expect([...res.body.data.params].sort()).toEqual([...(schema.required ?? [])].sort());
  });

  it('writes every documented field, refuses each by its name, and ignores what is not documented', async () => {
    const created = (await send('post', '/events', REQUIRED).expect(201)).body as { id: number };
    const parent = (await send('post', '/events', { ...REQUIRED, title: 'Parent' }).expect(201)).body as {
      id: number;
    };
    const venue = await createVenue(h.db);
    const organizer = await createOrganizer(h.db);
    const category = await createTerm(h.db, 'tribe_events_cat', 'Body Category');
    const tag = await createTerm(h.db, 'post_tag', 'Body Tag');
    const good: Record<string, unknown> = {
      author: users.administrator.id,
      date: '2026-01-01 10:00:00',
      date_utc: '2026-01-01 09:00:00',
      title: 'Body event, renamed',
      description: 'Described',
      slug: 'body-event-slug',
      excerpt: 'Short',
      status: 'draft',
      timezone: 'Europe/Paris',
      all_day: 'yes',
      start_date: '2031-02-01 10:00:00',
      end_date: '2031-02-01 12:00:00',
      image: '',
      cost: '$5',
      website: 'https://body.example',
      show_map: 1,
      show_map_link: '0',
      hide_from_listings: 'no',
      sticky: true,
      featured: 'on',
      event_status: 'canceled',
      event_status_reason: 'Rain',
      attendance_mode: 'mixed',
      online_url: 'https://meet.example/body',
      categories: [category.id],
      tags: 'Body Tag',
      venue: venue.id,
      organizer: String(organizer.id),
      post_parent: parent.id,
      // A pattern makes the event a series, `[]` ends it; `scope` matters only on an occurrence (test/series/).
      recurrence_pattern: { frequency: 'DAILY', count: 2 },
      recurrence: [],
      scope: 'this',
      password: 'secret',
    };
    // A declared field without a hand-picked value here gets one of its kind (`events/model/event-fields.ts`).
    for (const [key, , value] of declaredEntries('body', (_name, field) => goodValue(field)))
      good[key] ??= value;
    for (const [key, , value] of declaredEntries('body', (_name, field) => badValue(field)))
      BAD[key] ??= value;
    const path = `/events/${created.id}`;
    const documented = documentedBody('/events/{id}', 'post').properties!;
    expect(Object.keys(good).sort()).toEqual(Object.keys(documented).sort());
    expect(Object.keys(BAD).sort()).toEqual(Object.keys(documented).sort());

    for (const [name, value] of Object.entries(good)) {
      const res = await send('post', path, { [name]: value });
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(200);
    }
    const after = await h.db.event.findUniqueOrThrow({
      where: { id: created.id },
      include: { venues: true, organizers: true, terms: true },
    });
    expect(after).toMatchObject({
      title: 'Body event, renamed',
      slug: 'body-event-slug',
      timezone: 'Europe/Paris',
      allDay: true,
      website: 'https://body.example',
      featured: true,
      sticky: true,
      eventStatus: 'canceled',
      eventStatusReason: 'Rain',
      postParentId: parent.id,
      password: 'secret',
      authorId: users.administrator.id,
      publishedAt: new Date('2026-01-01T09:00:00Z'),
    });
    expect(after.venues.map((link) => link.venueId)).toEqual([venue.id]);
    expect(after.organizers.map((link) => link.organizerId)).toEqual([organizer.id]);
    expect(after.terms.map((link) => link.termId).sort()).toEqual([category.id, tag.id].sort());

    for (const [name, value] of Object.entries(BAD)) {
      const res = await send('post', path, { [name]: value });
      expect(res.status, name).toBe(400);
      expect(res.body.code, name).toBe('rest_invalid_param');
      expect(Object.keys(res.body.data.params), name).toEqual([name]);
    }

    const ignored = { json_ld: {}, utc_start_date: 'x', venue_name: 'x', not_a_field: 1 };
    for (const name of Object.keys(ignored)) expect(documented).not.toHaveProperty(name);
    await send('put', path, ignored).expect(200);
    const unchanged = await h.db.event.findUniqueOrThrow({ where: { id: created.id } });
    expect({ ...unchanged, modifiedAt: null, revision: null }).toEqual({
      ...after,
      venues: undefined,
      organizers: undefined,
      terms: undefined,
      modifiedAt: null,
      revision: null,
    });
  });
});
